/* HIP wrappers: memory pools and virtual memory, one HIP_WRAP row each (generated from HIP 6.4.3's
 * hip_runtime_api.h, checked against it by tests/e2e/test_hip6_host.sh). Stream-ordered memory
 * pools (hipMallocAsync and hipMallocFromPoolAsync are in hip_memory.c) and the virtual memory
 * management entry points. Reservations, physical allocations and mappings record their bytes. */
#define _GNU_SOURCE
#include "hip_wrap.h"

/* clang-format off */
HIP_WRAP(hipDeviceGetDefaultMemPool, "hip_5.1", (void *mem_pool, int device), (mem_pool, device), NOTHING, NOTHING)
HIP_WRAP(hipDeviceGetMemPool, "hip_5.1", (void *mem_pool, int device), (mem_pool, device), NOTHING, NOTHING)
HIP_WRAP(hipDeviceSetMemPool, "hip_5.1", (int device, void *mem_pool), (device, mem_pool), NOTHING, NOTHING)
HIP_WRAP(hipMemAddressFree, "hip_5.1", (void *devPtr, size_t size), (devPtr, size), NOTHING, NOTHING)
HIP_WRAP(hipMemAddressReserve, "hip_5.1", (void *ptr, size_t size, size_t alignment, void *addr, uint64_t flags), (ptr, size, alignment, addr, flags), NOTHING, r_.bytes = size)
HIP_WRAP(hipMemCreate, "hip_5.1", (void *handle, size_t size, void *prop, uint64_t flags), (handle, size, prop, flags), NOTHING, r_.bytes = size)
HIP_WRAP(hipMemExportToShareableHandle, "hip_5.1", (void *shareableHandle, void *handle, int handleType, uint64_t flags), (shareableHandle, handle, handleType, flags), NOTHING, NOTHING)
HIP_WRAP(hipMemGetAccess, "hip_5.1", (void *flags, void *location, void *ptr), (flags, location, ptr), NOTHING, NOTHING)
HIP_WRAP(hipMemGetAllocationGranularity, "hip_5.1", (void *granularity, void *prop, int option), (granularity, prop, option), NOTHING, NOTHING)
HIP_WRAP(hipMemGetAllocationPropertiesFromHandle, "hip_5.1", (void *prop, void *handle), (prop, handle), NOTHING, NOTHING)
HIP_WRAP(hipMemImportFromShareableHandle, "hip_5.1", (void *handle, void *osHandle, int shHandleType), (handle, osHandle, shHandleType), NOTHING, NOTHING)
HIP_WRAP(hipMemMap, "hip_5.1", (void *ptr, size_t size, size_t offset, void *handle, uint64_t flags), (ptr, size, offset, handle, flags), NOTHING, r_.bytes = size)
HIP_WRAP(hipMemMapArrayAsync, "hip_5.1", (void *mapInfoList, unsigned int count, void *stream), (mapInfoList, count, stream), NOTHING, STREAM(stream))
HIP_WRAP(hipMemPoolCreate, "hip_5.1", (void *mem_pool, void *pool_props), (mem_pool, pool_props), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolDestroy, "hip_5.1", (void *mem_pool), (mem_pool), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolExportPointer, "hip_5.1", (void *export_data, void *dev_ptr), (export_data, dev_ptr), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolExportToShareableHandle, "hip_5.1", (void *shared_handle, void *mem_pool, int handle_type, unsigned int flags), (shared_handle, mem_pool, handle_type, flags), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolGetAccess, "hip_5.1", (void *flags, void *mem_pool, void *location), (flags, mem_pool, location), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolGetAttribute, "hip_5.1", (void *mem_pool, int attr, void *value), (mem_pool, attr, value), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolImportFromShareableHandle, "hip_5.1", (void *mem_pool, void *shared_handle, int handle_type, unsigned int flags), (mem_pool, shared_handle, handle_type, flags), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolImportPointer, "hip_5.1", (void *dev_ptr, void *mem_pool, void *export_data), (dev_ptr, mem_pool, export_data), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolSetAccess, "hip_5.1", (void *mem_pool, void *desc_list, size_t count), (mem_pool, desc_list, count), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolSetAttribute, "hip_5.1", (void *mem_pool, int attr, void *value), (mem_pool, attr, value), NOTHING, NOTHING)
HIP_WRAP(hipMemPoolTrimTo, "hip_5.1", (void *mem_pool, size_t min_bytes_to_hold), (mem_pool, min_bytes_to_hold), NOTHING, NOTHING)
HIP_WRAP(hipMemRelease, "hip_5.1", (void *handle), (handle), NOTHING, NOTHING)
HIP_WRAP(hipMemRetainAllocationHandle, "hip_5.1", (void *handle, void *addr), (handle, addr), NOTHING, NOTHING)
HIP_WRAP(hipMemSetAccess, "hip_5.1", (void *ptr, size_t size, void *desc, size_t count), (ptr, size, desc, count), NOTHING, NOTHING)
HIP_WRAP(hipMemUnmap, "hip_5.1", (void *ptr, size_t size), (ptr, size), NOTHING, NOTHING)
/* clang-format on */
