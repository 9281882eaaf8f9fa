/* Cost of a user-region push+pop pair (rocsys/user.h), for bench/regions.sh. It runs BURSTS
 * bursts of PAIRS pairs (a burst fits in the collector's ring, so no record is dropped), pausing
 * 60 ms between bursts so that rocsys-top drains the ring, and prints the median and the best
 * burst's nanoseconds per pair:
 *   ur_bench [BURSTS [PAIRS]]  ->  "pair_ns median 41.2 min 38.9 active 1" */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rocsys/user.h"

/* CLOCK_MONOTONIC in nanoseconds. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int bursts = argc > 1 ? atoi(argv[1]) : 200, pairs = argc > 2 ? atoi(argv[2]) : 1000;
    struct timespec pause = {0, 60000000};
    double *ns;

    if (bursts < 1 || pairs < 1)
        return 2;
    ns = calloc((size_t)bursts, sizeof(*ns));
    for (int b = 0; b < bursts; b++) {
        double t0 = now_ns();
        for (int i = 0; i < pairs; i++) {
            rocsys_user_push("bench region");
            rocsys_user_pop();
        }
        ns[b] = (now_ns() - t0) / pairs;
        nanosleep(&pause, NULL);
    }
    qsort(ns, (size_t)bursts, sizeof(*ns), cmp_double);
    printf("pair_ns median %.1f min %.1f active %d\n", ns[bursts / 2], ns[0], rocsys_user_active());
    free(ns);
    return 0;
}
