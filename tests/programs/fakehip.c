/* A stand-in for libamdhip64 used by the HSA harness (tp_hsa_harness): the launch and
 * registration entry points the collector interposes, so that a launch reaches the harness's
 * "runtime" on the calling thread, as HIP's direct dispatch does, and a device wait of a chosen
 * length (hipDeviceSynchronize). Not a HIP implementation.
 *
 * Its symbols carry libamdhip64's symbol versions (fakehip.map: hip_4.2 for the ones above,
 * each 6.x entry point of fakehip6_api.h with its own), so that programs linked against it
 * make versioned references as they do against the real libamdhip64.so.6 (tp_hip6,
 * test_hip6.sh). Those entry points fail every other call with an error of their own. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fakehip6_api.h"

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

/* The result of call number n of entry point name: an error on odd calls (100, 101 or 1, by
 * the name), success on even ones. */
static int fakehip_result(const char *name, unsigned n)
{
    static const int codes[3] = {100, 101, 1}; /* NoDevice, InvalidDevice, InvalidValue */

    return n % 2 ? codes[strlen(name) % 3] : 0;
}

/* A module function handle for each name asked for (kernels launched by module entry points). */
int hipModuleGetFunction(void **function, void *module, const char *name);
int hipModuleGetFunction(void **function, void *module, const char *name)
{
    static char handles[256];
    static unsigned used;

    (void)module;
    (void)name;
    if (!function || used >= sizeof(handles))
        return 1;
    *function = &handles[used++];
    return 0;
}

/* The 6.x entry points: fakehip6_NAME exported as NAME@@VERSION. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#define FAKEHIP6_DEFINE(name, ver, params, args, launch)                                           \
    __attribute__((symver(#name "@@" ver))) int fakehip6_##name params;                            \
    int fakehip6_##name params                                                                     \
    {                                                                                              \
        static unsigned calls;                                                                     \
        return fakehip_result(#name, ++calls);                                                     \
    }
FAKEHIP6_API(FAKEHIP6_DEFINE)

/* hipGetProcAddress (6.1+): the stand-in's own definition of hipMemGetInfo, else not found. */
__attribute__((symver("hipGetProcAddress@@hip_6.1"))) int
fakehip6_get_proc_address(const char *symbol, void **pfn, int version, uint64_t flags,
                          void *status);
int fakehip6_get_proc_address(const char *symbol, void **pfn, int version, uint64_t flags,
                              void *status)
{
    if (!symbol || !pfn)
        return 1; /* hipErrorInvalidValue */
    *pfn = strcmp(symbol, "hipMemGetInfo") == 0 ? (void *)fakehip6_hipMemGetInfo : NULL;
    return *pfn ? 0 : 1;
}
