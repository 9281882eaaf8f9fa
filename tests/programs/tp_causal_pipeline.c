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
#include <stdio.h>
#include <stdlib.h>

#include "causal_pipeline.h"

void rocsys_user_mark(const char *name) __attribute__((weak)); /* the collector's, if loaded */

static struct causal_queue queue = CAUSAL_QUEUE_INIT;
static long main_pct = 100;

void stage_a_main(void);
void stage_a_rest(void);
void stage_b(void);

__attribute__((noinline)) void stage_a_main(void)
{
    causal_spin_iters(6 * causal_iters_per_unit * main_pct / 100);
}

__attribute__((noinline)) void stage_a_rest(void)
{
    causal_spin(4);
}

__attribute__((noinline)) void stage_b(void)
{
    causal_spin(1);
}

static uint64_t deadline_ns;
static long made, consumed, items_max;

static void *stage_a(void *arg)
{
    (void)arg;
    while (items_max > 0 ? made < items_max : causal_now_ns() < deadline_ns) {
        stage_a_main();
        stage_a_rest();
        causal_queue_put(&queue);
        made++;
    }
    causal_queue_close(&queue);
    return NULL;
}

static void *stage_b_thread(void *arg)
{
    (void)arg;
    while (causal_queue_take(&queue)) {
        stage_b();
        consumed++;
        if (rocsys_user_mark)
            rocsys_user_mark("item");
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    long unit_us = argc > 2 ? atol(argv[2]) : 100;
    pthread_t a, b;

    items_max = argc > 3 ? atol(argv[3]) : 0;
    main_pct = argc > 4 ? atol(argv[4]) : 100;

    causal_calibrate(unit_us);
    if (getenv("TP_ITERS_PER_UNIT")) /* the same work in every run, whatever the machine's load */
        causal_iters_per_unit = atol(getenv("TP_ITERS_PER_UNIT"));
    if (causal_iters_per_unit < 1)
        causal_iters_per_unit = 1;
    deadline_ns = causal_now_ns() + (uint64_t)(seconds * 1e9);
    uint64_t t0 = causal_now_ns();
    pthread_create(&a, NULL, stage_a, NULL);
    pthread_create(&b, NULL, stage_b_thread, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    double el = (double)(causal_now_ns() - t0) / 1e9;
    printf("pipeline: %ld items in %.2f s, %.1f items/s, stage A waited for room %.1f %% of it\n",
           consumed, el, (double)consumed / el, (double)causal_full_ns / 1e7 / el);
    return 0;
}
