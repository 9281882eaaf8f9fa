/* Calls one HIP entry point N times and prints the mean ns per call (bench/hip_overhead.sh).
 * Built by the script against the real libamdhip64 (calls that fail fast without a GPU) or
 * against the harness's stand-in library (a call that returns at once): the difference between
 * runs with and without rocsys-top is the interposition cost per call.
 * Usage: hip_calls N OUTFILE [DEPTH [SITES]]: each call is made DEPTH frames down (default 0:
 * from main), through one of SITES distinct call paths in turn (default 1; the path of call i
 * is chosen by the low bits of i % SITES, one bit a frame: bench/launch_stacks.sh). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct dim3 {
    uint32_t x, y, z;
};
int hipLaunchKernel(const void *f, struct dim3 grid, struct dim3 block, void **args, size_t shmem,
                    void *stream);

static void kernel_stub(void) {}

static int descend_a(int depth, unsigned bits);
static int descend_b(int depth, unsigned bits);

/* One launch depth frames down; bits choose the path (a or b at each frame). */
__attribute__((noinline)) static int descend_a(int depth, unsigned bits)
{
    struct dim3 g = {1, 1, 1}, b = {64, 1, 1};
    int rc;

    if (depth <= 0)
        rc = hipLaunchKernel((const void *)kernel_stub, g, b, NULL, 0, NULL);
    else
        rc = (bits & 1) ? descend_b(depth - 1, bits >> 1) : descend_a(depth - 1, bits >> 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call: every frame stays */
    return rc;
}

__attribute__((noinline)) static int descend_b(int depth, unsigned bits)
{
    struct dim3 g = {1, 1, 1}, b = {64, 1, 1};
    int rc;

    if (depth <= 0)
        rc = hipLaunchKernel((const void *)kernel_stub, g, b, NULL, 0, NULL);
    else
        rc = (bits & 1) ? descend_b(depth - 1, bits >> 1) : descend_a(depth - 1, bits >> 1);
    __asm__ volatile("" ::: "memory");
    return rc;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int depth = argc > 3 ? atoi(argv[3]) : 0;
    unsigned sites = argc > 4 ? (unsigned)atoi(argv[4]) : 1;
    struct dim3 g = {1, 1, 1}, b = {64, 1, 1};
    struct timespec t0, t1;
    long errors = 0;
    FILE *f;

    hipLaunchKernel((const void *)kernel_stub, g, b, NULL, 0, NULL); /* warm: resolve, init */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        errors += (depth > 0 ? descend_a(depth - 1, (unsigned)i % (sites ? sites : 1))
                             : hipLaunchKernel((const void *)kernel_stub, g, b, NULL, 0, NULL)) !=
                  0;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    f = fopen(argc > 2 ? argv[2] : "/dev/stdout", "w");
    if (!f)
        return 1;
    fprintf(f, "%.1f %ld\n",
            ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n,
            errors);
    fclose(f);
    return 0;
}
