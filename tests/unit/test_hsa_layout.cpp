// The collector's knowledge of the HSA tools interface against the real C++ header of one ROCm
// release (hsa_api_trace.h): the versions the release's runtime gives its tables (an
// HsaApiTableContainer, which the runtime fills), the row of collector/hsa_layout.c the
// collector picks for them (it must be an exact match, and with ROCSYS_EXPECT_RELEASE that
// release's row), every slot offset of that row, and the C mirrors of collector/hsa_abi.h.
// Built against the installed header (tests/unit/layout.cmake) and, by
// tests/unit/hsa_layout_releases.sh, against other releases' headers extracted from their
// packages.
#include <hsa/hsa_api_trace.h>

#include <cstring>

extern "C" {
#include "collector/hsa_abi.h"
#include "collector/hsa_layout.h"
}

#include "layout_check.h"

// CORE_SLOT(slot, field): the row's offset of a CoreApiTable slot is the header's
#define CORE_SLOT(slot, field)                                                                     \
    SAME(l->core_off[ROCSYS_HSA_CORE_##slot], offsetof(CoreApiTable, field))
// AMD_SLOT(slot, field): the row's offset of an AmdExtTable slot is the header's
#define AMD_SLOT(slot, field) SAME(l->amd_off[ROCSYS_HSA_AMD_##slot], offsetof(AmdExtTable, field))

// The row the collector picks for this release's tables, checked against the header
static int check_layout()
{
    static HsaApiTableContainer c; // the tables as this release's runtime makes them
    const rocsys_hsa_layout *l = nullptr;
    rocsys_hsa_seen seen;
    char why[128];
    rocsys_hsa_pick pick = rocsys_hsa_layout_pick(&c.root, &l, &seen, why, sizeof(why));

    std::printf("tables: API %u.%u %u bytes, core %u.%u %u, AMD ext %u.%u %u\n", seen.root.major,
                seen.root.step, seen.root.bytes, seen.core.major, seen.core.step, seen.core.bytes,
                seen.amd.major, seen.amd.step, seen.amd.bytes);
    if (!l) {
        std::fprintf(stderr, "the collector declines this release's tables: %s\n", why);
        return 1;
    }
    std::printf("picked: ROCm %s (%s)\n", l->release,
                pick == ROCSYS_HSA_PICK_EXACT ? "exact" : why);
    SAME(pick, ROCSYS_HSA_PICK_EXACT); // every release checked has a row of its own
#ifdef ROCSYS_EXPECT_RELEASE
    if (std::strcmp(l->release, ROCSYS_EXPECT_RELEASE) != 0) {
        failed++;
        std::fprintf(stderr, "picked ROCm %s, the headers are %s's\n", l->release,
                     ROCSYS_EXPECT_RELEASE);
    }
#endif
    SAME(l->root.major, HSA_API_TABLE_MAJOR_VERSION);
    SAME(l->root.step, HSA_API_TABLE_STEP_VERSION);
    SAME(l->root.bytes, sizeof(HsaApiTable));
    SAME(l->core.major, HSA_CORE_API_TABLE_MAJOR_VERSION);
    SAME(l->core.step, HSA_CORE_API_TABLE_STEP_VERSION);
    SAME(l->core.bytes, sizeof(CoreApiTable));
    SAME(l->amd.major, HSA_AMD_EXT_API_TABLE_MAJOR_VERSION);
    SAME(l->amd.step, HSA_AMD_EXT_API_TABLE_STEP_VERSION);
    SAME(l->amd.bytes, sizeof(AmdExtTable));
    SAME(l->root_core, offsetof(HsaApiTable, core_));
    SAME(l->root_amd, offsetof(HsaApiTable, amd_ext_));
    CORE_SLOT(SYSTEM_GET_INFO, hsa_system_get_info_fn);
    CORE_SLOT(QUEUE_CREATE, hsa_queue_create_fn);
    CORE_SLOT(QUEUE_DESTROY, hsa_queue_destroy_fn);
    CORE_SLOT(SIGNAL_CREATE, hsa_signal_create_fn);
    CORE_SLOT(SIGNAL_DESTROY, hsa_signal_destroy_fn);
    CORE_SLOT(SIGNAL_LOAD_RELAXED, hsa_signal_load_relaxed_fn);
    CORE_SLOT(SIGNAL_STORE_RELAXED, hsa_signal_store_relaxed_fn);
    CORE_SLOT(SIGNAL_STORE_SCRELEASE, hsa_signal_store_screlease_fn);
    CORE_SLOT(SIGNAL_SUB_SCRELEASE, hsa_signal_subtract_screlease_fn);
    CORE_SLOT(EXECUTABLE_FREEZE, hsa_executable_freeze_fn);
    CORE_SLOT(SYMBOL_GET_INFO, hsa_executable_symbol_get_info_fn);
    CORE_SLOT(ITERATE_SYMBOLS, hsa_executable_iterate_symbols_fn);
    AMD_SLOT(PROFILER_ENABLE, hsa_amd_profiling_set_profiler_enabled_fn);
    AMD_SLOT(ASYNC_COPY_ENABLE, hsa_amd_profiling_async_copy_enable_fn);
    AMD_SLOT(GET_DISPATCH_TIME, hsa_amd_profiling_get_dispatch_time_fn);
    AMD_SLOT(GET_ASYNC_COPY_TIME, hsa_amd_profiling_get_async_copy_time_fn);
    AMD_SLOT(SIGNAL_ASYNC_HANDLER, hsa_amd_signal_async_handler_fn);
    AMD_SLOT(MEMORY_ASYNC_COPY, hsa_amd_memory_async_copy_fn);
    AMD_SLOT(INTERCEPT_CREATE, hsa_amd_queue_intercept_create_fn);
    AMD_SLOT(INTERCEPT_REGISTER, hsa_amd_queue_intercept_register_fn);
    return 0;
}

int main()
{
    if (check_layout() != 0)
        return 1;
    SAME(sizeof(struct rocsys_hsa_version), sizeof(ApiTableVersion));
    SAME(offsetof(struct rocsys_hsa_version, minor_id), offsetof(ApiTableVersion, minor_id));
    SAME(offsetof(struct rocsys_hsa_version, step_id), offsetof(ApiTableVersion, step_id));
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
