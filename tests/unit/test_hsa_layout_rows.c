/* The table of HSA layouts (collector/hsa_layout.c) by its own rules, without any header: rows
 * of one major agree on every offset (the runtime only appends within a major, which is why a
 * table of other sizes is read with a known row's offsets), every slot lies inside its row's
 * tables, and rocsys_hsa_layout_pick picks each row for its own tables, reads a later release
 * of a known major with the newest row not larger than it, and refuses unknown majors, missing
 * tables and tables too small for a slot. That each row is its release's is
 * test_hsa_layout.cpp's part (against the headers). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "collector/hsa_abi.h"
#include "collector/hsa_layout.h"

/* A root table and its two sub-tables, as a runtime would hand them over. */
struct tables {
    uint8_t root[128], core[2048], amd[2048];
};

/* Store a version header. */
static void put_version(uint8_t *t, struct rocsys_hsa_table_id id)
{
    struct rocsys_hsa_version v = {id.major, id.bytes, id.step, 0};
    memcpy(t, &v, sizeof(v));
}

/* Tables with the given versions, the sub-table pointers where row l keeps them (core or amd
 * NULL when without). */
static void make(struct tables *t, const struct rocsys_hsa_layout *l,
                 struct rocsys_hsa_table_id root, struct rocsys_hsa_table_id core,
                 struct rocsys_hsa_table_id amd, int with_core, int with_amd)
{
    void *pc = with_core ? t->core : NULL, *pa = with_amd ? t->amd : NULL;

    memset(t, 0, sizeof(*t));
    put_version(t->root, root);
    put_version(t->core, core);
    put_version(t->amd, amd);
    memcpy(t->root + l->root_core, &pc, sizeof(pc));
    memcpy(t->root + l->root_amd, &pa, sizeof(pa));
}

/* Pick for t: the result, *out the row. */
static enum rocsys_hsa_pick pick(const struct tables *t, const struct rocsys_hsa_layout **out)
{
    struct rocsys_hsa_seen seen;
    char why[128];

    return rocsys_hsa_layout_pick(t->root, out, &seen, why, sizeof(why));
}

/* Rows of one major agree; every slot lies inside its row's tables, aligned, after the header. */
static void test_rows(void)
{
    const struct rocsys_hsa_layout *a, *b;

    CHECK(rocsys_hsa_nlayouts >= 3);
    for (size_t i = 0; i < rocsys_hsa_nlayouts; i++) {
        a = &rocsys_hsa_layouts[i];
        for (int s = 0; s < ROCSYS_HSA_CORE_NSLOTS; s++)
            CHECK_MSG(a->core_off[s] >= 16 && a->core_off[s] % 8 == 0 &&
                          a->core_off[s] + 8u <= a->core.bytes,
                      "%s core slot %d at %u", a->release, s, a->core_off[s]);
        for (int s = 0; s < ROCSYS_HSA_AMD_NSLOTS; s++)
            CHECK_MSG(a->amd_off[s] >= 16 && a->amd_off[s] % 8 == 0 &&
                          a->amd_off[s] + 8u <= a->amd.bytes,
                      "%s AMD slot %d at %u", a->release, s, a->amd_off[s]);
        CHECK(a->root_core + 8u <= a->root.bytes && a->root_amd + 8u <= a->root.bytes);
        for (size_t j = 0; j < i; j++) {
            b = &rocsys_hsa_layouts[j];
            if (a->root.major == b->root.major)
                CHECK_MSG(a->root_core == b->root_core && a->root_amd == b->root_amd, "%s, %s",
                          a->release, b->release);
            if (a->core.major == b->core.major)
                CHECK_MSG(memcmp(a->core_off, b->core_off, sizeof(a->core_off)) == 0,
                          "core offsets of %s and %s (major %u)", a->release, b->release,
                          a->core.major);
            if (a->amd.major == b->amd.major)
                CHECK_MSG(memcmp(a->amd_off, b->amd_off, sizeof(a->amd_off)) == 0,
                          "AMD offsets of %s and %s (major %u)", a->release, b->release,
                          a->amd.major);
            if (a->amd.major == b->amd.major) /* a later release of a major is larger */
                CHECK_MSG(a->amd.bytes > b->amd.bytes, "%s after %s", a->release, b->release);
            CHECK(strcmp(a->release, b->release) != 0);
        }
    }
}

/* Each row's own tables: that row, exactly. */
static void test_exact(void)
{
    static struct tables t;
    const struct rocsys_hsa_layout *got;

    for (size_t i = 0; i < rocsys_hsa_nlayouts; i++) {
        const struct rocsys_hsa_layout *l = &rocsys_hsa_layouts[i];
        make(&t, l, l->root, l->core, l->amd, 1, 1);
        CHECK_MSG(pick(&t, &got) == ROCSYS_HSA_PICK_EXACT && got == l, "%s", l->release);
    }
}

/* Other sizes of a known major: read with the newest row not larger; refused when a slot used
 * does not fit. */
static void test_compatible(void)
{
    static struct tables t;
    const struct rocsys_hsa_layout *got, *newest = NULL, *oldest = NULL;
    const struct rocsys_hsa_layout *last = &rocsys_hsa_layouts[rocsys_hsa_nlayouts - 1];
    struct rocsys_hsa_table_id root = last->root, core = last->core, amd = last->amd;

    for (size_t i = 0; i < rocsys_hsa_nlayouts; i++) {
        const struct rocsys_hsa_layout *l = &rocsys_hsa_layouts[i];
        if (l->root.major == last->root.major && l->core.major == last->core.major &&
            l->amd.major == last->amd.major) {
            if (!oldest)
                oldest = l;
            newest = l;
        }
    }
    /* a later release: larger tables, later steps */
    root.bytes += 8, root.step++, core.bytes += 64, amd.bytes += 96, amd.step += 2;
    make(&t, last, root, core, amd, 1, 1);
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_COMPATIBLE && got == newest);
    /* between the oldest and the newest row of the major: the oldest's offsets */
    if (oldest != newest) {
        amd = oldest->amd;
        amd.bytes += 8, amd.step++;
        make(&t, last, oldest->root, oldest->core, amd, 1, 1);
        CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_COMPATIBLE && got == oldest);
    }
    /* smaller than any row but holding every slot used: read, as the oldest row */
    amd = oldest->amd;
    amd.bytes = oldest->amd_off[ROCSYS_HSA_AMD_INTERCEPT_REGISTER] + 8;
    make(&t, last, oldest->root, oldest->core, amd, 1, 1);
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_COMPATIBLE && got == oldest);
    /* one byte short of the last slot used */
    amd.bytes--;
    make(&t, last, oldest->root, oldest->core, amd, 1, 1);
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_UNUSABLE && got == NULL);
    core = oldest->core;
    core.bytes = oldest->core_off[ROCSYS_HSA_CORE_ITERATE_SYMBOLS];
    make(&t, last, oldest->root, core, oldest->amd, 1, 1);
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_UNUSABLE && got == NULL);
}

/* Unknown majors, missing or short tables: refused, with the row NULL. */
static void test_refused(void)
{
    static struct tables t;
    const struct rocsys_hsa_layout *got = &rocsys_hsa_layouts[0];
    const struct rocsys_hsa_layout *first = &rocsys_hsa_layouts[0];
    const struct rocsys_hsa_layout *last = &rocsys_hsa_layouts[rocsys_hsa_nlayouts - 1];
    struct rocsys_hsa_table_id id;
    struct rocsys_hsa_seen seen;
    char why[128];

    CHECK(rocsys_hsa_layout_pick(NULL, &got, &seen, why, sizeof(why)) == ROCSYS_HSA_PICK_UNUSABLE &&
          got == NULL && why[0]);
    id = last->root; /* a root major no release has */
    id.major += 1;
    make(&t, last, id, last->core, last->amd, 1, 1);
    CHECK(rocsys_hsa_layout_pick(t.root, &got, &seen, why, sizeof(why)) ==
              ROCSYS_HSA_PICK_UNKNOWN &&
          got == NULL && seen.root.major == id.major && strstr(why, "version"));
    id = last->core; /* a known root with a core major its releases do not have */
    id.major += 1;
    make(&t, last, last->root, id, last->amd, 1, 1);
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_UNKNOWN && got == NULL);
    id = first->amd; /* 5.2's root and core with 6.x's AMD extension major */
    id.major = last->amd.major;
    make(&t, first, first->root, first->core, id, 1, 1);
    if (first->amd.major != last->amd.major)
        CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_UNKNOWN && got == NULL);
    make(&t, last, last->root, last->core, last->amd, 0, 1); /* no core table */
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_UNUSABLE && got == NULL);
    make(&t, last, last->root, last->core, last->amd, 1, 0); /* no AMD extension table */
    CHECK(pick(&t, &got) == ROCSYS_HSA_PICK_UNUSABLE && got == NULL);
    id = last->root; /* a root too small to hold the AMD extension pointer */
    id.bytes = last->root_amd;
    make(&t, last, id, last->core, last->amd, 1, 1);
    CHECK(rocsys_hsa_layout_pick(t.root, &got, &seen, why, sizeof(why)) ==
              ROCSYS_HSA_PICK_UNUSABLE &&
          got == NULL && seen.core.major == 0); /* the sub-tables were not read */
}

int main(void)
{
    test_rows();
    test_exact();
    test_compatible();
    test_refused();
    return check_summary();
}
