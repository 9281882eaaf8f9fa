/* Call trees and hot lists built from the interned stacks (stacks.c): the trie's paths with
 * their inclusive counts under a filter, as nodes. */
#include <string.h>

#include "base/hashmap.h"
#include "model_internal.h"

/* Which threads f keeps by their process's rank (NULL: all of them); free it. */
static uint8_t *rank_mask(const struct model *m, const struct model_filter *f)
{
    uint8_t *keep;

    if (!f->only_rank)
        return NULL;
    keep = xcalloc((size_t)m->nthreads + 1, 1);
    for (int i = 0; i < m->nthreads; i++) {
        const struct model_process *p = model_process_find(m, m->threads[i].pid);
        keep[i] = p && p->rank == f->only_rank - 1;
    }
    return keep;
}

/* Count of stack s under filter f and rank mask keep (0 when it does not match). */
static uint64_t filtered_count(const struct model_stack *s, const struct model_filter *f,
                               const uint8_t *keep)
{
    if (f->thread >= 0 && s->thread != (uint32_t)f->thread)
        return 0;
    if (keep && !keep[s->thread])
        return 0;
    return f->window ? s->window_count : s->count;
}

/* The root node of a tree whose root path has inclusive count incl and GPU time gpu_ns. */
static struct model_node root_node(uint64_t incl, uint64_t gpu_ns)
{
    return (struct model_node){.func = -1,
                               .parent = -1,
                               .first_child = -1,
                               .next_sibling = -1,
                               .depth = 0,
                               .inclusive = incl,
                               .path_hash = 1,
                               .gpu_ns = gpu_ns};
}

/* Link node nd (path p, inclusive incl) as the newest child of node pn. */
static void link_node(struct model_tree *t, uint32_t func, int pn, int nd, uint64_t incl,
                      uint64_t gpu_ns)
{
    struct model_node *parent = &t->nodes[pn];
    struct model_node *c = &t->nodes[nd];

    c->func = (int)func;
    c->parent = pn;
    c->first_child = -1;
    c->next_sibling = parent->first_child;
    c->depth = parent->depth + 1;
    c->inclusive = incl;
    c->gpu_ns = gpu_ns;
    c->path_hash = hashmap_mix(parent->path_hash * 0x100000001b3ull ^ (func + 1));
    parent->first_child = nd;
    t->count++;
}

/* The smallest inclusive count a path needs to become a node: at least 1 sample, and at least
 * f->min_ppm of total. */
static uint64_t min_count_of(const struct model_filter *f, uint64_t total)
{
    uint64_t c = f->min_ppm ? (total * f->min_ppm + 999999) / 1000000 : 1;
    return c > 1 ? c : 1;
}

/* The paths counted in incl, n of them, with at least min_count (ctx: the array). */
static size_t dense_at_least(const void *ctx, size_t n, uint64_t min_count)
{
    const uint64_t *incl = ctx;
    size_t k = 0;

    for (size_t p = 1; p < n; p++)
        k += incl[p] >= min_count;
    return k;
}

/* How many paths (the root left out) have at least min_count samples: at_least(ctx, n, c). */
typedef size_t (*paths_at_least_fn)(const void *ctx, size_t n, uint64_t min_count);

/* min_count raised (doubled) until at most f->max_nodes paths have it; the tree's min_ppm set
 * from it. A path's parent has at least its count, so those paths are exactly the nodes. */
static uint64_t fit_min_count(struct model_tree *t, const struct model_filter *f,
                              paths_at_least_fn at_least, const void *ctx, size_t n, uint64_t total)
{
    uint64_t c = min_count_of(f, total);

    if (f->max_nodes)
        while (at_least(ctx, n, c) + 1 > f->max_nodes && c < total)
            c *= 2;
    t->min_ppm = f->min_ppm;
    if (c > 1 && total && c * 1000000 / total > f->min_ppm) /* raised to fit */
        t->min_ppm = (uint32_t)(c * 1000000 / total);
    return c;
}

/* Dense build: one array entry per path of the trie. A path's parent always has a smaller id,
 * so one backward pass sums the inclusive counts and one forward pass links the nodes. 12
 * bytes per path of the trie while it is built (20 with GPU time). */
static struct model_tree *tree_build_dense(struct model *m, const struct model_filter *f,
                                           const uint8_t *keep)
{
    struct model_tree *t = xcalloc(1, sizeof(*t));
    size_t n = m->npaths ? m->npaths : 1;
    uint64_t *incl = xcalloc(n, sizeof(*incl));
    uint64_t *gpu = f->with_gpu ? xcalloc(n, sizeof(*gpu)) : NULL;
    int *node_of, count = 1;
    uint64_t min_count;

    for (size_t i = 0; i < m->nstacks; i++)
        incl[m->stacks[i].path] += filtered_count(&m->stacks[i], f, keep);
    for (size_t p = m->npaths, k = m->nbranches; p-- > 1;)
        incl[model_path_parent_desc(m, (uint32_t)p, &k)] += incl[p];
    if (gpu) { /* GPU time by launch path, inclusive */
        model_launch_gpu_by_path(m, f, gpu, n);
        for (size_t p = m->npaths, k = m->nbranches; p-- > 1;)
            gpu[model_path_parent_desc(m, (uint32_t)p, &k)] += gpu[p];
    }
    min_count = fit_min_count(t, f, dense_at_least, incl, m->npaths, incl[MODEL_PATH_ROOT]);
    node_of = xmalloc(n * sizeof(*node_of));
    node_of[MODEL_PATH_ROOT] = 0;
    for (size_t p = 1, k = 0; p < m->npaths; p++) { /* which paths become nodes */
        int parent = node_of[model_path_parent_asc(m, (uint32_t)p, &k)];
        node_of[p] = parent >= 0 && (incl[p] >= min_count || (gpu && gpu[p])) ? count++ : -1;
    }
    t->nodes = xcalloc((size_t)count, sizeof(*t->nodes));
    t->nodes[0] = root_node(incl[MODEL_PATH_ROOT], gpu ? gpu[MODEL_PATH_ROOT] : 0);
    t->count = 1;
    for (size_t p = 1, k = 0; p < m->npaths; p++) {
        int pn = node_of[model_path_parent_asc(m, (uint32_t)p, &k)];
        if (node_of[p] < 0) {
            if (pn >= 0 && incl[p]) { /* the top of a subtree left out */
                t->nodes[pn].hidden++;
                t->hidden++;
            }
            continue;
        }
        link_node(t, MODEL_PATH_FUNC(model_path_word(m, p)), pn, node_of[p], incl[p],
                  gpu ? gpu[p] : 0);
    }
    for (size_t i = 0; i < m->nstacks; i++) {
        int nd = node_of[m->stacks[i].path];
        if (nd > 0)
            t->nodes[nd].self += filtered_count(&m->stacks[i], f, keep);
    }
    free(gpu);
    free(node_of);
    free(incl);
    return t;
}

#define NOT_KEPT UINT32_MAX /* compact builds: a path that is no node */

/* The paths counted in the 32-bit words of ctx, n of them, with at least min_count. */
static size_t words_at_least(const void *ctx, size_t n, uint64_t min_count)
{
    const uint32_t *word = ctx;
    size_t k = 0;

    for (size_t p = 1; p < n; p++)
        k += word[p] >= min_count;
    return k;
}

/* Per-path compact build, the dense build in 4 bytes a path: one 32-bit word per path holds its
 * inclusive count (backward pass; no subtree has more samples than the total, below 2^32),
 * then, once the forward pass has read it, the path's node (or NOT_KEPT): a path's parent
 * comes before it, so its word already names the parent's node. */
static struct model_tree *tree_build_paths(struct model *m, const struct model_filter *f,
                                           const uint8_t *keep)
{
    struct model_tree *t = xcalloc(1, sizeof(*t));
    size_t n = m->npaths ? m->npaths : 1;
    uint32_t *word = xcalloc(n, sizeof(*word));
    uint32_t count = 1;
    uint64_t min_count;

    for (size_t i = 0; i < m->nstacks; i++)
        word[m->stacks[i].path] += (uint32_t)filtered_count(&m->stacks[i], f, keep);
    for (size_t p = m->npaths, k = m->nbranches; p-- > 1;)
        word[model_path_parent_desc(m, (uint32_t)p, &k)] += word[p];
    min_count = fit_min_count(t, f, words_at_least, word, m->npaths, word[MODEL_PATH_ROOT]);
    count += (uint32_t)words_at_least(word, m->npaths, min_count); /* nodes to make */
    t->nodes = xcalloc(count, sizeof(*t->nodes));
    t->nodes[0] = root_node(word[MODEL_PATH_ROOT], 0);
    t->count = 1;
    word[MODEL_PATH_ROOT] = 0;
    for (size_t p = 1, k = 0; p < m->npaths; p++) {
        uint32_t incl = word[p], pn = word[model_path_parent_asc(m, (uint32_t)p, &k)];
        if (pn == NOT_KEPT || incl < min_count) {
            if (pn != NOT_KEPT && incl) { /* the top of a subtree left out */
                t->nodes[pn].hidden++;
                t->hidden++;
            }
            word[p] = NOT_KEPT;
            continue;
        }
        word[p] = (uint32_t)t->count;
        link_node(t, MODEL_PATH_FUNC(model_path_word(m, p)), (int)pn, t->count, incl, 0);
    }
    for (size_t i = 0; i < m->nstacks; i++) {
        uint32_t nd = word[m->stacks[i].path];
        if (nd != NOT_KEPT && nd > 0)
            t->nodes[nd].self += filtered_count(&m->stacks[i], f, keep);
    }
    free(word);
    return t;
}

/* Compact build by runs, in memory of the stacks and branch records rather than of the paths. The
 * trie's paths fall into runs: the root or a branch record's path, then the paths made right
 * after it, each the child of the one before. Along a run a path's inclusive count is the
 * run's total less the parts held by the paths before it in the run (a stack's count at its
 * path, a branch run's total at its parent path), so it never grows, and the build needs only
 * those parts, sorted by path: 8 bytes each (16 while sorted), and 8 bytes a run. */
#define PART_BRANCH 0x80000000u /* in a part's ref: the run branching from its path */

struct tree_part {
    uint32_t path; /* the path whose inclusive count has the part's samples and ends them */
    uint32_t ref;  /* a stack's index, or PART_BRANCH | the run whose parent is path */
};

struct tree_runs {
    const struct model *m;
    const struct model_filter *f;
    const uint8_t *keep;
    uint32_t *total; /* by run: its samples (its first path's inclusive count) */
    struct tree_part *parts;
    size_t nparts, nruns;
};

/* The first path of run r, and the path after its last. */
static uint32_t run_start(const struct model *m, size_t r)
{
    return r ? m->branches[r - 1].path : MODEL_PATH_ROOT;
}

static uint32_t run_end(const struct model *m, size_t r)
{
    return r < m->nbranches ? m->branches[r].path : (uint32_t)m->npaths;
}

/* The samples part pt holds. */
static uint32_t part_amount(const struct tree_runs *tr, const struct tree_part *pt)
{
    if (pt->ref & PART_BRANCH)
        return tr->total[pt->ref & ~PART_BRANCH];
    return (uint32_t)filtered_count(&tr->m->stacks[pt->ref], tr->f, tr->keep);
}

/* The parts sorted by path: a radix sort, 16 bits a pass. */
static void parts_sort(struct tree_runs *tr)
{
    struct tree_part *tmp = xmalloc((tr->nparts + 1) * sizeof(*tmp));
    uint32_t *at = xmalloc(65536 * sizeof(*at));

    for (unsigned shift = 0; shift < 32 && (shift == 0 || tr->m->npaths >> shift); shift += 16) {
        uint32_t sum = 0;
        memset(at, 0, 65536 * sizeof(*at));
        for (size_t i = 0; i < tr->nparts; i++)
            at[tr->parts[i].path >> shift & 0xffff]++;
        for (size_t d = 0; d < 65536; d++) { /* counts to first places */
            uint32_t c = at[d];
            at[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < tr->nparts; i++)
            tmp[at[tr->parts[i].path >> shift & 0xffff]++] = tr->parts[i];
        struct tree_part *sorted = tmp;
        tmp = tr->parts;
        tr->parts = sorted;
    }
    free(at);
    free(tmp);
}

/* The runs' totals from the parts sorted by path, runs in descending order: a run's parts
 * are the last ones not yet taken, and the runs branching from it come after it (their
 * totals are known). */
static void runs_total(struct tree_runs *tr)
{
    size_t i = tr->nparts;

    for (size_t r = tr->nruns; r-- > 0;) {
        uint32_t start = run_start(tr->m, r), sum = 0;
        for (; i > 0 && tr->parts[i - 1].path >= start; i--)
            sum += part_amount(tr, &tr->parts[i - 1]);
        tr->total[r] = sum;
    }
}

/* The parts (a stack's count at its path, and every branch record's run at its parent path),
 * sorted, and the runs' totals. */
static void runs_gather(struct tree_runs *tr)
{
    const struct model *m = tr->m;

    tr->nruns = m->nbranches + 1;
    tr->total = xcalloc(tr->nruns, sizeof(*tr->total));
    tr->parts = xmalloc((m->nstacks + m->nbranches + 1) * sizeof(*tr->parts));
    for (size_t i = 0; i < m->nstacks; i++)
        if (filtered_count(&m->stacks[i], tr->f, tr->keep))
            tr->parts[tr->nparts++] =
                (struct tree_part){.path = m->stacks[i].path, .ref = (uint32_t)i};
    for (size_t r = 1; r < tr->nruns; r++)
        tr->parts[tr->nparts++] =
            (struct tree_part){.path = m->branches[r - 1].parent, .ref = PART_BRANCH | (uint32_t)r};
    parts_sort(tr);
    runs_total(tr);
}

/* The paths (the root left out) with at least min_count samples (ctx: the runs). */
static size_t runs_at_least(const void *ctx, size_t n, uint64_t min_count)
{
    const struct tree_runs *tr = ctx;
    size_t k = 0, i = 0;

    (void)n;
    for (size_t r = 0; r < tr->nruns; r++) {
        uint32_t p = run_start(tr->m, r), end = run_end(tr->m, r);
        uint64_t incl = tr->total[r];
        for (; i < tr->nparts && tr->parts[i].path < end; i++) {
            if (incl >= min_count) /* p up to the part's path have incl */
                k += tr->parts[i].path + 1 - p;
            p = tr->parts[i].path + 1;
            incl -= part_amount(tr, &tr->parts[i]);
        }
        if (incl >= min_count) /* (none left: every sample of the run is in a part) */
            k += end - p;
    }
    return k - (tr->total[0] >= min_count);
}

/* Link the nodes path after path: a path is kept when its parent is and it has min_count
 * samples, and a run's paths after the first one left out are left out too. */
static void runs_link(struct model_tree *t, const struct tree_runs *tr, uint64_t min_count)
{
    const struct model *m = tr->m;
    uint32_t *parent_node = xmalloc(tr->nruns * sizeof(*parent_node)); /* by run */
    size_t i = 0;

    for (size_t r = 0; r < tr->nruns; r++)
        parent_node[r] = NOT_KEPT;
    for (size_t r = 0; r < tr->nruns; r++) {
        uint32_t pn = parent_node[r], end = run_end(m, r);
        uint64_t incl = tr->total[r];
        for (uint32_t p = run_start(m, r); p < end; p++) {
            uint32_t nd = 0; /* the root's */
            if (p != MODEL_PATH_ROOT && (pn == NOT_KEPT || incl < min_count)) {
                if (pn != NOT_KEPT && incl) { /* the top of a subtree left out */
                    t->nodes[pn].hidden++;
                    t->hidden++;
                }
                break;
            }
            if (p != MODEL_PATH_ROOT) {
                nd = (uint32_t)t->count;
                link_node(t, MODEL_PATH_FUNC(model_path_word(m, p)), (int)pn, (int)nd, incl, 0);
            }
            for (; i < tr->nparts && tr->parts[i].path == p; i++) {
                const struct tree_part *pt = &tr->parts[i];
                uint32_t a = part_amount(tr, pt);
                if (pt->ref & PART_BRANCH)
                    parent_node[pt->ref & ~PART_BRANCH] = nd;
                else if (nd > 0)
                    t->nodes[nd].self += a;
                incl -= a;
            }
            pn = nd;
        }
        while (i < tr->nparts && tr->parts[i].path < end) /* the run's paths left out */
            i++;
    }
    free(parent_node);
}

static struct model_tree *tree_build_runs(struct model *m, const struct model_filter *f,
                                          const uint8_t *keep)
{
    struct model_tree *t = xcalloc(1, sizeof(*t));
    struct tree_runs tr = {.m = m, .f = f, .keep = keep};
    uint64_t min_count;
    size_t count;

    runs_gather(&tr);
    min_count = fit_min_count(t, f, runs_at_least, &tr, 0, tr.total[0]);
    count = 1 + runs_at_least(&tr, 0, min_count); /* nodes to make */
    t->nodes = xcalloc(count, sizeof(*t->nodes));
    t->nodes[0] = root_node(tr.total[0], 0);
    t->count = 1;
    runs_link(t, &tr, min_count);
    free(tr.parts);
    free(tr.total);
    return t;
}

/* 1: a compact build wherever one can serve (no GPU time, fewer than 2^32 samples), the one
 * that takes less memory; 2: the per-path one; 3: the one by runs; 0: always the dense one
 * (tests compare them). */
int model_tree_compact = 1;

/* Whether the build by runs takes less memory than the per-path one (4 bytes a path): 8 bytes
 * a part twice while sorted, 8 bytes a run. Deep stacks that share little have long runs. */
static int runs_smaller(const struct model *m)
{
    return 16 * (m->nstacks + m->nbranches) + 8 * m->nbranches < 4 * m->npaths;
}

/* The trie's paths with samples under f as a tree; a path below f->min_ppm of the total is left
 * out with everything under it (counted in its parent's hidden). */
struct model_tree *model_tree_build(struct model *m, const struct model_filter *f)
{
    uint8_t *keep = rank_mask(m, f);
    int compact = model_tree_compact && (!f->with_gpu || !model_launch_gpu_any(m)) &&
                  m->session.samples < NOT_KEPT;
    int runs = model_tree_compact == 3 || (model_tree_compact == 1 && runs_smaller(m));
    struct model_tree *t = !compact ? tree_build_dense(m, f, keep)
                           : runs   ? tree_build_runs(m, f, keep)
                                    : tree_build_paths(m, f, keep);

    t->total = t->nodes[0].inclusive;
    t->gpu_ns = t->nodes[0].gpu_ns;
    free(keep);
    return t;
}

void model_tree_free(struct model_tree *t)
{
    if (!t)
        return;
    free(t->nodes);
    free(t);
}

struct model_hot_list *model_hot_build(struct model *m, const struct model_filter *f)
{
    struct model_hot_list *h = xcalloc(1, sizeof(*h));
    uint64_t *self = xcalloc((size_t)m->nfuncs + 1, sizeof(*self));
    uint64_t *incl = xcalloc((size_t)m->nfuncs + 1, sizeof(*incl));
    size_t *stamp = xcalloc((size_t)m->nfuncs + 1, sizeof(*stamp));
    uint8_t *keep = rank_mask(m, f);

    for (size_t i = 0; i < m->nstacks; i++) {
        const struct model_stack *s = &m->stacks[i];
        uint64_t c = filtered_count(s, f, keep);
        if (c == 0 || s->path == MODEL_PATH_ROOT)
            continue;
        h->total += c;
        self[MODEL_PATH_FUNC(model_path_word(m, s->path))] += c;
        for (uint32_t p = s->path; p != MODEL_PATH_ROOT; p = model_path_parent(m, p)) {
            uint32_t fn = MODEL_PATH_FUNC(model_path_word(m, p));
            if (stamp[fn] != i + 1) { /* count recursion once */
                stamp[fn] = i + 1;
                incl[fn] += c;
            }
        }
    }
    h->items = xcalloc((size_t)m->nfuncs + 1, sizeof(*h->items));
    for (int fn = 0; fn < m->nfuncs; fn++) {
        if (incl[fn] == 0)
            continue;
        h->items[h->count++] =
            (struct model_hot){.func = fn, .self = self[fn], .inclusive = incl[fn]};
    }
    free(keep);
    free(self);
    free(incl);
    free(stamp);
    return h;
}

void model_hot_free(struct model_hot_list *h)
{
    if (!h)
        return;
    free(h->items);
    free(h);
}
