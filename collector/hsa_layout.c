/* The known layouts of the HSA runtime's API tables and the choice of one (hsa_layout.h).
 *
 * One row per release whose headers were read: Debian 12's libhsa-runtime-dev 5.2.3, Debian
 * 13's 6.1.2 and sid's 6.4.3. The collector builds against one set of headers (or none), so the
 * offsets are data here; tests/unit/test_hsa_layout.cpp compares a row with offsetof() of the
 * real header, against the installed headers at build time and against other releases'
 * extracted headers with tests/unit/hsa_layout_releases.sh (docs/architecture.md, HSA table
 * layouts). Within one major the runtime only appends entries, which is why a table of a known
 * release's majors but other sizes (6.2, 6.3) is read with that release's offsets, once every
 * slot used is inside the sizes it declares; test_hsa_layout_rows checks that rows of one major
 * agree on every offset. */
#include "hsa_layout.h"

#include <stdio.h>
#include <string.h>

#include "hsa_abi.h"

/* CoreApiTable offsets: the same in 5.2, 6.1 and 6.4 (the core table's entries did not move). */
#define CORE_OFFSETS                                                                               \
    {                                                                                              \
        [ROCSYS_HSA_CORE_SYSTEM_GET_INFO] = 32, [ROCSYS_HSA_CORE_QUEUE_CREATE] = 72,               \
        [ROCSYS_HSA_CORE_QUEUE_DESTROY] = 88, [ROCSYS_HSA_CORE_SIGNAL_CREATE] = 312,               \
        [ROCSYS_HSA_CORE_SIGNAL_DESTROY] = 320, [ROCSYS_HSA_CORE_SIGNAL_LOAD_RELAXED] = 328,       \
        [ROCSYS_HSA_CORE_SIGNAL_STORE_RELAXED] = 344,                                              \
        [ROCSYS_HSA_CORE_SIGNAL_STORE_SCRELEASE] = 352,                                            \
        [ROCSYS_HSA_CORE_SIGNAL_SUB_SCRELEASE] = 552, [ROCSYS_HSA_CORE_EXECUTABLE_FREEZE] = 704,   \
        [ROCSYS_HSA_CORE_SYMBOL_GET_INFO] = 760, [ROCSYS_HSA_CORE_ITERATE_SYMBOLS] = 768,          \
    }

/* AmdExtTable offsets: 6.0 inserted hsa_amd_memory_async_copy_on_engine and
 * hsa_amd_memory_copy_engine_status before the queue-intercept entries, which moved by 16. */
#define AMD_OFFSETS(intercept_create)                                                              \
    {                                                                                              \
        [ROCSYS_HSA_AMD_PROFILER_ENABLE] = 32, [ROCSYS_HSA_AMD_ASYNC_COPY_ENABLE] = 40,            \
        [ROCSYS_HSA_AMD_GET_DISPATCH_TIME] = 48, [ROCSYS_HSA_AMD_GET_ASYNC_COPY_TIME] = 56,        \
        [ROCSYS_HSA_AMD_SIGNAL_ASYNC_HANDLER] = 72, [ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY] = 136,      \
        [ROCSYS_HSA_AMD_INTERCEPT_CREATE] = (intercept_create),                                    \
        [ROCSYS_HSA_AMD_INTERCEPT_REGISTER] = (intercept_create) + 8,                              \
    }

const struct rocsys_hsa_layout rocsys_hsa_layouts[] = {
    /* ROCm 5.2.3 (Debian 12): every table at major 1, step 0 */
    {"5.2.3", {1, 0, 48}, {1, 0, 1016}, {1, 0, 400}, 16, 24, CORE_OFFSETS, AMD_OFFSETS(296)},
    /* ROCm 6.1.2 (Debian 13): root 3 (a tools_ table appended), core and AMD ext 2 */
    {"6.1.2", {3, 0, 56}, {2, 0, 1016}, {2, 1, 560}, 16, 24, CORE_OFFSETS, AMD_OFFSETS(312)},
    /* ROCm 6.4.3 (sid): pc_sampling_ext_ appended to the root, four AMD entries appended */
    {"6.4.3", {3, 1, 64}, {2, 0, 1016}, {2, 5, 592}, 16, 24, CORE_OFFSETS, AMD_OFFSETS(312)},
};
const size_t rocsys_hsa_nlayouts = sizeof(rocsys_hsa_layouts) / sizeof(rocsys_hsa_layouts[0]);

/* A table's version fields as a table id (NULL: zeros). */
static struct rocsys_hsa_table_id table_id(const void *table)
{
    struct rocsys_hsa_version v;
    struct rocsys_hsa_table_id id = {0, 0, 0};

    if (!table)
        return id;
    memcpy(&v, table, sizeof(v));
    id.major = v.major_id;
    id.step = v.step_id;
    id.bytes = v.minor_id;
    return id;
}

/* Both ids name the same table of the same release. */
static int same_id(struct rocsys_hsa_table_id a, struct rocsys_hsa_table_id b)
{
    return a.major == b.major && a.step == b.step && a.bytes == b.bytes;
}

/* The byte just past the last slot of offs[n] that the collector uses. */
static uint32_t slots_end(const uint16_t *offs, int n)
{
    uint32_t end = 0;

    for (int i = 0; i < n; i++)
        if (offs[i] + (uint32_t)sizeof(void *) > end)
            end = offs[i] + (uint32_t)sizeof(void *);
    return end;
}

/* Read the pointer at byte off of table. */
static const void *pointer_at(const void *table, uint32_t off)
{
    const void *p;

    memcpy(&p, (const char *)table + off, sizeof(p));
    return p;
}

/* The row of the tables' majors to read them with: the exact release if there is one, else the
 * newest one not larger than the tables, else the oldest (NULL: no row has these majors). */
static const struct rocsys_hsa_layout *match(const struct rocsys_hsa_seen *s, int *exact)
{
    const struct rocsys_hsa_layout *best = NULL, *oldest = NULL;

    *exact = 0;
    for (size_t i = 0; i < rocsys_hsa_nlayouts; i++) {
        const struct rocsys_hsa_layout *l = &rocsys_hsa_layouts[i];
        if (l->root.major != s->root.major || l->core.major != s->core.major ||
            l->amd.major != s->amd.major)
            continue;
        if (same_id(l->root, s->root) && same_id(l->core, s->core) && same_id(l->amd, s->amd)) {
            *exact = 1;
            return l;
        }
        if (!oldest || l->amd.bytes < oldest->amd.bytes)
            oldest = l;
        if (l->root.bytes <= s->root.bytes && l->core.bytes <= s->core.bytes &&
            l->amd.bytes <= s->amd.bytes && (!best || l->amd.bytes > best->amd.bytes))
            best = l;
    }
    return best ? best : oldest;
}

/* Whether some known release has root table major `major`. */
static int root_major_known(uint32_t major)
{
    for (size_t i = 0; i < rocsys_hsa_nlayouts; i++)
        if (rocsys_hsa_layouts[i].root.major == major)
            return 1;
    return 0;
}

/* "ROCm 5.2 to 6.4": the releases of the first and last rows, without their patch numbers. */
static void known_range(char *buf, size_t n)
{
    const char *a = rocsys_hsa_layouts[0].release;
    const char *b = rocsys_hsa_layouts[rocsys_hsa_nlayouts - 1].release;
    const char *a_dot = strchr(a, '.'), *b_dot = strchr(b, '.');
    const char *a_end = a_dot ? strchr(a_dot + 1, '.') : NULL;
    const char *b_end = b_dot ? strchr(b_dot + 1, '.') : NULL;

    snprintf(buf, n, "ROCm %.*s to %.*s", a_end ? (int)(a_end - a) : (int)strlen(a), a,
             b_end ? (int)(b_end - b) : (int)strlen(b), b);
}

/* Choose the layout of a live root table (see hsa_layout.h). */
enum rocsys_hsa_pick rocsys_hsa_layout_pick(const void *root, const struct rocsys_hsa_layout **out,
                                            struct rocsys_hsa_seen *seen, char *why, size_t n)
{
    const struct rocsys_hsa_layout *l;
    const void *core, *amd;
    uint32_t need, core_need, amd_need;
    char range[32];
    int exact;

    memset(seen, 0, sizeof(*seen));
    *out = NULL;
    if (n)
        why[0] = '\0';
    if (!root) {
        snprintf(why, n, "no API table");
        return ROCSYS_HSA_PICK_UNUSABLE;
    }
    seen->root = table_id(root);
    if (!root_major_known(seen->root.major)) {
        known_range(range, sizeof(range));
        snprintf(why, n, "API table version %u: not a layout of %s", seen->root.major, range);
        return ROCSYS_HSA_PICK_UNKNOWN;
    }
    /* every row of one root major has the sub-table pointers at the same offsets (tested) */
    for (l = rocsys_hsa_layouts; l->root.major != seen->root.major; l++)
        continue;
    need = (l->root_core > l->root_amd ? l->root_core : l->root_amd) + (uint32_t)sizeof(void *);
    if (seen->root.bytes < need) {
        snprintf(why, n, "API table version %u of %u bytes: too small (%u needed)",
                 seen->root.major, seen->root.bytes, need);
        return ROCSYS_HSA_PICK_UNUSABLE;
    }
    core = pointer_at(root, l->root_core);
    amd = pointer_at(root, l->root_amd);
    seen->core = table_id(core);
    seen->amd = table_id(amd);
    if (!core || !amd) {
        snprintf(why, n, "no %s table", core ? "AMD extension" : "core");
        return ROCSYS_HSA_PICK_UNUSABLE;
    }
    l = match(seen, &exact);
    if (!l) {
        known_range(range, sizeof(range));
        snprintf(why, n,
                 "API table version %u with core table version %u, AMD extension %u: not a "
                 "layout of %s",
                 seen->root.major, seen->core.major, seen->amd.major, range);
        return ROCSYS_HSA_PICK_UNKNOWN;
    }
    core_need = slots_end(l->core_off, ROCSYS_HSA_CORE_NSLOTS);
    amd_need = slots_end(l->amd_off, ROCSYS_HSA_AMD_NSLOTS);
    if (seen->core.bytes < core_need || seen->amd.bytes < amd_need) {
        int c = seen->core.bytes < core_need;
        snprintf(why, n, "%s table of %u bytes: too small for the entries used (%u needed)",
                 c ? "core" : "AMD extension", c ? seen->core.bytes : seen->amd.bytes,
                 c ? core_need : amd_need);
        return ROCSYS_HSA_PICK_UNUSABLE;
    }
    *out = l;
    if (!exact)
        snprintf(why, n, "its majors, other sizes (entries appended or missing at the end)");
    return exact ? ROCSYS_HSA_PICK_EXACT : ROCSYS_HSA_PICK_COMPATIBLE;
}
