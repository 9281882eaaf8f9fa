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
#include <stdio.h>
#include <stdlib.h>

#include "causal_pipeline.h"
#include "hsa_harness_causal.h"

static struct causal_queue queue = CAUSAL_QUEUE_INIT;
static long batches, processed;

void feed_kernel(void);
void pack_args(void);
void post_process(void);

/* The host work that prepares a batch's input (on the critical path). */
__attribute__((noinline)) void feed_kernel(void)
{
    causal_spin(6);
}

/* The rest of the batch's host work (on the critical path). */
__attribute__((noinline)) void pack_args(void)
{
    causal_spin(4);
}

/* Reading a batch's result back, on another thread (off the critical path). */
__attribute__((noinline)) void post_process(void)
{
    causal_spin(1);
}

/* The post-processing thread: one post_process per batch fed. */
static void *post_thread(void *arg)
{
    (void)arg;
    while (causal_queue_take(&queue)) {
        post_process();
        processed++;
    }
    return NULL;
}

int harness_causal_run(double seconds, long unit_us, const struct harness_causal_gpu *gpu)
{
    pthread_t post;

    causal_calibrate(unit_us);
    if (pthread_create(&post, NULL, post_thread, NULL) != 0)
        return 2;
    uint64_t deadline = causal_now_ns() + (uint64_t)(seconds * 1e9);
    uint64_t t0 = causal_now_ns();
    while (causal_now_ns() < deadline) {
        feed_kernel();
        pack_args();
        gpu->dispatch(gpu->ctx);
        batches++;
        causal_queue_put(&queue);
    }
    causal_queue_close(&queue);
    pthread_join(post, NULL);
    long completed = 0;
    for (int tries = 0; tries < 2000 && (completed = gpu->completed(gpu->ctx)) < batches; tries++) {
        struct timespec ms = {0, 5000000};
        nanosleep(&ms, NULL);
    }
    double el = (double)(causal_now_ns() - t0) / 1e9;
    printf("causal: batches %ld completed %ld processed %ld in %.2f s, the feeder waited for room "
           "%.1f %% of it\n",
           batches, completed, processed, el, (double)causal_full_ns / 1e7 / el);
    return completed == batches && processed == batches ? 0 : 1;
}
