// memory: calls the less common HIP memory, copy and launch entry points once each and prints
// each result ("API CODE"), so that a test can check that rocsys-top records every one of them
// and passes the results back unchanged. Without a GPU every call fails (that is fine: the
// calls are real calls through the real libamdhip64).
#include <hip/hip_ext.h>
#include <hip/hip_runtime.h>
#include <stdio.h>

// hipMallocHost / hipFreeHost are deprecated but still in programs people profile
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

__device__ float table[64];

__global__ void coop(float *x)
{
    x[threadIdx.x] += 1.0f;
}

int main()
{
    const size_t n = 4096;
    void *a = nullptr, *b = nullptr, *h = nullptr;
    size_t pitch = 0;
    float host[64] = {0};
    hipStream_t s = nullptr;
    hipArray *arr = nullptr;
    hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
    void *args[] = {&a};

    printf("hipMallocPitch %d\n", (int)hipMallocPitch(&a, &pitch, 256, 16));
    printf("hipExtMallocWithFlags %d\n", (int)hipExtMallocWithFlags(&b, n, 0));
    printf("hipMallocHost %d\n", (int)hipMallocHost(&h, n));
    printf("hipMallocArray %d\n", (int)hipMallocArray(&arr, &desc, 16, 16, 0));
    printf("hipMemcpyWithStream %d\n", (int)hipMemcpyWithStream(a, h, n, hipMemcpyHostToDevice, s));
    printf("hipMemcpyPeer %d\n", (int)hipMemcpyPeer(a, 0, b, 1, n));
    printf("hipMemcpyPeerAsync %d\n", (int)hipMemcpyPeerAsync(a, 0, b, 1, n, s));
    printf("hipMemcpy2D %d\n", (int)hipMemcpy2D(a, pitch, h, 256, 256, 16, hipMemcpyHostToDevice));
    printf("hipMemcpy2DAsync %d\n",
           (int)hipMemcpy2DAsync(a, pitch, h, 256, 256, 16, hipMemcpyHostToDevice, s));
    printf("hipMemcpyToSymbol %d\n",
           (int)hipMemcpyToSymbol(HIP_SYMBOL(table), host, sizeof(host), 0, hipMemcpyHostToDevice));
    printf("hipMemcpyToSymbolAsync %d\n",
           (int)hipMemcpyToSymbolAsync(HIP_SYMBOL(table), host, sizeof(host), 0,
                                       hipMemcpyHostToDevice, s));
    printf("hipMemcpyFromSymbol %d\n",
           (int)hipMemcpyFromSymbol(host, HIP_SYMBOL(table), sizeof(host), 0, hipMemcpyDeviceToHost));
    printf("hipMemcpyFromSymbolAsync %d\n",
           (int)hipMemcpyFromSymbolAsync(host, HIP_SYMBOL(table), sizeof(host), 0,
                                         hipMemcpyDeviceToHost, s));
    printf("hipMemsetD8 %d\n", (int)hipMemsetD8((hipDeviceptr_t)a, 1, n));
    printf("hipMemsetD16 %d\n", (int)hipMemsetD16((hipDeviceptr_t)a, 1, n / 2));
    printf("hipMemsetD32 %d\n", (int)hipMemsetD32((hipDeviceptr_t)a, 1, n / 4));
    printf("hipMemsetD8Async %d\n", (int)hipMemsetD8Async((hipDeviceptr_t)a, 1, n, s));
    printf("hipMemsetD16Async %d\n", (int)hipMemsetD16Async((hipDeviceptr_t)a, 1, n / 2, s));
    printf("hipMemsetD32Async %d\n", (int)hipMemsetD32Async((hipDeviceptr_t)a, 1, n / 4, s));
    printf("hipMemset2D %d\n", (int)hipMemset2D(a, pitch, 0, 256, 16));
    printf("hipMemset2DAsync %d\n", (int)hipMemset2DAsync(a, pitch, 0, 256, 16, s));
    printf("hipLaunchCooperativeKernel %d\n",
           (int)hipLaunchCooperativeKernel((const void *)coop, dim3(1), dim3(64), args, 0, s));
    printf("hipExtModuleLaunchKernel %d\n",
           (int)hipExtModuleLaunchKernel(nullptr, 64, 1, 1, 64, 1, 1, 0, s, nullptr, nullptr));
    printf("hipGraphLaunch %d\n", (int)hipGraphLaunch(nullptr, s));
    printf("hipFreeArray %d\n", (int)hipFreeArray(arr));
    printf("hipFreeHost %d\n", (int)hipFreeHost(h));
    return 0;
}
