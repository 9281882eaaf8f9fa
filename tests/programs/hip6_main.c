/* hip6_main.c, built as tp_hip6 by hsa.cmake (linked with the stand-in HIP library tp_fakehip):
 * calls every entry point of fakehip6_api.h as a program built against the HIP 6.x headers
 * does, by the names those headers make it call, which the link binds to the stand-in's
 * versioned symbols (hipGetDevicePropertiesR0600@hip_6.0, hipMemcpy_spt@hip_5.2, ...). Row i is
 * called 1 + i % 3 times, all from call_rows(); each launch row launches its own kernel
 * "k_NAME" (a host stub registered with __hipRegisterFunction, or a module function from
 * hipModuleGetFunction). Prints "NAME RESULT" for every HIP call it makes, the truth
 * test_hip6.sh compares with. Then hipMemGetInfo once more through hipGetProcAddress's pointer. Not
 * named tp_*.c: the test programs' glob would build it without the stand-in library. */
#include <stdio.h>
#include <string.h>

#include "fakehip6_api.h"

#define DECLARE(name, ver, params, args, launch) int name params;
FAKEHIP6_API(DECLARE)
void __hipRegisterFunction(void **modules, const void *host_function, char *device_function,
                           const char *device_name, unsigned int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *wsize);
int hipModuleGetFunction(void **function, void *module, const char *name);
int hipGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags,
                      void *status);

static char stubs[128]; /* host stubs: one address per launch row */

/* Call every row from here: the launch path of every kernel is call_rows < main. */
__attribute__((noinline)) static void call_rows(void)
{
    static char buf[4096];
    void *BUF = buf, *ST = NULL, *P = NULL, *K = NULL, *M = NULL;
    int I = 0, row = 0;
    unsigned U = 0;
    size_t Z = 0;
    struct fh_ipc IPC = {{0}};
    struct fh_dim3 G = {8, 1, 1}, B = {64, 1, 1};
    struct fh_pitched PITCHED = {buf, 64, 64, 4};
    struct fh_extent EXTENT = {16, 2, 1};
    struct fh_launch_params LIST[2];
    struct fh_function_launch_params FLIST[2];
    char kn[128];

#define CALL(name, ver, params, args, launch)                                                      \
    if (launch) {                                                                                  \
        snprintf(kn, sizeof(kn), "k_%s", #name);                                                   \
        K = &stubs[row];                                                                           \
        __hipRegisterFunction(NULL, K, kn, kn, 0, NULL, NULL, NULL, NULL, NULL);                   \
        printf("hipModuleGetFunction %d\n", hipModuleGetFunction(&M, NULL, kn));                   \
        for (int e = 0; e < 2; e++) {                                                              \
            LIST[e] = (struct fh_launch_params){K, G, B, NULL, 0, ST};                             \
            FLIST[e] = (struct fh_function_launch_params){M, 8, 1, 1, 64, 1, 1, 0, ST, NULL};      \
        }                                                                                          \
    }                                                                                              \
    for (int c = 0; c < 1 + row % 3; c++)                                                          \
        printf("%s %d\n", #name, name args);                                                       \
    row++;
    FAKEHIP6_API(CALL)
#undef CALL
    (void)P;
    (void)U;
    (void)Z;
    (void)IPC;
    (void)I;
    (void)PITCHED;
    (void)EXTENT;
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

/* hipMemGetInfo once more, through the address hipGetProcAddress gives: counted as a call. */
__attribute__((noinline)) static void call_by_address(void)
{
    void *pfn = NULL;
    size_t z = 0;

    printf("hipGetProcAddress %d\n", hipGetProcAddress("hipMemGetInfo", &pfn, 604, 0, NULL));
    if (pfn)
        printf("hipMemGetInfo %d\n", ((int (*)(size_t *, size_t *))pfn)(&z, &z));
}

int main(void)
{
    call_rows();
    call_by_address();
    return 0;
}
