/* Interned stacks and their counts: a trie of call paths shared by every thread (one node per
 * function called from a distinct path, 2 or 4 bytes), one count record per (thread, path)
 * with the samples since start and in the sliding window (calltree.c builds the call trees and
 * hot lists from them). Memory grows with distinct paths and (thread, path) pairs, not with
 * run time or depth. */
#include <string.h>

#include "base/hashmap.h"
#include "model_internal.h"

#include "collector/protocol.h"

/* Hash of the pair (a, b). */
static uint64_t pair_hash(uint32_t a, uint32_t b)
{
    return hashmap_mix((uint64_t)(a + 1ull) << 32 ^ b);
}

/* Room for path p (the next one) whose function is func: the 16-bit words made 32-bit first
 * when func does not fit in them. */
static void paths_reserve(struct model *m, size_t p, uint32_t func)
{
    if (!m->paths && p != MODEL_PATH_ROOT && func >= MODEL_FUNC16_END) {
        uint32_t *wide = xmalloc(m->path_cap * sizeof(*wide));
        for (size_t i = 0; i < m->npaths; i++)
            wide[i] = model_path_word(m, i);
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
        m->paths16[p] = (uint16_t)(MODEL_PATH_FUNC(word) |
                                   (word & MODEL_PATH_BRANCH ? MODEL_PATH_BRANCH16 : 0));
}

/* Hash of branch record id: its parent and its function. */
static uint64_t branch_hash_of(const struct model *m, uint32_t id)
{
    const struct model_path_branch *b = &m->branches[id];
    return pair_hash(b->parent, MODEL_PATH_FUNC(model_path_word(m, b->path)));
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
    return b->parent == parent && MODEL_PATH_FUNC(model_path_word(m, b->path)) == func;
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
    paths_reserve(m, MODEL_PATH_ROOT, MODEL_FUNC16_END);
    path_set(m, MODEL_PATH_ROOT, MODEL_FUNC16_END);
    m->npaths = 1;
}

/* The parent of path p (not the root): p - 1, or its branch record's (binary search). */
static uint32_t path_parent(const struct model *m, uint32_t p)
{
    size_t lo = 0, hi = m->nbranches;

    if (!(model_path_word(m, p) & MODEL_PATH_BRANCH))
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

uint32_t model_path_parent_desc(const struct model *m, uint32_t p, size_t *k)
{
    if (!(model_path_word(m, p) & MODEL_PATH_BRANCH))
        return p - 1;
    while (m->branches[*k - 1].path != p)
        --*k;
    return m->branches[--*k].parent;
}

uint32_t model_path_parent_asc(const struct model *m, uint32_t p, size_t *k)
{
    if (!(model_path_word(m, p) & MODEL_PATH_BRANCH))
        return p - 1;
    while (m->branches[*k].path != p)
        ++*k;
    return m->branches[(*k)++].parent;
}

/* The child of path parent that calls func, made if new. */
static uint32_t path_child(struct model *m, uint32_t parent, uint32_t func)
{
    uint32_t *slot, p = (uint32_t)m->npaths;

    if (parent + 1 < m->npaths && model_path_word(m, parent + 1) == func) /* made right after it */
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
    uint32_t p = MODEL_PATH_ROOT;

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
    return path && path < m->npaths ? MODEL_PATH_FUNC(model_path_word(m, path)) : UINT32_MAX;
}

uint32_t model_path_parent(const struct model *m, uint32_t path)
{
    return path && path < m->npaths ? path_parent(m, path) : MODEL_PATH_ROOT;
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
