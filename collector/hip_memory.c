/* HIP wrappers: allocation and free in their forms, and the memory sets. */
#define _GNU_SOURCE
#include "hip_wrap.h"

/* ---- memory ---- */

COLLECTOR_EXPORT int hipMalloc(void **ptr, size_t bytes)
{
    HIP_BODY(hipMalloc, "hip_4.2", int (*)(void **, size_t), (ptr, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMallocManaged(void **ptr, size_t bytes, unsigned int flags)
{
    HIP_BODY(hipMallocManaged, "hip_4.2", int (*)(void **, size_t, unsigned int),
             (ptr, bytes, flags), NOTHING, r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipHostMalloc(void **ptr, size_t bytes, unsigned int flags)
{
    HIP_BODY(hipHostMalloc, "hip_4.2", int (*)(void **, size_t, unsigned int), (ptr, bytes, flags),
             NOTHING, r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMallocAsync(void **ptr, size_t bytes, void *stream)
{
    HIP_BODY(hipMallocAsync, "hip_5.1", int (*)(void **, size_t, void *), (ptr, bytes, stream),
             NOTHING, {
                 r_.bytes = bytes;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipFree(void *ptr)
{
    HIP_BODY(hipFree, "hip_4.2", int (*)(void *), (ptr), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipHostFree(void *ptr)
{
    HIP_BODY(hipHostFree, "hip_4.2", int (*)(void *), (ptr), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipFreeAsync(void *ptr, void *stream)
{
    HIP_BODY(hipFreeAsync, "hip_5.1", int (*)(void *, void *), (ptr, stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

/* hipMemcpyKind values (as hip_runtime_api.h numbers them). */
#define HIP_SET_SYNC(api, elem)                                                                    \
    COLLECTOR_EXPORT int api(void *dst, int value, size_t count)                                   \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, int, size_t), (dst, value, count), NOTHING,       \
                 r_.bytes = count * (elem));                                                       \
    }
#define HIP_SET_ASYNC(api, elem)                                                                   \
    COLLECTOR_EXPORT int api(void *dst, int value, size_t count, void *stream)                     \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, int, size_t, void *),                             \
                 (dst, value, count, stream), NOTHING, {                                           \
                     r_.bytes = count * (elem);                                                    \
                     r_.stream = (uint64_t)(uintptr_t)stream;                                      \
                 });                                                                               \
    }

HIP_SET_SYNC(hipMemsetD8, 1)
HIP_SET_SYNC(hipMemsetD16, 2)
HIP_SET_SYNC(hipMemsetD32, 4)
HIP_SET_ASYNC(hipMemsetD8Async, 1)
HIP_SET_ASYNC(hipMemsetD16Async, 2)
HIP_SET_ASYNC(hipMemsetD32Async, 4)

COLLECTOR_EXPORT int hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    HIP_BODY(hipMemset2D, "hip_4.2", int (*)(void *, size_t, int, size_t, size_t),
             (dst, pitch, value, width, height), NOTHING, r_.bytes = width * height);
}

COLLECTOR_EXPORT int hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
                                      size_t height, void *stream)
{
    HIP_BODY(hipMemset2DAsync, "hip_4.2", int (*)(void *, size_t, int, size_t, size_t, void *),
             (dst, pitch, value, width, height, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemset2D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width,
                                     size_t height)
{
    HIP_BODY(hipMemset2D_spt, "hip_5.2", int (*)(void *, size_t, int, size_t, size_t),
             (dst, pitch, value, width, height), NOTHING, r_.bytes = width * height);
}

/* 3D sets of pitched memory (hipPitchedPtr and hipExtent are passed by value): width (in bytes)
 * x height x depth. */
COLLECTOR_EXPORT int hipMemset3D(struct rocsys_hip_pitched_ptr ptr, int value,
                                 struct rocsys_hip_extent extent)
{
    HIP_BODY(hipMemset3D, "hip_4.2",
             int (*)(struct rocsys_hip_pitched_ptr, int, struct rocsys_hip_extent),
             (ptr, value, extent), NOTHING, r_.bytes = extent.width * extent.height * extent.depth);
}

COLLECTOR_EXPORT int hipMemset3DAsync(struct rocsys_hip_pitched_ptr ptr, int value,
                                      struct rocsys_hip_extent extent, void *stream)
{
    HIP_BODY(hipMemset3DAsync, "hip_4.2",
             int (*)(struct rocsys_hip_pitched_ptr, int, struct rocsys_hip_extent, void *),
             (ptr, value, extent, stream), NOTHING, {
                 r_.bytes = extent.width * extent.height * extent.depth;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemset3D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemset3D_spt(struct rocsys_hip_pitched_ptr ptr, int value,
                                     struct rocsys_hip_extent extent)
{
    HIP_BODY(hipMemset3D_spt, "hip_5.2",
             int (*)(struct rocsys_hip_pitched_ptr, int, struct rocsys_hip_extent),
             (ptr, value, extent), NOTHING, r_.bytes = extent.width * extent.height * extent.depth);
}

/* ---- more allocation forms ---- */

COLLECTOR_EXPORT int hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    HIP_BODY(hipMallocPitch, "hip_4.2", int (*)(void **, size_t *, size_t, size_t),
             (ptr, pitch, width, height), NOTHING,
             r_.bytes = rc_ == 0 && pitch ? *pitch * height : width * height);
}

COLLECTOR_EXPORT int hipMallocHost(void **ptr, size_t bytes)
{
    HIP_BODY(hipMallocHost, "hip_4.2", int (*)(void **, size_t), (ptr, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipFreeHost(void *ptr)
{
    HIP_BODY(hipFreeHost, "hip_4.2", int (*)(void *), (ptr), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipExtMallocWithFlags(void **ptr, size_t bytes, unsigned int flags)
{
    HIP_BODY(hipExtMallocWithFlags, "hip_4.2", int (*)(void **, size_t, unsigned int),
             (ptr, bytes, flags), NOTHING, r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMallocFromPoolAsync(void **ptr, size_t bytes, void *pool, void *stream)
{
    HIP_BODY(hipMallocFromPoolAsync, "hip_5.1", int (*)(void **, size_t, void *, void *),
             (ptr, bytes, pool, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMallocArray(void **array, const void *desc, size_t width, size_t height,
                                    unsigned int flags)
{
    HIP_BODY(hipMallocArray, "hip_4.2",
             int (*)(void **, const void *, size_t, size_t, unsigned int),
             (array, desc, width, height, flags), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipFreeArray(void *array)
{
    HIP_BODY(hipFreeArray, "hip_4.2", int (*)(void *), (array), NOTHING, NOTHING);
}

/* Pitched 3D allocation: pitch * height * depth once allocated, else the extent asked for. */
COLLECTOR_EXPORT int hipMalloc3D(struct rocsys_hip_pitched_ptr *ptr,
                                 struct rocsys_hip_extent extent)
{
    HIP_BODY(hipMalloc3D, "hip_4.2",
             int (*)(struct rocsys_hip_pitched_ptr *, struct rocsys_hip_extent), (ptr, extent),
             NOTHING, {
                 size_t row = rc_ == 0 && ptr ? ptr->pitch : extent.width;
                 r_.bytes = row * extent.height * extent.depth;
             });
}

/* The array allocations (hipMalloc3DArray's are freed by hipFreeArray, hipArrayCreate's and
 * hipArray3DCreate's by hipArrayDestroy): no byte count, as for hipMallocArray (the extent is in
 * elements of a format only the runtime lays out). */
COLLECTOR_EXPORT int hipMalloc3DArray(void **array, const void *desc,
                                      struct rocsys_hip_extent extent, unsigned int flags)
{
    HIP_BODY(hipMalloc3DArray, "hip_4.2",
             int (*)(void **, const void *, struct rocsys_hip_extent, unsigned int),
             (array, desc, extent, flags), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipArrayCreate(void **array, const void *desc)
{
    HIP_BODY(hipArrayCreate, "hip_4.2", int (*)(void **, const void *), (array, desc), NOTHING,
             NOTHING);
}

COLLECTOR_EXPORT int hipArray3DCreate(void **array, const void *desc)
{
    HIP_BODY(hipArray3DCreate, "hip_4.2", int (*)(void **, const void *), (array, desc), NOTHING,
             NOTHING);
}

COLLECTOR_EXPORT int hipArrayDestroy(void *array)
{
    HIP_BODY(hipArrayDestroy, "hip_4.3", int (*)(void *), (array), NOTHING, NOTHING);
}

/* The async sets on the per-thread default stream (5.3+; one row each). */
/* clang-format off */
HIP_WRAP(hipMemsetAsync_spt, "hip_5.3", (void *dst, int value, size_t bytes, void *stream), (dst, value, bytes, stream), NOTHING, (r_.bytes = bytes, STREAM(stream)))
HIP_WRAP(hipMemset2DAsync_spt, "hip_5.3", (void *dst, size_t pitch, int value, size_t width, size_t height, void *stream), (dst, pitch, value, width, height, stream), NOTHING, (r_.bytes = width * height, STREAM(stream)))
HIP_WRAP(hipMemset3DAsync_spt, "hip_5.3", (struct rocsys_hip_pitched_ptr ptr, int value, struct rocsys_hip_extent extent, void *stream), (ptr, value, extent, stream), NOTHING, (r_.bytes = extent.width * extent.height * extent.depth, STREAM(stream)))
/* clang-format on */
