/* A stand-in for libamdhip64 used by the HSA harness (tp_hsa_harness): the launch and
 * registration entry points the collector interposes, so that a launch reaches the harness's
 * "runtime" on the calling thread, as HIP's direct dispatch does, and a device wait of a chosen
 * length (hipDeviceSynchronize). Not a HIP implementation. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fakehip_dim3 {
    uint32_t x, y, z;
};

/* Set by the harness: submits the dispatch of host stub f. */
void (*fakehip_launch_hook)(const void *f, struct fakehip_dim3 grid, struct fakehip_dim3 block);

int hipLaunchKernel(const void *f, struct fakehip_dim3 grid, struct fakehip_dim3 block, void **args,
                    size_t shmem, void *stream);
void __hipRegisterFunction(void **modules, const void *host_function, char *device_function,
                           const char *device_name, unsigned int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *wsize);

int hipLaunchKernel(const void *f, struct fakehip_dim3 grid, struct fakehip_dim3 block, void **args,
                    size_t shmem, void *stream)
{
    (void)args;
    (void)shmem;
    (void)stream;
    if (!fakehip_launch_hook)
        return 100; /* hipErrorNoDevice */
    fakehip_launch_hook(f, grid, block);
    return 0;
}

void __hipRegisterFunction(void **modules, const void *host_function, char *device_function,
                           const char *device_name, unsigned int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *wsize)
{
    (void)modules;
    (void)host_function;
    (void)device_function;
    (void)device_name;
    (void)thread_limit;
    (void)tid;
    (void)bid;
    (void)block_dim;
    (void)grid_dim;
    (void)wsize;
}

/* The stand-in's device wait: with FAKEHIP_SYNC_MS=N it takes N ms, spinning as HIP's default
 * synchronization does (FAKEHIP_SYNC=spin, the default) or asleep (FAKEHIP_SYNC=sleep); else it
 * returns at once. */
int hipDeviceSynchronize(void);
int hipDeviceSynchronize(void)
{
    const char *ms = getenv("FAKEHIP_SYNC_MS"), *how = getenv("FAKEHIP_SYNC");
    long n = ms ? atol(ms) : 0;
    struct timespec t0, t;

    if (n <= 0)
        return 0;
    if (how && strcmp(how, "sleep") == 0) {
        struct timespec d = {n / 1000, (n % 1000) * 1000000L};
        while (nanosleep(&d, &d) != 0)
            ;
        return 0;
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L < n);
    return 0;
}
