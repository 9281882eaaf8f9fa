/* Unit test of the call tree's builds (model/calltree.c): the compact builds (4 bytes a call
 * path, or from the runs of call paths in memory of the stacks and branches) give the same
 * tree as the 12-byte build (node order, links, counts, hidden subtrees, path hashes) on random
 * deep stacks, for every filter a view uses (all threads or one, since start or the window,
 * min_ppm 0 to 5000), and a node budget (max_nodes) that raises the share a path needs; and on
 * a model without samples, and one whose trie's words grow from 16 to 32 bits. */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/model.h"

#include "check.h"

/* Whether trees a and b are the same, node for node; says what differs. */
static int same_tree(const struct model_tree *a, const struct model_tree *b, const char *what)
{
    if (a->count != b->count || a->total != b->total || a->hidden != b->hidden) {
        fprintf(stderr, "%s: count %d/%d total %llu/%llu hidden %d/%d\n", what, a->count, b->count,
                (unsigned long long)a->total, (unsigned long long)b->total, a->hidden, b->hidden);
        return 0;
    }
    for (int i = 0; i < a->count; i++) {
        const struct model_node *x = &a->nodes[i], *y = &b->nodes[i];
        if (x->func != y->func || x->parent != y->parent || x->first_child != y->first_child ||
            x->next_sibling != y->next_sibling || x->depth != y->depth || x->hidden != y->hidden ||
            x->inclusive != y->inclusive || x->self != y->self || x->path_hash != y->path_hash) {
            fprintf(stderr, "%s: node %d differs\n", what, i);
            return 0;
        }
    }
    return 1;
}

/* Whether the compact builds (per path: model_tree_compact 2, by runs: 3, and the default
 * choice: 1) give the dense build's tree under f; says which differs. Returns the dense tree. */
static struct model_tree *check_builds(struct model *m, const struct model_filter *f,
                                       const char *what)
{
    model_tree_compact = 0;
    struct model_tree *dense = model_tree_build(m, f);
    for (int mode = 1; mode <= 3; mode++) {
        char where[160];
        snprintf(where, sizeof(where), "%s, compact build %d", what, mode);
        model_tree_compact = mode;
        struct model_tree *compact = model_tree_build(m, f);
        CHECK_MSG(same_tree(dense, compact, where), "%s: differs from the dense build", where);
        model_tree_free(compact);
    }
    model_tree_compact = 1;
    return dense;
}

/* The trie keeps a path in 16 bits while every function's index fits in 15: past 32,767
 * functions its words become 32-bit, and the paths made before keep their ids, functions and
 * parents; the two builds still agree. */
static void check_wide_paths(void)
{
    enum { NARROW = 64, FUNCS = 33000 };
    struct model *m = model_new();
    uint32_t path[NARROW], func[NARROW], parent[NARROW];
    char name[FUNCS][16];
    const char *stack[3] = {"main", "mid", NULL};

    for (int i = 0; i < FUNCS; i++) {
        snprintf(name[i], sizeof(name[i]), "leaf%d", i);
        stack[2] = name[i];
        model_sample_symbolized(m, 1, 1, 1000000000ull, stack, 3, 1 + (uint32_t)(i % 7));
        if (i < NARROW) {
            path[i] = model_last_path(m);
            func[i] = model_path_func(m, path[i]);
            parent[i] = model_path_parent(m, path[i]);
        }
    }
    for (int i = 0; i < NARROW; i++) {
        CHECK_MSG(model_path_func(m, path[i]) == func[i] &&
                      model_path_parent(m, path[i]) == parent[i],
                  "path %u (leaf%d) changed when the trie's words grew to 32 bits", path[i], i);
        stack[2] = name[i];
        model_sample_symbolized(m, 1, 1, 1000000000ull, stack, 3, 1);
        CHECK_MSG(model_last_path(m) == path[i], "leaf%d: path %u, was %u", i, model_last_path(m),
                  path[i]);
    }
    stack[2] = name[FUNCS - 1];
    model_sample_symbolized(m, 1, 1, 1000000000ull, stack, 3, 1);
    CHECK_MSG(model_path_func(m, model_last_path(m)) > 0x7fff,
              "the last leaf's function %u does not need 32 bits",
              model_path_func(m, model_last_path(m)));
    for (uint32_t ppm = 0; ppm <= 100; ppm += 100) {
        struct model_filter f = {.thread = -1, .min_ppm = ppm};
        struct model_tree *dense = check_builds(m, &f, "32-bit paths");
        CHECK_MSG(ppm || dense->count == FUNCS + 3, "32-bit paths: %d nodes, not %d", dense->count,
                  FUNCS + 3);
        model_tree_free(dense);
    }
    model_free(m);
}

int main(void)
{
    static const char *names[] = {"main", "f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"};
    struct model *m = model_new();
    const uint32_t ppms[] = {0, 10, 100, 5000};
    uint64_t seed = 42;

    for (int compact = 0; compact < 4; compact++) { /* no samples yet: the root alone */
        struct model_filter f = {.thread = -1};
        model_tree_compact = compact;
        struct model_tree *t = model_tree_build(m, &f);
        CHECK_MSG(t->count == 1 && t->total == 0 && t->hidden == 0,
                  "empty model, compact %d: %d nodes, %llu samples", compact, t->count,
                  (unsigned long long)t->total);
        model_tree_free(t);
    }

    /* 3 threads, 4000 samples of random recursion through 8 functions, 1 to 30 deep */
    for (int i = 0; i < 4000; i++) {
        const char *stack[32];
        uint32_t n = 0;
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t depth = 1 + (uint32_t)(seed >> 33) % 30;
        stack[n++] = names[0];
        for (uint32_t d = 0; d < depth; d++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            /* shallow levels from few functions: shared prefixes, deep ones unique */
            stack[n++] = names[1 + (seed >> 33) % (d < 3 ? 2 : 8)];
        }
        model_sample_symbolized(m, 1, 1 + (uint32_t)(i % 3), 1000000000ull, stack, n,
                                1 + (uint32_t)(i % 5));
    }
    CHECK(model_path_count(m) > 10000);
    for (int thread = -1; thread < 3; thread++)
        for (int window = 0; window < 2; window++)
            for (size_t k = 0; k < sizeof(ppms) / sizeof(ppms[0]); k++) {
                struct model_filter f = {.thread = thread, .window = window, .min_ppm = ppms[k]};
                char what[96];
                snprintf(what, sizeof(what), "thread %d window %d min_ppm %u", thread, window,
                         ppms[k]);
                struct model_tree *dense = check_builds(m, &f, what);
                CHECK_MSG(dense->count > 1 && (ppms[k] < 5000 || dense->hidden > 0),
                          "%s: %d nodes, %d hidden", what, dense->count, dense->hidden);
                model_tree_free(dense);
            }
    /* a node budget raises the share a path needs until the tree fits; the builds agree */
    for (int compact = 0; compact < 4; compact++) {
        struct model_filter f = {.thread = -1, .min_ppm = 10, .max_nodes = 500};
        model_tree_compact = compact;
        struct model_tree *t = model_tree_build(m, &f);
        uint64_t least = UINT64_MAX;
        for (int i = 1; i < t->count; i++)
            least = t->nodes[i].inclusive < least ? t->nodes[i].inclusive : least;
        CHECK_MSG(t->count <= 500 && t->count > 500 / 4 && t->min_ppm > 10 && t->hidden > 0,
                  "compact %d: %d nodes, min_ppm %u, hidden %d", compact, t->count, t->min_ppm,
                  t->hidden);
        CHECK_MSG(least * 1000000 / t->total >= t->min_ppm, "compact %d: a node of %llu samples",
                  compact, (unsigned long long)least);
        model_tree_free(t);
    }
    model_free(m);
    check_wide_paths();
    return check_summary();
}
