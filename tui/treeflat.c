/* Call-tree display logic without a terminal: ordering children, the expand/collapse memory
 * (keyed by path hash), flattening a tree into visible rows, searching a tree, and ordering
 * hot lists. */
#define _GNU_SOURCE 1
#include "tui/tui_internal.h"

#include <stdlib.h>
#include <string.h>

const char *tui_sort_name(int sort)
{
    switch (sort) {
    case TUI_SORT_SELF:
        return "self";
    case TUI_SORT_NAME:
        return "name";
    case TUI_SORT_GPU:
        return "GPU time";
    default:
        return "inclusive";
    }
}

/* ---- expand/collapse memory: open addressing over path hashes ---- */

/* Slot of key in e (its own or the empty one where it would go). */
static size_t expand_slot(const struct tui_expand *e, uint64_t key)
{
    size_t mask = e->cap - 1;
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & mask;

    while (e->vals[i] != 0 && e->keys[i] != key)
        i = (i + 1) & mask;
    return i;
}

int tui_expand_get(const struct tui_expand *e, uint64_t key)
{
    if (e->cap == 0)
        return TUI_EXP_DEFAULT;
    return e->vals[expand_slot(e, key)];
}

/* Double the table (or create it). */
static void expand_grow(struct tui_expand *e)
{
    struct tui_expand n = {0};

    n.cap = e->cap ? e->cap * 2 : 64;
    n.keys = xcalloc(n.cap, sizeof(*n.keys));
    n.vals = xcalloc(n.cap, sizeof(*n.vals));
    for (size_t i = 0; i < e->cap; i++) {
        if (e->vals[i]) {
            size_t s = expand_slot(&n, e->keys[i]);
            n.keys[s] = e->keys[i];
            n.vals[s] = e->vals[i];
            n.used++;
        }
    }
    free(e->keys);
    free(e->vals);
    *e = n;
}

void tui_expand_set(struct tui_expand *e, uint64_t key, int state)
{
    size_t s;

    if (state != TUI_EXP_OPEN && state != TUI_EXP_CLOSED)
        return; /* no deletion: a remembered choice is only ever flipped */
    if ((e->used + 1) * 4 > e->cap * 3)
        expand_grow(e);
    s = expand_slot(e, key);
    if (e->vals[s] == 0) {
        e->used++;
        e->keys[s] = key;
    }
    e->vals[s] = (unsigned char)state;
}

void tui_expand_free(struct tui_expand *e)
{
    free(e->keys);
    free(e->vals);
    memset(e, 0, sizeof(*e));
}

/* ---- ordering ---- */

/* Compare two tree nodes (indices) for display order under o->sort. */
static int node_cmp(const void *a, const void *b, void *arg)
{
    const struct tui_tree_order *o = arg;
    const struct model_node *x = &o->tree->nodes[*(const int *)a];
    const struct model_node *y = &o->tree->nodes[*(const int *)b];
    int c = 0;

    if (o->sort == TUI_SORT_NAME) {
        c = strcmp(o->name(o->ctx, x->func), o->name(o->ctx, y->func));
        if (c)
            return c;
    }
    if (o->sort == TUI_SORT_SELF && x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (o->sort == TUI_SORT_GPU && x->gpu_ns != y->gpu_ns)
        return x->gpu_ns > y->gpu_ns ? -1 : 1;
    if (x->inclusive != y->inclusive)
        return x->inclusive > y->inclusive ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (o->sort != TUI_SORT_NAME) {
        c = strcmp(o->name(o->ctx, x->func), o->name(o->ctx, y->func));
        if (c)
            return c;
    }
    if (x->path_hash != y->path_hash)
        return x->path_hash < y->path_hash ? -1 : 1;
    return 0;
}

int tui_tree_children(const struct tui_tree_order *o, int node, int **buf, int *cap)
{
    int n = 0;

    for (int c = o->tree->nodes[node].first_child; c >= 0; c = o->tree->nodes[c].next_sibling) {
        if (n == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            *buf = xrealloc(*buf, (size_t)*cap * sizeof(**buf));
        }
        (*buf)[n++] = c;
    }
    if (n > 1)
        qsort_r(*buf, (size_t)n, sizeof(**buf), node_cmp, (void *)o);
    return n;
}

/* ---- flattening ---- */

/* A pending node of the depth-first walk. */
struct walk_item {
    int node;
    int hottest; /* the largest child of its parent: open by default */
};

struct walk {
    struct walk_item *items;
    int n, cap;
};

/* Push a node onto the walk stack. */
static void walk_push(struct walk *w, int node, int hottest)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 64;
        w->items = xrealloc(w->items, (size_t)w->cap * sizeof(*w->items));
    }
    w->items[w->n++] = (struct walk_item){node, hottest};
}

/* Append a row to r. */
static void rows_push(struct tui_tree_rows *r, struct tui_tree_row row)
{
    if (r->count == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 64;
        r->rows = xrealloc(r->rows, (size_t)r->cap * sizeof(*r->rows));
    }
    r->rows[r->count++] = row;
}

/* Index (into kids) of the child with the largest inclusive count (GPU time when sorted by
 * it); first one on ties. */
static int hottest_child(const struct model_tree *t, const int *kids, int n, int sort)
{
    int best = 0;

    for (int i = 1; i < n; i++) {
        const struct model_node *a = &t->nodes[kids[i]], *b = &t->nodes[kids[best]];
        if (sort == TUI_SORT_GPU ? a->gpu_ns > b->gpu_ns : a->inclusive > b->inclusive)
            best = i;
    }
    return best;
}

void tui_tree_flatten(const struct tui_tree_order *o, const struct tui_expand *e,
                      struct tui_tree_rows *out)
{
    const struct model_tree *t = o->tree;
    struct walk w = {0};
    int *kids = NULL, cap = 0;

    out->count = 0;
    if (!t || t->count == 0)
        goto out;
    walk_push(&w, 0, 1);
    while (w.n > 0) {
        struct walk_item it = w.items[--w.n];
        const struct model_node *nd = &t->nodes[it.node];
        int st = tui_expand_get(e, nd->path_hash);
        int open = st == TUI_EXP_OPEN || (st == TUI_EXP_DEFAULT && it.hottest);
        struct tui_tree_row row = {.node = it.node,
                                   .depth = nd->depth,
                                   .has_children = nd->first_child >= 0,
                                   .expanded = 0};

        row.expanded = row.has_children && open;
        rows_push(out, row);
        if (!row.expanded)
            continue;
        int n = tui_tree_children(o, it.node, &kids, &cap);
        int hot = hottest_child(t, kids, n, o->sort);
        for (int i = n - 1; i >= 0; i--) /* reversed: the first child is popped first */
            walk_push(&w, kids[i], i == hot);
    }
out:
    free(kids);
    free(w.items);
}

void tui_tree_rows_free(struct tui_tree_rows *r)
{
    free(r->rows);
    memset(r, 0, sizeof(*r));
}

int tui_tree_row_of(const struct tui_tree_rows *r, int node)
{
    for (int i = 0; i < r->count; i++)
        if (r->rows[i].node == node)
            return i;
    return -1;
}

int tui_tree_find(const struct tui_tree_order *o, int after, const char *needle)
{
    const struct model_tree *t = o->tree;
    int *order = NULL, *kids = NULL, cap = 0, n = 0, start = 0, found = -1;
    struct walk w = {0};

    if (!t || t->count == 0)
        return -1;
    /* the whole tree in display order */
    order = xmalloc((size_t)t->count * sizeof(*order));
    walk_push(&w, 0, 0);
    while (w.n > 0) {
        int node = w.items[--w.n].node;
        order[n++] = node;
        int k = tui_tree_children(o, node, &kids, &cap);
        for (int i = k - 1; i >= 0; i--)
            walk_push(&w, kids[i], 0);
    }
    for (int i = 0; i < n; i++)
        if (order[i] == after)
            start = i + 1;
    for (int i = 0; i < n; i++) {
        int node = order[(start + i) % n];
        if (node != 0 && tui_match(o->name(o->ctx, t->nodes[node].func), needle)) {
            found = node;
            break;
        }
    }
    free(order);
    free(kids);
    free(w.items);
    return found;
}

void tui_tree_reveal(const struct model_tree *t, struct tui_expand *e, int node)
{
    if (node < 0 || node >= t->count)
        return;
    for (int p = t->nodes[node].parent; p >= 0; p = t->nodes[p].parent)
        tui_expand_set(e, t->nodes[p].path_hash, TUI_EXP_OPEN);
}

/* Context of hot_cmp. */
struct hot_order {
    int sort;
    tui_name_fn name;
    const void *ctx;
};

/* Compare two hot-list items for display order. */
static int hot_cmp(const void *a, const void *b, void *arg)
{
    const struct hot_order *o = arg;
    const struct model_hot *x = a, *y = b;
    int c;

    if (o->sort == TUI_SORT_NAME) {
        c = strcmp(o->name(o->ctx, x->func), o->name(o->ctx, y->func));
        if (c)
            return c;
    }
    if (o->sort == TUI_SORT_INCL && x->inclusive != y->inclusive)
        return x->inclusive > y->inclusive ? -1 : 1;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    if (x->inclusive != y->inclusive)
        return x->inclusive > y->inclusive ? -1 : 1;
    c = strcmp(o->name(o->ctx, x->func), o->name(o->ctx, y->func));
    if (c)
        return c;
    return (x->func > y->func) - (x->func < y->func);
}

void tui_hot_sort(struct model_hot *items, int count, int sort, tui_name_fn name, const void *ctx)
{
    struct hot_order o = {sort, name, ctx};

    if (count > 1)
        qsort_r(items, (size_t)count, sizeof(*items), hot_cmp, &o);
}
