/* The API tables tp_hsa_harness hands to the tools it loads, in the layout of a chosen release
 * (collector/hsa_layout.h) or deliberately broken. */
#ifndef ROCSYS_TESTS_HSA_HARNESS_TABLES_H
#define ROCSYS_TESTS_HSA_HARNESS_TABLES_H

#include <stdint.h>

#include "collector/hsa_layout.h"

struct harness_tables {
    const struct rocsys_hsa_layout *layout; /* where the slots are */
    uint8_t root[128];                      /* HsaApiTable (version, then table pointers) */
    uint8_t core[2048];                     /* CoreApiTable */
    uint8_t amd[2048];                      /* AmdExtTable */
};

/* Build t in the layout named by layout (a release prefix: "5.2", "6.1", "6.4"; "newer": the
 * newest known release's majors with larger sizes and steps, as a later release of that ABI;
 * "unknown": majors no known release has), with core_fns / amd_fns (indexed by slot) in their
 * slots. mode "badversion" gives the core table a major its root's release does not have,
 * "badsize" an AMD extension table too small for the intercept slots. 0, or -1 (unknown
 * layout name). */
int harness_tables_build(struct harness_tables *t, const char *layout, const char *mode,
                         void *const core_fns[ROCSYS_HSA_CORE_NSLOTS],
                         void *const amd_fns[ROCSYS_HSA_AMD_NSLOTS]);

/* The pointer in the core / AMD extension slot of t (what the application calls through). */
void *harness_core_fn(const struct harness_tables *t, enum rocsys_hsa_core_slot slot);
void *harness_amd_fn(const struct harness_tables *t, enum rocsys_hsa_amd_slot slot);

/* One line saying which layout t plays, with its version fields. */
void harness_tables_describe(const struct harness_tables *t, const char *name, char *buf, size_t n);

#endif
