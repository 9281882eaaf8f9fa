/* A host-only HIP program for the real HIP 6.x runtime (tests/e2e/test_hip6_host.sh, run in the
 * sid test bed): built by that test with the C compiler against the installed HIP headers (6.x in
 * the sid chroot), it calls each family of entry points once, by the names the headers give them
 * (-DHIP_API_PER_THREAD_DEFAULT_STREAM: the _spt forms): devices and properties, launches (plain,
 * extended, cooperative, module, multi-device, graph), allocation, the copy family and sets,
 * streams and events, and one or more of each family the collector covers since: graphs and
 * capture, memory pools and virtual memory, arrays and textures, modules and occupancy, contexts,
 * peers and errors, memory queries, IPC (a handle passed by value) and stream memory operations.
 * Entry points that return no hipError_t print 0 when what they returned is right (non-null
 * strings, hipCreateChannelDesc's struct), 1 otherwise. Without a device most calls fail fast;
 * it prints "NAME RESULT" for each,
 * the truth to compare the HIP API view and hip_api.csv with. Not built by CMake (Debian 12's 5.2
 * headers lack the 6.x entry points). */
#define __HIP_PLATFORM_AMD__
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <string.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* contexts, texture references */

/* hip_ext.h is C++ only; 6.x declares these extern "C" there */
hipError_t hipExtModuleLaunchKernel(hipFunction_t f, uint32_t gx, uint32_t gy, uint32_t gz,
                                    uint32_t bx, uint32_t by, uint32_t bz, size_t shmem,
                                    hipStream_t stream, void **params, void **extra,
                                    hipEvent_t start, hipEvent_t stop, uint32_t flags);
hipError_t hipExtLaunchKernel(const void *f, dim3 grid, dim3 block, void **args, size_t shmem,
                              hipStream_t stream, hipEvent_t start, hipEvent_t stop, int flags);

#define CALL(name, call) printf("%s %d\n", name, (int)(call))

static char stub[16], buf[4096];

/* The launches, from a function of their own (their launch path). */
__attribute__((noinline)) static void launch_all(void)
{
    dim3 g = {8, 1, 1}, b = {64, 1, 1};
    hipLaunchParams lp[2] = {{stub, g, b, NULL, 0, NULL}, {stub, g, b, NULL, 0, NULL}};
    hipFunctionLaunchParams fp[2] = {{(hipFunction_t)stub, 8, 1, 1, 64, 1, 1, 0, NULL, NULL},
                                     {(hipFunction_t)stub, 8, 1, 1, 64, 1, 1, 0, NULL, NULL}};

    CALL("hipLaunchKernel", hipLaunchKernel(stub, g, b, NULL, 0, NULL));
    CALL("hipExtLaunchKernel", hipExtLaunchKernel(stub, g, b, NULL, 0, NULL, NULL, NULL, 0));
    CALL("hipLaunchCooperativeKernel", hipLaunchCooperativeKernel(stub, g, b, NULL, 0, NULL));
    CALL("hipModuleLaunchKernel",
         hipModuleLaunchKernel((hipFunction_t)stub, 8, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL));
    CALL("hipModuleLaunchCooperativeKernel",
         hipModuleLaunchCooperativeKernel((hipFunction_t)stub, 8, 1, 1, 64, 1, 1, 0, NULL, NULL));
    CALL("hipExtModuleLaunchKernel",
         hipExtModuleLaunchKernel((hipFunction_t)stub, 512, 1, 1, 64, 1, 1, 0, NULL, NULL, NULL,
                                  NULL, NULL, 0));
    CALL("hipLaunchCooperativeKernelMultiDevice", hipLaunchCooperativeKernelMultiDevice(lp, 2, 0));
    CALL("hipModuleLaunchCooperativeKernelMultiDevice",
         hipModuleLaunchCooperativeKernelMultiDevice(fp, 2, 0));
    CALL("hipGraphLaunch", hipGraphLaunch((hipGraphExec_t)buf, NULL));
}

/* One or more entry points of each family added for HIP 6.x (collector/hip_graph.c ...). */
__attribute__((noinline)) static void new_families(hipStream_t s)
{
    hipGraph_t g = NULL;
    hipGraphNode_t node = NULL;
    hipGraphExec_t ge = NULL;
    hipStreamCaptureStatus cs;
    unsigned long long id = 0;
    hipMemPool_t pool = NULL;
    hipMemAllocationProp ap;
    size_t gran = 0, fr = 0, tot = 0;
    void *va = NULL, *p = NULL;
    hipChannelFormatDesc cd;
    hipTextureObject_t to = 0;
    hipModule_t mod = NULL;
    struct hipFuncAttributes fa;
    int gs = 0, bs = 0, v = 0;
    hipCtx_t ctx = NULL;
    hipPointerAttribute_t pa;
    hipIpcMemHandle_t ih;
    const char *str;

    memset(&ap, 0, sizeof(ap));
    memset(&ih, 0, sizeof(ih));
    /* graphs and capture */
    CALL("hipGraphCreate", hipGraphCreate(&g, 0));
    CALL("hipGraphAddEmptyNode", hipGraphAddEmptyNode(&node, g, NULL, 0));
    CALL("hipGraphInstantiate", hipGraphInstantiate(&ge, g, NULL, NULL, 0));
    CALL("hipGraphDestroy", hipGraphDestroy(g));
    CALL("hipStreamGetCaptureInfo", hipStreamGetCaptureInfo(s, &cs, &id));
    /* memory pools, virtual memory */
    CALL("hipDeviceGetDefaultMemPool", hipDeviceGetDefaultMemPool(&pool, 0));
    CALL("hipMemPoolTrimTo", hipMemPoolTrimTo(pool, 0));
    CALL("hipMemGetAllocationGranularity",
         hipMemGetAllocationGranularity(&gran, &ap, hipMemAllocationGranularityMinimum));
    CALL("hipMemAddressReserve", hipMemAddressReserve(&va, 1 << 20, 0, NULL, 0));
    /* arrays, textures: hipCreateChannelDesc's struct comes back by value */
    cd = hipCreateChannelDesc(32, 0, 0, 0, hipChannelFormatKindFloat);
    CALL("hipCreateChannelDesc", !(cd.x == 32 && cd.y == 0 && cd.f == hipChannelFormatKindFloat));
    CALL("hipCreateTextureObject", hipCreateTextureObject(&to, NULL, NULL, NULL));
    CALL("hipArrayGetInfo", hipArrayGetInfo(&cd, NULL, NULL, NULL));
    /* modules, functions, occupancy */
    CALL("hipModuleLoadData", hipModuleLoadData(&mod, buf));
    CALL("hipFuncGetAttributes", hipFuncGetAttributes(&fa, stub));
    CALL("hipOccupancyMaxPotentialBlockSize",
         hipOccupancyMaxPotentialBlockSize(&gs, &bs, stub, 0, 0));
    /* contexts, peers, errors, versions */
    CALL("hipCtxGetCurrent", hipCtxGetCurrent(&ctx));
    CALL("hipCtxSynchronize", hipCtxSynchronize());
    CALL("hipDeviceCanAccessPeer", hipDeviceCanAccessPeer(&v, 0, 1));
    CALL("hipRuntimeGetVersion", hipRuntimeGetVersion(&v));
    CALL("hipPeekAtLastError", hipPeekAtLastError());
    CALL("hipGetLastError", hipGetLastError());
    CALL("hipGetLastError", hipGetLastError());
    str = hipGetErrorString(hipErrorInvalidValue);
    CALL("hipGetErrorString", !(str && *str));
    str = hipGetErrorName(hipErrorNoDevice);
    CALL("hipGetErrorName", !(str && strcmp(str, "hipErrorNoDevice") == 0));
    /* memory queries, IPC (a handle by value), stream memory operations */
    CALL("hipMemGetInfo", hipMemGetInfo(&fr, &tot));
    CALL("hipPointerGetAttributes", hipPointerGetAttributes(&pa, buf));
    CALL("hipHostRegister", hipHostRegister(buf, sizeof(buf), 0));
    CALL("hipIpcOpenMemHandle", hipIpcOpenMemHandle(&p, ih, hipIpcMemLazyEnablePeerAccess));
    CALL("hipStreamWriteValue32", hipStreamWriteValue32(s, buf, 1, 0));
    CALL("hipGetStreamDeviceId", hipGetStreamDeviceId(s) < -1);
}

int main(void)
{
    int n = -1, dev = 0, v = 0;
    void *d = NULL;
    hipDeviceProp_t prop;
    hipStream_t s = NULL;
    hipEvent_t e = NULL;
    hipMemcpy3DParms p3 = {0};
    hip_Memcpy2D p2 = {0};
    HIP_MEMCPY3D d3 = {0};

    CALL("hipInit", hipInit(0));
    CALL("hipGetDeviceCount", hipGetDeviceCount(&n));
    CALL("hipGetDeviceProperties", hipGetDeviceProperties(&prop, 0));
    CALL("hipChooseDevice", hipChooseDevice(&dev, &prop));
    CALL("hipSetDevice", hipSetDevice(0));
    CALL("hipGetDevice", hipGetDevice(&dev));
    CALL("hipDeviceGetAttribute", hipDeviceGetAttribute(&v, hipDeviceAttributeWarpSize, 0));
    launch_all();
    CALL("hipMalloc", hipMalloc(&d, 4096));
    CALL("hipMemcpy", hipMemcpy(buf, buf, 64, hipMemcpyHostToDevice));
    CALL("hipMemcpyAsync", hipMemcpyAsync(buf, buf, 64, hipMemcpyDeviceToHost, s));
    CALL("hipMemcpy2D", hipMemcpy2D(buf, 16, buf, 16, 16, 4, hipMemcpyHostToDevice));
    CALL("hipMemcpy3D", hipMemcpy3D(&p3));
    CALL("hipMemcpyParam2D", hipMemcpyParam2D(&p2));
    CALL("hipDrvMemcpy3D", hipDrvMemcpy3D(&d3));
    CALL("hipMemcpyHtoD", hipMemcpyHtoD((hipDeviceptr_t)buf, buf, 64));
    CALL("hipMemcpyAtoD", hipMemcpyAtoD((hipDeviceptr_t)buf, (hipArray_t)buf, 0, 64));
    CALL("hipMemcpyToSymbol", hipMemcpyToSymbol(buf, buf, 8, 0, hipMemcpyHostToDevice));
    CALL("hipMemset", hipMemset(buf, 0, 64));
    CALL("hipMemsetAsync", hipMemsetAsync(buf, 0, 64, s));
    CALL("hipStreamCreate", hipStreamCreate(&s));
    CALL("hipStreamBeginCapture", hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
    CALL("hipEventCreate", hipEventCreate(&e));
    CALL("hipEventRecord", hipEventRecord(e, s));
    CALL("hipStreamSynchronize", hipStreamSynchronize(s));
    new_families(s);
    CALL("hipFree", hipFree(d));
    CALL("hipDeviceSynchronize", hipDeviceSynchronize());
    CALL("hipDeviceReset", hipDeviceReset());
    return 0;
}
