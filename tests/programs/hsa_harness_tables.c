/* The harness's API tables in a chosen layout (hsa_harness_tables.h). */
#include "hsa_harness_tables.h"

#include <stdio.h>
#include <string.h>

#include "collector/hsa_abi.h"

/* Store a table's version header. */
static void put_version(uint8_t *table, struct rocsys_hsa_table_id id)
{
    struct rocsys_hsa_version v = {id.major, id.bytes, id.step, 0};
    memcpy(table, &v, sizeof(v));
}

/* Store pointer p at byte off of table. */
static void put(uint8_t *table, uint32_t off, void *p)
{
    memcpy(table + off, &p, sizeof(p));
}

/* The row a layout name stands for (release prefix; "newer" and "unknown": the newest row). */
static const struct rocsys_hsa_layout *row_named(const char *name)
{
    if (strcmp(name, "newer") == 0 || strcmp(name, "unknown") == 0)
        return &rocsys_hsa_layouts[rocsys_hsa_nlayouts - 1];
    for (size_t i = 0; i < rocsys_hsa_nlayouts; i++)
        if (strncmp(rocsys_hsa_layouts[i].release, name, strlen(name)) == 0)
            return &rocsys_hsa_layouts[i];
    return NULL;
}

int harness_tables_build(struct harness_tables *t, const char *layout, const char *mode,
                         void *const core_fns[ROCSYS_HSA_CORE_NSLOTS],
                         void *const amd_fns[ROCSYS_HSA_AMD_NSLOTS])
{
    const struct rocsys_hsa_layout *l = row_named(layout);
    struct rocsys_hsa_table_id root, core, amd;

    if (!l)
        return -1;
    memset(t, 0, sizeof(*t));
    t->layout = l;
    root = l->root;
    core = l->core;
    amd = l->amd;
    if (strcmp(layout, "newer") == 0) { /* entries appended: larger tables, later steps */
        root.bytes += 16, root.step += 1;
        core.bytes += 64, core.step += 1;
        amd.bytes += 64, amd.step += 3;
    } else if (strcmp(layout, "unknown") == 0) { /* an incompatible generation */
        root.major += 1;
        core.major += 1;
        amd.major += 1;
    }
    if (strcmp(mode, "badversion") == 0)
        core.major += 1;
    if (strcmp(mode, "badsize") == 0)
        amd.bytes = 200; /* too small to hold the intercept slots */
    put_version(t->root, root);
    put_version(t->core, core);
    put_version(t->amd, amd);
    put(t->root, l->root_core, t->core);
    put(t->root, l->root_amd, t->amd);
    for (int i = 0; i < ROCSYS_HSA_CORE_NSLOTS; i++)
        put(t->core, l->core_off[i], core_fns[i]);
    for (int i = 0; i < ROCSYS_HSA_AMD_NSLOTS; i++)
        put(t->amd, l->amd_off[i], amd_fns[i]);
    return 0;
}

/* The pointer at byte off of table. */
static void *get(const uint8_t *table, uint32_t off)
{
    void *p;

    memcpy(&p, table + off, sizeof(p));
    return p;
}

void *harness_core_fn(const struct harness_tables *t, enum rocsys_hsa_core_slot slot)
{
    return get(t->core, t->layout->core_off[slot]);
}

void *harness_amd_fn(const struct harness_tables *t, enum rocsys_hsa_amd_slot slot)
{
    return get(t->amd, t->layout->amd_off[slot]);
}

void harness_tables_describe(const struct harness_tables *t, const char *name, char *buf, size_t n)
{
    struct rocsys_hsa_version r, c, a;

    memcpy(&r, t->root, sizeof(r));
    memcpy(&c, t->core, sizeof(c));
    memcpy(&a, t->amd, sizeof(a));
    snprintf(buf, n,
             "layout %s (slots of ROCm %s): API table %u.%u, %u bytes; core %u.%u, %u; AMD ext "
             "%u.%u, %u",
             name, t->layout->release, r.major_id, r.step_id, r.minor_id, c.major_id, c.step_id,
             c.minor_id, a.major_id, a.step_id, a.minor_id);
}
