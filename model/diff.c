/* Before and after (--replay NEW --diff OLD): the hot functions, call trees, kernels and HIP
 * API entries of two models matched by name, with each entry's share in both and the change.
 * Flat tables are merged by sorting both sides by key and walking them together (equal keys of
 * one side, e.g. a function known under two ids, are added up); call trees level by level: the
 * children of the nodes that share a path of names, from both sides, are grouped by name. */
#define _GNU_SOURCE /* qsort_r */
#include "model/diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* One entry of one side before matching. */
struct entry {
    const char *name, *module;
    int side;         /* MODEL_DIFF_OLD or MODEL_DIFF_NEW */
    int node;         /* call tree: the node of that side's tree */
    uint64_t a, b;    /* numerators of share and share2 */
    uint64_t count;   /* samples, dispatches or calls */
    uint64_t time_ns; /* kernels, HIP API */
};

/* Names compare as strings; a missing module sorts as "". */
static int key_cmp(const char *n1, const char *m1, const char *n2, const char *m2)
{
    int c = strcmp(n1 ? n1 : "", n2 ? n2 : "");

    return c ? c : strcmp(m1 ? m1 : "", m2 ? m2 : "");
}

/* qsort comparator of entries by key. */
static int entry_cmp(const void *x, const void *y)
{
    const struct entry *a = x, *b = y;

    return key_cmp(a->name, a->module, b->name, b->module);
}

/* The k-th key (0..3, larger first) of row r in order sort: the change of the share (or the
 * NEW share), the same of the second share, then the larger of the two shares and of the two
 * second shares. Changes count in tenths of a point, as shown: a change too small to show does
 * not put a row before a larger entry of the same shown change. */
static double sort_key(const struct model_diff_row *r, enum model_diff_sort sort, int k)
{
    int by_change = sort == MODEL_DIFF_SORT_CHANGE;

    switch (k) {
    case 0:
        return by_change ? round(fabs(r->delta) * 10) : r->share[MODEL_DIFF_NEW];
    case 1:
        return by_change ? round(fabs(r->delta2) * 10) : r->share2[MODEL_DIFF_NEW];
    case 2:
        return fmax(r->share[0], r->share[1]);
    default:
        return fmax(r->share2[0], r->share2[1]);
    }
}

/* qsort_r comparator of rows in the order ctx (enum model_diff_sort) names; then by name. */
static int row_cmp(const void *x, const void *y, void *ctx)
{
    const struct model_diff_row *a = x, *b = y;
    enum model_diff_sort sort = *(const enum model_diff_sort *)ctx;

    for (int k = 0; k < 4 && sort != MODEL_DIFF_SORT_NAME; k++) {
        double p = sort_key(a, sort, k), q = sort_key(b, sort, k);
        if (p != q)
            return p < q ? 1 : -1;
    }
    return key_cmp(a->name, a->module, b->name, b->module);
}

/* part as a percentage of total (0 when total is 0). */
static double pct(uint64_t part, uint64_t total)
{
    return total ? 100.0 * (double)part / (double)total : 0.0;
}

/* The row of the entries e[0..n) (one key, from either side), before its strings are copied:
 * sums per side, shares, changes and the mark. */
static struct model_diff_row make_row(const struct entry *e, int n, const uint64_t total[2])
{
    struct model_diff_row r = {.parent = -1};
    uint64_t a[2] = {0, 0}, b[2] = {0, 0};
    int seen[2] = {0, 0};

    r.name = (char *)e[0].name;
    r.module = (char *)e[0].module;
    for (int i = 0; i < n; i++) {
        int s = e[i].side;
        a[s] += e[i].a;
        b[s] += e[i].b;
        r.count[s] += e[i].count;
        r.time_ns[s] += e[i].time_ns;
        seen[s] = 1;
    }
    for (int s = 0; s < 2; s++) {
        r.share[s] = pct(a[s], total[s]);
        r.share2[s] = pct(b[s], total[s]);
    }
    r.delta = r.share[MODEL_DIFF_NEW] - r.share[MODEL_DIFF_OLD];
    r.delta2 = r.share2[MODEL_DIFF_NEW] - r.share2[MODEL_DIFF_OLD];
    r.mark = !seen[MODEL_DIFF_OLD]   ? MODEL_DIFF_ADDED
             : !seen[MODEL_DIFF_NEW] ? MODEL_DIFF_GONE
                                     : MODEL_DIFF_BOTH;
    return r;
}

/* Append r to d with its own copies of the strings; returns its index. */
static int append_row(struct model_diff *d, size_t *cap, const struct model_diff_row *r)
{
    struct model_diff_row *o;

    xgrow(&d->rows, cap, (size_t)d->count + 1, sizeof(*d->rows));
    o = &d->rows[d->count];
    *o = *r;
    o->name = xstrdup(r->name ? r->name : "?");
    o->module = r->module ? xstrdup(r->module) : NULL;
    d->added += r->mark == MODEL_DIFF_ADDED;
    d->gone += r->mark == MODEL_DIFF_GONE;
    return d->count++;
}

/* A flat table from the entries of both sides (e[0..n), any order): one row per key. */
static struct model_diff *diff_flat(struct entry *e, int n, const uint64_t total[2],
                                    enum model_diff_sort sort)
{
    struct model_diff *d = xcalloc(1, sizeof(*d));
    size_t cap = 0;

    d->total[0] = total[0];
    d->total[1] = total[1];
    qsort(e, (size_t)n, sizeof(*e), entry_cmp);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && entry_cmp(&e[i], &e[j]) == 0)
            j++;
        struct model_diff_row r = make_row(&e[i], j - i, total);
        append_row(d, &cap, &r);
        i = j;
    }
    if (d->count)
        qsort_r(d->rows, (size_t)d->count, sizeof(*d->rows), row_cmp, &sort);
    return d;
}

struct model_diff *model_diff_funcs(struct model *old_m, struct model *new_m,
                                    enum model_diff_sort sort)
{
    struct model *m[2] = {old_m, new_m};
    struct model_filter f = {.thread = -1, .window = 0};
    struct model_hot_list *h[2];
    struct model_diff *d;
    struct entry *e;
    uint64_t total[2];
    int n = 0;

    for (int s = 0; s < 2; s++) {
        h[s] = model_hot_build(m[s], &f);
        total[s] = h[s]->total;
    }
    e = xcalloc((size_t)h[0]->count + (size_t)h[1]->count + 1, sizeof(*e));
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < h[s]->count; i++) {
            const struct model_hot *it = &h[s]->items[i];
            const struct model_func *fn = model_func_at(m[s], it->func);
            if (!fn || (it->self == 0 && it->inclusive == 0))
                continue;
            e[n++] = (struct entry){.name = fn->name,
                                    .module = fn->module,
                                    .side = s,
                                    .a = it->self,
                                    .b = it->inclusive,
                                    .count = it->self};
        }
    d = diff_flat(e, n, total, sort);
    free(e);
    model_hot_free(h[0]);
    model_hot_free(h[1]);
    return d;
}

struct model_diff *model_diff_kernels(struct model *old_m, struct model *new_m,
                                      enum model_diff_sort sort)
{
    struct model *m[2] = {old_m, new_m};
    struct model_kernel_list *l[2];
    struct model_diff *d;
    struct entry *e;
    uint64_t total[2];
    int n = 0;

    for (int s = 0; s < 2; s++) {
        l[s] = model_kernels_list(m[s]);
        total[s] = l[s]->gpu_total_ns;
    }
    e = xcalloc((size_t)l[0]->count + (size_t)l[1]->count + 1, sizeof(*e));
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < l[s]->count; i++) {
            const struct model_kernel *k = &l[s]->items[i];
            e[n++] = (struct entry){.name = k->name,
                                    .side = s,
                                    .a = k->gpu.total_ns,
                                    /* no dispatch seen (no GPU, or HSA not traced): the
                                     * launches are the calls */
                                    .count = k->dispatches ? k->dispatches : k->hip_launches,
                                    .time_ns = k->gpu.total_ns};
        }
    d = diff_flat(e, n, total, sort);
    free(e);
    model_kernels_list_free(l[0]);
    model_kernels_list_free(l[1]);
    return d;
}

struct model_diff *model_diff_hip(struct model *old_m, struct model *new_m,
                                  enum model_diff_sort sort)
{
    struct model *m[2] = {old_m, new_m};
    int count[2] = {model_hip_api_count(old_m), model_hip_api_count(new_m)};
    struct entry *e = xcalloc((size_t)count[0] + (size_t)count[1] + 1, sizeof(*e));
    uint64_t total[2] = {0, 0};
    struct model_diff *d;
    int n = 0;

    for (int s = 0; s < 2; s++)
        for (int i = 0; i < count[s]; i++) {
            const struct model_hip_api *a = model_hip_api_at(m[s], i);
            if (!a || a->time.calls == 0)
                continue;
            total[s] += a->time.total_ns;
            e[n++] = (struct entry){.name = a->name,
                                    .side = s,
                                    .a = a->time.total_ns,
                                    .count = a->time.calls,
                                    .time_ns = a->time.total_ns};
        }
    d = diff_flat(e, n, total, sort);
    free(e);
    return d;
}

/* ---- call trees ---- */

struct tree_ctx {
    struct model *m[2];
    struct model_tree *t[2];
    struct model_diff *d;
    size_t cap;
    enum model_diff_sort sort;
    double min_pct;
};

/* A group of children with one name: where its entries start and how many, and its row. */
struct group {
    int start, n;
    struct model_diff_row row;
};

/* FNV-1a of s over h ("" for NULL). */
static uint64_t hash_str(uint64_t h, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        h = (h ^ *p) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull; /* a separator: "ab"+"c" differs from "a"+"bc" */
}

/* qsort_r comparator of groups by their rows. */
static int group_cmp(const void *x, const void *y, void *ctx)
{
    return row_cmp(&((const struct group *)x)->row, &((const struct group *)y)->row, ctx);
}

/* The rows below the nodes members[0..n) (one path of names, from either side): their
 * children grouped by name, each group a row followed by the rows below it. */
static void tree_level(struct tree_ctx *c, const struct entry *members, int n, int depth,
                       int parent_row, uint64_t parent_hash)
{
    struct entry *kids = NULL;
    struct group *g = NULL;
    size_t kcap = 0, gcap = 0;
    int nk = 0, ng = 0;

    for (int i = 0; i < n; i++) {
        int s = members[i].side;
        const struct model_tree *t = c->t[s];
        for (int k = t->nodes[members[i].node].first_child; k >= 0; k = t->nodes[k].next_sibling) {
            const struct model_node *nd = &t->nodes[k];
            const struct model_func *fn = model_func_at(c->m[s], nd->func);
            xgrow(&kids, &kcap, (size_t)nk + 1, sizeof(*kids));
            kids[nk++] = (struct entry){.name = fn ? fn->name : "?",
                                        .module = fn ? fn->module : NULL,
                                        .side = s,
                                        .node = k,
                                        .a = nd->inclusive,
                                        .b = nd->self,
                                        .count = nd->inclusive};
        }
    }
    if (nk == 0)
        goto cleanup;
    qsort(kids, (size_t)nk, sizeof(*kids), entry_cmp);
    for (int i = 0; i < nk;) {
        int j = i + 1;
        while (j < nk && entry_cmp(&kids[i], &kids[j]) == 0)
            j++;
        struct model_diff_row r = make_row(&kids[i], j - i, c->d->total);
        if (fmax(r.share[0], r.share[1]) < c->min_pct) {
            c->d->left_out++;
        } else {
            xgrow(&g, &gcap, (size_t)ng + 1, sizeof(*g));
            g[ng++] = (struct group){.start = i, .n = j - i, .row = r};
        }
        i = j;
    }
    if (ng > 1)
        qsort_r(g, (size_t)ng, sizeof(*g), group_cmp, &c->sort);
    for (int i = 0; i < ng; i++) {
        struct model_diff_row r = g[i].row;
        int idx;
        r.depth = depth;
        r.parent = parent_row;
        r.path_hash = hash_str(hash_str(parent_hash, r.name), r.module);
        idx = append_row(c->d, &c->cap, &r);
        tree_level(c, &kids[g[i].start], g[i].n, depth + 1, idx, r.path_hash);
        c->d->rows[idx].descendants = c->d->count - idx - 1;
    }
cleanup:
    free(kids);
    free(g);
}

struct model_diff *model_diff_tree(struct model *old_m, struct model *new_m,
                                   enum model_diff_sort sort, double min_pct)
{
    struct model_filter f = {.thread = -1, .window = 0};
    struct tree_ctx c = {.m = {old_m, new_m}, .sort = sort, .min_pct = min_pct};
    struct entry roots[2] = {{.side = MODEL_DIFF_OLD, .node = 0},
                             {.side = MODEL_DIFF_NEW, .node = 0}};

    c.d = xcalloc(1, sizeof(*c.d));
    for (int s = 0; s < 2; s++) {
        c.t[s] = model_tree_build(c.m[s], &f);
        c.d->total[s] = c.t[s]->total;
    }
    tree_level(&c, roots, 2, 1, -1, 0xcbf29ce484222325ull);
    model_tree_free(c.t[0]);
    model_tree_free(c.t[1]);
    return c.d;
}

void model_diff_free(struct model_diff *d)
{
    if (!d)
        return;
    for (int i = 0; i < d->count; i++) {
        free(d->rows[i].name);
        free(d->rows[i].module);
    }
    free(d->rows);
    free(d);
}

const char *model_diff_mark_name(enum model_diff_mark mark)
{
    return mark == MODEL_DIFF_ADDED ? "new" : mark == MODEL_DIFF_GONE ? "gone" : "";
}

const char *model_diff_sort_name(enum model_diff_sort sort)
{
    return sort == MODEL_DIFF_SORT_NEW    ? "new share"
           : sort == MODEL_DIFF_SORT_NAME ? "name"
                                          : "change";
}
