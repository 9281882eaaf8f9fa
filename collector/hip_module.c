/* HIP wrappers: modules, linking, functions and occupancy, one HIP_WRAP row each (generated from
 * HIP 6.4.3's hip_runtime_api.h, checked against it by tests/e2e/test_hip6_host.sh). Code object
 * loading and queries, the JIT linker, function attributes, occupancy, symbol lookups and the old
 * launch configuration (hipConfigureCall, hipSetupArgument: hipLaunchByPtr, the launch, is in
 * hip_launch.c). hipModuleGetFunction, which names kernels, is in hip_launch.c. */
#define _GNU_SOURCE
#include "hip_wrap.h"

#include <dlfcn.h>

/* clang-format off */
HIP_WRAP_AS(const char *, "", hipApiName, "hip_4.2", (unsigned int id), (id), NOTHING)
HIP_WRAP(hipConfigureCall, "hip_4.2", (struct hip_dim3 gridDim, struct hip_dim3 blockDim, size_t sharedMem, void *stream), (gridDim, blockDim, sharedMem, stream), NOTHING, STREAM(stream))
HIP_WRAP(hipFuncGetAttribute, "hip_4.2", (void *value, int attrib, void *hfunc), (value, attrib, hfunc), NOTHING, NOTHING)
HIP_WRAP(hipFuncGetAttributes, "hip_4.2", (void *attr, void *func), (attr, func), NOTHING, NOTHING)
HIP_WRAP(hipFuncSetAttribute, "hip_4.2", (void *func, int attr, int value), (func, attr, value), NOTHING, NOTHING)
HIP_WRAP(hipFuncSetCacheConfig, "hip_4.2", (void *func, int config), (func, config), NOTHING, NOTHING)
HIP_WRAP(hipFuncSetSharedMemConfig, "hip_4.2", (void *func, int config), (func, config), NOTHING, NOTHING)
HIP_WRAP(hipGetFuncBySymbol, "hip_6.2", (void *functionPtr, void *symbolPtr), (functionPtr, symbolPtr), NOTHING, NOTHING)
HIP_WRAP(hipGetSymbolAddress, "hip_4.2", (void *devPtr, void *symbol), (devPtr, symbol), NOTHING, NOTHING)
HIP_WRAP(hipGetSymbolSize, "hip_4.2", (void *size, void *symbol), (size, symbol), NOTHING, NOTHING)
HIP_WRAP_AS(const char *, "", hipKernelNameRef, "hip_4.2", (void *f), (f), NOTHING)
HIP_WRAP_AS(const char *, "", hipKernelNameRefByPtr, "hip_4.2", (void *hostFunction, void *stream), (hostFunction, stream), STREAM(stream))
HIP_WRAP(hipLinkAddData, "hip_6.4", (void *state, int type, void *data, size_t size, void *name, unsigned int numOptions, void *options, void *optionValues), (state, type, data, size, name, numOptions, options, optionValues), NOTHING, NOTHING)
HIP_WRAP(hipLinkAddFile, "hip_6.4", (void *state, int type, void *path, unsigned int numOptions, void *options, void *optionValues), (state, type, path, numOptions, options, optionValues), NOTHING, NOTHING)
HIP_WRAP(hipLinkComplete, "hip_6.4", (void *state, void *hipBinOut, void *sizeOut), (state, hipBinOut, sizeOut), NOTHING, NOTHING)
HIP_WRAP(hipLinkCreate, "hip_6.4", (unsigned int numOptions, void *options, void *optionValues, void *stateOut), (numOptions, options, optionValues, stateOut), NOTHING, NOTHING)
HIP_WRAP(hipLinkDestroy, "hip_6.4", (void *state), (state), NOTHING, NOTHING)
HIP_WRAP(hipModuleGetGlobal, "hip_4.2", (void *dptr, void *bytes, void *hmod, void *name), (dptr, bytes, hmod, name), NOTHING, NOTHING)
HIP_WRAP(hipModuleGetTexRef, "hip_4.2", (void *texRef, void *hmod, void *name), (texRef, hmod, name), NOTHING, NOTHING)
HIP_WRAP(hipModuleLoad, "hip_4.2", (void *module, void *fname), (module, fname), NOTHING, NOTHING)
HIP_WRAP(hipModuleLoadData, "hip_4.2", (void *module, void *image), (module, image), NOTHING, NOTHING)
HIP_WRAP(hipModuleLoadDataEx, "hip_4.2", (void *module, void *image, unsigned int numOptions, void *options, void *optionValues), (module, image, numOptions, options, optionValues), NOTHING, NOTHING)
HIP_WRAP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessor, "hip_4.2", (void *numBlocks, void *f, int blockSize, size_t dynSharedMemPerBlk), (numBlocks, f, blockSize, dynSharedMemPerBlk), NOTHING, NOTHING)
HIP_WRAP(hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, "hip_4.2", (void *numBlocks, void *f, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags), (numBlocks, f, blockSize, dynSharedMemPerBlk, flags), NOTHING, NOTHING)
HIP_WRAP(hipModuleOccupancyMaxPotentialBlockSize, "hip_4.2", (void *gridSize, void *blockSize, void *f, size_t dynSharedMemPerBlk, int blockSizeLimit), (gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit), NOTHING, NOTHING)
HIP_WRAP(hipModuleOccupancyMaxPotentialBlockSizeWithFlags, "hip_4.2", (void *gridSize, void *blockSize, void *f, size_t dynSharedMemPerBlk, int blockSizeLimit, unsigned int flags), (gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit, flags), NOTHING, NOTHING)
HIP_WRAP(hipModuleUnload, "hip_4.2", (void *module), (module), NOTHING, NOTHING)
HIP_WRAP(hipOccupancyMaxActiveBlocksPerMultiprocessor, "hip_4.2", (void *numBlocks, void *f, int blockSize, size_t dynSharedMemPerBlk), (numBlocks, f, blockSize, dynSharedMemPerBlk), NOTHING, NOTHING)
HIP_WRAP(hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, "hip_4.2", (void *numBlocks, void *f, int blockSize, size_t dynSharedMemPerBlk, unsigned int flags), (numBlocks, f, blockSize, dynSharedMemPerBlk, flags), NOTHING, NOTHING)
HIP_WRAP(hipOccupancyMaxPotentialBlockSize, "hip_4.2", (void *gridSize, void *blockSize, void *f, size_t dynSharedMemPerBlk, int blockSizeLimit), (gridSize, blockSize, f, dynSharedMemPerBlk, blockSizeLimit), NOTHING, NOTHING)
HIP_WRAP(hipSetupArgument, "hip_4.2", (void *arg, size_t size, size_t offset), (arg, size, offset), NOTHING, NOTHING)
/* clang-format on */

/* hipGetProcAddress's call, traced. */
static int hip_get_proc_address(const char *symbol, void **pfn, int hip_version, uint64_t flags,
                                void *status)
{
    HIP_BODY(hipGetProcAddress, "hip_6.1", int (*)(const char *, void **, int, uint64_t, void *),
             (symbol, pfn, hip_version, flags, status), NOTHING, NOTHING);
}

/* The address *pfn that hipGetProcAddress gave for symbol becomes the collector's definition of
 * symbol when that definition forwards to that very address (the runtime's default version of
 * the name): the program's calls through the pointer are then counted as direct ones are. Any
 * other address (another version of the name, asked for by hipVersion; a name the collector does
 * not define) is left as it is. */
static void hip_proc_own(const char *symbol, void **pfn)
{
    Dl_info self, found;
    void *mine, *next;
    int saved = errno;

    if (!symbol || !pfn || !*pfn)
        return;
    mine = dlsym(RTLD_DEFAULT, symbol);
    next = dlsym(RTLD_NEXT, symbol);
    if (mine && mine != *pfn && next == *pfn && dladdr((void *)hip_proc_own, &self) &&
        dladdr(mine, &found) && self.dli_fbase == found.dli_fbase)
        *pfn = mine;
    errno = saved;
}

COLLECTOR_EXPORT int hipGetProcAddress(const char *symbol, void **pfn, int hip_version,
                                       uint64_t flags, void *status)
{
    int rc = hip_get_proc_address(symbol, pfn, hip_version, flags, status);

    if (rc == 0)
        hip_proc_own(symbol, pfn);
    return rc;
}
