// The collector's C mirror of the HIP types it reads (collector/hip_abi.h) against the real
// headers of the installed HIP (hip_runtime_api.h, driver_types.h): sizes, field offsets and the
// hipMemoryType values, each in the layout of the installed HIP's major version (ROCm 6 renumbered
// hipMemoryType and widened HIP_MEMCPY3D's sizes). Built only when the headers are installed
// (tests/unit/layout.cmake); 6.x is checked by compiling it against 6.4.3's headers
// (tests/e2e/test_hip6_host.sh, in the sid test bed).
#include <hip/hip_runtime_api.h>

extern "C" {
#include "collector/hip_abi.h"
}

#include "layout_check.h"

int main()
{
    SAME(sizeof(struct hip_dim3), sizeof(dim3));
#if HIP_VERSION_MAJOR >= 6
    SAME(ROCSYS_HIP6_MEMORY_UNREGISTERED, hipMemoryTypeUnregistered);
    SAME(ROCSYS_HIP6_MEMORY_HOST, hipMemoryTypeHost);
    SAME(ROCSYS_HIP6_MEMORY_DEVICE, hipMemoryTypeDevice);
    SAME(ROCSYS_HIP6_MEMORY_MANAGED, hipMemoryTypeManaged);
    SAME(ROCSYS_HIP6_MEMORY_ARRAY, hipMemoryTypeArray);
    SAME(ROCSYS_HIP6_MEMORY_UNIFIED, hipMemoryTypeUnified);
#define DRV3D rocsys_hip6_drv_memcpy3d
#else
    SAME(ROCSYS_HIP_MEMORY_HOST, hipMemoryTypeHost);
    SAME(ROCSYS_HIP_MEMORY_DEVICE, hipMemoryTypeDevice);
    SAME(ROCSYS_HIP_MEMORY_ARRAY, hipMemoryTypeArray);
    SAME(ROCSYS_HIP_MEMORY_UNIFIED, hipMemoryTypeUnified);
#define DRV3D rocsys_hip5_drv_memcpy3d
#endif
    SAME(sizeof(int), sizeof(hipMemoryType));

    SAME(sizeof(struct DRV3D), sizeof(HIP_MEMCPY3D));
    FIELD(DRV3D, src_x_bytes, HIP_MEMCPY3D, srcXInBytes);
    FIELD(DRV3D, src_memory_type, HIP_MEMCPY3D, srcMemoryType);
    FIELD(DRV3D, src_host, HIP_MEMCPY3D, srcHost);
    FIELD(DRV3D, src_device, HIP_MEMCPY3D, srcDevice);
    FIELD(DRV3D, src_array, HIP_MEMCPY3D, srcArray);
    FIELD(DRV3D, src_pitch, HIP_MEMCPY3D, srcPitch);
    FIELD(DRV3D, dst_x_bytes, HIP_MEMCPY3D, dstXInBytes);
    FIELD(DRV3D, dst_memory_type, HIP_MEMCPY3D, dstMemoryType);
    FIELD(DRV3D, dst_host, HIP_MEMCPY3D, dstHost);
    FIELD(DRV3D, dst_array, HIP_MEMCPY3D, dstArray);
    FIELD(DRV3D, dst_height, HIP_MEMCPY3D, dstHeight);
    FIELD(DRV3D, width_bytes, HIP_MEMCPY3D, WidthInBytes);
    FIELD(DRV3D, height, HIP_MEMCPY3D, Height);
    FIELD(DRV3D, depth, HIP_MEMCPY3D, Depth);

#if HIP_VERSION_MAJOR >= 6 || (HIP_VERSION_MAJOR == 5 && HIP_VERSION_MINOR >= 5)
    SAME(sizeof(struct rocsys_hip_function_launch_params), sizeof(hipFunctionLaunchParams));
    FIELD(rocsys_hip_function_launch_params, function, hipFunctionLaunchParams, function);
    FIELD(rocsys_hip_function_launch_params, grid_x, hipFunctionLaunchParams, gridDimX);
    FIELD(rocsys_hip_function_launch_params, block_x, hipFunctionLaunchParams, blockDimX);
    FIELD(rocsys_hip_function_launch_params, block_z, hipFunctionLaunchParams, blockDimZ);
    FIELD(rocsys_hip_function_launch_params, shared_mem, hipFunctionLaunchParams, sharedMemBytes);
    FIELD(rocsys_hip_function_launch_params, stream, hipFunctionLaunchParams, hStream);
    FIELD(rocsys_hip_function_launch_params, params, hipFunctionLaunchParams, kernelParams);
#endif

    SAME(sizeof(struct rocsys_hip_memcpy2d), sizeof(hip_Memcpy2D));
    FIELD(rocsys_hip_memcpy2d, src_x_bytes, hip_Memcpy2D, srcXInBytes);
    FIELD(rocsys_hip_memcpy2d, src_y, hip_Memcpy2D, srcY);
    FIELD(rocsys_hip_memcpy2d, src_memory_type, hip_Memcpy2D, srcMemoryType);
    FIELD(rocsys_hip_memcpy2d, src_host, hip_Memcpy2D, srcHost);
    FIELD(rocsys_hip_memcpy2d, src_device, hip_Memcpy2D, srcDevice);
    FIELD(rocsys_hip_memcpy2d, src_array, hip_Memcpy2D, srcArray);
    FIELD(rocsys_hip_memcpy2d, src_pitch, hip_Memcpy2D, srcPitch);
    FIELD(rocsys_hip_memcpy2d, dst_x_bytes, hip_Memcpy2D, dstXInBytes);
    FIELD(rocsys_hip_memcpy2d, dst_y, hip_Memcpy2D, dstY);
    FIELD(rocsys_hip_memcpy2d, dst_memory_type, hip_Memcpy2D, dstMemoryType);
    FIELD(rocsys_hip_memcpy2d, dst_host, hip_Memcpy2D, dstHost);
    FIELD(rocsys_hip_memcpy2d, dst_device, hip_Memcpy2D, dstDevice);
    FIELD(rocsys_hip_memcpy2d, dst_array, hip_Memcpy2D, dstArray);
    FIELD(rocsys_hip_memcpy2d, dst_pitch, hip_Memcpy2D, dstPitch);
    FIELD(rocsys_hip_memcpy2d, width_bytes, hip_Memcpy2D, WidthInBytes);
    FIELD(rocsys_hip_memcpy2d, height, hip_Memcpy2D, Height);

    SAME(sizeof(struct rocsys_hip_extent), sizeof(hipExtent));
    FIELD(rocsys_hip_extent, width, hipExtent, width);
    FIELD(rocsys_hip_extent, height, hipExtent, height);
    FIELD(rocsys_hip_extent, depth, hipExtent, depth);

    SAME(sizeof(struct rocsys_hip_ipc_handle), sizeof(hipIpcMemHandle_t));
    SAME(sizeof(struct rocsys_hip_ipc_handle), sizeof(hipIpcEventHandle_t));
    SAME(sizeof(struct rocsys_hip_channel_desc), sizeof(hipChannelFormatDesc));
    FIELD(rocsys_hip_channel_desc, x, hipChannelFormatDesc, x);
    FIELD(rocsys_hip_channel_desc, w, hipChannelFormatDesc, w);
    FIELD(rocsys_hip_channel_desc, f, hipChannelFormatDesc, f);
    SAME(sizeof(int), sizeof(hipChannelFormatKind));

    SAME(sizeof(struct rocsys_hip_pitched_ptr), sizeof(hipPitchedPtr));
    FIELD(rocsys_hip_pitched_ptr, ptr, hipPitchedPtr, ptr);
    FIELD(rocsys_hip_pitched_ptr, pitch, hipPitchedPtr, pitch);
    FIELD(rocsys_hip_pitched_ptr, xsize, hipPitchedPtr, xsize);
    FIELD(rocsys_hip_pitched_ptr, ysize, hipPitchedPtr, ysize);

    SAME(sizeof(struct rocsys_hip_pos), sizeof(hipPos));
    SAME(sizeof(struct rocsys_hip_memcpy3d_parms), sizeof(hipMemcpy3DParms));
    FIELD(rocsys_hip_memcpy3d_parms, src_array, hipMemcpy3DParms, srcArray);
    FIELD(rocsys_hip_memcpy3d_parms, src_ptr, hipMemcpy3DParms, srcPtr);
    FIELD(rocsys_hip_memcpy3d_parms, dst_array, hipMemcpy3DParms, dstArray);
    FIELD(rocsys_hip_memcpy3d_parms, dst_ptr, hipMemcpy3DParms, dstPtr);
    FIELD(rocsys_hip_memcpy3d_parms, extent, hipMemcpy3DParms, extent);
    FIELD(rocsys_hip_memcpy3d_parms, kind, hipMemcpy3DParms, kind);
    SAME(sizeof(int), sizeof(hipMemcpyKind));

    SAME(sizeof(struct rocsys_hip_launch_params), sizeof(hipLaunchParams));
    FIELD(rocsys_hip_launch_params, func, hipLaunchParams, func);
    FIELD(rocsys_hip_launch_params, grid, hipLaunchParams, gridDim);
    FIELD(rocsys_hip_launch_params, block, hipLaunchParams, blockDim);
    FIELD(rocsys_hip_launch_params, args, hipLaunchParams, args);
    FIELD(rocsys_hip_launch_params, shared_mem, hipLaunchParams, sharedMem);
    FIELD(rocsys_hip_launch_params, stream, hipLaunchParams, stream);
    return layout_summary();
}
