/* Where the slots the collector uses lie in the HSA runtime's API tables, per known release,
 * and the choice of one from the version fields of the table a runtime hands to OnLoad. Plain
 * data and one pure function: linked into the collector, the harness that plays the runtime
 * (tests/programs/tp_hsa_harness.c) and the layout tests (tests/unit/test_hsa_layout*.c*), which
 * check each row against the headers of its release. */
#ifndef ROCSYS_COLLECTOR_HSA_LAYOUT_H
#define ROCSYS_COLLECTOR_HSA_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

/* CoreApiTable slots used (hsa_ prefix and _fn suffix dropped). */
enum rocsys_hsa_core_slot {
    ROCSYS_HSA_CORE_SYSTEM_GET_INFO,
    ROCSYS_HSA_CORE_QUEUE_CREATE,
    ROCSYS_HSA_CORE_QUEUE_DESTROY,
    ROCSYS_HSA_CORE_SIGNAL_CREATE,
    ROCSYS_HSA_CORE_SIGNAL_DESTROY,
    ROCSYS_HSA_CORE_SIGNAL_LOAD_RELAXED,
    ROCSYS_HSA_CORE_SIGNAL_STORE_RELAXED,
    ROCSYS_HSA_CORE_SIGNAL_STORE_SCRELEASE,
    ROCSYS_HSA_CORE_SIGNAL_SUB_SCRELEASE,
    ROCSYS_HSA_CORE_EXECUTABLE_FREEZE,
    ROCSYS_HSA_CORE_SYMBOL_GET_INFO,
    ROCSYS_HSA_CORE_ITERATE_SYMBOLS,
    ROCSYS_HSA_CORE_NSLOTS
};

/* AmdExtTable slots used (hsa_amd_ prefix and _fn suffix dropped). */
enum rocsys_hsa_amd_slot {
    ROCSYS_HSA_AMD_PROFILER_ENABLE,
    ROCSYS_HSA_AMD_ASYNC_COPY_ENABLE,
    ROCSYS_HSA_AMD_GET_DISPATCH_TIME,
    ROCSYS_HSA_AMD_GET_ASYNC_COPY_TIME,
    ROCSYS_HSA_AMD_SIGNAL_ASYNC_HANDLER,
    ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY,
    ROCSYS_HSA_AMD_INTERCEPT_CREATE,
    ROCSYS_HSA_AMD_INTERCEPT_REGISTER,
    ROCSYS_HSA_AMD_NSLOTS
};

/* One table's version fields: major_id, step_id, minor_id (its size in bytes). */
struct rocsys_hsa_table_id {
    uint32_t major, step, bytes;
};

/* The layout of one release: its tables' versions as its runtime fills them, and the byte
 * offsets of the slots used. */
struct rocsys_hsa_layout {
    const char *release; /* the ROCm release whose headers it was taken from ("6.4.3") */
    struct rocsys_hsa_table_id root, core, amd;
    uint16_t root_core, root_amd; /* offsets of the core_ and amd_ext_ pointers in the root */
    uint16_t core_off[ROCSYS_HSA_CORE_NSLOTS];
    uint16_t amd_off[ROCSYS_HSA_AMD_NSLOTS];
};

extern const struct rocsys_hsa_layout rocsys_hsa_layouts[];
extern const size_t rocsys_hsa_nlayouts;

/* What the tables handed to OnLoad say (zeros for a table that is absent or not read). */
struct rocsys_hsa_seen {
    struct rocsys_hsa_table_id root, core, amd;
};

/* The result of rocsys_hsa_layout_pick (the values of ROCSYS_HSA_TABLE_* in protocol.h). */
enum rocsys_hsa_pick {
    ROCSYS_HSA_PICK_EXACT = 0,      /* versions and sizes of a known release */
    ROCSYS_HSA_PICK_COMPATIBLE = 1, /* a known release's majors, other sizes: its offsets hold */
    ROCSYS_HSA_PICK_UNKNOWN = 2,    /* majors no known release has: refuse */
    ROCSYS_HSA_PICK_UNUSABLE = 3,   /* a table missing, or too small for a slot used: refuse */
};

/* Choose the layout of the live root table root (an HsaApiTable), reading only version fields
 * and the two sub-table pointers, each only once its table's version says it is there. *out
 * gets the row (NULL when refused), *seen what the tables say, why (n bytes) a reason. */
enum rocsys_hsa_pick rocsys_hsa_layout_pick(const void *root, const struct rocsys_hsa_layout **out,
                                            struct rocsys_hsa_seen *seen, char *why, size_t n);

#endif
