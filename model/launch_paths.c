/* Launch call paths: for each kernel, the call paths it was launched from (paths of the call
 * tree's trie, model/stacks.c), with their launches and the GPU time of the dispatches those
 * launches made. A launch and its dispatch meet by (pid, correlation id), in whichever order
 * their records come (they travel in different threads' rings): recent launches are kept in a
 * table probed by correlation id, and a dispatch that came first waits in another until its
 * launch. */
#include "model/model_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/hashmap.h"

#define RECENT_SLOTS 65536 /* launches waiting for their dispatch */
#define EARLY_SLOTS  16384 /* dispatches waiting for their launch */
#define CORR_PROBE   16    /* slots looked at for a key (then the oldest place is reused) */

/* One (thread, kernel name id, launch stack) launch site. */
struct launch_site {
    uint32_t pid, tid, name_id;
    uint32_t stack; /* index + 1 into the stacks, 0 = not captured */
    uint64_t launches, dispatches, gpu_ns;
};

/* A launch stack of the collector: its frames until they resolve to a path (symbols may still
 * be loading when it comes), then the path. */
struct launch_stack {
    uint32_t pid;
    uint32_t path; /* 0 while unresolved */
    uint64_t key;
    uint64_t *frames; /* NULL once resolved */
    uint32_t nframes;
    uint64_t defined_ns; /* CLOCK_MONOTONIC: after STACK_WAIT_NS unresolved frames are unknown */
};
#define STACK_WAIT_NS 2000000000ull /* for a module or Python code object to be announced */

/* A launch by correlation id, or the dispatches that came before their launch. */
struct corr_slot {
    uint32_t pid;
    uint32_t site; /* index + 1 (recent), 1 (early), 0 = empty */
    uint64_t correlation;
    uint64_t gpu_ns;     /* early: the dispatches' GPU time (timed ones) */
    uint32_t dispatches; /* early: how many */
};

struct model_launches {
    struct launch_site *sites;
    size_t nsites, cap;
    struct hashmap site_map; /* (pid, name id, stack) -> index + 1 */
    struct launch_stack *stacks;
    size_t nstacks, stacks_cap;
    struct hashmap stack_map; /* (pid, the collector's stack key) -> index + 1 */
    struct corr_slot *recent, *early;
};

/* The model's launch tables, created on first use. */
static struct model_launches *state(struct model *m)
{
    if (!m->launches) {
        m->launches = xcalloc(1, sizeof(*m->launches));
        m->launches->recent = xcalloc(RECENT_SLOTS, sizeof(struct corr_slot));
        m->launches->early = xcalloc(EARLY_SLOTS, sizeof(struct corr_slot));
    }
    return m->launches;
}

void model_launches_free(struct model *m)
{
    struct model_launches *l = m->launches;

    if (!l)
        return;
    free(l->sites);
    hashmap_free(&l->site_map);
    for (size_t i = 0; i < l->nstacks; i++)
        free(l->stacks[i].frames);
    free(l->stacks);
    hashmap_free(&l->stack_map);
    free(l->recent);
    free(l->early);
    free(l);
    m->launches = NULL;
}

void model_launches_clear(struct model *m)
{
    struct model_launches *l = m->launches;

    if (!l)
        return;
    l->nsites = 0;
    hashmap_free(&l->site_map);
    memset(l->recent, 0, RECENT_SLOTS * sizeof(*l->recent));
    memset(l->early, 0, EARLY_SLOTS * sizeof(*l->early));
}

/* The stack map's key of (pid, the collector's stack key). */
static uint64_t stack_map_key(uint32_t pid, uint64_t key)
{
    return hashmap_mix(hashmap_mix(key) ^ pid);
}

/* Index + 1 of the stack (pid, key), 0 if not defined. */
static uint32_t stack_index(const struct model_launches *l, uint32_t pid, uint64_t key)
{
    uint32_t *v;

    if (!key)
        return 0;
    v = hashmap_slot((struct hashmap *)&l->stack_map, stack_map_key(pid, key), 0);
    return v ? *v : 0;
}

/* The path of stack index + 1 idx, resolved now if it can be (0: not yet, or no stack). Its
 * frames wait for their modules and Python code objects as a sample's do (they may be
 * announced after the stack), for STACK_WAIT_NS or until final. */
static uint32_t stack_resolve(struct model *m, struct model_launches *l, uint32_t idx, int final)
{
    struct launch_stack *st;

    if (!idx)
        return 0;
    st = &l->stacks[idx - 1];
    if (!st->path && st->frames) {
        final = final || model_clock_ns(CLOCK_MONOTONIC) - st->defined_ns > STACK_WAIT_NS;
        st->path = model_sample_path_try(m, st->pid, st->frames, st->nframes, final);
        if (st->path) {
            free(st->frames);
            st->frames = NULL;
        }
    }
    return st->path;
}

/* stack_resolve, not final. */
static uint32_t stack_path(struct model *m, struct model_launches *l, uint32_t idx)
{
    return stack_resolve(m, l, idx, 0);
}

void model_launch_stacks_finish(struct model *m)
{
    for (size_t i = 0; m->launches && i < m->launches->nstacks; i++)
        stack_resolve(m, m->launches, (uint32_t)i + 1, 1);
}

/* Define stack (pid, key) by frames (n > 0) or by an already known path. */
static void stack_define(struct model *m, uint32_t pid, uint64_t key, const uint64_t *frames,
                         uint32_t n, uint32_t path)
{
    struct model_launches *l = state(m);
    uint32_t *v = hashmap_slot(&l->stack_map, stack_map_key(pid, key), 1);

    if (*v) /* sent again (pushed out of the thread's cache, or another thread): the same */
        return;
    if (l->nstacks == l->stacks_cap) {
        l->stacks_cap = l->stacks_cap ? l->stacks_cap * 2 : 64;
        l->stacks = xrealloc(l->stacks, l->stacks_cap * sizeof(*l->stacks));
    }
    struct launch_stack *st = &l->stacks[l->nstacks];
    memset(st, 0, sizeof(*st));
    st->pid = pid;
    st->key = key;
    st->path = path;
    if (!path && n) {
        st->defined_ns = model_clock_ns(CLOCK_MONOTONIC);
        st->frames = xmalloc(n * sizeof(*frames));
        memcpy(st->frames, frames, n * sizeof(*frames));
        st->nframes = n;
    }
    *v = (uint32_t)++l->nstacks;
    stack_path(m, l, *v);
}

void model_launch_stack_define(struct model *m, uint32_t pid, uint64_t key, const uint64_t *frames,
                               uint32_t n)
{
    if (key && n)
        stack_define(m, pid, key, frames, n, 0);
}

void model_launch_stack_set_path(struct model *m, uint32_t pid, uint64_t key, uint32_t path)
{
    if (key && path)
        stack_define(m, pid, key, NULL, 0, path);
}

uint32_t model_launch_stack_path(struct model *m, uint32_t pid, uint64_t key)
{
    return m->launches ? stack_path(m, m->launches, stack_index(m->launches, pid, key)) : 0;
}

int model_launch_stack_pending(struct model *m, uint32_t pid, uint64_t key)
{
    uint32_t idx = m->launches ? stack_index(m->launches, pid, key) : 0;

    return idx && !stack_path(m, m->launches, idx);
}

void model_path_names(struct model *m, uint32_t path, const char *sep, int innermost_first,
                      char *buf, size_t n)
{
    uint32_t funcs[MODEL_MAX_STACK];
    size_t len = 0, used = 0;

    for (uint32_t p = path; p && len < MODEL_MAX_STACK; p = model_path_parent(m, p))
        funcs[len++] = model_path_func(m, p);
    if (n)
        buf[0] = '\0';
    for (size_t k = 0; k < len && used + 1 < n; k++) {
        const struct model_func *f =
            model_func_at(m, (int)funcs[innermost_first ? k : len - 1 - k]);
        int w =
            snprintf(buf + used, n - used, "%s%s", used ? sep : "", f && f->name ? f->name : "?");
        if (w < 0)
            break;
        used += (size_t)w < n - used ? (size_t)w : n - used - 1;
    }
}

/* Slot of (pid, correlation) in a direct-mapped table of n slots. */
static size_t corr_slot_of(uint32_t pid, uint64_t correlation, size_t n)
{
    return (size_t)(hashmap_mix(((uint64_t)pid << 40) ^ correlation) & (n - 1));
}

/* The slot of (pid, correlation) in table t of n slots (a window of CORR_PROBE from its hash):
 * its own; else, with make, an empty one, else the window's first (the oldest entries there are
 * long done); else NULL. */
static struct corr_slot *corr_find(struct corr_slot *t, size_t n, uint32_t pid,
                                   uint64_t correlation, int make)
{
    size_t i0 = corr_slot_of(pid, correlation, n);
    struct corr_slot *empty = NULL;

    for (size_t k = 0; k < CORR_PROBE; k++) {
        struct corr_slot *s = &t[(i0 + k) & (n - 1)];
        if (s->site && s->pid == pid && s->correlation == correlation)
            return s;
        if (!s->site && !empty)
            empty = s;
    }
    return !make ? NULL : empty ? empty : &t[i0];
}

/* Charge one dispatch of gpu_ns (UINT64_MAX: untimed) to site s. */
static void charge(struct launch_site *s, uint64_t gpu_ns)
{
    s->dispatches++;
    if (gpu_ns != UINT64_MAX)
        s->gpu_ns += gpu_ns;
}

void model_launch_path(struct model *m, uint32_t pid, uint32_t tid, uint32_t name_id,
                       uint64_t stack_key, uint64_t correlation)
{
    struct model_launches *l = state(m);
    uint32_t stack = stack_index(l, pid, stack_key);
    uint64_t key =
        hashmap_mix(hashmap_mix(hashmap_mix(((uint64_t)pid << 32) | tid) ^ name_id) ^ stack);
    uint32_t *v = hashmap_slot(&l->site_map, key, 1);

    if (*v == 0) {
        if (l->nsites == l->cap) {
            l->cap = l->cap ? l->cap * 2 : 64;
            l->sites = xrealloc(l->sites, l->cap * sizeof(*l->sites));
        }
        memset(&l->sites[l->nsites], 0, sizeof(l->sites[0]));
        l->sites[l->nsites].pid = pid;
        l->sites[l->nsites].tid = tid;
        l->sites[l->nsites].name_id = name_id;
        l->sites[l->nsites].stack = stack;
        *v = (uint32_t)++l->nsites;
    }
    l->sites[*v - 1].launches++;
    if (!correlation)
        return;
    struct corr_slot *e = corr_find(l->early, EARLY_SLOTS, pid, correlation, 0);
    if (e) { /* its dispatches came first */
        l->sites[*v - 1].dispatches += e->dispatches;
        l->sites[*v - 1].gpu_ns += e->gpu_ns;
        e->site = 0;
    }
    struct corr_slot *r = corr_find(l->recent, RECENT_SLOTS, pid, correlation, 1);
    *r = (struct corr_slot){.pid = pid, .site = *v, .correlation = correlation};
}

void model_launch_dispatch(struct model *m, uint32_t pid, uint64_t correlation, uint64_t gpu_ns)
{
    struct model_launches *l;
    struct corr_slot *r;

    if (!correlation)
        return;
    l = state(m);
    r = corr_find(l->recent, RECENT_SLOTS, pid, correlation, 0);
    if (r) {
        charge(&l->sites[r->site - 1], gpu_ns);
        return; /* kept: a multi-device launch makes several dispatches */
    }
    r = corr_find(l->early, EARLY_SLOTS, pid, correlation, 1);
    if (!(r->site && r->pid == pid && r->correlation == correlation))
        *r = (struct corr_slot){.pid = pid, .site = 1, .correlation = correlation};
    r->dispatches++;
    if (gpu_ns != UINT64_MAX)
        r->gpu_ns += gpu_ns;
}

/* 1 if two kernel names (NULL: not known) are the same. */
static int same_name(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

void model_launch_gpu_by_path(struct model *m, const struct model_filter *f, uint64_t *gpu,
                              size_t npaths)
{
    struct model_launches *l = m->launches;
    const struct model_thread *th =
        f && f->thread >= 0 ? model_thread_at(m, f->thread) : NULL; /* NULL: every thread */

    for (size_t i = 0; l && i < l->nsites; i++) {
        const struct launch_site *s = &l->sites[i];
        uint32_t path;
        if (!s->gpu_ns || (th && (th->pid != s->pid || th->tid != s->tid)))
            continue;
        if (f && f->only_rank > 0) {
            const struct model_process *p = model_process_find(m, s->pid);
            if (!p || p->rank != f->only_rank - 1)
                continue;
        }
        path = stack_path(m, l, s->stack);
        if (path && path < npaths)
            gpu[path] += s->gpu_ns;
    }
}

int model_launch_gpu_any(const struct model *m)
{
    const struct model_launches *l = m->launches;

    for (size_t i = 0; l && i < l->nsites; i++)
        if (l->sites[i].gpu_ns)
            return 1;
    return 0;
}

/* Order launch paths by GPU time, then launches. */
static int by_gpu_then_launches(const void *a, const void *b)
{
    const struct model_launch_path *x = a, *y = b;

    if (x->gpu_ns != y->gpu_ns)
        return x->gpu_ns < y->gpu_ns ? 1 : -1;
    if (x->launches != y->launches)
        return x->launches < y->launches ? 1 : -1;
    return x->path < y->path ? -1 : x->path > y->path;
}

struct model_launch_path_list *model_launch_paths(struct model *m, const char *kernel)
{
    struct model_launch_path_list *out = xcalloc(1, sizeof(*out));
    struct model_launches *l = m->launches;
    size_t cap = 0;

    for (size_t i = 0; l && i < l->nsites; i++) {
        const struct launch_site *s = &l->sites[i];
        const char *name = model_hip_kernel_label(m, s->pid, s->name_id);
        uint32_t path = stack_path(m, (struct model_launches *)l, s->stack);
        int pending = s->stack && !path; /* captured, its symbols still loading */
        if (kernel && strcmp(name, kernel) != 0)
            continue;
        int k = 0; /* processes merged: one row per path */
        while (k < out->count &&
               !(out->items[k].path == path && (kernel || same_name(out->items[k].name, name))))
            k++;
        if (k == out->count) {
            if ((size_t)out->count == cap) {
                cap = cap ? cap * 2 : 16;
                out->items = xrealloc(out->items, cap * sizeof(*out->items));
            }
            memset(&out->items[k], 0, sizeof(out->items[k]));
            out->items[k].path = path;
            out->items[k].pending = pending;
            out->items[k].name = name;
            out->count++;
        }
        out->items[k].launches += s->launches;
        out->items[k].dispatches += s->dispatches;
        out->items[k].gpu_ns += s->gpu_ns;
        out->launches += s->launches;
        out->gpu_ns += s->gpu_ns;
    }
    if (out->count > 1)
        qsort(out->items, (size_t)out->count, sizeof(*out->items), by_gpu_then_launches);
    return out;
}

void model_launch_paths_free(struct model_launch_path_list *l)
{
    if (!l)
        return;
    free(l->items);
    free(l);
}

/* The child of node under t with function func, made when new (path hash from the parent's). */
static int tree_child(struct model_tree *t, int node, int func, size_t *cap)
{
    for (int c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling)
        if (t->nodes[c].func == func)
            return c;
    if ((size_t)t->count == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        t->nodes = xrealloc(t->nodes, *cap * sizeof(*t->nodes));
    }
    struct model_node *p = &t->nodes[node], *c = &t->nodes[t->count];
    *c = (struct model_node){
        .func = func,
        .parent = node,
        .first_child = -1,
        .next_sibling = p->first_child,
        .depth = p->depth + 1,
        .path_hash = hashmap_mix(p->path_hash * 0x100000001b3ull ^ (uint64_t)(func + 1))};
    p->first_child = t->count;
    return t->count++;
}

struct model_tree *model_launch_tree(struct model *m, const struct model_launch_path_list *l)
{
    struct model_tree *t = xcalloc(1, sizeof(*t));
    uint32_t funcs[MODEL_MAX_STACK];
    size_t cap = 64;

    t->nodes = xcalloc(cap, sizeof(*t->nodes));
    t->nodes[0] = (struct model_node){
        .func = -1, .parent = -1, .first_child = -1, .next_sibling = -1, .path_hash = 1};
    t->count = 1;
    for (int i = 0; i < l->count; i++) {
        const struct model_launch_path *p = &l->items[i];
        int node = 0, n = 0;
        for (uint32_t q = p->path; q && n < MODEL_MAX_STACK; q = model_path_parent(m, q))
            funcs[n++] = model_path_func(m, q);
        if (n == 0) /* one frame that says why there is no path */
            funcs[n++] = model_func_named(m, p->pending ? "(call path: symbols still loading)"
                                                        : "(call path not captured)");
        t->nodes[0].inclusive += p->launches;
        t->nodes[0].gpu_ns += p->gpu_ns;
        for (int k = 0; k < n; k++) { /* innermost caller first */
            node = tree_child(t, node, (int)funcs[k], &cap);
            t->nodes[node].inclusive += p->launches;
            t->nodes[node].gpu_ns += p->gpu_ns;
        }
        t->nodes[node].self += p->launches; /* the path's outermost frame */
    }
    t->total = t->nodes[0].inclusive;
    t->gpu_ns = t->nodes[0].gpu_ns;
    return t;
}
