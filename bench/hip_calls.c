/* Calls one HIP entry point N times and prints the mean ns per call (bench/hip_overhead.sh).
 * Built by the script against the real libamdhip64 (calls that fail fast without a GPU) or
 * against the harness's stand-in library (a call that returns at once): the difference between
 * runs with and without rocsys-top is the interposition cost per call.
 * Usage: hip_calls N OUTFILE */
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

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    struct dim3 g = {1, 1, 1}, b = {64, 1, 1};
    struct timespec t0, t1;
    long errors = 0;
    FILE *f;

    hipLaunchKernel((const void *)kernel_stub, g, b, NULL, 0, NULL); /* warm: resolve, init */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        errors += hipLaunchKernel((const void *)kernel_stub, g, b, NULL, 0, NULL) != 0;
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
