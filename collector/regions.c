/* User regions inside the target: rocsys-top's own user API (rocsys_user_*), and ROCTx and ROCm
 * Systems Profiler's user API taken over by interposition (the collector is preloaded, so its
 * definitions win over the real or stand-in libraries' with no rebuild of the program).
 *
 * Each thread keeps a fixed-depth stack of open region ids in static TLS; push and pop write
 * REGION_BEGIN / REGION_END records into the thread's ring, and the sampling handler appends the
 * open ids to each sample as pseudo-frames (reading the TLS stack only). Names are interned once
 * per process in a fixed lock-free table (slots claimed with CAS, published with a release
 * store); each thread announces a name (REGION_NAME) in its own ring before it first uses it,
 * so the front end always knows a name before the records and samples that refer to it.
 * Normal context only (except the AS-safe accessors at the end); nothing here allocates. */
#define _GNU_SOURCE
#include "collector.h"

#include <dlfcn.h>
#include <sched.h>
#include <string.h>

#include "rocsys/user.h"

/* The interposed third-party functions, as their headers declare them (roctx_range_id_t is a
 * uint64_t; rocprofsys_annotation_t * is passed through as an opaque pointer). */
int roctxRangePushA(const char *message);
int roctxRangePop(void);
void roctxMarkA(const char *message);
uint64_t roctxRangeStartA(const char *message);
void roctxRangeStop(uint64_t id);
int rocprofsys_user_push_region(const char *id);
int rocprofsys_user_pop_region(const char *id);
int rocprofsys_user_push_annotated_region(const char *id, void *annotations, size_t count);
int rocprofsys_user_pop_annotated_region(const char *id, void *annotations, size_t count);
int rocprofsys_user_start_trace(void);
int rocprofsys_user_stop_trace(void);
int rocprofsys_user_start_thread_trace(void);
int rocprofsys_user_stop_thread_trace(void);

#define NAME_SLOTS  4096u /* distinct region names per process, a power of two */
#define NAME_PROBES 256u  /* slots tried before the table counts as full */
#define RANGE_SLOTS 1024u /* start/stop ranges open at once per process, a power of two */
#define SPIN_LIMIT  100000
#define NAME_CACHE  16u /* per-thread name pointer -> id cache entries, a power of two */

enum { SLOT_EMPTY = 0, SLOT_FILLING = 1, SLOT_READY = 2 };

/* One interned name; its id is the slot index + 1. */
struct name_slot {
    _Atomic uint32_t state; /* SLOT_* */
    uint32_t len;
    uint64_t hash;
    char name[ROCSYS_REGION_NAME_MAX + 1];
};

/* One open start/stop range. */
struct range_slot {
    _Atomic uint64_t range_id; /* 0: free; UINT64_MAX: being filled */
    uint32_t name_id;
    uint32_t tid;
    uint64_t begin_ns;
};

/* Region state of one thread (static TLS: the sampling handler reads ids and depth). */
struct region_thread {
    uint32_t ids[ROCSYS_REGION_DEPTH_MAX]; /* open regions' name ids, outermost first; 0: a
                                              region whose name could not be interned */
    volatile uint32_t depth;               /* entries of ids in use */
    uint32_t overflow;                     /* pushes beyond the maximum depth not yet popped */
    volatile sig_atomic_t paused;          /* this thread stopped sampling */
    int too_deep_reported;                 /* one TOO_DEEP record per thread */
    uint64_t announced[NAME_SLOTS / 64];   /* bit id-1: REGION_NAME is in this thread's ring */
    struct {
        const char *ptr; /* a name string the thread passed before ... */
        uint32_t id;     /* ... and its id (checked against the text again at every use) */
    } cache[NAME_CACHE];
};

static struct name_slot names[NAME_SLOTS];
static struct range_slot ranges[RANGE_SLOTS];
static _Atomic uint64_t next_range_id = 1;
static volatile sig_atomic_t paused_process;
static __thread struct region_thread rt __attribute__((tls_model("initial-exec")));

/* Bytes of name to keep: at most ROCSYS_REGION_NAME_MAX, never cutting a UTF-8 sequence. */
static uint32_t name_length(const char *name)
{
    uint32_t n = 0;

    while (n < ROCSYS_REGION_NAME_MAX && name[n])
        n++;
    if (n == ROCSYS_REGION_NAME_MAX && name[n])
        while (n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80)
            n--;
    return n;
}

/* FNV-1a of len bytes, never 0. */
static uint64_t name_hash(const char *name, uint32_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (uint32_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)name[i]) * 0x100000001b3ull;
    return h ? h : 1;
}

/* Wait (bounded) until a slot another thread is filling is published; 1 if it was. */
static int slot_wait_ready(struct name_slot *s)
{
    for (int i = 0; i < SPIN_LIMIT; i++) {
        if (atomic_load_explicit(&s->state, memory_order_acquire) == SLOT_READY)
            return 1;
        if (i > 64)
            sched_yield();
    }
    return 0;
}

/* Id of name, interned on first use; 0 when the table is full. */
static uint32_t name_lookup(const char *name)
{
    uint32_t len = name_length(name);
    uint64_t hash = name_hash(name, len);
    uint32_t idx = (uint32_t)hash & (NAME_SLOTS - 1);

    for (uint32_t probe = 0; probe < NAME_PROBES; probe++, idx = (idx + 1) & (NAME_SLOTS - 1)) {
        struct name_slot *s = &names[idx];
        uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);

        if (st == SLOT_EMPTY) {
            uint32_t expect = SLOT_EMPTY;
            if (atomic_compare_exchange_strong(&s->state, &expect, SLOT_FILLING)) {
                memcpy(s->name, name, len);
                s->name[len] = '\0';
                s->len = len;
                s->hash = hash;
                atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
                return idx + 1;
            }
            st = expect;
        }
        if (st == SLOT_FILLING && !slot_wait_ready(s))
            continue;
        if (s->hash == hash && s->len == len && memcmp(s->name, name, len) == 0)
            return idx + 1;
    }
    return 0;
}

/* name_lookup through the thread's cache: a program usually passes the same string literals
 * again and again, and comparing the text is cheaper than hashing it. A cached pointer whose
 * text changed (a reused buffer) fails the comparison and is looked up again. */
static uint32_t name_id(const char *name)
{
    uint32_t slot = (uint32_t)(((uintptr_t)name >> 3) * 0x9e3779b1u) >> 28;
    uint32_t id = rt.cache[slot % NAME_CACHE].id;

    if (rt.cache[slot % NAME_CACHE].ptr == name && id) {
        const struct name_slot *s = &names[id - 1];
        if (s->len < ROCSYS_REGION_NAME_MAX && strncmp(s->name, name, s->len + 1) == 0)
            return id;
    }
    id = name_lookup(name);
    rt.cache[slot % NAME_CACHE].ptr = name;
    rt.cache[slot % NAME_CACHE].id = id;
    return id;
}

/* Write a region record: the thread's ring as the sampler uses it; a thread that has no ring
 * yet (all were taken when it started) claims one now, as its first sample would, so that its
 * regions are not lost while its later samples and its exit are counted. */
static int region_write(const void *rec)
{
    if (!collector_tls.ring.ctl)
        return collector_write_any(rec);
    return collector_write_normal(rec);
}

/* Write a REGION_BEGIN/END/MARK/ERROR or SAMPLING record into the calling thread's ring. */
static void write_region(uint16_t type, uint16_t flags, uint32_t id, uint32_t depth,
                         uint16_t source, uint64_t time_ns)
{
    struct rocsys_rec_region rec = {
        .h = {.type = type, .flags = flags, .size = sizeof(rec)},
        .id = id,
        .depth = (uint16_t)depth,
        .source = source,
        .time_ns = time_ns,
    };

    region_write(&rec);
}

/* Make sure the front end knows name id before this thread's records use it. */
static void announce(uint32_t id)
{
    union {
        struct rocsys_rec_region_name rec;
        uint8_t bytes[sizeof(struct rocsys_rec_region_name) + ROCSYS_REGION_NAME_MAX + 8];
    } u;
    const struct name_slot *s;
    uint64_t bit;

    if (id == 0)
        return;
    bit = 1ull << ((id - 1) % 64);
    if (rt.announced[(id - 1) / 64] & bit)
        return;
    s = &names[id - 1];
    memset(&u.rec, 0, sizeof(u.rec));
    u.rec.h.type = ROCSYS_REC_REGION_NAME;
    u.rec.h.size = rocsys_rec_align((uint32_t)sizeof(u.rec) + s->len);
    u.rec.id = id;
    u.rec.name_len = s->len;
    memcpy(u.bytes + sizeof(u.rec), s->name, s->len);
    if (region_write(&u.rec) == 0) /* else: retried at the next use */
        rt.announced[(id - 1) / 64] |= bit;
}

/* Push region id (0: a name that could not be interned, kept so that pops pair) on the calling
 * thread at time_ns (0: now, after its name is announced); returns its nesting level. */
static int push_at(uint32_t id, uint16_t source, uint64_t time_ns)
{
    struct region_thread *r = &rt;
    uint32_t level = r->depth + r->overflow;

    if (r->depth >= ROCSYS_REGION_DEPTH_MAX) {
        r->overflow++;
        if (!r->too_deep_reported) {
            r->too_deep_reported = 1;
            write_region(ROCSYS_REC_REGION_ERROR, ROCSYS_REGION_ERR_TOO_DEEP, 0, level, source,
                         collector_now_ns());
        }
        return (int)level;
    }
    announce(id);
    if (!time_ns)
        time_ns = collector_now_ns();
    r->ids[r->depth] = id;
    atomic_signal_fence(memory_order_seq_cst); /* the handler sees the id before the depth */
    r->depth = r->depth + 1;
    if (id)
        write_region(ROCSYS_REC_REGION_BEGIN, 0, id, level, source, time_ns);
    return (int)level;
}

/* Push a region on the calling thread; returns its nesting level (0 = outermost). */
static int region_push(const char *name, uint16_t source)
{
    uint32_t id = 0;

    if (!collector_g.enabled)
        return 0;
    if (rt.depth < ROCSYS_REGION_DEPTH_MAX) { /* else counted only: no name to intern */
        id = name_id(name ? name : "(null)");
        if (id == 0)
            write_region(ROCSYS_REC_REGION_ERROR, ROCSYS_REGION_ERR_NAMES_FULL, 0,
                         rt.depth + rt.overflow, source, collector_now_ns());
    }
    return push_at(id, source, 0);
}

/* Pop the innermost region of the calling thread at time_ns (0: now); returns its level, or -1
 * if none was open (reported as an unbalanced pop when report). */
static int pop_at(uint16_t source, uint64_t time_ns, int report)
{
    struct region_thread *r = &rt;
    uint32_t id, level;

    if (!collector_g.enabled)
        return 0;
    if (r->overflow) {
        r->overflow--;
        return (int)(r->depth + r->overflow);
    }
    if (!time_ns)
        time_ns = collector_now_ns();
    if (r->depth == 0) {
        if (report)
            write_region(ROCSYS_REC_REGION_ERROR, ROCSYS_REGION_ERR_UNBALANCED, 0, 0, source,
                         time_ns);
        return -1;
    }
    level = r->depth - 1;
    id = r->ids[level];
    r->depth = level;
    atomic_signal_fence(memory_order_seq_cst);
    if (id)
        write_region(ROCSYS_REC_REGION_END, 0, id, level, source, time_ns);
    collector_causal_progress(ROCSYS_CAUSAL_PP_REGION);
    return (int)level;
}

/* Pop the innermost region of the calling thread; returns its level, or -1 if none was open. */
static int region_pop(uint16_t source)
{
    return pop_at(source, 0, 1);
}

/* An instant mark on the calling thread. */
static void region_mark(const char *name, uint16_t source)
{
    uint32_t id;

    if (!collector_g.enabled)
        return;
    collector_causal_progress(ROCSYS_CAUSAL_PP_MARK);
    id = name_id(name ? name : "(null)");
    announce(id);
    if (id)
        write_region(ROCSYS_REC_REGION_MARK, 0, id, 0, source, collector_now_ns());
}

/* Stop or restart sampling, for the process or the calling thread only. */
static void sampling_set(int on, int thread_only, uint16_t source)
{
    if (!collector_g.enabled)
        return;
    if (thread_only)
        rt.paused = !on;
    else
        paused_process = !on;
    write_region(ROCSYS_REC_SAMPLING,
                 (uint16_t)((on ? ROCSYS_SAMPLING_ON : ROCSYS_SAMPLING_OFF) |
                            (thread_only ? ROCSYS_SAMPLING_THREAD : 0)),
                 0, 0, source, collector_now_ns());
}

/* Start a process-wide range (it may stop on another thread); returns its id (never 0). */
static uint64_t range_start(const char *name)
{
    uint64_t rid = atomic_fetch_add(&next_range_id, 1);
    uint32_t id;

    if (!collector_g.enabled)
        return rid;
    id = name_id(name ? name : "(null)");
    for (uint32_t k = 0; id && k < RANGE_SLOTS; k++) {
        struct range_slot *s = &ranges[(rid + k) & (RANGE_SLOTS - 1)];
        uint64_t expect = 0;
        if (!atomic_compare_exchange_strong(&s->range_id, &expect, UINT64_MAX))
            continue;
        s->name_id = id;
        s->tid = collector_tls.tid ? collector_tls.tid : collector_gettid();
        s->begin_ns = collector_now_ns();
        atomic_store_explicit(&s->range_id, rid, memory_order_release);
        return rid;
    }
    write_region(ROCSYS_REC_REGION_ERROR, ROCSYS_REGION_ERR_RANGES, 0, 0, ROCSYS_REGION_SRC_ROCTX,
                 collector_now_ns());
    return rid;
}

/* Stop the range rid: a REGION_RANGE record in the calling thread's ring. */
static void range_stop(uint64_t rid)
{
    uint64_t t = collector_now_ns();

    if (!collector_g.enabled)
        return;
    for (uint32_t k = 0; rid != 0 && rid != UINT64_MAX && k < RANGE_SLOTS; k++) {
        struct range_slot *s = &ranges[(rid + k) & (RANGE_SLOTS - 1)];
        if (atomic_load_explicit(&s->range_id, memory_order_acquire) != rid)
            continue;
        struct rocsys_rec_region_range rec = {
            .h = {.type = ROCSYS_REC_REGION_RANGE, .size = sizeof(rec)},
            .id = s->name_id,
            .start_tid = s->tid,
            .begin_ns = s->begin_ns,
            .end_ns = t,
        };
        uint64_t expect = rid;
        if (!atomic_compare_exchange_strong(&s->range_id, &expect, 0))
            break; /* stopped twice at once: the other stop wins */
        announce(rec.id);
        region_write(&rec);
        collector_causal_progress(ROCSYS_CAUSAL_PP_REGION);
        return;
    }
    write_region(ROCSYS_REC_REGION_ERROR, ROCSYS_REGION_ERR_RANGES, 0, 0, ROCSYS_REGION_SRC_ROCTX,
                 t);
}

/* ---- regions on behalf of a runtime's tool interface (ompt.c, kokkos.c) ---- */

uint32_t collector_region_id(const char *name)
{
    return collector_g.enabled ? name_id(name) : 0;
}

int collector_region_push_id(uint32_t id, uint16_t source, uint64_t time_ns)
{
    return collector_g.enabled ? push_at(id, source, time_ns) : 0;
}

int collector_region_pop_at(uint16_t source, uint64_t time_ns)
{
    return pop_at(source, time_ns, 0); /* a runtime's pairs are its own: no error */
}

int collector_region_push_name(const char *name, uint16_t source)
{
    return region_push(name, source);
}

int collector_region_pop(uint16_t source)
{
    return region_pop(source);
}

/* In a fork child: the front end knows no names of the new process yet. */
static void regions_after_fork_child(void)
{
    memset(rt.announced, 0, sizeof(rt.announced));
}

__attribute__((constructor)) static void regions_init(void)
{
    pthread_atfork(NULL, NULL, regions_after_fork_child);
}

/* ---- accessors for the sampling handler (AS-safe) ---- */

int collector_regions_paused(void)
{
    return paused_process || rt.paused;
}

uint32_t collector_regions_depth(void)
{
    uint32_t d = rt.depth;
    return d > ROCSYS_REGION_DEPTH_MAX ? ROCSYS_REGION_DEPTH_MAX : d;
}

uint32_t collector_regions_frames(uint64_t *out, uint32_t room)
{
    uint32_t d = collector_regions_depth(), n = 0;

    for (uint32_t i = d; i-- > 0 && n < room;)
        if (rt.ids[i])
            out[n++] = ROCSYS_REGION_FRAME(rt.ids[i]);
    return n;
}

/* ---- rocsys-top's user API (include/rocsys/user.h; librocsys-user.so has no-op stubs) ---- */

COLLECTOR_EXPORT int rocsys_user_push(const char *name)
{
    return region_push(name, ROCSYS_REGION_SRC_ROCSYS);
}

COLLECTOR_EXPORT int rocsys_user_pop(void)
{
    return region_pop(ROCSYS_REGION_SRC_ROCSYS);
}

COLLECTOR_EXPORT void rocsys_user_mark(const char *name)
{
    region_mark(name, ROCSYS_REGION_SRC_ROCSYS);
}

COLLECTOR_EXPORT void rocsys_user_begin(const char *name)
{
    (void)name;
    if (collector_g.enabled)
        collector_causal_latency(0);
}

COLLECTOR_EXPORT void rocsys_user_end(const char *name)
{
    (void)name;
    if (collector_g.enabled)
        collector_causal_latency(1);
}

COLLECTOR_EXPORT void rocsys_user_start_sampling(void)
{
    sampling_set(1, 0, ROCSYS_REGION_SRC_ROCSYS);
}

COLLECTOR_EXPORT void rocsys_user_stop_sampling(void)
{
    sampling_set(0, 0, ROCSYS_REGION_SRC_ROCSYS);
}

COLLECTOR_EXPORT int rocsys_user_active(void)
{
    return collector_g.enabled != 0;
}

/* ---- interposed third-party APIs ---- */

/* The next definition of symbol (the real or stand-in library), looked up once; for a dormant
 * collector (a process rocsys-top does not profile), which must behave as if it were absent. */
#define NEXT(type, symbol)                                                                         \
    ({                                                                                             \
        static type next_fn;                                                                       \
        if (!next_fn)                                                                              \
            next_fn = (type)dlsym(RTLD_NEXT, symbol);                                              \
        next_fn;                                                                                   \
    })

typedef int (*str_int_fn)(const char *);
typedef int (*void_int_fn)(void);
typedef void (*str_void_fn)(const char *);
typedef uint64_t (*str_u64_fn)(const char *);
typedef void (*u64_void_fn)(uint64_t);
typedef int (*annotated_fn)(const char *, void *, size_t);

/* ROCTx (rocprofiler-sdk-roctx/roctx.h): push returns the level the range starts at, pop the
 * level of the range it ended or a negative value when none was open. */
COLLECTOR_EXPORT int roctxRangePushA(const char *message)
{
    str_int_fn next;

    if (collector_g.enabled)
        return region_push(message, ROCSYS_REGION_SRC_ROCTX);
    next = NEXT(str_int_fn, "roctxRangePushA");
    return next ? next(message) : 0;
}

COLLECTOR_EXPORT int roctxRangePop(void)
{
    void_int_fn next;

    if (collector_g.enabled)
        return region_pop(ROCSYS_REGION_SRC_ROCTX);
    next = NEXT(void_int_fn, "roctxRangePop");
    return next ? next() : -1;
}

COLLECTOR_EXPORT void roctxMarkA(const char *message)
{
    str_void_fn next;

    if (collector_g.enabled) {
        region_mark(message, ROCSYS_REGION_SRC_ROCTX);
        return;
    }
    next = NEXT(str_void_fn, "roctxMarkA");
    if (next)
        next(message);
}

COLLECTOR_EXPORT uint64_t roctxRangeStartA(const char *message)
{
    str_u64_fn next;

    if (collector_g.enabled)
        return range_start(message);
    next = NEXT(str_u64_fn, "roctxRangeStartA");
    return next ? next(message) : 0;
}

COLLECTOR_EXPORT void roctxRangeStop(uint64_t id)
{
    u64_void_fn next;

    if (collector_g.enabled) {
        range_stop(id);
        return;
    }
    next = NEXT(u64_void_fn, "roctxRangeStop");
    if (next)
        next(id);
}

/* ROCm Systems Profiler's user API (rocprofiler-systems/user.h): every call returns a
 * rocprofsys_user_error_t, ROCPROFSYS_USER_SUCCESS (0) here. A pop ends the innermost region
 * whatever its name (first in, last out). Annotations are not recorded. */
#define ROCPROFSYS_SUCCESS 0

COLLECTOR_EXPORT int rocprofsys_user_push_region(const char *id)
{
    str_int_fn next;

    if (collector_g.enabled) {
        region_push(id, ROCSYS_REGION_SRC_ROCPROFSYS);
        return ROCPROFSYS_SUCCESS;
    }
    next = NEXT(str_int_fn, "rocprofsys_user_push_region");
    return next ? next(id) : ROCPROFSYS_SUCCESS;
}

COLLECTOR_EXPORT int rocprofsys_user_pop_region(const char *id)
{
    str_int_fn next;

    if (collector_g.enabled) {
        region_pop(ROCSYS_REGION_SRC_ROCPROFSYS);
        return ROCPROFSYS_SUCCESS;
    }
    next = NEXT(str_int_fn, "rocprofsys_user_pop_region");
    return next ? next(id) : ROCPROFSYS_SUCCESS;
}

COLLECTOR_EXPORT int rocprofsys_user_push_annotated_region(const char *id, void *annotations,
                                                           size_t count)
{
    annotated_fn next;

    if (collector_g.enabled) {
        region_push(id, ROCSYS_REGION_SRC_ROCPROFSYS);
        return ROCPROFSYS_SUCCESS;
    }
    next = NEXT(annotated_fn, "rocprofsys_user_push_annotated_region");
    return next ? next(id, annotations, count) : ROCPROFSYS_SUCCESS;
}

COLLECTOR_EXPORT int rocprofsys_user_pop_annotated_region(const char *id, void *annotations,
                                                          size_t count)
{
    annotated_fn next;

    if (collector_g.enabled) {
        region_pop(ROCSYS_REGION_SRC_ROCPROFSYS);
        return ROCPROFSYS_SUCCESS;
    }
    next = NEXT(annotated_fn, "rocprofsys_user_pop_annotated_region");
    return next ? next(id, annotations, count) : ROCPROFSYS_SUCCESS;
}

/* Start/stop trace: sampling of the whole process, or (thread forms) of the calling thread. */
#define ROCPROFSYS_SAMPLING(fn, on, thread_only)                                                   \
    COLLECTOR_EXPORT int fn(void)                                                                  \
    {                                                                                              \
        void_int_fn next;                                                                          \
        if (collector_g.enabled) {                                                                 \
            sampling_set(on, thread_only, ROCSYS_REGION_SRC_ROCPROFSYS);                           \
            return ROCPROFSYS_SUCCESS;                                                             \
        }                                                                                          \
        next = NEXT(void_int_fn, #fn);                                                             \
        return next ? next() : ROCPROFSYS_SUCCESS;                                                 \
    }

ROCPROFSYS_SAMPLING(rocprofsys_user_start_trace, 1, 0)
ROCPROFSYS_SAMPLING(rocprofsys_user_stop_trace, 0, 0)
ROCPROFSYS_SAMPLING(rocprofsys_user_start_thread_trace, 1, 1)
ROCPROFSYS_SAMPLING(rocprofsys_user_stop_thread_trace, 0, 1)
