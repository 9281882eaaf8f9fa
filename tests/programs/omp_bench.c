/* OpenMP benchmark program (bench/omp_regions.sh): BURSTS bursts of PER empty parallel regions
 * of 2 threads, 30 ms apart; prints "region_ns MEDIAN min MIN" (per region, over the bursts):
 * the cost of a fork and join, with whatever tool the runtime has (none, or rocsys-top's OMPT).
 * usage: omp_bench BURSTS PER */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int bursts = argc > 1 ? atoi(argv[1]) : 50, per = argc > 2 ? atoi(argv[2]) : 500;
    double *t = calloc((size_t)(bursts > 0 ? bursts : 1), sizeof(*t));
    volatile int sink = 0;
    struct timespec gap = {0, 30000000};

    if (bursts < 1 || per < 1 || !t)
        return 2;
    for (int b = 0; b < bursts; b++) {
        double t0 = now_ns();
        for (int i = 0; i < per; i++) {
#pragma omp parallel num_threads(2)
            sink += omp_get_thread_num() == 5;
        }
        t[b] = (now_ns() - t0) / per;
        nanosleep(&gap, NULL);
    }
    qsort(t, (size_t)bursts, sizeof(*t), cmp);
    printf("region_ns %.0f min %.0f\n", t[bursts / 2], t[0]);
    free(t);
    return sink;
}
