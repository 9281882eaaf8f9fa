/* User regions in the model: names per (process, id), the open regions of each thread (from
 * REGION_BEGIN / REGION_END), time statistics per (region, thread), and the labels that make
 * region pseudo-frames functions of the call tree ("[region] NAME"). Completed instances go to
 * a sink (the session turns them into slices of the recording). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/protocol.h"
#include "base/hashmap.h"
#include "model_internal.h"

/* One distinct region name (interned by content, so equal names are one function). */
struct region_str {
    char *name;
    char *label;       /* "[region] NAME" */
    char *key;         /* the name it was interned by (an OpenMP site's, until it is resolved) */
    uint32_t site_pid; /* an OpenMP region's "omp parallel @PID:0xADDR" not resolved yet: */
    uint64_t site_pc;  /* its process and codeptr_ra (0: none pending) */
};

/* A region open on a thread. */
struct open_region {
    uint32_t id;
    uint32_t depth;
    uint64_t begin_ns;
    uint32_t stats; /* index into stats */
};

/* The open regions of one thread, innermost last. */
struct region_thread {
    uint32_t pid, tid;
    struct open_region *stack;
    size_t n, cap;
};

struct model_regions {
    struct region_str *strs;
    size_t nstrs, str_cap;
    struct hashmap str_map; /* content hash -> index + 1 (collisions probe the next key) */
    struct hashmap id_map;  /* (pid, id) -> string index + 1 */
    struct region_thread *threads;
    size_t nthreads, thread_cap;
    struct hashmap thread_map; /* (pid, tid) -> index + 1 */
    struct model_region_stats *stats;
    size_t nstats, stats_cap;
    struct hashmap stats_map; /* (model thread index, string index) -> index + 1 */
    model_region_span_fn sink;
    void *sink_ctx;
    struct model_regions_summary sum;
    char **retired; /* names replaced by their resolved form (views may still point at them) */
    size_t nretired, retired_cap;
    struct model_region_span *held; /* spans of unresolved OpenMP regions, for the sink later */
    size_t nheld, held_cap;
    size_t pending; /* strings with a site to resolve */
};

static const char region_module[] = "[region]";

/* The model's region state, created on first use. */
static struct model_regions *regions(struct model *m)
{
    if (!m->regions)
        m->regions = xcalloc(1, sizeof(*m->regions));
    return m->regions;
}

void model_regions_free(struct model *m)
{
    struct model_regions *r = m->regions;

    if (!r)
        return;
    for (size_t i = 0; i < r->nstrs; i++) {
        if (r->strs[i].key != r->strs[i].name)
            free(r->strs[i].key);
        free(r->strs[i].name);
        free(r->strs[i].label);
    }
    free(r->strs);
    for (size_t i = 0; i < r->nretired; i++)
        free(r->retired[i]);
    free(r->retired);
    free(r->held);
    for (size_t i = 0; i < r->nthreads; i++)
        free(r->threads[i].stack);
    free(r->threads);
    free(r->stats);
    hashmap_free(&r->str_map);
    hashmap_free(&r->id_map);
    hashmap_free(&r->thread_map);
    hashmap_free(&r->stats_map);
    free(r);
    m->regions = NULL;
}

/* Index of the interned string equal to name, added if new. */
static uint32_t str_intern(struct model_regions *r, const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
    uint64_t key = hashmap_mix(h);
    uint32_t *slot = hashmap_slot(&r->str_map, key, 1);

    while (*slot != 0) {
        if (strcmp(r->strs[*slot - 1].key, name) == 0)
            return *slot - 1;
        key = hashmap_mix(key + 1); /* a collision of hashes: probe the next key */
        slot = hashmap_slot(&r->str_map, key, 1);
    }
    xgrow(&r->strs, &r->str_cap, r->nstrs + 1, sizeof(*r->strs));
    struct region_str *s = &r->strs[r->nstrs];
    size_t len = strlen(name);
    memset(s, 0, sizeof(*s));
    s->name = xstrdup(name);
    s->key = s->name;
    s->label = xmalloc(len + sizeof("[region] "));
    snprintf(s->label, len + sizeof("[region] "), "[region] %s", name);
    *slot = (uint32_t)++r->nstrs;
    if (strncmp(name, ROCSYS_OMP_NAME_PREFIX, strlen(ROCSYS_OMP_NAME_PREFIX)) == 0) {
        unsigned pid;
        unsigned long long pc;
        if (sscanf(name + strlen(ROCSYS_OMP_NAME_PREFIX), "%u:%llx", &pid, &pc) == 2 && pc) {
            s->site_pid = pid;
            s->site_pc = pc;
            r->pending++;
        }
    }
    return *slot - 1;
}

/* Give string k its resolved name: statistics and held spans take it, the old text is kept
 * (views' snapshots may point at it) until the model is freed. */
static void str_rename(struct model_regions *r, uint32_t k, const char *name)
{
    struct region_str *s = &r->strs[k];
    char *old = s->name;
    size_t len = strlen(name);

    xgrow(&r->retired, &r->retired_cap, r->nretired + 2, sizeof(*r->retired));
    r->retired[r->nretired++] = s->label; /* frames symbolized before may point at it */
    s->name = xstrdup(name);
    s->label = xmalloc(len + sizeof("[region] "));
    snprintf(s->label, len + sizeof("[region] "), "[region] %s", name);
    for (size_t i = 0; i < r->nstats; i++)
        if (r->stats[i].name == old)
            r->stats[i].name = s->name;
    if (old != s->key)
        r->retired[r->nretired++] = old;
}

/* Whether a completed span must wait for its region's name (an unresolved OpenMP site). */
static int span_held(struct model_regions *r, const struct model_region_span *sp)
{
    for (size_t i = 0; r->pending && i < r->nstrs; i++)
        if (r->strs[i].site_pc && r->strs[i].name == sp->name) {
            xgrow(&r->held, &r->held_cap, r->nheld + 1, sizeof(*r->held));
            r->held[r->nheld++] = *sp;
            return 1;
        }
    return 0;
}

/* "omp parallel FUNCTION (FILE:LINE)" for an OpenMP site whose frames are fr[0..n) (the
 * innermost is where the construct is written). */
static void site_name(const struct sym_frame *fr, int n, char *buf, size_t cap)
{
    const char *file = fr[0].file ? strrchr(fr[0].file, '/') : NULL;

    file = file ? file + 1 : fr[0].file;
    (void)n;
    if (file && fr[0].line)
        snprintf(buf, cap, "omp parallel %s (%s:%d)", fr[0].function, file, fr[0].line);
    else
        snprintf(buf, cap, "omp parallel %s", fr[0].function);
}

/* Resolve string k's OpenMP site: 1 when named (now or before), 0 while the file of its
 * address is being loaded and not final. The spans held for it go to the sink. */
static int site_resolve(struct model *m, struct model_regions *r, uint32_t k, int final)
{
    struct region_str *s = &r->strs[k];
    struct sym_frame fr[16];
    char name[ROCSYS_REGION_NAME_MAX + 200];
    const char *old;
    size_t kept = 0;
    int n;

    if (!s->site_pc)
        return 1;
    n = symbolizer_lookup(model_symbolizer(m), s->site_pid, s->site_pc, 1, fr, 16);
    if (n < 0 && !final)
        return 0;
    if (n > 0 && fr[0].function)
        site_name(fr, n, name, sizeof(name));
    else /* no module covers it: the address stays */
        snprintf(name, sizeof(name), "omp parallel %#llx", (unsigned long long)s->site_pc);
    old = s->name;
    s->site_pc = 0;
    r->pending--;
    str_rename(r, k, name);
    s = &r->strs[k];
    for (size_t i = 0; i < r->nheld; i++) {
        struct model_region_span sp = r->held[i];
        if (sp.name == old) {
            sp.name = s->name;
            if (r->sink)
                r->sink(r->sink_ctx, &sp);
        } else
            r->held[kept++] = sp;
    }
    r->nheld = kept;
    return 1;
}

void model_regions_resolve(struct model *m, int final)
{
    struct model_regions *r = m->regions;

    for (size_t k = 0; r && r->pending && k < r->nstrs; k++)
        site_resolve(m, r, (uint32_t)k, final);
}

/* Key of (pid, id) in id_map. */
static uint64_t id_key(uint32_t pid, uint32_t id)
{
    return hashmap_mix(((uint64_t)pid << 32) ^ id ^ 0x5bd1e995ull);
}

/* String index of (pid, id), or -1 when its name is unknown. */
static int64_t str_of(struct model_regions *r, uint32_t pid, uint32_t id)
{
    uint32_t *slot = hashmap_slot(&r->id_map, id_key(pid, id), 0);
    return slot && *slot ? (int64_t)*slot - 1 : -1;
}

/* String index of (pid, id), a "#ID" placeholder when its name is unknown. */
static uint32_t str_of_or_placeholder(struct model_regions *r, uint32_t pid, uint32_t id)
{
    int64_t s = str_of(r, pid, id);
    char buf[32];

    if (s >= 0)
        return (uint32_t)s;
    snprintf(buf, sizeof(buf), "#%u", (unsigned)id);
    return str_intern(r, buf);
}

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* A Kokkos kernel without a label is named by its functor's type (typeid's mangled name, e.g.
 * "Z4mainEUliE_"): "Kokkos::parallel_for main::{lambda(int)#1}" in buf; else name itself. */
static const char *kokkos_demangled(const char *name, char *buf, size_t cap)
{
    static const char *const kinds[] = {"Kokkos::parallel_for ", "Kokkos::parallel_reduce ",
                                        "Kokkos::parallel_scan "};
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        size_t n = strlen(kinds[k]), len;
        const char *t = name + n;
        if (strncmp(name, kinds[k], n) != 0 || (t[0] != 'N' && t[0] != 'Z'))
            continue;
        len = strlen(t);
        if (len < 4 || (t[len - 1] != 'E' && t[len - 1] != '_') || !strpbrk(t, "0123456789"))
            return name;
        int status = -1;
        char *d = __cxa_demangle(t, NULL, NULL, &status);
        if (status == 0 && d)
            snprintf(buf, cap, "%s%s", kinds[k], d);
        free(d);
        return status == 0 ? buf : name;
    }
    return name;
}

void model_region_name(struct model *m, uint32_t pid, uint32_t id, const char *name)
{
    struct model_regions *r = regions(m);
    char demangled[ROCSYS_REGION_NAME_MAX + 400];
    uint32_t s = str_intern(r, kokkos_demangled(name, demangled, sizeof(demangled)));
    *hashmap_slot(&r->id_map, id_key(pid, id), 1) = s + 1;
}

const char *model_region_name_of(struct model *m, uint32_t pid, uint32_t id)
{
    struct model_regions *r = regions(m);
    uint32_t s = str_of_or_placeholder(r, pid, id); /* may move r->strs: first */

    return r->strs[s].name;
}

void model_regions_set_sink(struct model *m, model_region_span_fn fn, void *ctx)
{
    struct model_regions *r = regions(m);
    r->sink = fn;
    r->sink_ctx = ctx;
}

/* The open-region stack of (pid, tid), created if new. */
static struct region_thread *thread_of(struct model_regions *r, uint32_t pid, uint32_t tid)
{
    uint64_t key = hashmap_mix(((uint64_t)pid << 32) | tid);
    uint32_t *slot = hashmap_slot(&r->thread_map, key, 1);

    if (*slot == 0) {
        xgrow(&r->threads, &r->thread_cap, r->nthreads + 1, sizeof(*r->threads));
        memset(&r->threads[r->nthreads], 0, sizeof(r->threads[0]));
        r->threads[r->nthreads].pid = pid;
        r->threads[r->nthreads].tid = tid;
        *slot = (uint32_t)++r->nthreads;
    }
    return &r->threads[*slot - 1];
}

/* Statistics entry of (thread index, string index), created if new. */
static uint32_t stats_of(struct model_regions *r, uint32_t thread, uint32_t str)
{
    uint64_t key = hashmap_mix(((uint64_t)thread << 32) ^ str ^ 0x9e3779b9ull);
    uint32_t *slot = hashmap_slot(&r->stats_map, key, 1);

    if (*slot == 0) {
        xgrow(&r->stats, &r->stats_cap, r->nstats + 1, sizeof(*r->stats));
        struct model_region_stats *s = &r->stats[r->nstats];
        memset(s, 0, sizeof(*s));
        s->name = r->strs[str].name;
        s->thread = (int)thread;
        *slot = (uint32_t)++r->nstats;
    }
    return *slot - 1;
}

/* Add one completed instance of duration_ns to s. */
static void stats_add(struct model_region_stats *s, uint64_t duration_ns)
{
    double d = (double)duration_ns, delta;

    if (s->count == 0 || duration_ns < s->min_ns)
        s->min_ns = duration_ns;
    if (duration_ns > s->max_ns)
        s->max_ns = duration_ns;
    s->count++;
    s->total_ns += duration_ns;
    delta = d - s->mean_ns;
    s->mean_ns += delta / (double)s->count;
    s->m2_ns2 += delta * (d - s->mean_ns);
}

double model_region_stddev_ns(const struct model_region_stats *s)
{
    return s->count ? sqrt(s->m2_ns2 / (double)s->count) : 0.0;
}

/* Complete the innermost open region of t at end_ns: statistics, then the sink. */
static void complete_top(struct model_regions *r, struct region_thread *t, uint64_t end_ns,
                         int at_exit)
{
    struct open_region *o = &t->stack[--t->n];
    struct model_region_stats *s = &r->stats[o->stats];
    uint64_t d = end_ns > o->begin_ns ? end_ns - o->begin_ns : 0;

    if (s->open)
        s->open--;
    if (r->sum.open)
        r->sum.open--;
    stats_add(s, d);
    if (at_exit) {
        s->closed_at_exit++;
        r->sum.closed_at_exit++;
    }
    if (r->sink) {
        struct model_region_span span = {.pid = t->pid,
                                         .tid = t->tid,
                                         .name = s->name,
                                         .begin_ns = o->begin_ns,
                                         .end_ns = o->begin_ns + d,
                                         .closed_at_exit = at_exit};
        if (!span_held(r, &span))
            r->sink(r->sink_ctx, &span);
    }
}

void model_region_begin(struct model *m, uint32_t pid, uint32_t tid, uint32_t id, uint32_t depth,
                        uint64_t time_ns)
{
    struct model_regions *r = regions(m);
    uint32_t thread = model_thread_discover(m, pid, tid, time_ns);
    uint32_t str = str_of_or_placeholder(r, pid, id);
    struct region_thread *t = thread_of(r, pid, tid);

    /* a BEGIN at a level that is open already: the END of the open one was lost */
    while (t->n && t->stack[t->n - 1].depth >= depth)
        complete_top(r, t, time_ns, 0);
    xgrow(&t->stack, &t->cap, t->n + 1, sizeof(*t->stack));
    t->stack[t->n] = (struct open_region){
        .id = id, .depth = depth, .begin_ns = time_ns, .stats = stats_of(r, thread, str)};
    r->stats[t->stack[t->n].stats].open++;
    r->sum.open++;
    t->n++;
}

void model_region_end(struct model *m, uint32_t pid, uint32_t tid, uint32_t id, uint32_t depth,
                      uint64_t time_ns)
{
    struct model_regions *r = regions(m);
    struct region_thread *t = thread_of(r, pid, tid);

    /* deeper regions whose END was lost end here too */
    while (t->n && t->stack[t->n - 1].depth > depth)
        complete_top(r, t, time_ns, 0);
    if (t->n && t->stack[t->n - 1].depth == depth && t->stack[t->n - 1].id == id)
        complete_top(r, t, time_ns, 0);
    /* else its BEGIN was lost (ring full): nothing to complete */
}

void model_region_range(struct model *m, uint32_t pid, uint32_t start_tid, uint32_t id,
                        uint64_t begin_ns, uint64_t end_ns)
{
    struct model_regions *r = regions(m);
    uint32_t thread = model_thread_discover(m, pid, start_tid, begin_ns);
    uint32_t str = str_of_or_placeholder(r, pid, id);
    uint32_t k = stats_of(r, thread, str); /* may move r->stats: first */
    struct model_region_stats *s = &r->stats[k];
    uint64_t d = end_ns > begin_ns ? end_ns - begin_ns : 0;

    stats_add(s, d);
    if (r->sink) {
        struct model_region_span span = {.pid = pid,
                                         .tid = start_tid,
                                         .name = s->name,
                                         .begin_ns = begin_ns,
                                         .end_ns = begin_ns + d,
                                         .range = 1};
        r->sink(r->sink_ctx, &span);
    }
}

void model_region_error(struct model *m, int kind)
{
    struct model_regions *r = regions(m);

    switch (kind) {
    case ROCSYS_REGION_ERR_UNBALANCED:
        r->sum.unbalanced_pops++;
        break;
    case ROCSYS_REGION_ERR_TOO_DEEP:
        r->sum.too_deep++;
        break;
    case ROCSYS_REGION_ERR_NAMES_FULL:
        r->sum.names_full++;
        break;
    case ROCSYS_REGION_ERR_RANGES:
        r->sum.range_errors++;
        break;
    default:
        break;
    }
}

void model_region_sampling(struct model *m, int on, int thread_only)
{
    struct model_regions *r = regions(m);

    if (!thread_only)
        r->sum.sampling_paused = !on;
}

void model_regions_thread_end(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns)
{
    struct model_regions *r = regions(m);
    uint64_t key = hashmap_mix(((uint64_t)pid << 32) | tid);
    uint32_t *slot = hashmap_slot(&r->thread_map, key, 0);

    if (!slot || *slot == 0)
        return;
    struct region_thread *t = &r->threads[*slot - 1];
    while (t->n)
        complete_top(r, t, time_ns, 1);
}

void model_regions_close(struct model *m, uint64_t now_ns, int all)
{
    struct model_regions *r = regions(m);

    for (size_t i = 0; i < r->nthreads; i++) {
        struct region_thread *t = &r->threads[i];
        uint64_t key = hashmap_mix(((uint64_t)t->pid << 32) | t->tid);
        uint32_t *slot = hashmap_slot(&m->thread_map, key, 0);
        const struct model_thread *th = slot && *slot ? &m->threads[*slot - 1] : NULL;
        uint64_t end = now_ns;

        if (!t->n)
            continue;
        if (th && !th->alive && th->end_ns) /* ended (or its process did): at its end */
            end = th->end_ns;
        else if (!all)
            continue;
        while (t->n)
            complete_top(r, t, end, 1);
    }
}

void model_region_mark(struct model *m)
{
    regions(m)->sum.marks++;
}

void model_region_completed(struct model *m, const struct model_region_span *sp)
{
    struct model_regions *r = regions(m);
    uint32_t thread = model_thread_discover(m, sp->pid, sp->tid, sp->begin_ns);
    uint32_t str = str_intern(r, sp->name), idx = stats_of(r, thread, str);
    struct model_region_stats *s = &r->stats[idx]; /* after stats_of: it may move the table */

    stats_add(s, sp->end_ns > sp->begin_ns ? sp->end_ns - sp->begin_ns : 0);
    if (sp->closed_at_exit) {
        s->closed_at_exit++;
        r->sum.closed_at_exit++;
    }
}

void model_regions_clear(struct model *m)
{
    struct model_regions *r = m->regions;

    if (!r)
        return;
    /* names stay (views' rows point at them); statistics and open instances go */
    r->nstats = 0;
    hashmap_free(&r->stats_map);
    for (size_t i = 0; i < r->nthreads; i++)
        r->threads[i].n = 0;
    memset(&r->sum, 0, sizeof(r->sum));
}

const struct model_region_stats *model_regions_stats(const struct model *m, int *count)
{
    *count = m->regions ? (int)m->regions->nstats : 0;
    return m->regions ? m->regions->stats : NULL;
}

void model_regions_summary(const struct model *m, struct model_regions_summary *out)
{
    if (m->regions)
        *out = m->regions->sum;
    else
        memset(out, 0, sizeof(*out));
}

int model_regions_frame(struct model *m, uint32_t pid, uint64_t pc, int final_try,
                        struct sym_frame *out)
{
    struct model_regions *r;
    int64_t s;
    uint32_t id = (uint32_t)(pc & 0xffffffffu);

    if (!ROCSYS_IS_REGION_FRAME(pc))
        return 0;
    r = regions(m);
    s = str_of(r, pid, id);
    if (s >= 0 && !site_resolve(m, r, (uint32_t)s, 0))
        return -1; /* an OpenMP site whose file is being loaded: waits, as such files' frames */
    if (s < 0 && !final_try)
        return -1;
    if (s < 0)
        s = str_of_or_placeholder(r, pid, id);
    memset(out, 0, sizeof(*out));
    out->function = r->strs[s].label;
    out->module = region_module;
    return 1;
}
