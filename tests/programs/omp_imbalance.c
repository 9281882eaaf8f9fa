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
 * With the argument "barrier", BARRIER_REGIONS regions in barrier_wait() instead: thread i
 * spins (i + 1) x UNIT_MS of its CPU time, then waits for the others at an explicit barrier;
 * each thread measures its CPU time (CLOCK_THREAD_CPUTIME_ID) in the body and in the barrier.
 * Prints:
 *   barrier_line L                     the source line of that parallel construct
 *   barrier_cpu_pct P                  100 x the threads' CPU time in the explicit barrier /
 *                                      their CPU time in the region's body
 * With the argument "tasks", one thread of a region of THREADS makes TASKS tasks, each spinning
 * UNIT_MS x 2 of CPU time in task_work(), and waits for them (taskwait) while the others wait in
 * the barrier after the single construct: the runtime runs the tasks on waiting threads.
 * Prints:
 *   task_cpu_ms C                      the CPU time the tasks spun, summed
 * Built with clang -fopenmp (LLVM libomp, OMPT) or gcc -fopenmp (libgomp) by the test. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define THREADS         3
#define REGIONS         8
#define UNIT_MS         10
#define BARRIER_REGIONS 12
#define TASKS           30

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

/* BARRIER_REGIONS regions whose threads wait for the slowest at an explicit barrier. */
static void barrier_wait(void)
{
    double body_cpu_ms = 0, barrier_cpu_ms = 0;
    int line = 0;

    for (int r = 0; r < BARRIER_REGIONS; r++) {
        double body[THREADS] = {0}, wait[THREADS] = {0};
        line = __LINE__ + 1;
#pragma omp parallel num_threads(THREADS)
        {
            int i = omp_get_thread_num();
            double c0 = now_ms(CLOCK_THREAD_CPUTIME_ID), c1;
            spin_cpu((double)(i + 1) * UNIT_MS);
            c1 = now_ms(CLOCK_THREAD_CPUTIME_ID);
#pragma omp barrier
            wait[i] = now_ms(CLOCK_THREAD_CPUTIME_ID) - c1;
            body[i] = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
        }
        for (int i = 0; i < THREADS; i++) {
            body_cpu_ms += body[i];
            barrier_cpu_ms += wait[i];
        }
    }
    printf("barrier_line %d\n", line);
    printf("barrier_cpu_pct %.2f\n", 100.0 * barrier_cpu_ms / body_cpu_ms);
}

/* One task's work: spin ms of CPU time; returns the CPU time it used. */
__attribute__((noinline)) static double task_work(double ms)
{
    double c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);

    spin_cpu(ms);
    return now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
}

/* TASKS tasks made by one thread and run by whichever threads wait. */
static void tasks(void)
{
    double cpu_ms = 0;

#pragma omp parallel num_threads(THREADS)
#pragma omp single
    {
        for (int t = 0; t < TASKS; t++) {
#pragma omp task shared(cpu_ms)
            {
                double c = task_work(2.0 * UNIT_MS);
#pragma omp atomic
                cpu_ms += c;
            }
        }
#pragma omp taskwait
    }
    printf("task_cpu_ms %.3f\n", cpu_ms);
}

int main(int argc, char **argv)
{
    omp_set_dynamic(0);
    if (argc > 1 && strcmp(argv[1], "barrier") == 0) {
        barrier_wait();
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "tasks") == 0) {
        tasks();
        return 0;
    }
    imbalanced();
    printf("pragma_line %d\n", pragma_line);
    for (int i = 0; i < THREADS; i++)
        printf("thread %d work_ms %.3f tid %d\n", i, work_ms[i], tids[i]);
    printf("regions %d threads %d\n", REGIONS, THREADS);
    printf("imbalance_pct %.2f\n", 100.0 * (sum_max_ms - sum_mean_ms) / sum_max_ms);
    printf("barrier_pct %.2f\n", 100.0 * sum_wait_ms / sum_team_ms);
    return 0;
}
