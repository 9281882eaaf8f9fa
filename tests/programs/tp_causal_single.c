/* A single-threaded program for causal profiling (test_causal): each iteration runs hot_part
 * (about 60 % of the time) and cold_part (40 %), then marks its end with rocsys_user_mark (the
 * progress point). With one thread, making a function X % faster makes the program X % of that
 * function's share faster: the prediction at 100 % is the function's share of the time, which
 * the program measures itself (CLOCK_MONOTONIC around each call) and prints.
 * Built a second time with TP_HOT_WORK_PCT=80 (tp_causal_single_fast, test_causal_twice):
 * hot_part does 80 % of its work, a real 20 % speedup of it. Both print their CPU time per
 * iteration (CLOCK_PROCESS_CPUTIME_ID: what another program's use of the CPUs does not change),
 * with the same unit of work when ROCSYS_TP_ITERS_PER_UNIT fixes it (else calibrated: UNIT_US
 * microseconds at startup; the unit used is printed).
 * Usage: tp_causal_single SECONDS [UNIT_US]. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void rocsys_user_mark(const char *name) __attribute__((weak)); /* the collector's, if loaded */

#ifndef TP_HOT_WORK_PCT
#define TP_HOT_WORK_PCT 100
#endif

static long iters_per_unit;
static volatile uint64_t sink;

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void)
{
    return clock_ns(CLOCK_MONOTONIC);
}

/* A fixed amount of computation: pct % of units x iters_per_unit steps. */
static inline void spin_pct(long units, long pct)
{
    uint64_t acc = sink;
    for (long i = 0; i < units * iters_per_unit * pct / 100; i++)
        acc = acc * 6364136223846793005ull + 1442695040888963407ull;
    sink = acc;
}

static inline void spin(long units)
{
    spin_pct(units, 100);
}

void hot_part(void);
void cold_part(void);

__attribute__((noinline)) void hot_part(void)
{
    spin_pct(6, TP_HOT_WORK_PCT);
}

__attribute__((noinline)) void cold_part(void)
{
    spin(4);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    long unit_us = argc > 2 ? atol(argv[2]) : 100;
    uint64_t hot_ns = 0, cold_ns = 0, n = 0, hot_cpu_ns = 0, cold_cpu_ns = 0;

    iters_per_unit = 100000;
    uint64_t t0 = now_ns();
    spin(10);
    uint64_t per10 = now_ns() - t0;
    iters_per_unit = (long)((double)iters_per_unit * (double)unit_us * 1e4 / (double)per10);
    if (getenv("ROCSYS_TP_ITERS_PER_UNIT"))
        iters_per_unit = atol(getenv("ROCSYS_TP_ITERS_PER_UNIT"));
    if (iters_per_unit < 1)
        iters_per_unit = 1;
    uint64_t cpu0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), t = start;
    uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID), cstart = c0;
    while (t < end) {
        hot_part();
        uint64_t t1 = now_ns(), c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        cold_part();
        uint64_t t2 = now_ns(), c2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        hot_cpu_ns += c1 - c0;
        cold_cpu_ns += c2 - c1;
        if (rocsys_user_mark)
            rocsys_user_mark("iteration");
        uint64_t t3 = now_ns();
        c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        hot_ns += t1 - t;
        cold_ns += t2 - t1;
        t = t3;
        n++;
    }
    printf("single: %llu iterations in %.2f s; share hot_part %.3f cold_part %.3f\n",
           (unsigned long long)n, (double)(t - start) / 1e9, (double)hot_ns / (double)(t - start),
           (double)cold_ns / (double)(t - start));
    /* on its own clock: what other programs' use of the CPUs does not change */
    uint64_t cpu_all = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cstart;
    printf("single: cpu share hot_part %.3f cold_part %.3f\n",
           (double)hot_cpu_ns / (double)(cpu_all ? cpu_all : 1),
           (double)cold_cpu_ns / (double)(cpu_all ? cpu_all : 1));
    printf("single: hot_part work %d %%, unit %ld iterations, cpu per iteration %.3f us\n",
           TP_HOT_WORK_PCT, iters_per_unit,
           n ? (double)(clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0) / (double)n / 1e3 : 0.0);
    return 0;
}
