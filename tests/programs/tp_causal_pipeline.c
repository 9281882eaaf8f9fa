/* A two-stage pipeline for causal profiling (test_causal): stage A (its own thread) makes items
 * with stage_a_main (60 % of its work) and stage_a_rest (40 %) and queues them; stage B takes
 * each one, runs stage_b (10 % of A's time per item: B has room to spare even on a loaded
 * machine) and marks it done with rocsys_user_mark
 * (the progress point). A limits the throughput: making stage_a_main X % faster makes the
 * program 0.6 X % faster (A stays the slower stage even at 100 %); stage_b does not matter.
 * Usage: tp_causal_pipeline SECONDS [UNIT_US [ITEMS [MAIN_PCT]]]: for SECONDS, or until ITEMS
 * items are made (a fixed amount of work, for bench/causal.sh); MAIN_PCT: stage_a_main does that
 * % of its work (default 100; 80: the real version of a 20 % speedup). Prints what it measured
 * of itself. TP_ITERS_PER_UNIT fixes the work unit (else calibrated to UNIT_US at start). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void rocsys_user_mark(const char *name) __attribute__((weak)); /* the collector's, if loaded */

#define QUEUE 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queued, done_making;
static long iters_per_unit; /* spin iterations per work unit */
static volatile uint64_t sink;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fixed amount of computation: n steps. */
static inline void spin_iters(long n)
{
    uint64_t acc = sink;
    for (long i = 0; i < n; i++)
        acc = acc * 6364136223846793005ull + 1442695040888963407ull;
    sink = acc;
}

static long main_pct = 100;

/* units x iters_per_unit steps. */
static inline void spin(long units)
{
    spin_iters(units * iters_per_unit);
}

void stage_a_main(void);
void stage_a_rest(void);
void stage_b(void);

__attribute__((noinline)) void stage_a_main(void)
{
    spin_iters(6 * iters_per_unit * main_pct / 100);
}

__attribute__((noinline)) void stage_a_rest(void)
{
    spin(4);
}

__attribute__((noinline)) void stage_b(void)
{
    spin(1);
}

static uint64_t deadline_ns;
static long made, consumed, items_max;

static void *stage_a(void *arg)
{
    (void)arg;
    while (items_max > 0 ? made < items_max : now_ns() < deadline_ns) {
        stage_a_main();
        stage_a_rest();
        pthread_mutex_lock(&lock);
        while (queued == QUEUE)
            pthread_cond_wait(&not_full, &lock);
        queued++;
        made++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    done_making = 1;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
    return NULL;
}

static void *stage_b_thread(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (queued == 0 && !done_making)
            pthread_cond_wait(&not_empty, &lock);
        if (queued == 0) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        queued--;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
        stage_b();
        consumed++;
        if (rocsys_user_mark)
            rocsys_user_mark("item");
    }
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    long unit_us = argc > 2 ? atol(argv[2]) : 100;
    pthread_t a, b;

    items_max = argc > 3 ? atol(argv[3]) : 0;
    main_pct = argc > 4 ? atol(argv[4]) : 100;

    /* calibrate: iterations per unit_us */
    iters_per_unit = 100000;
    uint64_t t0 = now_ns();
    spin(10);
    uint64_t per10 = now_ns() - t0;
    iters_per_unit = (long)((double)iters_per_unit * (double)unit_us * 1e4 / (double)per10);
    if (getenv("TP_ITERS_PER_UNIT")) /* the same work in every run, whatever the machine's load */
        iters_per_unit = atol(getenv("TP_ITERS_PER_UNIT"));
    if (iters_per_unit < 1)
        iters_per_unit = 1;
    deadline_ns = now_ns() + (uint64_t)(seconds * 1e9);
    t0 = now_ns();
    pthread_create(&a, NULL, stage_a, NULL);
    pthread_create(&b, NULL, stage_b_thread, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    double el = (double)(now_ns() - t0) / 1e9;
    printf("pipeline: %ld items in %.2f s, %.1f items/s\n", consumed, el, (double)consumed / el);
    return 0;
}
