/* Line-level causal profiling (test_causal_lines): one function, step, with two loops on
 * different source lines, only one of them on the critical path. A two-stage pipeline: stage A
 * (its own thread) runs step(0), whose first loop (LOOP_A below) does 60 % of A's work, and
 * stage_a_rest (40 %), and queues the item; stage B takes each item and runs step(1), whose
 * second loop (LOOP_B) does 30 % of A's time per item (B has room to spare), then marks it done
 * with rocsys_user_mark (the progress point). A limits the throughput: making LOOP_A's line X %
 * faster makes the program 0.6 X % faster; LOOP_B's line does not matter; step as a whole
 * gains 0.6 X % too (its stage-A part). Usage: tp_causal_lines SECONDS [UNIT_US]. Prints
 * what it measured of itself, and the lines of the two loops ("lines: A N B M"). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "causal_pipeline.h"

void rocsys_user_mark(const char *name) __attribute__((weak)); /* the collector's, if loaded */

static struct causal_queue queue = CAUSAL_QUEUE_INIT;
static long made, consumed;

void step(int stage);
void stage_a_rest(void);

/* The function under test: each loop on two lines of its own (the line table gives each its
 * code). Stage A runs the first, stage B the second. */
__attribute__((noinline)) void step(int stage)
{
    uint64_t acc = causal_sink;
    long n = (stage == 0 ? 6 : 3) * causal_iters_per_unit;

    if (stage == 0) {
        for (long i = 0; i < n; i++)
            acc = acc * 6364136223846793005ull + 1442695040888963407ull; /* LOOP_A */
    } else {
        for (long i = 0; i < n; i++)
            acc = acc * 2862933555777941757ull + 3037000493ull; /* LOOP_B */
    }
    causal_sink = acc;
}

/* The rest of stage A's work (40 %). */
__attribute__((noinline)) void stage_a_rest(void)
{
    causal_spin(4);
}

static uint64_t deadline_ns;

static void *stage_a(void *arg)
{
    (void)arg;
    while (causal_now_ns() < deadline_ns) {
        step(0);
        stage_a_rest();
        causal_queue_put(&queue);
        made++;
    }
    causal_queue_close(&queue);
    return NULL;
}

static void *stage_b(void *arg)
{
    (void)arg;
    while (causal_queue_take(&queue)) {
        step(1);
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

    causal_calibrate(unit_us);
    deadline_ns = causal_now_ns() + (uint64_t)(seconds * 1e9);
    uint64_t t0 = causal_now_ns();
    pthread_create(&a, NULL, stage_a, NULL);
    pthread_create(&b, NULL, stage_b, NULL);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    double el = (double)(causal_now_ns() - t0) / 1e9;
    printf("lines: %ld items in %.2f s, stage A waited for room %.1f %% of it\n", consumed, el,
           (double)causal_full_ns / 1e7 / el);
    return consumed == made ? 0 : 1;
}
