// The collector's C mirror of the HSA tools interface (collector/hsa_abi.h) against the real
// C++ header of the installed ROCm (hsa_api_trace.h): table sizes, versions and slot offsets.
// Built only when the header is installed (tests/unit/layout.cmake).
#include <hsa/hsa_api_trace.h>

extern "C" {
#include "collector/hsa_abi.h"
}

#include "layout_check.h"

int main()
{
    SAME(ROCSYS_HSA_MAJOR, HSA_API_TABLE_MAJOR_VERSION);
    SAME(ROCSYS_HSA_MAJOR, HSA_CORE_API_TABLE_MAJOR_VERSION);
    SAME(ROCSYS_HSA_MAJOR, HSA_AMD_EXT_API_TABLE_MAJOR_VERSION);
    SAME(ROCSYS_HSA_ROOT_BYTES, sizeof(HsaApiTable));
    SAME(ROCSYS_HSA_CORE_BYTES, sizeof(CoreApiTable));
    SAME(ROCSYS_HSA_AMD_EXT_BYTES, sizeof(AmdExtTable));
    SAME(sizeof(struct rocsys_hsa_api_table), sizeof(HsaApiTable));
    SAME(ROCSYS_HSA_ROOT_OFF_CORE, offsetof(HsaApiTable, core_));
    SAME(ROCSYS_HSA_ROOT_OFF_AMD, offsetof(HsaApiTable, amd_ext_));
    SAME(ROCSYS_HSA_CORE_SYSTEM_GET_INFO, offsetof(CoreApiTable, hsa_system_get_info_fn));
    SAME(ROCSYS_HSA_CORE_QUEUE_CREATE, offsetof(CoreApiTable, hsa_queue_create_fn));
    SAME(ROCSYS_HSA_CORE_QUEUE_DESTROY, offsetof(CoreApiTable, hsa_queue_destroy_fn));
    SAME(ROCSYS_HSA_CORE_SIGNAL_CREATE, offsetof(CoreApiTable, hsa_signal_create_fn));
    SAME(ROCSYS_HSA_CORE_SIGNAL_DESTROY, offsetof(CoreApiTable, hsa_signal_destroy_fn));
    SAME(ROCSYS_HSA_CORE_SIGNAL_LOAD_RELAXED, offsetof(CoreApiTable, hsa_signal_load_relaxed_fn));
    SAME(ROCSYS_HSA_CORE_SIGNAL_STORE_RELAXED, offsetof(CoreApiTable, hsa_signal_store_relaxed_fn));
    SAME(ROCSYS_HSA_CORE_SIGNAL_STORE_SCRELEASE,
         offsetof(CoreApiTable, hsa_signal_store_screlease_fn));
    SAME(ROCSYS_HSA_CORE_SIGNAL_SUB_SCRELEASE,
         offsetof(CoreApiTable, hsa_signal_subtract_screlease_fn));
    SAME(ROCSYS_HSA_CORE_EXECUTABLE_FREEZE, offsetof(CoreApiTable, hsa_executable_freeze_fn));
    SAME(ROCSYS_HSA_CORE_SYMBOL_GET_INFO,
         offsetof(CoreApiTable, hsa_executable_symbol_get_info_fn));
    SAME(ROCSYS_HSA_CORE_ITERATE_SYMBOLS,
         offsetof(CoreApiTable, hsa_executable_iterate_symbols_fn));
    SAME(ROCSYS_HSA_AMD_PROFILER_ENABLE,
         offsetof(AmdExtTable, hsa_amd_profiling_set_profiler_enabled_fn));
    SAME(ROCSYS_HSA_AMD_ASYNC_COPY_ENABLE,
         offsetof(AmdExtTable, hsa_amd_profiling_async_copy_enable_fn));
    SAME(ROCSYS_HSA_AMD_GET_DISPATCH_TIME,
         offsetof(AmdExtTable, hsa_amd_profiling_get_dispatch_time_fn));
    SAME(ROCSYS_HSA_AMD_GET_ASYNC_COPY_TIME,
         offsetof(AmdExtTable, hsa_amd_profiling_get_async_copy_time_fn));
    SAME(ROCSYS_HSA_AMD_SIGNAL_ASYNC_HANDLER,
         offsetof(AmdExtTable, hsa_amd_signal_async_handler_fn));
    SAME(ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY, offsetof(AmdExtTable, hsa_amd_memory_async_copy_fn));
    SAME(ROCSYS_HSA_AMD_INTERCEPT_CREATE, offsetof(AmdExtTable, hsa_amd_queue_intercept_create_fn));
    SAME(ROCSYS_HSA_AMD_INTERCEPT_REGISTER,
         offsetof(AmdExtTable, hsa_amd_queue_intercept_register_fn));
    SAME(offsetof(struct rocsys_hsa_queue, id), offsetof(hsa_queue_t, id));
    SAME(sizeof(struct rocsys_hsa_dispatch_packet), sizeof(hsa_kernel_dispatch_packet_t));
    SAME(offsetof(struct rocsys_hsa_dispatch_packet, kernel_object),
         offsetof(hsa_kernel_dispatch_packet_t, kernel_object));
    SAME(offsetof(struct rocsys_hsa_dispatch_packet, completion_signal),
         offsetof(hsa_kernel_dispatch_packet_t, completion_signal));
    SAME(offsetof(struct rocsys_hsa_dispatch_packet, grid_size),
         offsetof(hsa_kernel_dispatch_packet_t, grid_size_x));
    SAME(offsetof(struct rocsys_hsa_dispatch_packet, workgroup_size),
         offsetof(hsa_kernel_dispatch_packet_t, workgroup_size_x));
    SAME(ROCSYS_HSA_PACKET_TYPE_KERNEL_DISPATCH, HSA_PACKET_TYPE_KERNEL_DISPATCH);
    SAME(ROCSYS_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY);
    SAME(ROCSYS_HSA_SYMBOL_INFO_TYPE, HSA_EXECUTABLE_SYMBOL_INFO_TYPE);
    SAME(ROCSYS_HSA_SYMBOL_INFO_NAME_LENGTH, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH);
    SAME(ROCSYS_HSA_SYMBOL_INFO_NAME, HSA_EXECUTABLE_SYMBOL_INFO_NAME);
    SAME(ROCSYS_HSA_SYMBOL_INFO_KERNEL_OBJECT, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
    SAME(ROCSYS_HSA_SYMBOL_KIND_KERNEL, HSA_SYMBOL_KIND_KERNEL);
    SAME(ROCSYS_HSA_SIGNAL_CONDITION_LT, HSA_SIGNAL_CONDITION_LT);
    SAME(ROCSYS_HSA_STATUS_SUCCESS, HSA_STATUS_SUCCESS);
    return layout_summary();
}
