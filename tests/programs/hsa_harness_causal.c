/* tp_hsa_harness causal SECONDS [UNIT_US]: a GPU pipeline for causal profiling with a kernel's
 * completions as the progress point (test_causal_kernel). The main thread feeds the GPU: for
 * each batch, feed_kernel (60 % of its host work) and pack_args (40 %), then one dispatch of
 * saxpy_c through the harness's queue (the harness's "GPU" runs it at once; the completion
 * comes through ROCr's async-events thread, as on hardware); a second thread post-processes
 * each batch's result with post_process (10 % of the feeder's time per batch: room to spare).
 * The host code feeding the kernel limits the throughput: making feed_kernel X % faster makes
 * the kernel complete 0.6 X % more often; post_process does not matter. Prints what it measured
 * of itself: "causal: batches N completed M ...". */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "hsa_harness_causal.h"

#define QUEUE 64

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER, not_full = PTHREAD_COND_INITIALIZER;
static int queued, done_feeding;
static long iters_per_unit, batches, processed;
static volatile uint64_t sink;

/* CLOCK_MONOTONIC in ns. */
static uint64_t causal_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fixed amount of computation: units work units (inlined: the time is its caller's). */
static inline __attribute__((always_inline)) void spin(long units)
{
    uint64_t acc = sink;
    for (long i = 0; i < units * iters_per_unit; i++)
        acc = acc * 6364136223846793005ull + 1442695040888963407ull;
    sink = acc;
}

void feed_kernel(void);
void pack_args(void);
void post_process(void);

/* The host work that prepares a batch's input (on the critical path). */
__attribute__((noinline)) void feed_kernel(void)
{
    spin(6);
}

/* The rest of the batch's host work (on the critical path). */
__attribute__((noinline)) void pack_args(void)
{
    spin(4);
}

/* Reading a batch's result back, on another thread (off the critical path). */
__attribute__((noinline)) void post_process(void)
{
    spin(1);
}

/* The post-processing thread: one post_process per batch fed. */
static void *post_thread(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (queued == 0 && !done_feeding)
            pthread_cond_wait(&not_empty, &lock);
        if (queued == 0) {
            pthread_mutex_unlock(&lock);
            return NULL;
        }
        queued--;
        pthread_cond_signal(&not_full);
        pthread_mutex_unlock(&lock);
        post_process();
        processed++;
    }
}

int harness_causal_run(double seconds, long unit_us, const struct harness_causal_gpu *gpu)
{
    pthread_t post;

    iters_per_unit = 100000; /* calibrate: iterations per unit_us */
    uint64_t t0 = causal_now_ns();
    spin(10);
    uint64_t per10 = causal_now_ns() - t0;
    iters_per_unit = (long)((double)iters_per_unit * (double)unit_us * 1e4 / (double)per10);
    if (iters_per_unit < 1)
        iters_per_unit = 1;
    if (pthread_create(&post, NULL, post_thread, NULL) != 0)
        return 2;
    uint64_t deadline = causal_now_ns() + (uint64_t)(seconds * 1e9);
    t0 = causal_now_ns();
    while (causal_now_ns() < deadline) {
        feed_kernel();
        pack_args();
        gpu->dispatch(gpu->ctx);
        batches++;
        pthread_mutex_lock(&lock);
        while (queued == QUEUE)
            pthread_cond_wait(&not_full, &lock);
        queued++;
        pthread_cond_signal(&not_empty);
        pthread_mutex_unlock(&lock);
    }
    pthread_mutex_lock(&lock);
    done_feeding = 1;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&lock);
    pthread_join(post, NULL);
    long completed = 0;
    for (int tries = 0; tries < 2000 && (completed = gpu->completed(gpu->ctx)) < batches; tries++) {
        struct timespec ms = {0, 5000000};
        nanosleep(&ms, NULL);
    }
    printf("causal: batches %ld completed %ld processed %ld in %.2f s\n", batches, completed,
           processed, (double)(causal_now_ns() - t0) / 1e9);
    return completed == batches && processed == batches ? 0 : 1;
}
