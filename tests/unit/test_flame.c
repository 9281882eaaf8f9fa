/* Unit tests of the flame graph's pure parts (tui/flame_layout.c): box widths in proportion to
 * the samples, children inside their parent, no overlap, the full width used, zoom, narrow
 * frames left out, moving between frames, the share of search matches without counting nested
 * matches twice, frame kinds, and the text rendering of batch mode. */
#include "tui/tui_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define MAX_NODES 4096

struct fixture {
    struct model_tree tree;
    struct model_node nodes[MAX_NODES];
    char names[MAX_NODES][32];
};

/* tui_name_fn over a fixture: func i is names[i]. */
static const char *fx_name(const void *ctx, int func)
{
    const struct fixture *fx = ctx;

    return func < 0 ? "[all]" : fx->names[func];
}

/* Start a tree with its root. */
static void fx_init(struct fixture *fx)
{
    memset(fx, 0, sizeof(*fx));
    fx->tree.nodes = fx->nodes;
    fx->nodes[0] = (struct model_node){
        .func = -1, .parent = -1, .first_child = -1, .next_sibling = -1, .path_hash = 1};
    fx->tree.count = 1;
}

/* Add a child called name under parent with self samples (inclusive counts are summed later
 * by fx_sum). Returns its index. */
static int fx_add(struct fixture *fx, int parent, const char *name, uint64_t self)
{
    int i = fx->tree.count++;
    struct model_node *p = &fx->nodes[parent];

    snprintf(fx->names[i], sizeof(fx->names[i]), "%s", name);
    fx->nodes[i] = (struct model_node){.func = i,
                                       .parent = parent,
                                       .first_child = -1,
                                       .next_sibling = p->first_child, /* any order */
                                       .depth = p->depth + 1,
                                       .self = self,
                                       .path_hash = (uint64_t)i * 7919 + 3};
    p->first_child = i;
    return i;
}

/* inclusive = self + the children's inclusive, for every node (children have larger indices). */
static void fx_sum(struct fixture *fx)
{
    for (int i = 0; i < fx->tree.count; i++)
        fx->nodes[i].inclusive = fx->nodes[i].self;
    for (int i = fx->tree.count - 1; i > 0; i--)
        fx->nodes[fx->nodes[i].parent].inclusive += fx->nodes[i].inclusive;
    fx->tree.total = fx->nodes[0].inclusive;
}

static const struct tui_flame_box *box_of(const struct tui_flame *f, int node)
{
    int i = tui_flame_box_of(f, node);
    return i >= 0 ? &f->boxes[i] : NULL;
}

/* The layout's invariants for zoom root zoom in width columns. */
static void check_invariants(const struct fixture *fx, const struct tui_flame *f, int zoom,
                             int width)
{
    const struct model_tree *t = &fx->tree;

    CHECK(f->count >= 1 && f->boxes[0].node == zoom && f->boxes[0].x == 0 &&
          f->boxes[0].w == width && f->boxes[0].depth == 0);
    for (int i = 0; i < f->count; i++) {
        const struct tui_flame_box *b = &f->boxes[i], *p;
        const struct model_node *nd = &t->nodes[b->node];
        double want;

        CHECK(b->w >= 1 && b->x >= 0 && b->x + b->w <= width);
        if (i == 0)
            continue;
        p = box_of(f, nd->parent); /* the parent has a box one row up, around this one */
        CHECK_MSG(p && p->depth == b->depth - 1 && b->x >= p->x && b->x + b->w <= p->x + p->w,
                  "box %d (node %d) outside its parent", i, b->node);
        if (!p)
            continue;
        /* proportional: within a column of the exact share (rounding of both edges) */
        want = (double)p->w * (double)nd->inclusive / (double)t->nodes[p->node].inclusive;
        CHECK_MSG(b->w >= want - 1.0001 && b->w <= want + 1.0001, "node %d: width %d, share %.2f",
                  b->node, b->w, want);
        for (int k = i + 1; k < f->count; k++) /* no overlap within a row */
            if (f->boxes[k].depth == b->depth)
                CHECK(f->boxes[k].x >= b->x + b->w || f->boxes[k].x + f->boxes[k].w <= b->x);
    }
    /* a row's boxes come left to right (the text rendering relies on it) */
    for (int i = 0; i < f->count; i++)
        for (int k = i + 1; k < f->count; k++)
            if (f->boxes[k].depth == f->boxes[i].depth)
                CHECK(f->boxes[k].x > f->boxes[i].x);
    /* every child wide enough for a column has a box (only the narrow are left out) */
    for (int i = 0; i < f->count; i++) {
        const struct model_node *nd = &t->nodes[f->boxes[i].node];
        for (int c = nd->first_child; c >= 0; c = t->nodes[c].next_sibling)
            if ((double)f->boxes[i].w * (double)t->nodes[c].inclusive >=
                1.5 * (double)nd->inclusive)
                CHECK_MSG(box_of(f, c) != NULL, "node %d (%llu of %llu) has no box", c,
                          (unsigned long long)t->nodes[c].inclusive,
                          (unsigned long long)nd->inclusive);
    }
}

/* root 100: A 50 (-> A1 50), B 30 (-> B1 10, B2 20), C 20. */
static void test_basic(void)
{
    static struct fixture fx;
    struct tui_tree_order o = {&fx.tree, TUI_SORT_INCL, fx_name, &fx};
    struct tui_flame f = {0};
    const struct tui_flame_box *b;
    int a, a1, bb, b1, b2, c;

    fx_init(&fx);
    c = fx_add(&fx, 0, "C", 20);
    bb = fx_add(&fx, 0, "B", 0);
    a = fx_add(&fx, 0, "A", 0);
    a1 = fx_add(&fx, a, "A1", 50);
    b1 = fx_add(&fx, bb, "B1", 10);
    b2 = fx_add(&fx, bb, "B2", 20);
    fx_sum(&fx);
    CHECK(fx.tree.total == 100);

    tui_flame_layout(&o, 0, 100, 0, &f);
    check_invariants(&fx, &f, 0, 100);
    CHECK(f.count == 7 && f.rows == 3);
    b = box_of(&f, a);
    CHECK(b && b->x == 0 && b->w == 50 && b->depth == 1); /* hottest first, from the left */
    b = box_of(&f, bb);
    CHECK(b && b->x == 50 && b->w == 30);
    b = box_of(&f, c);
    CHECK(b && b->x == 80 && b->w == 20);
    b = box_of(&f, a1);
    CHECK(b && b->x == 0 && b->w == 50 && b->depth == 2);
    b = box_of(&f, b2);
    CHECK(b && b->x == 50 && b->w == 20);
    b = box_of(&f, b1);
    CHECK(b && b->x == 70 && b->w == 10);

    /* the text of batch mode */
    {
        char line[256];
        CHECK(tui_flame_text_row(&f, &fx.tree, 1, fx_name, &fx, line, sizeof(line)) == 3);
        CHECK(strlen(line) == 100);
        CHECK(strncmp(line, "[A-----", 7) == 0 && line[49] == ']');
        CHECK(strncmp(line + 50, "[B---", 5) == 0 && strncmp(line + 80, "[C---", 5) == 0);
        CHECK(tui_flame_text_row(&f, &fx.tree, 2, fx_name, &fx, line, sizeof(line)) == 3);
        CHECK(strncmp(line + 50, "[B2--", 5) == 0 && strncmp(line + 70, "[B1--", 5) == 0);
        CHECK(line[79] == ']' && line[80] == '\0'); /* C has no children: nothing after it */
        CHECK(tui_flame_text_row(&f, &fx.tree, 3, fx_name, &fx, line, sizeof(line)) == 0);
        CHECK(line[0] == '\0');
        /* a small buffer: cut at a box, never overflowed */
        tui_flame_text_row(&f, &fx.tree, 1, fx_name, &fx, line, 60);
        CHECK(strlen(line) < 60 && strlen(line) == 50);
    }

    /* zoom into B: it spans the width, its children share it 20:10 */
    tui_flame_layout(&o, bb, 90, 0, &f);
    check_invariants(&fx, &f, bb, 90);
    CHECK(f.count == 3 && f.rows == 2);
    b = box_of(&f, b2);
    CHECK(b && b->x == 0 && b->w == 60 && b->depth == 1);
    b = box_of(&f, b1);
    CHECK(b && b->x == 60 && b->w == 30);
    CHECK(box_of(&f, a) == NULL && box_of(&f, 0) == NULL);

    /* max_rows */
    tui_flame_layout(&o, 0, 100, 2, &f);
    CHECK(f.rows == 2 && f.count == 4);

    /* narrow: at 4 columns B1 (10%) rounds to 0 columns and is left out; C (20%) keeps 1 */
    tui_flame_layout(&o, 0, 4, 0, &f);
    check_invariants(&fx, &f, 0, 4);
    CHECK(box_of(&f, b1) == NULL && box_of(&f, c) != NULL);
    tui_flame_layout(&o, 0, 0, 0, &f);
    CHECK(f.count == 0);

    /* moving */
    tui_flame_layout(&o, 0, 100, 0, &f);
    {
        int ia = tui_flame_box_of(&f, a), ib = tui_flame_box_of(&f, bb);
        int ic = tui_flame_box_of(&f, c), ib2 = tui_flame_box_of(&f, b2);
        int ia1 = tui_flame_box_of(&f, a1), ib1 = tui_flame_box_of(&f, b1);
        CHECK(tui_flame_move(&fx.tree, &f, 0, TUI_FLAME_DOWN) == ia); /* the hottest child */
        CHECK(tui_flame_move(&fx.tree, &f, ia, TUI_FLAME_RIGHT) == ib);
        CHECK(tui_flame_move(&fx.tree, &f, ib, TUI_FLAME_RIGHT) == ic);
        CHECK(tui_flame_move(&fx.tree, &f, ic, TUI_FLAME_RIGHT) == ic); /* the last one */
        CHECK(tui_flame_move(&fx.tree, &f, ic, TUI_FLAME_LEFT) == ib);
        CHECK(tui_flame_move(&fx.tree, &f, ib, TUI_FLAME_DOWN) == ib2);
        CHECK(tui_flame_move(&fx.tree, &f, ib2, TUI_FLAME_UP) == ib);
        CHECK(tui_flame_move(&fx.tree, &f, ia1, TUI_FLAME_RIGHT) == ib2); /* across parents */
        CHECK(tui_flame_move(&fx.tree, &f, ib1, TUI_FLAME_LEFT) == ib2);
        CHECK(tui_flame_move(&fx.tree, &f, ic, TUI_FLAME_DOWN) == ic); /* no children */
        CHECK(tui_flame_move(&fx.tree, &f, 0, TUI_FLAME_UP) == 0);
    }
    tui_flame_free(&f);
}

/* A match below a match is not counted twice; case is ignored. */
static void test_match(void)
{
    static struct fixture fx;
    struct tui_tree_order o = {&fx.tree, TUI_SORT_INCL, fx_name, &fx};
    int x, y;

    fx_init(&fx);
    x = fx_add(&fx, 0, "solve", 10);
    fx_add(&fx, x, "solve_inner", 30); /* inside a match: already counted */
    y = fx_add(&fx, 0, "other", 5);
    fx_add(&fx, y, "Solve_late", 15); /* a match elsewhere */
    fx_add(&fx, 0, "idle", 40);
    fx_sum(&fx);
    CHECK(tui_flame_match_samples(&o, "solve") == 55);
    CHECK(tui_flame_match_samples(&o, "inner") == 30);
    CHECK(tui_flame_match_samples(&o, "nothing") == 0);
    CHECK(tui_flame_match_samples(&o, "") == 0);
    CHECK(tui_flame_match_samples(&o, "all") == 0); /* the root is not a frame */
}

/* Random trees: the invariants at several widths and zoom roots. */
static void test_random(void)
{
    static struct fixture fx;
    struct tui_tree_order o = {&fx.tree, TUI_SORT_INCL, fx_name, &fx};
    struct tui_flame f = {0};
    unsigned seed = 12345;

    for (int round = 0; round < 40; round++) {
        char name[32];
        fx_init(&fx);
        for (int i = 1; i < 600; i++) {
            seed = seed * 1103515245u + 12345u;
            int parent = (int)((seed >> 8) % (unsigned)fx.tree.count);
            seed = seed * 1103515245u + 12345u;
            snprintf(name, sizeof(name), "f%d", i);
            /* skewed counts: a few big, many small */
            fx_add(&fx, parent, name,
                   ((seed >> 8) % 7 == 0) ? (seed >> 12) % 5000 : (seed >> 12) % 4);
        }
        fx_sum(&fx);
        for (int w = 1; w <= 241; w += 60) {
            int zoom = round % 3 == 0 ? 0 : (int)((unsigned)(round * 37) % (unsigned)fx.tree.count);
            tui_flame_layout(&o, zoom, w, 0, &f);
            if (fx.nodes[zoom].inclusive > 0)
                check_invariants(&fx, &f, zoom, w);
            /* the deepest row is rows - 1 */
            int deepest = 0;
            for (int i = 0; i < f.count; i++)
                deepest = f.boxes[i].depth > deepest ? f.boxes[i].depth : deepest;
            CHECK(f.rows == deepest + 1);
        }
    }
    tui_flame_free(&f);
}

/* tui_key_fn over a fixture: the name up to a '@' (what follows stands for a line). */
static uint64_t fx_key(const void *ctx, int func)
{
    const struct fixture *fx = ctx;
    uint64_t h = 1469598103934665603ull;

    for (const char *p = fx->names[func]; *p && *p != '@'; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h;
}

/* Merging a function's entries: main@1 and main@2 (lines of one function) become one main,
 * whose children f@1, f@2 (from both) become one f, and g stays apart. */
static void test_merge(void)
{
    static struct fixture fx;
    struct model_tree *t;
    int m1, m2, n_main = -1, n_f = -1, n_g = -1;

    fx_init(&fx);
    m1 = fx_add(&fx, 0, "main@1", 1);
    m2 = fx_add(&fx, 0, "main@2", 2);
    fx_add(&fx, m1, "f@10", 10);
    fx_add(&fx, m2, "f@11", 20);
    fx_add(&fx, m2, "g@5", 7);
    fx_add(&fx, 0, "other", 4);
    fx_sum(&fx);
    t = tui_flame_merge(&fx.tree, fx_key, &fx);
    CHECK(t->count == 5 && t->total == 44 && t->nodes[0].inclusive == 44);
    for (int i = 1; i < t->count; i++) {
        const char *nm = fx.names[t->nodes[i].func];
        if (strncmp(nm, "main@", 5) == 0)
            n_main = i;
        else if (strncmp(nm, "f@", 2) == 0)
            n_f = i;
        else if (strcmp(nm, "g@5") == 0)
            n_g = i;
    }
    CHECK(n_main > 0 && t->nodes[n_main].inclusive == 40 && t->nodes[n_main].self == 3 &&
          t->nodes[n_main].parent == 0 && t->nodes[n_main].depth == 1);
    CHECK(n_f > 0 && t->nodes[n_f].inclusive == 30 && t->nodes[n_f].parent == n_main &&
          t->nodes[n_f].depth == 2);
    CHECK(n_g > 0 && t->nodes[n_g].inclusive == 7 && t->nodes[n_g].parent == n_main);
    /* links: every node is reachable once from its parent's child list */
    for (int i = 1; i < t->count; i++) {
        int seen = 0;
        for (int c = t->nodes[t->nodes[i].parent].first_child; c >= 0; c = t->nodes[c].next_sibling)
            seen += c == i;
        CHECK(seen == 1);
    }
    /* path hashes: distinct, and the same in a second merge (zoom is kept by them) */
    {
        struct model_tree *u = tui_flame_merge(&fx.tree, fx_key, &fx);
        for (int i = 0; i < t->count; i++) {
            CHECK(u->nodes[i].path_hash == t->nodes[i].path_hash);
            for (int k = i + 1; k < t->count; k++)
                CHECK(t->nodes[i].path_hash != t->nodes[k].path_hash);
        }
        model_tree_free(u);
    }
    model_tree_free(t);
    t = tui_flame_merge(NULL, fx_key, &fx);
    CHECK(t->count == 0);
    model_tree_free(t);
}

static void test_kind(void)
{
    CHECK(tui_flame_kind("main", "/usr/bin/prog") == TUI_FLAME_NATIVE);
    CHECK(tui_flame_kind("train", model_python_module) == TUI_FLAME_PYTHON);
    CHECK(tui_flame_kind("[region] solve", "[region]") == TUI_FLAME_REGION);
    CHECK(tui_flame_kind("[blocked] futex", "[state]") == TUI_FLAME_OTHER);
    CHECK(tui_flame_kind("hipDeviceSynchronize", "/opt/rocm/lib/libamdhip64.so.6") ==
          TUI_FLAME_OTHER);
    CHECK(tui_flame_kind(NULL, NULL) == TUI_FLAME_OTHER); /* the root */
    /* a replay knows names only */
    CHECK(tui_flame_kind("Model.forward (train.py:42)", NULL) == TUI_FLAME_PYTHON);
    CHECK(tui_flame_kind("[region] io", NULL) == TUI_FLAME_REGION);
    CHECK(tui_flame_kind("[preempted]", NULL) == TUI_FLAME_OTHER);
    CHECK(tui_flame_kind("operator() (int)", NULL) == TUI_FLAME_NATIVE);
}

int main(void)
{
    test_basic();
    test_match();
    test_random();
    test_merge();
    test_kind();
    return check_summary();
}
