// memory: calls the less common HIP memory, copy and launch entry points once each and prints
// each result ("API CODE"), so that a test can check that rocsys-top records every one of them
// and passes the results back unchanged. Without a GPU every call fails (that is fine: the
// calls are real calls through the real libamdhip64).
#include <hip/hip_ext.h>
#include <hip/hip_runtime.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

// hipMallocHost / hipFreeHost are deprecated but still in programs people profile
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

__device__ float table[64];

__global__ void coop(float *x)
{
    x[threadIdx.x] += 1.0f;
}

__global__ void twice(float *x)
{
    x[threadIdx.x] *= 2.0f;
}

// launched the old way only: configuration pushed, then hipLaunchByPtr
__global__ void legacy(float *x)
{
    x[threadIdx.x] -= 1.0f;
}

int main()
{
    const size_t n = 4096;
    void *a = nullptr, *b = nullptr, *h = nullptr;
    size_t pitch = 0;
    float host[64] = {0};
    hipStream_t s = nullptr, s2 = nullptr;
    hipArray *arr = nullptr, *arr3 = nullptr, *arr_d = nullptr, *arr3_d = nullptr;
    hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
    void *args[] = {&a};
    hipPitchedPtr pp = {};
    hipExtent ext = make_hipExtent(256, 16, 4);
    HIP_ARRAY_DESCRIPTOR desc_d = {16, 16, HIP_AD_FORMAT_FLOAT, 1};
    HIP_ARRAY3D_DESCRIPTOR desc3_d = {16, 16, 4, HIP_AD_FORMAT_FLOAT, 1, 0};
    // a 256 x 16 copy from host to device, and the same back, described by memory types
    hip_Memcpy2D up = {}, down = {};
    up.srcMemoryType = hipMemoryTypeHost;
    up.srcHost = h;
    up.srcPitch = 256;
    up.dstMemoryType = hipMemoryTypeDevice;
    up.dstDevice = (hipDeviceptr_t)a;
    up.dstPitch = pitch;
    up.WidthInBytes = 256;
    up.Height = 16;
    down.srcMemoryType = hipMemoryTypeDevice;
    down.srcDevice = (hipDeviceptr_t)a;
    down.srcPitch = pitch;
    down.dstMemoryType = hipMemoryTypeHost;
    down.dstHost = h;
    down.dstPitch = 256;
    down.WidthInBytes = 256;
    down.Height = 16;
    // 3D copies between linear memory: 64 bytes x 4 rows x 2 slices up, 32 x 2 x 2 down
    hipMemcpy3DParms up3 = {}, down3 = {};
    up3.srcPtr = make_hipPitchedPtr(h, 64, 64, 4);
    up3.dstPtr = make_hipPitchedPtr(a, pitch, 64, 4);
    up3.extent = make_hipExtent(64, 4, 2);
    up3.kind = hipMemcpyHostToDevice;
    down3.srcPtr = make_hipPitchedPtr(a, pitch, 32, 2);
    down3.dstPtr = make_hipPitchedPtr(h, 32, 32, 2);
    down3.extent = make_hipExtent(32, 2, 2);
    down3.kind = hipMemcpyDeviceToHost;
    // one kernel on every device, and different kernels (on one device each)
    hipLaunchParams same[1] = {{(void *)coop, dim3(1), dim3(64), args, 0, s}};
    hipLaunchParams mixed[2] = {{(void *)coop, dim3(1), dim3(64), args, 0, s},
                                {(void *)twice, dim3(2), dim3(32), args, 0, s}};

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
    printf(
        "hipMemcpyFromSymbol %d\n",
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
    printf("hipMalloc3D %d\n", (int)hipMalloc3D(&pp, ext));
    printf("hipMalloc3DArray %d\n",
           (int)hipMalloc3DArray(&arr3, &desc, make_hipExtent(16, 16, 4), 0));
    printf("hipArrayCreate %d\n", (int)hipArrayCreate(&arr_d, &desc_d));
    printf("hipArray3DCreate %d\n", (int)hipArray3DCreate(&arr3_d, &desc3_d));
    printf("hipMemcpyParam2D %d\n", (int)hipMemcpyParam2D(&up));
    printf("hipMemcpyParam2DAsync %d\n", (int)hipMemcpyParam2DAsync(&down, s));
    printf("hipMemcpy3D %d\n", (int)hipMemcpy3D(&up3));
    printf("hipMemcpy3DAsync %d\n", (int)hipMemcpy3DAsync(&down3, s));
    printf("hipMemcpy2DToArray %d\n",
           (int)hipMemcpy2DToArray(arr, 0, 0, h, 64, 64, 16, hipMemcpyHostToDevice));
    printf("hipMemcpy2DToArrayAsync %d\n",
           (int)hipMemcpy2DToArrayAsync(arr, 0, 0, a, pitch, 64, 16, hipMemcpyDeviceToDevice, s));
    printf("hipMemcpy2DFromArray %d\n",
           (int)hipMemcpy2DFromArray(h, 64, arr, 0, 0, 64, 16, hipMemcpyDeviceToHost));
    printf("hipMemcpy2DFromArrayAsync %d\n",
           (int)hipMemcpy2DFromArrayAsync(h, 64, arr, 0, 0, 64, 16, hipMemcpyDeviceToHost, s));
    printf("hipMemcpyToArray %d\n",
           (int)hipMemcpyToArray(arr, 0, 0, host, sizeof(host), hipMemcpyHostToDevice));
    printf("hipMemcpyFromArray %d\n",
           (int)hipMemcpyFromArray(host, arr, 0, 0, sizeof(host), hipMemcpyDeviceToHost));
    printf("hipMemcpyAtoH %d\n", (int)hipMemcpyAtoH(host, arr, 0, sizeof(host)));
    printf("hipMemcpyHtoA %d\n", (int)hipMemcpyHtoA(arr, 0, host, sizeof(host)));
    printf("hipStreamCreateWithPriority %d\n", (int)hipStreamCreateWithPriority(&s2, 0, 0));
    printf("hipLaunchCooperativeKernelMultiDevice %d\n",
           (int)hipLaunchCooperativeKernelMultiDevice(same, 1, 0));
    printf("hipExtLaunchMultiKernelMultiDevice %d\n",
           (int)hipExtLaunchMultiKernelMultiDevice(mixed, 2, 0));
    // a list of one entry that claims 1000: the runtime refuses the count before it reads the
    // list, so the entry right before an unreadable page is all a profiler may read
    long page = sysconf(_SC_PAGESIZE);
    char *guard =
        (char *)mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard != MAP_FAILED && mprotect(guard + page, page, PROT_NONE) == 0) {
        hipLaunchParams *last = (hipLaunchParams *)(guard + page) - 1;
        *last = same[0];
        printf("hipLaunchCooperativeKernelMultiDevice %d\n",
               (int)hipLaunchCooperativeKernelMultiDevice(last, 1000, 0));
    }
    // 3D sets and the per-thread default stream (_spt) forms of copies, sets and stream calls
    printf("hipMemset3D %d\n", (int)hipMemset3D(pp, 0, ext));
    printf("hipMemset3DAsync %d\n", (int)hipMemset3DAsync(pp, 0, ext, s));
    printf("hipMemset3D_spt %d\n", (int)hipMemset3D_spt(pp, 0, ext));
    printf("hipMemset2D_spt %d\n", (int)hipMemset2D_spt(a, pitch, 0, 256, 16));
    printf("hipMemcpy2D_spt %d\n",
           (int)hipMemcpy2D_spt(a, pitch, h, 256, 128, 16, hipMemcpyHostToDevice));
    printf("hipMemcpy2DToArray_spt %d\n",
           (int)hipMemcpy2DToArray_spt(arr, 0, 0, a, pitch, 64, 8, hipMemcpyDeviceToDevice));
    printf("hipMemcpy2DFromArray_spt %d\n",
           (int)hipMemcpy2DFromArray_spt(h, 64, arr, 0, 0, 64, 4, hipMemcpyDeviceToHost));
    printf("hipMemcpy3D_spt %d\n", (int)hipMemcpy3D_spt(&up3));
    printf("hipMemcpyToSymbol_spt %d\n",
           (int)hipMemcpyToSymbol_spt(HIP_SYMBOL(table), host, 128, 0, hipMemcpyHostToDevice));
    printf("hipMemcpyFromSymbol_spt %d\n",
           (int)hipMemcpyFromSymbol_spt(host, HIP_SYMBOL(table), 64, 0, hipMemcpyDeviceToHost));
    printf("hipStreamWaitEvent_spt %d\n", (int)hipStreamWaitEvent_spt(s, nullptr, 0));
    printf("hipStreamQuery_spt %d\n", (int)hipStreamQuery_spt(s));
    printf("hipStreamSynchronize_spt %d\n", (int)hipStreamSynchronize_spt(s));
    // the old launch API: a configuration on the runtime's per-thread stack and the arguments
    // (hipSetupArgument is not traced: not printed), then the launch by host stub, which pops the
    // configuration (without a device every one of these calls fails before it touches the stack)
    hipError_t pushed = __hipPushCallConfiguration(dim3(1), dim3(64), 0, s);
    printf("__hipPushCallConfiguration %d\n", (int)pushed);
    if (pushed == hipSuccess)
        (void)hipSetupArgument(&a, sizeof(a), 0);
    printf("hipLaunchByPtr %d\n", (int)hipLaunchByPtr((const void *)legacy));
    printf("hipArrayDestroy %d\n", (int)hipArrayDestroy(arr_d));
    printf("hipFreeArray %d\n", (int)hipFreeArray(arr));
    printf("hipFreeHost %d\n", (int)hipFreeHost(h));
    return 0;
}
