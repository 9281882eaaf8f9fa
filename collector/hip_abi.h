/* The HIP runtime types whose fields the collector reads (ROCm 5.2.3's driver_types.h and
 * hip_runtime_api.h, which need a HIP platform and C++ to compile; where ROCm 6 changed a type,
 * 6.4.3's too), mirrored in C for x86-64.
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

/* hipMemoryType as ROCm 6 numbers it (hip_runtime_api.h of 6.4.3). */
enum {
    ROCSYS_HIP6_MEMORY_UNREGISTERED = 0,
    ROCSYS_HIP6_MEMORY_HOST = 1,
    ROCSYS_HIP6_MEMORY_DEVICE = 2,
    ROCSYS_HIP6_MEMORY_MANAGED = 3,
    ROCSYS_HIP6_MEMORY_ARRAY = 10,
    ROCSYS_HIP6_MEMORY_UNIFIED = 11,
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

/* HIP_MEMCPY3D: the parameter block of hipDrvMemcpy3D(Async) in ROCm 5.x (32-bit sizes). */
struct rocsys_hip5_drv_memcpy3d {
    uint32_t src_x_bytes, src_y, src_z, src_lod;
    int src_memory_type; /* hipMemoryType */
    const void *src_host;
    void *src_device;
    void *src_array;
    uint32_t src_pitch, src_height;
    uint32_t dst_x_bytes, dst_y, dst_z, dst_lod;
    int dst_memory_type; /* hipMemoryType */
    void *dst_host;
    void *dst_device;
    void *dst_array;
    uint32_t dst_pitch, dst_height;
    uint32_t width_bytes, height, depth;
};

/* HIP_MEMCPY3D in ROCm 6.x (6.4.3's driver_types.h: every size is a size_t). */
struct rocsys_hip6_drv_memcpy3d {
    size_t src_x_bytes, src_y, src_z, src_lod;
    int src_memory_type; /* hipMemoryType, ROCm 6 numbering */
    const void *src_host;
    void *src_device;
    void *src_array;
    size_t src_pitch, src_height;
    size_t dst_x_bytes, dst_y, dst_z, dst_lod;
    int dst_memory_type; /* hipMemoryType, ROCm 6 numbering */
    void *dst_host;
    void *dst_device;
    void *dst_array;
    size_t dst_pitch, dst_height;
    size_t width_bytes, height, depth;
};

/* hipFunctionLaunchParams (ROCm 5.5+): one entry of hipModuleLaunchCooperativeKernelMultiDevice. */
struct rocsys_hip_function_launch_params {
    void *function; /* hipFunction_t */
    uint32_t grid_x, grid_y, grid_z;
    uint32_t block_x, block_y, block_z;
    uint32_t shared_mem;
    void *stream;
    void **params;
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

/* hipIpcMemHandle_t, hipIpcEventHandle_t (passed by value: 64 opaque bytes, in memory). */
struct rocsys_hip_ipc_handle {
    char reserved[64];
};

/* hipChannelFormatDesc (hipCreateChannelDesc returns it by value: 20 bytes, in memory). */
struct rocsys_hip_channel_desc {
    int x, y, z, w;
    int f; /* hipChannelFormatKind */
};

#endif
