// HIP example with several kernels (a template, a C-named one), streams, events and async
// copies. Prints the result of every HIP call (see vector_add.hip).
// Usage: kernels [ROUNDS]: kernel k is launched (k + 1) * ROUNDS times through hipLaunchKernel.
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>

template <int BLOCK, typename T> __global__ void reduce_sum(const T *in, T *out, int n)
{
    __shared__ T part[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    part[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if ((int)threadIdx.x < s)
            part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
}

__global__ void scale(float *x, float f, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= f;
}

extern "C" __global__ void saxpy_c(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += a * x[i];
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 2;
    int n = 1 << 16;
    float *x = nullptr, *y = nullptr, f = 2.0f;
    float *host = nullptr;
    hipStream_t s = nullptr;
    hipEvent_t ev = nullptr;

    printf("hipMalloc %d\n", (int)hipMalloc((void **)&x, n * sizeof(float)));
    printf("hipMalloc %d\n", (int)hipMalloc((void **)&y, n * sizeof(float)));
    printf("hipHostMalloc %d\n", (int)hipHostMalloc((void **)&host, n * sizeof(float), 0));
    printf("hipStreamCreate %d\n", (int)hipStreamCreate(&s));
    printf("hipEventCreate %d\n", (int)hipEventCreate(&ev));
    printf("hipMemsetAsync %d\n", (int)hipMemsetAsync(x, 0, n * sizeof(float), s));
    printf("hipMemcpyAsync %d\n",
           (int)hipMemcpyAsync(y, host, n * sizeof(float), hipMemcpyHostToDevice, s));
    void *scale_args[] = {&x, &f, &n};
    void *reduce_args[] = {&x, &y, &n};
    void *saxpy_args[] = {&y, &x, &f, &n};
    for (int i = 0; i < rounds; i++)
        printf("hipLaunchKernel scale %d\n",
               (int)hipLaunchKernel((const void *)scale, dim3(n / 128), dim3(128), scale_args, 0, s));
    for (int i = 0; i < 2 * rounds; i++)
        printf("hipLaunchKernel reduce_sum %d\n",
               (int)hipLaunchKernel((const void *)reduce_sum<256, float>, dim3(n / 256), dim3(256),
                                    reduce_args, 0, s));
    for (int i = 0; i < 3 * rounds; i++)
        printf("hipLaunchKernel saxpy_c %d\n",
               (int)hipLaunchKernel((const void *)saxpy_c, dim3(n / 64), dim3(64), saxpy_args, 0, s));
    printf("hipEventRecord %d\n", (int)hipEventRecord(ev, s));
    printf("hipEventSynchronize %d\n", (int)hipEventSynchronize(ev));
    printf("hipStreamSynchronize %d\n", (int)hipStreamSynchronize(s));
    printf("hipEventDestroy %d\n", (int)hipEventDestroy(ev));
    printf("hipStreamDestroy %d\n", (int)hipStreamDestroy(s));
    printf("hipHostFree %d\n", (int)hipHostFree(host));
    printf("hipFree %d %d\n", (int)hipFree(x), (int)hipFree(y));
    return 0;
}
