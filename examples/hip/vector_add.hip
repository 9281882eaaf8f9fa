// HIP example: vector addition. Prints the result of every HIP call, so that a run under
// rocsys-top can be compared with a plain run (on a machine without a GPU every call fails
// with hipErrorNoDevice; rocsys-top must pass those results back unchanged).
// Usage: vector_add [LAUNCHES]
#include <hip/hip_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void vector_add(float *c, const float *a, const float *b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 10;
    int n = 1 << 20;
    size_t bytes = n * sizeof(float);
    std::vector<float> ha(n, 1.0f), hb(n, 2.0f), hc(n, 0.0f);
    float *a = nullptr, *b = nullptr, *c = nullptr;
    hipError_t e;

    printf("hipMalloc a %d\n", (int)hipMalloc((void **)&a, bytes));
    printf("hipMalloc b %d\n", (int)hipMalloc((void **)&b, bytes));
    printf("hipMalloc c %d\n", (int)hipMalloc((void **)&c, bytes));
    printf("hipMemcpy HtoD %d\n", (int)hipMemcpy(a, ha.data(), bytes, hipMemcpyHostToDevice));
    printf("hipMemcpy HtoD %d\n", (int)hipMemcpy(b, hb.data(), bytes, hipMemcpyHostToDevice));
    // the usual launch: without a device the call configuration fails and the stub is skipped
    hipLaunchKernelGGL(vector_add, dim3(n / 256), dim3(256), 0, 0, c, a, b, n);
    printf("hipLaunchKernelGGL %d\n", (int)hipGetLastError());
    // the public launch API with the host stub, which reaches hipLaunchKernel without a device
    void *args[] = {&c, &a, &b, &n};
    for (int i = 0; i < launches; i++) {
        e = hipLaunchKernel((const void *)vector_add, dim3(n / 256), dim3(256), args, 0, 0);
        printf("hipLaunchKernel %d\n", (int)e);
    }
    printf("hipDeviceSynchronize %d\n", (int)hipDeviceSynchronize());
    printf("hipMemcpy DtoH %d\n", (int)hipMemcpy(hc.data(), c, bytes, hipMemcpyDeviceToHost));
    printf("hipFree %d %d %d\n", (int)hipFree(a), (int)hipFree(b), (int)hipFree(c));
    if (hc[0] == 3.0f && hc[n - 1] == 3.0f)
        printf("result ok\n");
    else
        printf("result not computed (no device)\n");
    return 0;
}
