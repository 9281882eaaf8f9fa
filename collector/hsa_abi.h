/* The parts of the HSA runtime's tools interface (hsa_api_trace.h, which is C++ only) that the
 * collector uses, mirrored in C: the version header every table starts with, the AQL
 * kernel-dispatch packet fields, handle types and enumerators, the same in ROCm 5.2 to 6.4.
 * Where the slots of the tables lie differs between releases: collector/hsa_layout.h. Shared
 * by collector/hsa.c and the test harness that plays the runtime's part; checked against the
 * real headers by tests/unit/test_hsa_layout.cpp. */
#ifndef ROCSYS_COLLECTOR_HSA_ABI_H
#define ROCSYS_COLLECTOR_HSA_ABI_H

#include <stdbool.h>
#include <stdint.h>

/* Every table starts with this (ApiTableVersion). As the runtime fills it (the constructor of
 * HsaApiTableContainer in each release's header): major_id is the table's ABI generation, the
 * same for every release whose entries lie where the earlier ones' did (ROCm 6.0 inserted
 * entries and moved to new majors); minor_id is sizeof the table (entries are appended at the
 * end within a major, so a larger size is a newer release); step_id counts such appends in 6.x
 * (0 in 5.x). The root table's major is also what OnLoad receives as runtime_version in 6.x. */
struct rocsys_hsa_version {
    uint32_t major_id;
    uint32_t minor_id;
    uint32_t step_id;
    uint32_t reserved;
};

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
