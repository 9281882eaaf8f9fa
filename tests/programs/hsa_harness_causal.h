/* tp_hsa_harness's causal mode (hsa_harness_causal.c): a GPU pipeline whose kernel completions
 * are the progress point of test_causal_kernel. */
#ifndef ROCSYS_TESTS_HSA_HARNESS_CAUSAL_H
#define ROCSYS_TESTS_HSA_HARNESS_CAUSAL_H

/* What the workload needs of the harness's "runtime". */
struct harness_causal_gpu {
    void (*dispatch)(void *ctx);  /* one dispatch of saxpy_c on the application's queue */
    long (*completed)(void *ctx); /* the dispatches whose completion signal got its value */
    void *ctx;
};

/* Feed the GPU for seconds (a work unit: unit_us of computation). 0 when every dispatch
 * completed and every batch was post-processed. */
int harness_causal_run(double seconds, long unit_us, const struct harness_causal_gpu *gpu);

#endif
