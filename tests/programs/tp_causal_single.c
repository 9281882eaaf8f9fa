/* A single-threaded program for causal profiling (test_causal): each iteration runs hot_part
 * (about 60 % of the time) and cold_part (40 %), then marks its end with rocsys_user_mark (the
 * progress point). With one thread, making a function X % faster makes the program X % of that
 * function's share faster: the prediction at 100 % is the function's share of the time, which
 * the program measures itself (CLOCK_MONOTONIC around each call) and prints.
 * Usage: tp_causal_single SECONDS [UNIT_US]. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void rocsys_user_mark(const char *name) __attribute__((weak)); /* the collector's, if loaded */

static long iters_per_unit;
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fixed amount of computation: units x iters_per_unit steps. */
static inline void spin(long units)
{
    uint64_t acc = sink;
    for (long i = 0; i < units * iters_per_unit; i++)
        acc = acc * 6364136223846793005ull + 1442695040888963407ull;
    sink = acc;
}

void hot_part(void);
void cold_part(void);

__attribute__((noinline)) void hot_part(void)
{
    spin(6);
}

__attribute__((noinline)) void cold_part(void)
{
    spin(4);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    long unit_us = argc > 2 ? atol(argv[2]) : 100;
    uint64_t hot_ns = 0, cold_ns = 0, n = 0;

    iters_per_unit = 100000;
    uint64_t t0 = now_ns();
    spin(10);
    uint64_t per10 = now_ns() - t0;
    iters_per_unit = (long)((double)iters_per_unit * (double)unit_us * 1e4 / (double)per10);
    if (iters_per_unit < 1)
        iters_per_unit = 1;
    uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), t = start;
    while (t < end) {
        hot_part();
        uint64_t t1 = now_ns();
        cold_part();
        uint64_t t2 = now_ns();
        if (rocsys_user_mark)
            rocsys_user_mark("iteration");
        uint64_t t3 = now_ns();
        hot_ns += t1 - t;
        cold_ns += t2 - t1;
        t = t3;
        n++;
    }
    printf("single: %llu iterations in %.2f s; share hot_part %.3f cold_part %.3f\n",
           (unsigned long long)n, (double)(t - start) / 1e9, (double)hot_ns / (double)(t - start),
           (double)cold_ns / (double)(t - start));
    return 0;
}
