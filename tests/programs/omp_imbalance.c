/* OpenMP test program with a known imbalance across threads (test_openmp): REGIONS parallel
 * regions of THREADS threads in imbalanced(); thread i spins until it has used (i + 1) x UNIT_MS
 * of its own CPU time, so the threads finish one after the other and wait for the last one in the
 * region's closing barrier. Each thread measures its work (CLOCK_MONOTONIC from the start of the
 * region's body to the end of its spin, at which it arrives at the closing barrier), and the
 * encountering thread the region's wall time (just before and after the construct). Prints:
 *   pragma_line L                      the source line of the parallel construct
 *   thread I work_ms W tid T           each thread's work, summed over the regions, and its
 *                                      thread id (the team's threads are the same each time)
 *   regions R threads N                what ran
 *   imbalance_pct P                    100 x sum(max work - mean work) / sum(max work)
 *   barrier_pct B                      100 x sum over threads(region end - its work's end) /
 *                                      sum(N x wall): the threads' share in the closing barrier
 * Built with clang -fopenmp (LLVM libomp, OMPT) or gcc -fopenmp (libgomp) by the test. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define THREADS 3
#define REGIONS 8
#define UNIT_MS 10

static double now_ms(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Spin until the calling thread has used ms of CPU time. */
static void spin_cpu(double ms)
{
    double start = now_ms(CLOCK_THREAD_CPUTIME_ID);
    volatile unsigned long x = 0;

    while (now_ms(CLOCK_THREAD_CPUTIME_ID) - start < ms)
        for (int i = 0; i < 10000; i++)
            x += (unsigned long)i;
}

static int tids[THREADS];
static double work_ms[THREADS], sum_max_ms, sum_mean_ms, sum_wait_ms, sum_team_ms;
static int pragma_line;

/* REGIONS imbalanced parallel regions. */
static void imbalanced(void)
{
    for (int r = 0; r < REGIONS; r++) {
        double w[THREADS] = {0}, done[THREADS] = {0}, before = now_ms(CLOCK_MONOTONIC), after,
               max = 0, sum = 0;
        pragma_line = __LINE__ + 1;
#pragma omp parallel num_threads(THREADS)
        {
            int i = omp_get_thread_num();
            double t0 = now_ms(CLOCK_MONOTONIC);
            spin_cpu((double)(i + 1) * UNIT_MS);
            done[i] = now_ms(CLOCK_MONOTONIC);
            w[i] = done[i] - t0;
            tids[i] = (int)gettid();
        }
        after = now_ms(CLOCK_MONOTONIC);
        for (int i = 0; i < THREADS; i++) {
            work_ms[i] += w[i];
            sum += w[i];
            if (w[i] > max)
                max = w[i];
            sum_wait_ms += after - done[i];
        }
        sum_max_ms += max;
        sum_mean_ms += sum / THREADS;
        sum_team_ms += THREADS * (after - before);
    }
}

int main(void)
{
    omp_set_dynamic(0);
    imbalanced();
    printf("pragma_line %d\n", pragma_line);
    for (int i = 0; i < THREADS; i++)
        printf("thread %d work_ms %.3f tid %d\n", i, work_ms[i], tids[i]);
    printf("regions %d threads %d\n", REGIONS, THREADS);
    printf("imbalance_pct %.2f\n", 100.0 * (sum_max_ms - sum_mean_ms) / sum_max_ms);
    printf("barrier_pct %.2f\n", 100.0 * sum_wait_ms / sum_team_ms);
    return 0;
}
