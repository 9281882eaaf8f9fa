/* Interned stacks and their counts: a trie of call paths shared by every thread (one node per
 * function called from a distinct path), one count record per (thread, path) with the samples
 * since start and in the sliding window, and the call trees and hot lists built from them.
 * Memory grows with distinct paths and (thread, path) pairs, not with run time or depth. */
#include <string.h>

#include "base/hashmap.h"
#include "model_internal.h"

#include "collector/protocol.h"

#define PATH_ROOT 0u /* the synthetic root of the trie */

/* Hash of the pair (a, b). */
static uint64_t pair_hash(uint32_t a, uint32_t b)
{
    return hashmap_mix((uint64_t)(a + 1ull) << 32 ^ b);
}

#define PATH_FUNC(word) ((word) & ~MODEL_PATH_BRANCH)
#define FUNC16_END      0x7fffu /* functions below it fit in a 16-bit word (the root's is it) */

/* Path p's word: function | MODEL_PATH_BRANCH. */
static inline uint32_t path_word(const struct model *m, size_t p)
{
    uint32_t w;

    if (m->paths)
        return m->paths[p];
    w = m->paths16[p];
    return (w & FUNC16_END) | (w & MODEL_PATH_BRANCH16 ? MODEL_PATH_BRANCH : 0);
}

/* Room for path p (the next one) whose function is func: the 16-bit words made 32-bit first
 * when func does not fit in them. */
static void paths_reserve(struct model *m, size_t p, uint32_t func)
{
    if (!m->paths && p != PATH_ROOT && func >= FUNC16_END) {
        uint32_t *wide = xmalloc(m->path_cap * sizeof(*wide));
        for (size_t i = 0; i < m->npaths; i++)
            wide[i] = path_word(m, i);
        free(m->paths16);
        m->paths16 = NULL;
        m->paths = wide;
    }
    if (m->paths)
        xgrow(&m->paths, &m->path_cap, p + 1, sizeof(*m->paths));
    else
        xgrow(&m->paths16, &m->path_cap, p + 1, sizeof(*m->paths16));
}

/* Set path p's word (its room reserved). */
static inline void path_set(struct model *m, size_t p, uint32_t word)
{
    if (m->paths)
        m->paths[p] = word;
    else
        m->paths16[p] =
            (uint16_t)(PATH_FUNC(word) | (word & MODEL_PATH_BRANCH ? MODEL_PATH_BRANCH16 : 0));
}

/* Hash of branch record id: its parent and its function. */
static uint64_t branch_hash_of(const struct model *m, uint32_t id)
{
    const struct model_path_branch *b = &m->branches[id];
    return pair_hash(b->parent, PATH_FUNC(path_word(m, b->path)));
}

static uint64_t stack_hash_of(const struct model *m, uint32_t id)
{
    return pair_hash(m->stacks[id].path, m->stacks[id].thread);
}

/* Double an id set (or make it 1024 slots) and place every id again by its hash. */
static void idset_grow(const struct model *m, struct model_idset *set,
                       uint64_t (*hash_of)(const struct model *, uint32_t))
{
    size_t cap = set->cap ? set->cap * 2 : 1024;
    uint32_t *slots = xcalloc(cap, sizeof(*slots));

    for (size_t i = 0; i < set->cap; i++) {
        if (!set->slots[i])
            continue;
        size_t j = hash_of(m, set->slots[i] - 1) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = set->slots[i];
    }
    free(set->slots);
    set->slots = slots;
    set->cap = cap;
}

/* The slot where the id with hash h that eq accepts is, or the empty slot where it would go
 * (the set has room for one more). */
static uint32_t *idset_slot(const struct model *m, struct model_idset *set, uint64_t h,
                            uint64_t (*hash_of)(const struct model *, uint32_t),
                            int (*eq)(const struct model *, uint32_t, uint32_t, uint32_t),
                            uint32_t a, uint32_t b)
{
    if ((set->count + 1) * 4 >= set->cap * 3)
        idset_grow(m, set, hash_of);
    for (size_t j = h & (set->cap - 1);; j = (j + 1) & (set->cap - 1))
        if (!set->slots[j] || eq(m, set->slots[j] - 1, a, b))
            return &set->slots[j];
}

static int branch_eq(const struct model *m, uint32_t id, uint32_t parent, uint32_t func)
{
    const struct model_path_branch *b = &m->branches[id];
    return b->parent == parent && PATH_FUNC(path_word(m, b->path)) == func;
}

static int stack_eq(const struct model *m, uint32_t id, uint32_t path, uint32_t thread)
{
    return m->stacks[id].path == path && m->stacks[id].thread == thread;
}

/* The trie's root, made on first use. */
static void paths_init(struct model *m)
{
    if (m->npaths)
        return;
    paths_reserve(m, PATH_ROOT, FUNC16_END);
    path_set(m, PATH_ROOT, FUNC16_END);
    m->npaths = 1;
}

/* The parent of path p (not the root): p - 1, or its branch record's (binary search). */
static uint32_t path_parent(const struct model *m, uint32_t p)
{
    size_t lo = 0, hi = m->nbranches;

    if (!(path_word(m, p) & MODEL_PATH_BRANCH))
        return p - 1;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (m->branches[mid].path <= p)
            lo = mid;
        else
            hi = mid;
    }
    return m->branches[lo].parent;
}

/* Parents of the paths in descending (or ascending) order, without a search: *k walks the
 * branch records along (start it at nbranches, or 0). */
static uint32_t path_parent_desc(const struct model *m, uint32_t p, size_t *k)
{
    if (!(path_word(m, p) & MODEL_PATH_BRANCH))
        return p - 1;
    while (m->branches[*k - 1].path != p)
        --*k;
    return m->branches[--*k].parent;
}

static uint32_t path_parent_asc(const struct model *m, uint32_t p, size_t *k)
{
    if (!(path_word(m, p) & MODEL_PATH_BRANCH))
        return p - 1;
    while (m->branches[*k].path != p)
        ++*k;
    return m->branches[(*k)++].parent;
}

/* The child of path parent that calls func, made if new. */
static uint32_t path_child(struct model *m, uint32_t parent, uint32_t func)
{
    uint32_t *slot, p = (uint32_t)m->npaths;

    if (parent + 1 < m->npaths && path_word(m, parent + 1) == func) /* made right after it */
        return parent + 1;
    slot = idset_slot(m, &m->branch_set, pair_hash(parent, func), branch_hash_of, branch_eq, parent,
                      func);
    if (*slot)
        return m->branches[*slot - 1].path;
    paths_reserve(m, p, func);
    m->npaths++;
    if (parent + 1 == p) { /* the newest path's child: its parent is implicit */
        path_set(m, p, func);
        return p;
    }
    path_set(m, p, func | MODEL_PATH_BRANCH);
    xgrow(&m->branches, &m->branch_cap, m->nbranches + 1, sizeof(*m->branches));
    m->branches[m->nbranches] = (struct model_path_branch){.path = p, .parent = parent};
    m->branch_set.count++;
    *slot = (uint32_t)++m->nbranches;
    return p;
}

uint32_t model_path_intern(struct model *m, const uint32_t *seq, uint32_t len)
{
    uint32_t p = PATH_ROOT;

    paths_init(m);
    for (uint32_t i = 0; i < len; i++)
        p = path_child(m, p, seq[i]);
    return p;
}

uint32_t model_last_path(const struct model *m)
{
    return m->last_path;
}

uint32_t model_path_count(const struct model *m)
{
    return (uint32_t)m->npaths;
}

uint32_t model_path_func(const struct model *m, uint32_t path)
{
    return path && path < m->npaths ? PATH_FUNC(path_word(m, path)) : UINT32_MAX;
}

uint32_t model_path_parent(const struct model *m, uint32_t path)
{
    return path && path < m->npaths ? path_parent(m, path) : PATH_ROOT;
}

/* Id of the count record of (thread, path), made on first sight. */
static uint32_t stack_intern(struct model *m, uint32_t thread, uint32_t path)
{
    uint32_t *slot = idset_slot(m, &m->stack_set, pair_hash(path, thread), stack_hash_of, stack_eq,
                                path, thread);

    if (*slot)
        return *slot - 1;
    xgrow(&m->stacks, &m->stack_cap, m->nstacks + 1, sizeof(*m->stacks));
    m->stacks[m->nstacks] = (struct model_stack){.thread = thread, .path = path};
    m->stack_set.count++;
    *slot = (uint32_t)++m->nstacks;
    return *slot - 1;
}

/* Subtract one bucket's samples from the window counts and empty it. */
static void expire_bucket(struct model *m, struct model_bucket *b)
{
    for (size_t i = 0; i < b->n; i++) {
        struct model_stack *s = &m->stacks[b->ids[i].id];
        uint64_t w = b->ids[i].weight;
        if (w > s->window_count)
            w = s->window_count; /* after a reset */
        s->window_count -= w;
        m->threads[s->thread].window_samples -= w;
    }
    b->n = 0;
    if (b->cap > 4096) { /* a busy second's list is not kept for a quiet one */
        free(b->ids);
        b->ids = NULL;
        b->cap = 0;
    }
}

/* Whether seq (root first) is a cut stack: MODEL_TRUNCATED_FRAME at its root, or below the
 * user regions open above it. */
static int seq_truncated(const struct model *m, const uint32_t *seq, uint32_t len)
{
    for (uint32_t i = 0; i < len && i <= ROCSYS_REGION_DEPTH_MAX; i++) {
        const char *name = m->funcs[seq[i]].name;
        if (name && name[0] == '[' && strcmp(name, MODEL_TRUNCATED_FRAME) == 0)
            return 1;
    }
    return 0;
}

uint32_t model_stack_count(struct model *m, uint32_t thread, const uint32_t *seq, uint32_t len,
                           uint32_t weight)
{
    uint32_t path = model_path_intern(m, seq, len);
    uint32_t id = stack_intern(m, thread, path);
    struct model_stack *s = &m->stacks[id];
    struct model_bucket *b = &m->buckets[m->bucket_now % MODEL_WINDOW_BUCKETS];

    if (b->sec != m->bucket_now) {
        expire_bucket(m, b); /* it held a second that has left the window */
        b->sec = m->bucket_now;
    }
    m->last_path = path;
    s->count += weight;
    s->window_count += weight;
    m->threads[thread].samples += weight;
    m->threads[thread].window_samples += weight;
    m->session.samples += weight;
    if (seq_truncated(m, seq, len))
        m->session.samples_truncated += weight;
    if (b->n && b->ids[b->n - 1].id == id) {
        b->ids[b->n - 1].weight += weight;
        return path;
    }
    xgrow(&b->ids, &b->cap, b->n + 1, sizeof(*b->ids));
    b->ids[b->n].id = id;
    b->ids[b->n].weight = weight;
    b->n++;
    return path;
}

void model_stacks_free(struct model *m)
{
    free(m->paths);
    free(m->paths16);
    free(m->branches);
    free(m->stacks);
    free(m->branch_set.slots);
    free(m->stack_set.slots);
    for (uint32_t i = 0; i < MODEL_WINDOW_BUCKETS; i++)
        free(m->buckets[i].ids);
}

int model_stack_at(const struct model *m, size_t i, struct model_stack_info *out)
{
    if (i >= m->nstacks)
        return -1;
    out->thread = m->stacks[i].thread;
    out->path = m->stacks[i].path;
    out->count = m->stacks[i].count;
    return 0;
}

size_t model_distinct_stacks(const struct model *m)
{
    return m->nstacks;
}

/* ---- sliding window ---- */

void model_set_window(struct model *m, uint32_t seconds)
{
    if (seconds < 1)
        seconds = 1;
    if (seconds > MODEL_WINDOW_BUCKETS - 1)
        seconds = MODEL_WINDOW_BUCKETS - 1;
    m->session.window_seconds = seconds;
}

void model_tick(struct model *m, uint64_t now_ns)
{
    uint64_t sec = now_ns / 1000000000ull;

    m->bucket_now = sec;
    /* the window is the current second and the window_seconds - 1 before it */
    for (uint32_t i = 0; i < MODEL_WINDOW_BUCKETS; i++) {
        struct model_bucket *b = &m->buckets[i];
        if (b->n && b->sec + m->session.window_seconds <= sec)
            expire_bucket(m, b);
    }
}

void model_reset_counts(struct model *m)
{
    for (size_t i = 0; i < m->nstacks; i++)
        m->stacks[i].count = m->stacks[i].window_count = 0;
    for (int i = 0; i < m->nthreads; i++) {
        m->threads[i].samples = m->threads[i].window_samples = 0;
        m->threads[i].py_samples = m->threads[i].gil_samples = 0;
    }
    for (uint32_t i = 0; i < MODEL_WINDOW_BUCKETS; i++)
        m->buckets[i].n = 0;
    m->session.samples = m->session.samples_truncated = 0;
    model_lines_reset(m);
}

/* ---- trees and hot lists ---- */

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
        incl[path_parent_desc(m, (uint32_t)p, &k)] += incl[p];
    if (gpu) { /* GPU time by launch path, inclusive */
        model_launch_gpu_by_path(m, f, gpu, n);
        for (size_t p = m->npaths, k = m->nbranches; p-- > 1;)
            gpu[path_parent_desc(m, (uint32_t)p, &k)] += gpu[p];
    }
    min_count = fit_min_count(t, f, dense_at_least, incl, m->npaths, incl[PATH_ROOT]);
    node_of = xmalloc(n * sizeof(*node_of));
    node_of[PATH_ROOT] = 0;
    for (size_t p = 1, k = 0; p < m->npaths; p++) { /* which paths become nodes */
        int parent = node_of[path_parent_asc(m, (uint32_t)p, &k)];
        node_of[p] = parent >= 0 && (incl[p] >= min_count || (gpu && gpu[p])) ? count++ : -1;
    }
    t->nodes = xcalloc((size_t)count, sizeof(*t->nodes));
    t->nodes[0] = root_node(incl[PATH_ROOT], gpu ? gpu[PATH_ROOT] : 0);
    t->count = 1;
    for (size_t p = 1, k = 0; p < m->npaths; p++) {
        int pn = node_of[path_parent_asc(m, (uint32_t)p, &k)];
        if (node_of[p] < 0) {
            if (pn >= 0 && incl[p]) { /* the top of a subtree left out */
                t->nodes[pn].hidden++;
                t->hidden++;
            }
            continue;
        }
        link_node(t, PATH_FUNC(path_word(m, p)), pn, node_of[p], incl[p], gpu ? gpu[p] : 0);
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

/* Compact build, in memory of the stacks and branch records rather than of the paths. The
 * trie's paths fall into runs: the root or a branch record's path, then the paths made right
 * after it, each the child of the one before. Along a run a path's inclusive count is the
 * run's total less the parts held by the paths before it in the run (a stack's count at its
 * path, a branch run's total at its parent path), so it never grows, and the build needs only
 * those parts, sorted by path: 8 bytes each (16 while sorted), and 8 bytes a run. */
#define NOT_KEPT    UINT32_MAX
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

/* The run path p is in: run 0 starts at the root, run r at branches[r - 1].path. */
static uint32_t run_of(const struct model *m, uint32_t p)
{
    size_t lo = 0, hi = m->nbranches; /* the branch records at or before p */

    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->branches[mid].path <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

/* The first path of run r, and the path after its last. */
static uint32_t run_start(const struct model *m, size_t r)
{
    return r ? m->branches[r - 1].path : PATH_ROOT;
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

/* The parts of every run and the runs' totals: the stacks' counts, then each run's total
 * added to its parent's run (a branch's parent path comes before it: runs in descending
 * order see every run branching from them first). */
static void runs_gather(struct tree_runs *tr)
{
    const struct model *m = tr->m;

    tr->nruns = m->nbranches + 1;
    tr->total = xcalloc(tr->nruns, sizeof(*tr->total));
    tr->parts = xmalloc((m->nstacks + m->nbranches + 1) * sizeof(*tr->parts));
    for (size_t i = 0; i < m->nstacks; i++) {
        uint32_t c = (uint32_t)filtered_count(&m->stacks[i], tr->f, tr->keep);
        if (!c)
            continue;
        tr->total[run_of(m, m->stacks[i].path)] += c;
        tr->parts[tr->nparts++] = (struct tree_part){.path = m->stacks[i].path, .ref = (uint32_t)i};
    }
    for (size_t r = tr->nruns; r-- > 1;) {
        uint32_t parent = m->branches[r - 1].parent;
        if (!tr->total[r])
            continue;
        tr->total[run_of(m, parent)] += tr->total[r];
        tr->parts[tr->nparts++] =
            (struct tree_part){.path = parent, .ref = PART_BRANCH | (uint32_t)r};
    }
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
            if (p != PATH_ROOT && (pn == NOT_KEPT || incl < min_count)) {
                if (pn != NOT_KEPT && incl) { /* the top of a subtree left out */
                    t->nodes[pn].hidden++;
                    t->hidden++;
                }
                break;
            }
            if (p != PATH_ROOT) {
                nd = (uint32_t)t->count;
                link_node(t, PATH_FUNC(path_word(m, p)), (int)pn, (int)nd, incl, 0);
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

static struct model_tree *tree_build_compact(struct model *m, const struct model_filter *f,
                                             const uint8_t *keep)
{
    struct model_tree *t = xcalloc(1, sizeof(*t));
    struct tree_runs tr = {.m = m, .f = f, .keep = keep};
    uint64_t min_count;
    size_t count;

    runs_gather(&tr);
    parts_sort(&tr);
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

/* 1: the compact build wherever it can serve (no GPU time, fewer than 2^32 samples); 0: always
 * the dense one (tests compare them). */
int model_tree_compact = 1;

/* The trie's paths with samples under f as a tree; a path below f->min_ppm of the total is left
 * out with everything under it (counted in its parent's hidden). */
struct model_tree *model_tree_build(struct model *m, const struct model_filter *f)
{
    uint8_t *keep = rank_mask(m, f);
    int compact = model_tree_compact && (!f->with_gpu || !model_launch_gpu_any(m)) &&
                  m->session.samples < NOT_KEPT;
    struct model_tree *t = compact ? tree_build_compact(m, f, keep) : tree_build_dense(m, f, keep);

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
        if (c == 0 || s->path == PATH_ROOT)
            continue;
        h->total += c;
        self[PATH_FUNC(path_word(m, s->path))] += c;
        for (uint32_t p = s->path; p != PATH_ROOT; p = path_parent(m, p)) {
            uint32_t fn = PATH_FUNC(path_word(m, p));
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
