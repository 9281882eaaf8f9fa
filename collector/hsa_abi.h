/* The parts of the HSA runtime's tools interface (ROCm 5.2.3's hsa_api_trace.h, which is C++
 * only) that the collector uses, mirrored in C: the table headers and the byte offsets of the
 * slots it reads or patches, the AQL kernel-dispatch packet fields, and handle types. Shared by
 * collector/hsa.c and the test harness that plays the runtime's part; the offsets are checked
 * against the real header by tests/unit/test_hsa_layout.cpp when the header is installed. */
#ifndef ROCSYS_COLLECTOR_HSA_ABI_H
#define ROCSYS_COLLECTOR_HSA_ABI_H

#include <stdbool.h>
#include <stdint.h>

/* Every table starts with this; minor_id is the table's size in bytes. */
struct rocsys_hsa_version {
    uint32_t major_id;
    uint32_t minor_id;
    uint32_t step_id;
    uint32_t reserved;
};

/* HsaApiTable: the root table handed to OnLoad. */
struct rocsys_hsa_api_table {
    struct rocsys_hsa_version version;
    void *core;          /* CoreApiTable */
    void *amd_ext;       /* AmdExtTable */
    void *finalizer_ext; /* may be NULL */
    void *image_ext;     /* may be NULL */
};

#define ROCSYS_HSA_MAJOR         1    /* majors of the tables in ROCm 5.x (6.0 moves to 2) */
#define ROCSYS_HSA_ROOT_BYTES    48   /* sizeof(HsaApiTable) in 5.2.3 */
#define ROCSYS_HSA_CORE_BYTES    1016 /* sizeof(CoreApiTable) in 5.2.3 */
#define ROCSYS_HSA_AMD_EXT_BYTES 400  /* sizeof(AmdExtTable) in 5.2.3 */
#define ROCSYS_HSA_ROOT_OFF_CORE 16
#define ROCSYS_HSA_ROOT_OFF_AMD  24

/* CoreApiTable slot byte offsets. */
#define ROCSYS_HSA_CORE_SYSTEM_GET_INFO        32
#define ROCSYS_HSA_CORE_QUEUE_CREATE           72
#define ROCSYS_HSA_CORE_QUEUE_DESTROY          88
#define ROCSYS_HSA_CORE_SIGNAL_CREATE          312
#define ROCSYS_HSA_CORE_SIGNAL_DESTROY         320
#define ROCSYS_HSA_CORE_SIGNAL_LOAD_RELAXED    328
#define ROCSYS_HSA_CORE_SIGNAL_STORE_RELAXED   344
#define ROCSYS_HSA_CORE_SIGNAL_STORE_SCRELEASE 352
#define ROCSYS_HSA_CORE_SIGNAL_SUB_SCRELEASE   552
#define ROCSYS_HSA_CORE_EXECUTABLE_FREEZE      704
#define ROCSYS_HSA_CORE_SYMBOL_GET_INFO        760
#define ROCSYS_HSA_CORE_ITERATE_SYMBOLS        768

/* AmdExtTable slot byte offsets (hsa_amd_ prefix dropped). */
#define ROCSYS_HSA_AMD_PROFILER_ENABLE      32
#define ROCSYS_HSA_AMD_ASYNC_COPY_ENABLE    40
#define ROCSYS_HSA_AMD_GET_DISPATCH_TIME    48
#define ROCSYS_HSA_AMD_GET_ASYNC_COPY_TIME  56
#define ROCSYS_HSA_AMD_SIGNAL_ASYNC_HANDLER 72
#define ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY    136
#define ROCSYS_HSA_AMD_INTERCEPT_CREATE     296
#define ROCSYS_HSA_AMD_INTERCEPT_REGISTER   304

/* Handles are structs of one u64, passed by value. */
typedef struct {
    uint64_t handle;
} rocsys_hsa_agent_t;
typedef struct {
    uint64_t handle;
} rocsys_hsa_signal_t;
typedef struct {
    uint64_t handle;
} rocsys_hsa_executable_t;
typedef struct {
    uint64_t handle;
} rocsys_hsa_symbol_t;

typedef int rocsys_hsa_status_t; /* hsa_status_t: 0 = HSA_STATUS_SUCCESS */
#define ROCSYS_HSA_STATUS_SUCCESS    0
#define ROCSYS_HSA_STATUS_ERROR      0x1000
#define ROCSYS_HSA_STATUS_INFO_BREAK 0x1

/* hsa_queue_t, as far as the collector reads it. */
struct rocsys_hsa_queue {
    uint32_t type;
    uint32_t features;
    void *base_address;
    rocsys_hsa_signal_t doorbell_signal;
    uint32_t size;
    uint32_t reserved1;
    uint64_t id;
};

/* The AQL kernel-dispatch packet (64 bytes). */
struct rocsys_hsa_dispatch_packet {
    uint16_t header; /* bits 0-7: packet type */
    uint16_t setup;
    uint16_t workgroup_size[3];
    uint16_t reserved0;
    uint32_t grid_size[3];
    uint32_t private_segment_size;
    uint32_t group_segment_size;
    uint64_t kernel_object; /* byte 32 */
    uint64_t kernarg_address;
    uint64_t reserved2;
    rocsys_hsa_signal_t completion_signal; /* byte 56 */
};
#define ROCSYS_HSA_PACKET_TYPE_KERNEL_DISPATCH 2

/* hsa_amd_profiling_dispatch_time_t / hsa_amd_profiling_async_copy_time_t */
struct rocsys_hsa_time {
    uint64_t start;
    uint64_t end;
};

/* Enumerators used. */
#define ROCSYS_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY 3
#define ROCSYS_HSA_SYMBOL_INFO_TYPE                0
#define ROCSYS_HSA_SYMBOL_INFO_NAME_LENGTH         1
#define ROCSYS_HSA_SYMBOL_INFO_NAME                2
#define ROCSYS_HSA_SYMBOL_INFO_KERNEL_OBJECT       22
#define ROCSYS_HSA_SYMBOL_KIND_KERNEL              1
#define ROCSYS_HSA_SIGNAL_CONDITION_LT             2 /* EQ 0, NE 1, LT 2, GTE 3 */

/* Intercept-queue callbacks. */
typedef void (*rocsys_hsa_packet_writer)(const void *pkts, uint64_t count);
typedef void (*rocsys_hsa_intercept_handler)(const void *pkts, uint64_t count, uint64_t user_index,
                                             void *data, rocsys_hsa_packet_writer writer);
typedef bool (*rocsys_hsa_async_cb)(int64_t value, void *arg); /* true: keep the handler */

#endif
