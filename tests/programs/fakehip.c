/* A stand-in for libamdhip64 used by the HSA harness (tp_hsa_harness): the launch and
 * registration entry points the collector interposes, so that a launch reaches the harness's
 * "runtime" on the calling thread, as HIP's direct dispatch does. Not a HIP implementation. */
#include <stddef.h>
#include <stdint.h>

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
