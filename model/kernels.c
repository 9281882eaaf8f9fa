/* GPU side of the model: kernel dispatches (from HSA), HIP API calls, copies, per-queue idle
 * gaps. Statistics are kept by (pid, key) as the records come, and joined with names (which
 * come in records of their own, maybe later) when a list is built. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/protocol.h"
#include "model_internal.h"
#include "mpi.h"

/* libstdc++'s demangler (extern "C"; the core links libstdc++). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define HIP_KIND 0
#define HSA_KIND 1

struct kname {
    uint32_t pid;
    int kind;
    uint64_t key;
    char *name; /* cleaned: ".kd" stripped, demangled */
};

/* Dispatches of one kernel object of one process. */
struct kobj_stat {
    uint32_t pid;
    uint64_t kernel_object;
    struct model_duration gpu;
    uint64_t dispatches;
    uint32_t grid[3], block[3];
    char *fallback; /* "kernel 0x..." while unnamed */
};

/* HIP launches of one name id of one process. */
struct launch_stat {
    uint32_t pid;
    uint32_t name_id;
    uint64_t launches;
    int has_dims; /* a launch gave grid and block */
    uint32_t grid[3], block[3];
};

#define COPY_DIRECTIONS 6
/* Dispatch records of a queue come in completion-handler order, not GPU order: the last
 * QUEUE_REORDER intervals wait, sorted by start, before they are accounted. */
#define QUEUE_REORDER 256

struct interval {
    uint64_t start_ns, end_ns;
};

/* A queue: the accounted part, and the intervals still waiting in start order. */
struct queue_state {
    struct model_gpu_queue q;
    struct interval pend[QUEUE_REORDER];
    int npend;
};

struct model_kernels {
    struct kname *names;
    size_t nnames, names_cap;
    struct hashmap name_map;
    struct kobj_stat *kobjs;
    size_t nkobjs, kobjs_cap;
    struct hashmap kobj_map;
    struct launch_stat *launches;
    size_t nlaunches, launches_cap;
    struct hashmap launch_map;
    struct model_hip_api apis[ROCSYS_HIP_API_MAX];
    int api_order[ROCSYS_HIP_API_MAX]; /* ids with calls, in first-call order */
    int napis;
    struct queue_state **queues;
    struct model_gpu_queue *queue_views; /* accounted + waiting, as model_gpu_queue_at shows */
    int nqueues, queues_cap;
    struct model_copy copies[2][COPY_DIRECTIONS]; /* [hsa?][direction] */
    int seen;
};

const char *const model_gap_bucket_names[MODEL_GAP_BUCKETS] = {
    "gap <1us",     "gap 1us-10us",   "gap 10us-100us", "gap 100us-1000us",
    "gap 1ms-10ms", "gap 10ms-100ms", "gap >=100ms",
};

static const char *const copy_direction_names[COPY_DIRECTIONS] = {"HtoH", "HtoD",    "DtoH",
                                                                  "DtoD", "default", "async"};

int model_gap_bucket(uint64_t gap_ns)
{
    uint64_t limit = 1000; /* 1 us */

    for (int b = 0; b < MODEL_GAP_BUCKETS - 1; b++, limit *= 10)
        if (gap_ns < limit)
            return b;
    return MODEL_GAP_BUCKETS - 1;
}

void model_duration_add(struct model_duration *d, uint64_t ns)
{
    if (d->calls == 0 || ns < d->min_ns)
        d->min_ns = ns;
    if (ns > d->max_ns)
        d->max_ns = ns;
    d->calls++;
    d->total_ns += ns;
    d->sum_sq_ns += (double)ns * (double)ns;
}

double model_duration_avg_ns(const struct model_duration *d)
{
    return d->calls ? (double)d->total_ns / (double)d->calls : 0.0;
}

/* Population standard deviation (rocprof's StdDev). */
double model_duration_stddev_ns(const struct model_duration *d)
{
    double mean, var;

    if (d->calls < 2)
        return 0.0;
    mean = (double)d->total_ns / (double)d->calls;
    var = d->sum_sq_ns / (double)d->calls - mean * mean;
    return var > 0 ? sqrt(var) : 0.0;
}

void model_kernel_clean_name(const char *raw, char *out, size_t n)
{
    char buf[4096];
    size_t len = strlen(raw);
    int status = -1;
    char *dm = NULL;

    if (n == 0)
        return;
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, raw, len);
    buf[len] = '\0';
    if (len >= 3 && strcmp(buf + len - 3, ".kd") == 0)
        buf[len - 3] = '\0';
    if (buf[0] == '_' && buf[1] == 'Z')
        dm = __cxa_demangle(buf, NULL, NULL, &status);
    snprintf(out, n, "%s", dm && status == 0 ? dm : buf);
    free(dm);
}

void model_kernel_fold_name(const char *name, char *out, size_t n, int utf8)
{
    const char *ell = utf8 ? "\xe2\x80\xa6" : "...";
    size_t o = 0;
    int depth = 0;

    if (n == 0)
        return;
    for (const char *p = name; *p && o + 1 < n; p++) {
        if (*p == '<') {
            /* "operator<" and "operator<<" are names, not template arguments */
            if (depth == 0 && p - name >= 8 && strncmp(p - 8, "operator", 8) == 0) {
                out[o++] = *p;
                if (p[1] == '<' && o + 1 < n)
                    out[o++] = *++p;
                continue;
            }
            if (depth++ == 0) {
                int w = snprintf(out + o, n - o, "<%s", ell);
                o = (size_t)w < n - o ? o + (size_t)w : n - 1;
            }
            continue;
        }
        if (*p == '>' && depth > 0) {
            if (--depth == 0 && o + 1 < n)
                out[o++] = '>';
            continue;
        }
        if (depth == 0)
            out[o++] = *p;
    }
    out[o] = '\0';
}

/* The model's GPU state, created on first use. */
static struct model_kernels *state(struct model *m)
{
    if (!m->kernels)
        m->kernels = xcalloc(1, sizeof(*m->kernels));
    return m->kernels;
}

/* Empty the per-kernel, per-launch and per-queue tables (their arrays stay allocated). */
static void clear_tables(struct model_kernels *k)
{
    for (size_t i = 0; i < k->nkobjs; i++)
        free(k->kobjs[i].fallback);
    k->nkobjs = k->nlaunches = 0;
    hashmap_free(&k->kobj_map);
    hashmap_free(&k->launch_map);
    for (int i = 0; i < k->nqueues; i++)
        free(k->queues[i]);
    k->nqueues = 0;
}

void model_kernels_free(struct model *m)
{
    struct model_kernels *k = m->kernels;

    if (!k)
        return;
    clear_tables(k);
    for (size_t i = 0; i < k->nnames; i++)
        free(k->names[i].name);
    free(k->names);
    free(k->kobjs);
    free(k->launches);
    free(k->queues);
    free(k->queue_views);
    hashmap_free(&k->name_map);
    free(k);
    m->kernels = NULL;
}

/* Hash key of (pid, kind, key). */
static uint64_t tuple_key(uint32_t pid, int kind, uint64_t key)
{
    return hashmap_mix(hashmap_mix(key) ^ ((uint64_t)pid << 1 | (uint64_t)kind));
}

/* Find the name entry of (pid, kind, key), or NULL. */
static struct kname *find_name(struct model_kernels *k, uint32_t pid, int kind, uint64_t key)
{
    uint32_t *v = hashmap_slot(&k->name_map, tuple_key(pid, kind, key), 0);

    if (!v || *v == 0)
        return NULL;
    struct kname *e = &k->names[*v - 1];
    return e->pid == pid && e->kind == kind && e->key == key ? e : NULL;
}

void model_kernel_name(struct model *m, uint32_t pid, int kind, uint64_t key, const char *raw)
{
    struct model_kernels *k = state(m);
    struct kname *e = find_name(k, pid, kind, key);
    char clean[4096];

    k->seen = 1;
    model_kernel_clean_name(raw, clean, sizeof(clean));
    if (e) { /* the same key again (a reloaded executable): the newest name wins */
        free(e->name);
        e->name = xstrdup(clean);
        return;
    }
    if (k->nnames == k->names_cap) {
        k->names_cap = k->names_cap ? k->names_cap * 2 : 64;
        k->names = xrealloc(k->names, k->names_cap * sizeof(*k->names));
    }
    e = &k->names[k->nnames++];
    e->pid = pid;
    e->kind = kind;
    e->key = key;
    e->name = xstrdup(clean);
    *hashmap_slot(&k->name_map, tuple_key(pid, kind, key), 1) = (uint32_t)k->nnames;
}

/* Whether the kernel named clean (demangled, as the Kernels view shows it) is the one the user
 * named: its whole name, or without its parameters, its return type or its template
 * arguments ("void reduce_sum<256, float>(float const*)" is also "reduce_sum<256, float>" and
 * "reduce_sum"). */
int model_kernel_name_matches(const char *clean, const char *want)
{
    char base[512];
    size_t n = 0;
    int depth = 0;

    if (strcmp(clean, want) == 0)
        return 1;
    for (const char *p = clean; *p && n + 1 < sizeof(base); p++) { /* up to the parameters */
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (*p == '(' && depth == 0)
            break;
        base[n++] = *p;
    }
    base[n] = '\0';
    if (strcmp(base, want) == 0)
        return 1;
    char *name = base; /* after a return type: the last space outside template arguments */
    depth = 0;
    for (char *p = base; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (*p == ' ' && depth == 0)
            name = p + 1;
    }
    if (strcmp(name, want) == 0)
        return 1;
    char *lt = strchr(name, '<');
    if (lt)
        *lt = '\0';
    return strcmp(name, want) == 0;
}

const char *model_kernel_object_name(struct model *m, uint32_t pid, uint64_t kernel_object)
{
    struct kname *e = find_name(state(m), pid, HSA_KIND, kernel_object);
    return e ? e->name : NULL;
}

const char *model_hip_kernel_name(struct model *m, uint32_t pid, uint32_t name_id)
{
    struct kname *e = find_name(state(m), pid, HIP_KIND, name_id);
    return e ? e->name : NULL;
}

const char *model_hip_kernel_label(struct model *m, uint32_t pid, uint32_t name_id)
{
    const char *name = model_hip_kernel_name(m, pid, name_id);
    char buf[64];

    if (name)
        return name;
    if (name_id)
        snprintf(buf, sizeof(buf), "HIP kernel #%u", (unsigned)name_id);
    else
        snprintf(buf, sizeof(buf), "(unregistered HIP kernel)");
    return model_intern(m, buf);
}

const char *model_hip_api_name(int api)
{
    static char unknown[ROCSYS_HIP_API_MAX][16];

    switch (api) {
#define HIP_API_NAME(id, name, launch)                                                             \
    case id:                                                                                       \
        return #name;
        ROCSYS_HIP_API_LIST(HIP_API_NAME)
#undef HIP_API_NAME
    default:
        break;
    }
    if (api < 0 || api >= ROCSYS_HIP_API_MAX)
        return "hipApi#?";
    snprintf(unknown[api], sizeof(unknown[api]), "hipApi#%d", api);
    return unknown[api];
}

int model_hip_api_id(const char *name)
{
    int id = -1;
    char *end;

    for (int api = 1; api < ROCSYS_HIP_API_MAX && id < 0; api++)
        if (strcmp(model_hip_api_name(api), name) == 0)
            id = api;
    if (id < 0 && strncmp(name, "hipApi#", 7) == 0) { /* an id this build has no name for */
        long v = strtol(name + 7, &end, 10);
        if (end != name + 7 && *end == '\0' && v > 0 && v < ROCSYS_HIP_API_MAX)
            id = (int)v;
    }
    return id;
}

void model_gpu_clear(struct model *m)
{
    struct model_kernels *k = m->kernels;

    model_launches_clear(m);
    model_mpi_clear(m); /* a replay recounts the MPI calls too */
    if (!k)
        return;
    clear_tables(k);
    /* cleared in place: views may still hold pointers into these tables until they rebuild */
    memset(k->apis, 0, sizeof(k->apis));
    k->napis = 0;
    memset(k->copies, 0, sizeof(k->copies));
    k->seen = 0;
    for (int i = 0; i < model_process_count(m); i++) {
        struct model_process *p = model_process_mut(m, model_process_at(m, i)->pid);
        p->gpu_kernel_ns = p->gpu_dispatches = 0;
    }
}

/* A launch of one kernel (the kernel's HIP launches count these; a graph launch is not one
 * kernel, nor is a multi-device launch whose entries launch different kernels: the collector
 * names a multi-device call only when they all launch the same one, then it counts once). */
static int is_launch(int api, uint32_t name_id)
{
    int launch = rocsys_hip_api_launch(api);

    return launch == 1 || (launch == 2 && name_id != 0);
}

void model_hip_call(struct model *m, const struct model_hip_call *c)
{
    struct model_kernels *k = state(m);
    struct model_hip_api *a;
    uint64_t ns = c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0;
    const char *name;

    k->seen = 1;
    if (c->api <= 0 || c->api >= ROCSYS_HIP_API_MAX)
        return;
    a = &k->apis[c->api];
    if (a->time.calls == 0) {
        a->name = model_hip_api_name(c->api);
        k->api_order[k->napis++] = c->api;
    }
    model_duration_add(&a->time, ns);
    if (rocsys_hip_api_waits(c->api)) {
        a->waits = 1;
        a->wait_cpu_ns += c->wait_cpu_ns < ns ? c->wait_cpu_ns : ns;
    }
    if (c->result != 0) {
        a->errors++;
        a->last_error = c->result;
    }
    name = a->name;
    if (strncmp(name, "hipMemcpy", 9) == 0) {
        int dir = c->copy_kind >= 0 && c->copy_kind <= 4 ? c->copy_kind : 4;
        struct model_copy *cp = &k->copies[0][dir];
        cp->direction = copy_direction_names[dir];
        cp->source = "hip";
        model_duration_add(&cp->time, ns);
        cp->bytes += c->bytes;
    }
    if (is_launch(c->api, c->name_id)) {
        uint64_t key = tuple_key(c->pid, HIP_KIND, c->name_id);
        uint32_t *v = hashmap_slot(&k->launch_map, key, 1);
        if (*v == 0) {
            if (k->nlaunches == k->launches_cap) {
                k->launches_cap = k->launches_cap ? k->launches_cap * 2 : 32;
                k->launches = xrealloc(k->launches, k->launches_cap * sizeof(*k->launches));
            }
            memset(&k->launches[k->nlaunches], 0, sizeof(k->launches[0]));
            k->launches[k->nlaunches].pid = c->pid;
            k->launches[k->nlaunches].name_id = c->name_id;
            *v = (uint32_t)++k->nlaunches;
        }
        struct launch_stat *l = &k->launches[*v - 1];
        l->launches++;
        model_launch_path(m, c->pid, c->tid, c->name_id, c->stack_key, c->correlation);
        if (rocsys_launch_dims_known(c->grid, c->block)) {
            l->has_dims = 1;
            memcpy(l->grid, c->grid, sizeof(l->grid));
            memcpy(l->block, c->block, sizeof(l->block));
        }
    }
}

/* The queue of (pid, queue_id), created when new. */
static struct queue_state *queue_get(struct model_kernels *k, uint32_t pid, uint32_t agent,
                                     uint64_t queue_id)
{
    for (int i = 0; i < k->nqueues; i++)
        if (k->queues[i]->q.pid == pid && k->queues[i]->q.queue_id == queue_id)
            return k->queues[i];
    if (k->nqueues == k->queues_cap) {
        k->queues_cap = k->queues_cap ? k->queues_cap * 2 : 8;
        k->queues = xrealloc(k->queues, (size_t)k->queues_cap * sizeof(*k->queues));
        k->queue_views = xrealloc(k->queue_views, (size_t)k->queues_cap * sizeof(*k->queue_views));
    }
    struct queue_state *q = xcalloc(1, sizeof(*q));
    q->q.pid = pid;
    q->q.agent = agent;
    q->q.queue_id = queue_id;
    k->queues[k->nqueues++] = q;
    return q;
}

/* Account one dispatch interval, in start order: busy time (union) and the gap before it. */
static void queue_account(struct model_gpu_queue *q, uint64_t start_ns, uint64_t end_ns)
{
    if (q->dispatches == 0) {
        q->first_start_ns = start_ns;
        q->busy_ns = end_ns - start_ns;
        q->last_end_ns = end_ns;
    } else if (start_ns >= q->last_end_ns) {
        q->gaps[model_gap_bucket(start_ns - q->last_end_ns)]++;
        q->busy_ns += end_ns - start_ns;
        q->last_end_ns = end_ns;
    } else if (end_ns > q->last_end_ns) { /* overlaps the previous one */
        q->busy_ns += end_ns - q->last_end_ns;
        q->last_end_ns = end_ns;
    }
    if (start_ns < q->first_start_ns)
        q->first_start_ns = start_ns;
    q->dispatches++;
}

/* Queue a dispatch interval: kept in start order; the earliest is accounted when full. */
static void queue_add(struct queue_state *qs, uint64_t start_ns, uint64_t end_ns)
{
    int i;

    if (qs->npend == QUEUE_REORDER) {
        queue_account(&qs->q, qs->pend[0].start_ns, qs->pend[0].end_ns);
        memmove(&qs->pend[0], &qs->pend[1], (size_t)(QUEUE_REORDER - 1) * sizeof(qs->pend[0]));
        qs->npend--;
    }
    for (i = qs->npend; i > 0 && qs->pend[i - 1].start_ns > start_ns; i--)
        qs->pend[i] = qs->pend[i - 1];
    qs->pend[i] = (struct interval){start_ns, end_ns};
    qs->npend++;
}

void model_gpu_dispatch(struct model *m, uint32_t pid, uint32_t agent, uint64_t queue_id,
                        uint64_t kernel_object, uint64_t start_ns, uint64_t end_ns, int bad_time,
                        const uint32_t grid[3], const uint16_t block[3])
{
    struct model_kernels *k = state(m);
    uint64_t key = tuple_key(pid, HSA_KIND, kernel_object);
    uint32_t *v = hashmap_slot(&k->kobj_map, key, 1);
    struct kobj_stat *s;

    k->seen = 1;
    if (*v == 0) {
        if (k->nkobjs == k->kobjs_cap) {
            k->kobjs_cap = k->kobjs_cap ? k->kobjs_cap * 2 : 32;
            k->kobjs = xrealloc(k->kobjs, k->kobjs_cap * sizeof(*k->kobjs));
        }
        memset(&k->kobjs[k->nkobjs], 0, sizeof(k->kobjs[0]));
        k->kobjs[k->nkobjs].pid = pid;
        k->kobjs[k->nkobjs].kernel_object = kernel_object;
        *v = (uint32_t)++k->nkobjs;
    }
    s = &k->kobjs[*v - 1];
    s->dispatches++;
    for (int i = 0; i < 3; i++) {
        s->grid[i] = grid[i];
        s->block[i] = block[i];
    }
    struct model_process *p = model_process_mut(m, pid);
    if (p)
        p->gpu_dispatches++;
    if (bad_time || end_ns < start_ns)
        return;
    model_duration_add(&s->gpu, end_ns - start_ns);
    queue_add(queue_get(k, pid, agent, queue_id), start_ns, end_ns);
    if (p)
        p->gpu_kernel_ns += end_ns - start_ns;
}

void model_gpu_copy(struct model *m, uint32_t pid, uint64_t bytes, uint64_t start_ns,
                    uint64_t end_ns, int bad_time)
{
    struct model_kernels *k = state(m);
    struct model_copy *cp = &k->copies[1][COPY_DIRECTIONS - 1];

    (void)pid;
    k->seen = 1;
    cp->direction = copy_direction_names[COPY_DIRECTIONS - 1];
    cp->source = "hsa";
    cp->bytes += bytes;
    if (!bad_time && end_ns >= start_ns)
        model_duration_add(&cp->time, end_ns - start_ns);
}

/* The list entry named name, appended when new (names are few: a linear search). */
static struct model_kernel *list_entry(struct model_kernel_list *l, int *cap, const char *name)
{
    for (int i = 0; i < l->count; i++)
        if (strcmp(l->items[i].name, name) == 0)
            return &l->items[i];
    if (l->count == *cap) {
        *cap = *cap ? *cap * 2 : 32;
        l->items = xrealloc(l->items, (size_t)*cap * sizeof(*l->items));
    }
    struct model_kernel *e = &l->items[l->count++];
    memset(e, 0, sizeof(*e));
    e->name = xstrdup(name); /* the list's own copy: the model may rename a kernel later */
    return e;
}

struct model_kernel_list *model_kernels_list(struct model *m)
{
    struct model_kernels *k = state(m);
    struct model_kernel_list *l = xcalloc(1, sizeof(*l));
    char buf[64];
    int cap = 0;

    for (size_t i = 0; i < k->nkobjs; i++) {
        struct kobj_stat *s = &k->kobjs[i];
        const char *name = model_kernel_object_name(m, s->pid, s->kernel_object);
        if (!name) {
            if (!s->fallback) {
                snprintf(buf, sizeof(buf), "kernel 0x%llx", (unsigned long long)s->kernel_object);
                s->fallback = xstrdup(buf);
            }
            name = s->fallback;
        }
        struct model_kernel *e = list_entry(l, &cap, name);
        if (s->gpu.calls) {
            if (e->gpu.calls == 0 || s->gpu.min_ns < e->gpu.min_ns)
                e->gpu.min_ns = s->gpu.min_ns;
            if (s->gpu.max_ns > e->gpu.max_ns)
                e->gpu.max_ns = s->gpu.max_ns;
            e->gpu.calls += s->gpu.calls;
            e->gpu.total_ns += s->gpu.total_ns;
            e->gpu.sum_sq_ns += s->gpu.sum_sq_ns;
        }
        e->dispatches += s->dispatches;
        e->has_dims = 1;
        memcpy(e->grid, s->grid, sizeof(e->grid));
        memcpy(e->block, s->block, sizeof(e->block));
        l->gpu_total_ns += s->gpu.total_ns;
    }
    for (size_t i = 0; i < k->nlaunches; i++) {
        struct launch_stat *s = &k->launches[i];
        const char *name = model_hip_kernel_label(m, s->pid, s->name_id);
        struct model_kernel *e = list_entry(l, &cap, name);
        e->hip_launches += s->launches;
        if (!e->has_dims && s->has_dims) { /* no dispatch seen: a launch's grid (blocks), block */
            e->has_dims = 1;
            memcpy(e->grid, s->grid, sizeof(e->grid));
            memcpy(e->block, s->block, sizeof(e->block));
        }
    }
    return l;
}

/* Order kernels by GPU time, then by HIP launches, then by name. */
static int by_gpu_time(const void *a, const void *b)
{
    const struct model_kernel *x = a, *y = b;

    if (x->gpu.total_ns != y->gpu.total_ns)
        return x->gpu.total_ns < y->gpu.total_ns ? 1 : -1;
    if (x->hip_launches != y->hip_launches)
        return x->hip_launches < y->hip_launches ? 1 : -1;
    return strcmp(x->name, y->name);
}

void model_kernels_sort_by_gpu(struct model_kernel_list *l)
{
    if (l && l->count > 1)
        qsort(l->items, (size_t)l->count, sizeof(*l->items), by_gpu_time);
}

void model_kernels_list_free(struct model_kernel_list *l)
{
    if (!l)
        return;
    for (int i = 0; i < l->count; i++)
        free((char *)l->items[i].name);
    free(l->items);
    free(l);
}

void model_gpu_wait_totals(const struct model *m, uint64_t *wait_ns, uint64_t *cpu_ns)
{
    *wait_ns = *cpu_ns = 0;
    for (int i = 0; i < model_hip_api_count(m); i++) {
        const struct model_hip_api *a = model_hip_api_at(m, i);
        if (a->waits) {
            *wait_ns += a->time.total_ns;
            *cpu_ns += a->wait_cpu_ns;
        }
    }
}

int model_hip_api_count(const struct model *m)
{
    return m->kernels ? m->kernels->napis : 0;
}

const struct model_hip_api *model_hip_api_at(const struct model *m, int i)
{
    return &m->kernels->apis[m->kernels->api_order[i]];
}

int model_gpu_queue_count(const struct model *m)
{
    return m->kernels ? m->kernels->nqueues : 0;
}

const struct model_gpu_queue *model_gpu_queue_at(const struct model *m, int i)
{
    const struct queue_state *qs = m->kernels->queues[i];
    struct model_gpu_queue *v = &m->kernels->queue_views[i];

    *v = qs->q;
    for (int k = 0; k < qs->npend; k++)
        queue_account(v, qs->pend[k].start_ns, qs->pend[k].end_ns);
    return v;
}

int model_copy_count(const struct model *m)
{
    int n = 0;

    if (!m->kernels)
        return 0;
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < COPY_DIRECTIONS; d++)
            n += m->kernels->copies[s][d].direction != NULL;
    return n;
}

const struct model_copy *model_copy_at(const struct model *m, int i)
{
    for (int s = 0; s < 2; s++)
        for (int d = 0; d < COPY_DIRECTIONS; d++)
            if (m->kernels->copies[s][d].direction && i-- == 0)
                return &m->kernels->copies[s][d];
    return NULL;
}

int model_gpu_seen(const struct model *m)
{
    return m->kernels && m->kernels->seen;
}

void model_hsa_table(struct model *m, const struct rocsys_rec_hsa_table *r)
{
    struct model_session *s = &m->session;

    if ((int)r->status < s->hsa_table_status)
        return; /* a declined table stays reported */
    s->hsa_table_status = (int)r->status;
    snprintf(s->hsa_release, sizeof(s->hsa_release), "%.*s", (int)sizeof(r->release), r->release);
    snprintf(s->hsa_why, sizeof(s->hsa_why), "%.*s", (int)sizeof(r->why), r->why);
    memcpy(s->hsa_root, r->root, sizeof(s->hsa_root));
    memcpy(s->hsa_core, r->core, sizeof(s->hsa_core));
    memcpy(s->hsa_amd, r->amd, sizeof(s->hsa_amd));
}

int model_hsa_notice(const struct model *m, char *buf, size_t n)
{
    const struct model_session *s = &m->session;

    if (s->hsa_table_status != ROCSYS_HSA_TABLE_UNKNOWN &&
        s->hsa_table_status != ROCSYS_HSA_TABLE_UNUSABLE)
        return 0;
    snprintf(buf, n, "GPU kernels not timed: the HSA runtime's API table was declined: %s",
             s->hsa_why);
    return 1;
}

int model_hsa_table_text(const struct model *m, char *buf, size_t n)
{
    const struct model_session *s = &m->session;
    char head[160];

    switch (s->hsa_table_status) {
    case ROCSYS_HSA_TABLE_EXACT:
        snprintf(head, sizeof(head), "ROCm %s layout", s->hsa_release);
        break;
    case ROCSYS_HSA_TABLE_COMPATIBLE:
        snprintf(head, sizeof(head), "read as ROCm %s: %s", s->hsa_release, s->hsa_why);
        break;
    case ROCSYS_HSA_TABLE_UNKNOWN:
    case ROCSYS_HSA_TABLE_UNUSABLE:
        snprintf(head, sizeof(head), "declined: %s", s->hsa_why);
        break;
    default:
        return 0;
    }
    size_t k = (size_t)snprintf(buf, n, "%s (API table %u.%u, %u bytes", head, s->hsa_root[0],
                                s->hsa_root[1], s->hsa_root[2]);
    if (k < n && (s->hsa_core[0] || s->hsa_core[2])) /* the sub-tables were read */
        k += (size_t)snprintf(buf + k, n - k, "; core %u.%u, %u", s->hsa_core[0], s->hsa_core[1],
                              s->hsa_core[2]);
    if (k < n && (s->hsa_amd[0] || s->hsa_amd[2]))
        k += (size_t)snprintf(buf + k, n - k, "; AMD ext %u.%u, %u", s->hsa_amd[0], s->hsa_amd[1],
                              s->hsa_amd[2]);
    if (k < n)
        snprintf(buf + k, n - k, ")");
    return 1;
}
