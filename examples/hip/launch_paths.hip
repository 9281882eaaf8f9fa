// HIP example whose kernels are launched from distinct, known call paths (for the Kernels
// view's launch paths, Enter on a kernel): `step` from forward() and from backward() through a
// template, `halve` from main only. Prints the result of every launch once per path.
// Usage: launch_paths [A [B]]: step is launched A times from forward (default 3) and B times
// from backward<float> (default 5), halve once.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

__global__ void step(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}

__global__ void halve(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= 0.5f;
}

// One launch of step through the public launch API (which reaches hipLaunchKernel without a
// device; the triple-chevron form stops at the failed configuration push): the leaf of both
// call paths.
__attribute__((noinline)) static int launch_step(float *x, int n)
{
    void *args[] = {&x, &n};
    return (int)hipLaunchKernel((const void *)step, dim3((n + 255) / 256), dim3(256), args, 0, 0);
}

__attribute__((noinline)) static int forward(float *x, int n, int times)
{
    int rc = 0;
    for (int i = 0; i < times; i++)
        rc = launch_step(x, n);
    return rc;
}

template <typename T> __attribute__((noinline)) static int backward(T *x, int n, int times)
{
    int rc = 0;
    for (int i = 0; i < times; i++)
        rc = launch_step(x, n);
    return rc;
}

int main(int argc, char **argv)
{
    int a = argc > 1 ? atoi(argv[1]) : 3, b = argc > 2 ? atoi(argv[2]) : 5, n = 1024;
    float *x = nullptr;

    printf("hipMalloc %d\n", (int)hipMalloc((void **)&x, n * sizeof(float)));
    printf("forward %d\n", forward(x, n, a));
    printf("backward %d\n", backward<float>(x, n, b));
    void *args[] = {&x, &n};
    printf("halve %d\n",
           (int)hipLaunchKernel((const void *)halve, dim3((n + 255) / 256), dim3(256), args, 0, 0));
    printf("hipFree %d\n", (int)hipFree(x));
    return 0;
}
