/* Unit tests of the before/after comparison (model/diff.c) on hand-built models: functions
 * matched by name whatever their ids, shares and changes in points, the default order (largest
 * absolute change first), functions of one side only marked new or gone and listed with 0 on
 * the other side, the call tree matched by path of names (depth-first, pruned below a share),
 * kernels and HIP API by name, the module taking part in a function's identity, and empty
 * models. */
#define _GNU_SOURCE
#include <link.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/diff.h"
#include "model_fixture.h"

/* Count weight samples of the stack path (names root first, separated by ';'). */
static void sample(struct model *m, const char *path, uint32_t weight)
{
    char buf[256];
    const char *names[16];
    uint32_t n = 0;

    snprintf(buf, sizeof(buf), "%s", path);
    for (char *tok = strtok(buf, ";"); tok && n < 16; tok = strtok(NULL, ";"))
        names[n++] = tok;
    model_sample_symbolized(m, 100, 101, FIXTURE_SEC, names, n, weight);
}

/* The row named name (and of module module when not NULL), or NULL. */
static const struct model_diff_row *find(const struct model_diff *d, const char *name,
                                         const char *module)
{
    for (int i = 0; i < d->count; i++)
        if (strcmp(d->rows[i].name, name) == 0 &&
            (!module || (d->rows[i].module && strcmp(d->rows[i].module, module) == 0)))
            return &d->rows[i];
    return NULL;
}

/* The index of the row named name, or -1. */
static int index_of(const struct model_diff *d, const char *name)
{
    const struct model_diff_row *r = find(d, name, NULL);

    return r ? (int)(r - d->rows) : -1;
}

static int near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

/* OLD: solve 50, butterfly 30 (under transform), reduce 10, legacy 10.
 * NEW: fresh 10 (first, so that every id differs), solve 20, butterfly 30, reduce 40. */
static void build(struct model **old_m, struct model **new_m)
{
    *old_m = model_new();
    *new_m = model_new();
    sample(*old_m, "main;solve", 50);
    sample(*old_m, "main;transform;butterfly", 30);
    sample(*old_m, "main;reduce", 10);
    sample(*old_m, "main;legacy", 10);
    sample(*new_m, "main;fresh", 10);
    sample(*new_m, "main;reduce", 40);
    sample(*new_m, "main;transform;butterfly", 30);
    sample(*new_m, "main;solve", 20);
}

static void test_funcs(void)
{
    struct model *o, *n;
    struct model_diff *d;
    const struct model_diff_row *r;

    build(&o, &n);
    d = model_diff_funcs(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->total[MODEL_DIFF_OLD] == 100 && d->total[MODEL_DIFF_NEW] == 100);
    CHECK(d->count == 7); /* main solve transform butterfly reduce legacy fresh */
    r = find(d, "solve", NULL);
    CHECK(r && near(r->share[MODEL_DIFF_OLD], 50) && near(r->share[MODEL_DIFF_NEW], 20));
    CHECK(r && near(r->delta, -30) && r->mark == MODEL_DIFF_BOTH);
    CHECK(r && r->count[MODEL_DIFF_OLD] == 50 && r->count[MODEL_DIFF_NEW] == 20);
    r = find(d, "reduce", NULL);
    CHECK(r && near(r->delta, 30) && near(r->delta2, 30));
    r = find(d, "butterfly", NULL);
    CHECK(r && near(r->delta, 0) && near(r->share[MODEL_DIFF_NEW], 30));
    r = find(d, "transform", NULL); /* no self time, 30 % inclusive on both sides */
    CHECK(r && near(r->share[MODEL_DIFF_OLD], 0) && near(r->share2[MODEL_DIFF_OLD], 30));
    CHECK(r && near(r->delta2, 0));
    r = find(d, "main", NULL);
    CHECK(r && near(r->share2[MODEL_DIFF_OLD], 100) && near(r->share2[MODEL_DIFF_NEW], 100));
    /* one side only: still listed, 0 on the other side */
    r = find(d, "fresh", NULL);
    CHECK(r && r->mark == MODEL_DIFF_ADDED && near(r->share[MODEL_DIFF_OLD], 0));
    CHECK(r && near(r->share[MODEL_DIFF_NEW], 10) && near(r->delta, 10));
    CHECK(r && r->count[MODEL_DIFF_OLD] == 0);
    r = find(d, "legacy", NULL);
    CHECK(r && r->mark == MODEL_DIFF_GONE && near(r->share[MODEL_DIFF_NEW], 0));
    CHECK(r && near(r->delta, -10) && near(r->delta2, -10));
    CHECK(d->added == 1 && d->gone == 1);
    CHECK_STR(model_diff_mark_name(MODEL_DIFF_ADDED), "new");
    CHECK_STR(model_diff_mark_name(MODEL_DIFF_GONE), "gone");
    /* largest absolute change first; ties by the larger share, then by name */
    CHECK(d->count == 7 && strcmp(d->rows[0].name, "solve") == 0);
    CHECK(d->count == 7 && strcmp(d->rows[1].name, "reduce") == 0);
    CHECK(d->count == 7 && strcmp(d->rows[2].name, "fresh") == 0);
    CHECK(d->count == 7 && strcmp(d->rows[3].name, "legacy") == 0);
    CHECK(d->count == 7 && strcmp(d->rows[4].name, "butterfly") == 0);
    for (int i = 1; i < d->count; i++)
        CHECK(fabs(d->rows[i - 1].delta) >= fabs(d->rows[i].delta));
    model_diff_free(d);
    /* the other orders */
    d = model_diff_funcs(o, n, MODEL_DIFF_SORT_NEW);
    CHECK(d->count == 7 && strcmp(d->rows[0].name, "reduce") == 0);
    CHECK(d->count == 7 && strcmp(d->rows[1].name, "butterfly") == 0);
    model_diff_free(d);
    d = model_diff_funcs(o, n, MODEL_DIFF_SORT_NAME);
    CHECK(d->count == 7 && strcmp(d->rows[0].name, "butterfly") == 0);
    CHECK(d->count == 7 && strcmp(d->rows[6].name, "transform") == 0);
    model_diff_free(d);
    /* the same recording against itself: no change, nothing new or gone */
    d = model_diff_funcs(n, n, MODEL_DIFF_SORT_CHANGE);
    for (int i = 0; i < d->count; i++)
        CHECK(near(d->rows[i].delta, 0) && d->rows[i].mark == MODEL_DIFF_BOTH);
    model_diff_free(d);
    model_free(o);
    model_free(n);
}

static void test_tree(void)
{
    struct model *o, *n;
    struct model_diff *d;
    const struct model_diff_row *r;
    int main_i, tr, bf;

    build(&o, &n);
    sample(o, "other;solve", 5); /* solve under another root: a path of its own */
    d = model_diff_tree(o, n, MODEL_DIFF_SORT_CHANGE, 0);
    CHECK(d->total[MODEL_DIFF_OLD] == 105 && d->total[MODEL_DIFF_NEW] == 100);
    main_i = index_of(d, "main");
    CHECK(main_i >= 0 && d->rows[main_i].depth == 1 && d->rows[main_i].parent == -1);
    CHECK(main_i >= 0 && d->rows[main_i].descendants == 6);
    /* "other" is gone; its "solve" is another path than main;solve */
    r = find(d, "other", NULL);
    CHECK(r && r->mark == MODEL_DIFF_GONE && r->descendants == 1);
    CHECK(r && r->depth == 1 && d->rows[r - d->rows + 1].mark == MODEL_DIFF_GONE);
    CHECK(r && strcmp(d->rows[r - d->rows + 1].name, "solve") == 0);
    /* under main, depth first, siblings by absolute change of the inclusive share */
    CHECK(main_i >= 0 && main_i + 6 < d->count);
    if (main_i >= 0 && main_i + 6 < d->count) {
        const struct model_diff_row *k = &d->rows[main_i + 1];
        /* reduce: 9.5 % -> 40 % (+30.5), solve: 47.6 % -> 20 % (-27.6) */
        CHECK_STR(k[0].name, "reduce");
        CHECK(k[0].mark == MODEL_DIFF_BOTH && near(k[0].share[MODEL_DIFF_NEW], 40));
        CHECK_STR(k[1].name, "solve");
        CHECK(near(k[1].share[MODEL_DIFF_OLD], 100.0 * 50 / 105) &&
              near(k[1].share[MODEL_DIFF_NEW], 20));
        CHECK(k[1].depth == 2 && k[1].parent == main_i && k[1].count[MODEL_DIFF_OLD] == 50);
        CHECK_STR(k[2].name, "fresh");
        CHECK(k[2].mark == MODEL_DIFF_ADDED && near(k[2].share[MODEL_DIFF_OLD], 0));
        CHECK_STR(k[3].name, "legacy");
        CHECK(k[3].mark == MODEL_DIFF_GONE && near(k[3].share[MODEL_DIFF_NEW], 0));
    }
    tr = index_of(d, "transform");
    bf = index_of(d, "butterfly");
    CHECK(tr >= 0 && bf == tr + 1 && d->rows[bf].parent == tr && d->rows[bf].depth == 3);
    CHECK(tr >= 0 && d->rows[tr].descendants == 1 && near(d->rows[tr].share2[MODEL_DIFF_NEW], 0));
    CHECK(bf >= 0 && near(d->rows[bf].share2[MODEL_DIFF_NEW], 30)); /* self share */
    /* path hashes: stable across builds, different for different paths */
    {
        struct model_diff *again = model_diff_tree(o, n, MODEL_DIFF_SORT_NAME, 0);
        const struct model_diff_row *a = find(again, "butterfly", NULL);
        CHECK(a && bf >= 0 && a->path_hash == d->rows[bf].path_hash);
        CHECK(tr >= 0 && d->rows[tr].path_hash != d->rows[bf].path_hash);
        model_diff_free(again);
    }
    model_diff_free(d);
    /* pruning: below 15 % on both sides, left out with what is under them */
    d = model_diff_tree(o, n, MODEL_DIFF_SORT_CHANGE, 15);
    CHECK(find(d, "legacy", NULL) == NULL && find(d, "fresh", NULL) == NULL);
    CHECK(find(d, "other", NULL) == NULL && d->left_out == 3);
    CHECK(find(d, "reduce", NULL) != NULL); /* 40 % in NEW */
    model_diff_free(d);
    model_free(o);
    model_free(n);
}

/* Add a timed dispatch of kernel name (mangled) in process pid. */
static void dispatch(struct model *m, uint64_t object, const char *name, uint64_t ns)
{
    uint32_t grid[3] = {64, 1, 1};
    uint16_t block[3] = {64, 1, 1};

    model_kernel_name(m, 10, 1, object, name);
    model_gpu_dispatch(m, 10, 0, 1, object, 1000, 1000 + ns, 0, grid, block);
}

/* Add a HIP call of api (an id) taking ns. */
static void hip(struct model *m, const char *api, uint64_t ns)
{
    struct model_hip_call c = {.pid = 10,
                               .tid = 10,
                               .api = model_hip_api_id(api),
                               .start_ns = 100,
                               .end_ns = 100 + ns,
                               .copy_kind = -1};
    model_hip_call(m, &c);
}

static void test_gpu_tables(void)
{
    struct model *o = model_new(), *n = model_new();
    struct model_diff *d;
    const struct model_diff_row *r;

    /* OLD: saxpy 3 x 100 us, old_k 100 us; NEW: saxpy 1 x 100 us, new_k 300 us (other ids) */
    for (int i = 0; i < 3; i++)
        dispatch(o, 0xa000, "saxpy.kd", 100000);
    dispatch(o, 0xb000, "_Z5old_kv.kd", 100000);
    dispatch(n, 0xc000, "_Z5new_kv.kd", 300000);
    dispatch(n, 0xd000, "saxpy.kd", 100000);
    d = model_diff_kernels(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count == 3 && d->total[MODEL_DIFF_OLD] == 400000);
    r = find(d, "saxpy", NULL);
    CHECK(r && near(r->share[MODEL_DIFF_OLD], 75) && near(r->share[MODEL_DIFF_NEW], 25));
    CHECK(r && r->count[MODEL_DIFF_OLD] == 3 && r->count[MODEL_DIFF_NEW] == 1);
    CHECK(r && r->time_ns[MODEL_DIFF_OLD] == 300000 && r->time_ns[MODEL_DIFF_NEW] == 100000);
    r = find(d, "new_k()", NULL);
    CHECK(r && r->mark == MODEL_DIFF_ADDED && near(r->delta, 75));
    r = find(d, "old_k()", NULL);
    CHECK(r && r->mark == MODEL_DIFF_GONE && near(r->delta, -25));
    CHECK(d->count == 3 && strcmp(d->rows[0].name, "new_k()") == 0);
    CHECK(d->count == 3 && strcmp(d->rows[1].name, "saxpy") == 0);
    model_diff_free(d);

    hip(o, "hipMemcpy", 800);
    hip(o, "hipLaunchKernel", 200);
    hip(n, "hipLaunchKernel", 200);
    hip(n, "hipLaunchKernel", 200);
    hip(n, "hipMalloc", 600);
    d = model_diff_hip(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count == 3 && d->total[MODEL_DIFF_OLD] == 1000 && d->total[MODEL_DIFF_NEW] == 1000);
    r = find(d, "hipLaunchKernel", NULL);
    CHECK(r && near(r->delta, 20) && r->count[MODEL_DIFF_OLD] == 1 &&
          r->count[MODEL_DIFF_NEW] == 2);
    r = find(d, "hipMemcpy", NULL);
    CHECK(r && r->mark == MODEL_DIFF_GONE && near(r->delta, -80));
    r = find(d, "hipMalloc", NULL);
    CHECK(r && r->mark == MODEL_DIFF_ADDED && near(r->delta, 60));
    CHECK(d->count == 3 && strcmp(d->rows[0].name, "hipMemcpy") == 0);
    model_diff_free(d);
    model_free(o);
    model_free(n);
}

/* The basename of this executable: the module of its functions. */
static const char *self_name(void)
{
    static char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    const char *slash;

    exe[n > 0 ? n : 0] = '\0';
    slash = strrchr(exe, '/');
    return slash ? slash + 1 : exe;
}

/* A function is its name and its module: fn_leaf of this executable (a live model, through the
 * symbolizer) is not the module-less fn_leaf of a recording. */
static void test_module_identity(void)
{
    struct model *live = model_new(), *rec = model_new();
    uint64_t frames[] = {fixture_at(fn_leaf), fixture_at(fn_outer)};
    struct model_diff *d;
    const struct model_diff_row *r;
    int leaves = 0;

    dl_iterate_phdr(fixture_add_self, live);
    CHECK(model_sample(live, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, frames, 2, 1) == 0);
    sample(rec, "fn_outer;fn_leaf", 1);
    d = model_diff_funcs(live, rec, MODEL_DIFF_SORT_CHANGE);
    for (int i = 0; i < d->count; i++)
        leaves += strcmp(d->rows[i].name, "fn_leaf") == 0;
    CHECK_MSG(leaves == 2, "fn_leaf rows: %d", leaves);
    r = find(d, "fn_leaf", self_name());
    CHECK(r && r->mark == MODEL_DIFF_GONE && near(r->share[MODEL_DIFF_OLD], 100));
    model_diff_free(d);
    /* the live model against itself: every function with its module matched */
    d = model_diff_funcs(live, live, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count >= 2 && d->added == 0 && d->gone == 0);
    model_diff_free(d);
    model_free(live);
    model_free(rec);
}

static void test_empty(void)
{
    struct model *o = model_new(), *n = model_new();
    struct model_diff *d;

    d = model_diff_funcs(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count == 0 && d->total[0] == 0 && d->total[1] == 0);
    model_diff_free(d);
    d = model_diff_tree(o, n, MODEL_DIFF_SORT_CHANGE, 0.5);
    CHECK(d->count == 0 && d->left_out == 0);
    model_diff_free(d);
    d = model_diff_kernels(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count == 0);
    model_diff_free(d);
    d = model_diff_hip(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count == 0);
    model_diff_free(d);
    /* everything gone: shares of an empty side are 0, not a division by zero */
    sample(o, "main;solve", 10);
    d = model_diff_funcs(o, n, MODEL_DIFF_SORT_CHANGE);
    CHECK(d->count == 2 && d->gone == 2 && near(d->rows[0].delta, -100));
    model_diff_free(d);
    model_free(o);
    model_free(n);
}

int main(void)
{
    test_funcs();
    test_tree();
    test_gpu_tables();
    test_module_identity();
    test_empty();
    return check_summary();
}
