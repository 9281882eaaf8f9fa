/* HIP wrappers: the memory copies (plain, async, directional, 2D, 3D, parameter blocks,
 * arrays, peer, symbols, per-thread default stream), each with its bytes and direction. */
#define _GNU_SOURCE
#include "hip_wrap.h"

enum { KIND_HTOH = 0, KIND_HTOD = 1, KIND_DTOH = 2, KIND_DTOD = 3, KIND_DEFAULT = 4 };

COLLECTOR_EXPORT int hipMemcpy(void *dst, const void *src, size_t bytes, int kind)
{
    HIP_BODY(hipMemcpy, "hip_4.2", int (*)(void *, const void *, size_t, int),
             (dst, src, bytes, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyAsync(void *dst, const void *src, size_t bytes, int kind,
                                    void *stream)
{
    HIP_BODY(hipMemcpyAsync, "hip_4.2", int (*)(void *, const void *, size_t, int, void *),
             (dst, src, bytes, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* The directional copies (hipDeviceptr_t is a void *). */
#define HIP_COPY_SYNC(api, k)                                                                      \
    COLLECTOR_EXPORT int api(void *dst, void *src, size_t bytes)                                   \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, void *, size_t), (dst, src, bytes), NOTHING, {    \
            r_.bytes = bytes;                                                                      \
            r_.copy_kind = k;                                                                      \
        });                                                                                        \
    }
#define HIP_COPY_ASYNC(api, k)                                                                     \
    COLLECTOR_EXPORT int api(void *dst, void *src, size_t bytes, void *stream)                     \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, void *, size_t, void *),                          \
                 (dst, src, bytes, stream), NOTHING, {                                             \
                     r_.bytes = bytes;                                                             \
                     r_.copy_kind = k;                                                             \
                     r_.stream = (uint64_t)(uintptr_t)stream;                                      \
                 });                                                                               \
    }

HIP_COPY_SYNC(hipMemcpyHtoD, KIND_HTOD)
HIP_COPY_SYNC(hipMemcpyDtoH, KIND_DTOH)
HIP_COPY_SYNC(hipMemcpyDtoD, KIND_DTOD)
HIP_COPY_ASYNC(hipMemcpyHtoDAsync, KIND_HTOD)
HIP_COPY_ASYNC(hipMemcpyDtoHAsync, KIND_DTOH)
HIP_COPY_ASYNC(hipMemcpyDtoDAsync, KIND_DTOD)

COLLECTOR_EXPORT int hipMemset(void *dst, int value, size_t bytes)
{
    HIP_BODY(hipMemset, "hip_4.2", int (*)(void *, int, size_t), (dst, value, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMemsetAsync(void *dst, int value, size_t bytes, void *stream)
{
    HIP_BODY(hipMemsetAsync, "hip_4.2", int (*)(void *, int, size_t, void *),
             (dst, value, bytes, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy, hipMemcpyAsync and hipMemset on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy_spt(void *dst, const void *src, size_t bytes, int kind)
{
    HIP_BODY(hipMemcpy_spt, "hip_5.2", int (*)(void *, const void *, size_t, int),
             (dst, src, bytes, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyAsync_spt(void *dst, const void *src, size_t bytes, int kind,
                                        void *stream)
{
    HIP_BODY(hipMemcpyAsync_spt, "hip_5.2", int (*)(void *, const void *, size_t, int, void *),
             (dst, src, bytes, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMemset_spt(void *dst, int value, size_t bytes)
{
    HIP_BODY(hipMemset_spt, "hip_5.2", int (*)(void *, int, size_t), (dst, value, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMemcpyWithStream(void *dst, const void *src, size_t bytes, int kind,
                                         void *stream)
{
    HIP_BODY(hipMemcpyWithStream, "hip_4.2", int (*)(void *, const void *, size_t, int, void *),
             (dst, src, bytes, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev,
                                   size_t bytes)
{
    HIP_BODY(hipMemcpyPeer, "hip_4.2", int (*)(void *, int, const void *, int, size_t),
             (dst, dst_dev, src, src_dev, bytes), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = KIND_DTOD;
             });
}

COLLECTOR_EXPORT int hipMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev,
                                        size_t bytes, void *stream)
{
    HIP_BODY(hipMemcpyPeerAsync, "hip_4.2", int (*)(void *, int, const void *, int, size_t, void *),
             (dst, dst_dev, src, src_dev, bytes, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = KIND_DTOD;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, int kind)
{
    HIP_BODY(hipMemcpy2D, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, int),
             (dst, dpitch, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, int kind, void *stream)
{
    HIP_BODY(hipMemcpy2DAsync, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, int, void *),
             (dst, dpitch, src, spitch, width, height, kind, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy2D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, int kind)
{
    HIP_BODY(hipMemcpy2D_spt, "hip_5.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, int),
             (dst, dpitch, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyToSymbol(const void *symbol, const void *src, size_t bytes,
                                       size_t offset, int kind)
{
    HIP_BODY(hipMemcpyToSymbol, "hip_4.2", int (*)(const void *, const void *, size_t, size_t, int),
             (symbol, src, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t bytes,
                                            size_t offset, int kind, void *stream)
{
    HIP_BODY(hipMemcpyToSymbolAsync, "hip_4.2",
             int (*)(const void *, const void *, size_t, size_t, int, void *),
             (symbol, src, bytes, offset, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpyToSymbol on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t bytes,
                                           size_t offset, int kind)
{
    HIP_BODY(hipMemcpyToSymbol_spt, "hip_5.2",
             int (*)(const void *, const void *, size_t, size_t, int),
             (symbol, src, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset,
                                         int kind)
{
    HIP_BODY(hipMemcpyFromSymbol, "hip_4.2", int (*)(void *, const void *, size_t, size_t, int),
             (dst, symbol, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t bytes,
                                              size_t offset, int kind, void *stream)
{
    HIP_BODY(hipMemcpyFromSymbolAsync, "hip_4.2",
             int (*)(void *, const void *, size_t, size_t, int, void *),
             (dst, symbol, bytes, offset, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpyFromSymbol on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t bytes,
                                             size_t offset, int kind)
{
    HIP_BODY(hipMemcpyFromSymbol_spt, "hip_5.2", int (*)(void *, const void *, size_t, size_t, int),
             (dst, symbol, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

/* Bytes and direction of a hipMemcpy3D copy, read from its parameter block: the direction
 * is its kind; the bytes are width x height x depth when neither side is an array (the width
 * is in bytes then; for an array it counts elements of a format the runtime knows: 0 bytes).
 * No block: 0 bytes, direction default. */
static void fill_param3d(struct rocsys_rec_hip_api *r, const void *parms)
{
    const struct rocsys_hip_memcpy3d_parms *p = parms;

    r->copy_kind = KIND_DEFAULT;
    if (!p)
        return;
    r->copy_kind = (uint32_t)p->kind;
    if (!p->src_array && !p->dst_array)
        r->bytes = p->extent.width * p->extent.height * p->extent.depth;
}

COLLECTOR_EXPORT int hipMemcpy3D(const void *parms)
{
    HIP_BODY(hipMemcpy3D, "hip_4.2", int (*)(const void *), (parms), NOTHING,
             fill_param3d(&r_, parms));
}

COLLECTOR_EXPORT int hipMemcpy3DAsync(const void *parms, void *stream)
{
    HIP_BODY(hipMemcpy3DAsync, "hip_4.2", int (*)(const void *, void *), (parms, stream), NOTHING, {
        fill_param3d(&r_, parms);
        r_.stream = (uint64_t)(uintptr_t)stream;
    });
}

/* hipMemcpy3D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy3D_spt(const void *parms)
{
    HIP_BODY(hipMemcpy3D_spt, "hip_5.2", int (*)(const void *), (parms), NOTHING,
             fill_param3d(&r_, parms));
}

/* The side a hipMemoryType is on: 0 host, 1 device (arrays are device memory), -1 unknown.
 * ROCm 6 renumbered the type: the loaded runtime's numbering applies (a program runs with the
 * runtime of its headers' major version: the soname changed with it). */
static int memory_side(int type)
{
    if (hip_runtime_major() >= 6) {
        switch (type) {
        case ROCSYS_HIP6_MEMORY_HOST:
            return 0;
        case ROCSYS_HIP6_MEMORY_DEVICE:
        case ROCSYS_HIP6_MEMORY_ARRAY:
            return 1;
        default: /* unregistered, managed, unified or invalid: the runtime decides */
            return -1;
        }
    }
    switch (type) {
    case ROCSYS_HIP_MEMORY_HOST:
        return 0;
    case ROCSYS_HIP_MEMORY_DEVICE:
    case ROCSYS_HIP_MEMORY_ARRAY:
        return 1;
    default: /* unified (unused by HIP) or invalid: the runtime decides */
        return -1;
    }
}

/* The direction of a copy between two hipMemoryTypes (default when either is not known). */
static uint32_t kind_of(int src_type, int dst_type)
{
    int src = memory_side(src_type), dst = memory_side(dst_type);

    if (src < 0 || dst < 0)
        return KIND_DEFAULT;
    return src ? (dst ? KIND_DTOD : KIND_DTOH) : (dst ? KIND_HTOD : KIND_HTOH);
}

/* Bytes and direction of a hipMemcpyParam2D copy, read from its parameter block (none: 0 bytes,
 * direction default). */
static void fill_param2d(struct rocsys_rec_hip_api *r, const void *copy)
{
    const struct rocsys_hip_memcpy2d *p = copy;

    r->copy_kind = KIND_DEFAULT;
    if (!p)
        return;
    r->bytes = p->width_bytes * p->height;
    r->copy_kind = kind_of(p->src_memory_type, p->dst_memory_type);
}

COLLECTOR_EXPORT int hipMemcpyParam2D(const void *copy)
{
    HIP_BODY(hipMemcpyParam2D, "hip_4.2", int (*)(const void *), (copy), NOTHING,
             fill_param2d(&r_, copy));
}

COLLECTOR_EXPORT int hipMemcpyParam2DAsync(const void *copy, void *stream)
{
    HIP_BODY(hipMemcpyParam2DAsync, "hip_4.2", int (*)(const void *, void *), (copy, stream),
             NOTHING, {
                 fill_param2d(&r_, copy);
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* Copies to and from arrays (hipArray * is opaque here); width is in bytes. */
COLLECTOR_EXPORT int hipMemcpy2DToArray(void *dst, size_t w_offset, size_t h_offset,
                                        const void *src, size_t spitch, size_t width, size_t height,
                                        int kind)
{
    HIP_BODY(hipMemcpy2DToArray, "hip_4.2",
             int (*)(void *, size_t, size_t, const void *, size_t, size_t, size_t, int),
             (dst, w_offset, h_offset, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DToArrayAsync(void *dst, size_t w_offset, size_t h_offset,
                                             const void *src, size_t spitch, size_t width,
                                             size_t height, int kind, void *stream)
{
    HIP_BODY(hipMemcpy2DToArrayAsync, "hip_4.3",
             int (*)(void *, size_t, size_t, const void *, size_t, size_t, size_t, int, void *),
             (dst, w_offset, h_offset, src, spitch, width, height, kind, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy2DToArray on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy2DToArray_spt(void *dst, size_t w_offset, size_t h_offset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, int kind)
{
    HIP_BODY(hipMemcpy2DToArray_spt, "hip_5.2",
             int (*)(void *, size_t, size_t, const void *, size_t, size_t, size_t, int),
             (dst, w_offset, h_offset, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DFromArray(void *dst, size_t dpitch, const void *src,
                                          size_t w_offset, size_t h_offset, size_t width,
                                          size_t height, int kind)
{
    HIP_BODY(hipMemcpy2DFromArray, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, size_t, int),
             (dst, dpitch, src, w_offset, h_offset, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, const void *src,
                                               size_t w_offset, size_t h_offset, size_t width,
                                               size_t height, int kind, void *stream)
{
    HIP_BODY(hipMemcpy2DFromArrayAsync, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, size_t, int, void *),
             (dst, dpitch, src, w_offset, h_offset, width, height, kind, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy2DFromArray on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, const void *src,
                                              size_t w_offset, size_t h_offset, size_t width,
                                              size_t height, int kind)
{
    HIP_BODY(hipMemcpy2DFromArray_spt, "hip_5.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, size_t, int),
             (dst, dpitch, src, w_offset, h_offset, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyToArray(void *dst, size_t w_offset, size_t h_offset, const void *src,
                                      size_t count, int kind)
{
    HIP_BODY(hipMemcpyToArray, "hip_4.2",
             int (*)(void *, size_t, size_t, const void *, size_t, int),
             (dst, w_offset, h_offset, src, count, kind), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyFromArray(void *dst, const void *src, size_t w_offset,
                                        size_t h_offset, size_t count, int kind)
{
    HIP_BODY(hipMemcpyFromArray, "hip_4.2",
             int (*)(void *, const void *, size_t, size_t, size_t, int),
             (dst, src, w_offset, h_offset, count, kind), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = (uint32_t)kind;
             });
}

/* Array to host and host to array: the direction is in the name. */
COLLECTOR_EXPORT int hipMemcpyAtoH(void *dst, void *src, size_t src_offset, size_t count)
{
    HIP_BODY(hipMemcpyAtoH, "hip_4.2", int (*)(void *, void *, size_t, size_t),
             (dst, src, src_offset, count), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = KIND_DTOH;
             });
}

COLLECTOR_EXPORT int hipMemcpyHtoA(void *dst, size_t dst_offset, const void *src, size_t count)
{
    HIP_BODY(hipMemcpyHtoA, "hip_4.2", int (*)(void *, size_t, const void *, size_t),
             (dst, dst_offset, src, count), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = KIND_HTOD;
             });
}

/* hipMemsetD8/D16/D32: count elements of 1, 2 or 4 bytes (the value is passed as an int,
 * which is how the C calling convention passes unsigned char and unsigned short too). */

/* Bytes and direction of a hipDrvMemcpy3D copy, read from its HIP_MEMCPY3D in the loaded
 * runtime's layout (32-bit sizes in 5.x, size_t in 6.x). No block: 0 bytes, direction default. */
static void fill_drv3d(struct rocsys_rec_hip_api *r, const void *copy)
{
    r->copy_kind = KIND_DEFAULT;
    if (!copy)
        return;
    if (hip_runtime_major() >= 6) {
        const struct rocsys_hip6_drv_memcpy3d *p = copy;
        r->bytes = p->width_bytes * p->height * p->depth;
        r->copy_kind = kind_of(p->src_memory_type, p->dst_memory_type);
    } else {
        const struct rocsys_hip5_drv_memcpy3d *p = copy;
        r->bytes = (uint64_t)p->width_bytes * p->height * p->depth;
        r->copy_kind = kind_of(p->src_memory_type, p->dst_memory_type);
    }
}

/* ---- the rest of the copy family: 5.3+ per-thread default stream forms, 6.x array copies,
 * the driver-style copies (one HIP_WRAP row each; hipArray_t and hipDeviceptr_t are pointers) */

/* clang-format off */
HIP_WRAP(hipMemcpy2DAsync_spt, "hip_5.3", (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind, void *stream), (dst, dpitch, src, spitch, width, height, kind, stream), NOTHING, COPY_ON(width * height, kind, stream))
HIP_WRAP(hipMemcpy2DFromArrayAsync_spt, "hip_5.3", (void *dst, size_t dpitch, const void *src, size_t w_offset, size_t h_offset, size_t width, size_t height, int kind, void *stream), (dst, dpitch, src, w_offset, h_offset, width, height, kind, stream), NOTHING, COPY_ON(width * height, kind, stream))
HIP_WRAP(hipMemcpy2DToArrayAsync_spt, "hip_5.3", (void *dst, size_t w_offset, size_t h_offset, const void *src, size_t spitch, size_t width, size_t height, int kind, void *stream), (dst, w_offset, h_offset, src, spitch, width, height, kind, stream), NOTHING, COPY_ON(width * height, kind, stream))
HIP_WRAP(hipMemcpy3DAsync_spt, "hip_5.3", (const void *parms, void *stream), (parms, stream), NOTHING, (fill_param3d(&r_, parms), STREAM(stream)))
HIP_WRAP(hipMemcpyFromArray_spt, "hip_5.3", (void *dst, const void *src, size_t w_offset, size_t h_offset, size_t count, int kind), (dst, src, w_offset, h_offset, count, kind), NOTHING, COPY(count, kind))
HIP_WRAP(hipMemcpyFromSymbolAsync_spt, "hip_5.3", (void *dst, const void *symbol, size_t bytes, size_t offset, int kind, void *stream), (dst, symbol, bytes, offset, kind, stream), NOTHING, COPY_ON(bytes, kind, stream))
HIP_WRAP(hipMemcpyToSymbolAsync_spt, "hip_5.3", (const void *symbol, const void *src, size_t bytes, size_t offset, int kind, void *stream), (symbol, src, bytes, offset, kind, stream), NOTHING, COPY_ON(bytes, kind, stream))
HIP_WRAP(hipMemcpy2DArrayToArray, "hip_6.2", (void *dst, size_t dst_w, size_t dst_h, const void *src, size_t src_w, size_t src_h, size_t width, size_t height, int kind), (dst, dst_w, dst_h, src, src_w, src_h, width, height, kind), NOTHING, COPY(width * height, kind))
HIP_WRAP(hipMemcpyAtoA, "hip_6.2", (void *dst, size_t dst_offset, void *src, size_t src_offset, size_t bytes), (dst, dst_offset, src, src_offset, bytes), NOTHING, COPY(bytes, KIND_DTOD))
HIP_WRAP(hipMemcpyAtoD, "hip_6.2", (void *dst, void *src, size_t src_offset, size_t bytes), (dst, src, src_offset, bytes), NOTHING, COPY(bytes, KIND_DTOD))
HIP_WRAP(hipMemcpyAtoHAsync, "hip_6.2", (void *dst, void *src, size_t src_offset, size_t bytes, void *stream), (dst, src, src_offset, bytes, stream), NOTHING, COPY_ON(bytes, KIND_DTOH, stream))
HIP_WRAP(hipMemcpyDtoA, "hip_6.2", (void *dst, size_t dst_offset, void *src, size_t bytes), (dst, dst_offset, src, bytes), NOTHING, COPY(bytes, KIND_DTOD))
HIP_WRAP(hipMemcpyHtoAAsync, "hip_6.2", (void *dst, size_t dst_offset, const void *src, size_t bytes, void *stream), (dst, dst_offset, src, bytes, stream), NOTHING, COPY_ON(bytes, KIND_HTOD, stream))
HIP_WRAP(hipDrvMemcpy2DUnaligned, "hip_4.3", (const void *copy), (copy), NOTHING, fill_param2d(&r_, copy))
HIP_WRAP(hipDrvMemcpy3D, "hip_4.2", (const void *copy), (copy), NOTHING, fill_drv3d(&r_, copy))
HIP_WRAP(hipDrvMemcpy3DAsync, "hip_4.2", (const void *copy, void *stream), (copy, stream), NOTHING, (fill_drv3d(&r_, copy), STREAM(stream)))
/* clang-format on */
