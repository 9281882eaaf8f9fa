/* The HIP runtime types whose fields the collector reads (ROCm 5.2.3's driver_types.h and
 * hip_runtime_api.h, which need a HIP platform and C++ to compile), mirrored in C for x86-64.
 * Used by collector/hip.c; checked against the real headers by tests/unit/test_hip_layout.cpp
 * when they are installed. Everything else the wrappers pass on is an opaque pointer. */
#ifndef ROCSYS_COLLECTOR_HIP_ABI_H
#define ROCSYS_COLLECTOR_HIP_ABI_H

#include <stddef.h>
#include <stdint.h>

/* dim3 as the HIP ABI passes it (by value: three 32-bit fields). */
struct hip_dim3 {
    uint32_t x, y, z;
};

/* hipMemoryType, as ROCm 5.2.3 numbers it (ROCm 6 renumbers it: this mirror is for 5.x). */
enum {
    ROCSYS_HIP_MEMORY_HOST = 0,
    ROCSYS_HIP_MEMORY_DEVICE = 1,
    ROCSYS_HIP_MEMORY_ARRAY = 2,
    ROCSYS_HIP_MEMORY_UNIFIED = 3,
};

/* hip_Memcpy2D: the parameter block of hipMemcpyParam2D(Async). */
struct rocsys_hip_memcpy2d {
    size_t src_x_bytes;
    size_t src_y;
    int src_memory_type; /* hipMemoryType */
    const void *src_host;
    void *src_device;
    void *src_array;
    size_t src_pitch;
    size_t dst_x_bytes;
    size_t dst_y;
    int dst_memory_type; /* hipMemoryType */
    void *dst_host;
    void *dst_device;
    void *dst_array;
    size_t dst_pitch;
    size_t width_bytes;
    size_t height;
};

/* hipExtent (passed by value): width in bytes for linear memory, in elements for arrays. */
struct rocsys_hip_extent {
    size_t width;
    size_t height;
    size_t depth;
};

/* hipPitchedPtr: what hipMalloc3D returns. */
struct rocsys_hip_pitched_ptr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};

/* hipPos: an offset in elements (arrays) or bytes/rows/slices (linear memory). */
struct rocsys_hip_pos {
    size_t x, y, z;
};

/* hipMemcpy3DParms: the parameter block of hipMemcpy3D(Async). */
struct rocsys_hip_memcpy3d_parms {
    void *src_array;
    struct rocsys_hip_pos src_pos;
    struct rocsys_hip_pitched_ptr src_ptr;
    void *dst_array;
    struct rocsys_hip_pos dst_pos;
    struct rocsys_hip_pitched_ptr dst_ptr;
    struct rocsys_hip_extent extent;
    int kind; /* hipMemcpyKind */
};

/* hipLaunchParams: one entry of a multi-device launch. */
struct rocsys_hip_launch_params {
    void *func; /* host stub of the kernel */
    struct hip_dim3 grid;
    struct hip_dim3 block;
    void **args;
    size_t shared_mem;
    void *stream;
};

#endif
