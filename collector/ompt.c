/* OpenMP through the OMPT tool interface (OpenMP 5.x, LLVM's libomp): the runtime looks up
 * ompt_start_tool in the loaded libraries when it initializes, and the preloaded collector
 * defines it. Nothing runs before the runtime calls us: a program without OpenMP pays nothing.
 *
 * A parallel region is a user region (ROCSYS_REGION_SRC_OMPT) named after its codeptr_ra, which
 * the front end symbolizes: on the encountering thread from parallel begin to end, on every
 * other thread of the team from its implicit task's begin to its arrival at the region's closing
 * barrier. The team's shared record (one slot per region in flight, parallel_data->ptr) gets each
 * thread's start, its waits inside the region (barriers, task waits) and its arrival at the
 * closing barrier; at parallel end the encountering thread sums them into one OMP_PARALLEL record
 * (work per thread = its time in the region minus its waits: the imbalance across threads).
 *
 * libomp 14 reports the closing barrier and a worksharing construct's barrier with the same kind
 * (barrier_implicit); a worksharing construct's ends (work callback) just before its barrier, so
 * an implicit barrier that follows no such end is the closing one (OpenMP 5.1 runtimes say it by
 * the kind). Should a guess be wrong (a nowait construct), the closing barrier is still the last
 * one a thread begins in the region, and its wait ends outside it (parallel_data NULL).
 *
 * Every wait (sync region wait begin to end) is a wait leaf (protocol.h, ROCSYS_WAIT_OMP, id =
 * the sync region's kind): the thread's samples meanwhile end in "[omp wait] explicit barrier",
 * ..., cut at the innermost run of the runtime's frames (collector_wait_frames), except while it
 * runs a task the runtime gave it meanwhile (task_schedule: that is work). libomp ends a
 * worker's wait in the closing barrier only when the next region forks (it idles in that state
 * between regions): the encountering thread ends the workers' waits at parallel end, when the
 * team has joined. The types below mirror omp-tools.h (OpenMP 5.1) for the entry points used. */
#define _GNU_SOURCE
#include "collector.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef union {
    uint64_t value;
    void *ptr;
} omp_data_t;
typedef void (*omp_fn_t)(void);
typedef omp_fn_t (*omp_lookup_t)(const char *name);
typedef int (*omp_set_callback_t)(int event, omp_fn_t callback);
typedef int (*omp_initialize_t)(omp_lookup_t lookup, int initial_device, omp_data_t *tool_data);
typedef void (*omp_finalize_t)(omp_data_t *tool_data);
struct omp_start_tool_result {
    omp_initialize_t initialize;
    omp_finalize_t finalize;
    omp_data_t tool_data;
};

/* ompt_callbacks_t, ompt_scope_endpoint_t, ompt_sync_region_t, ompt_task_flag_t */
enum {
    OMP_CB_PARALLEL_BEGIN = 3,
    OMP_CB_PARALLEL_END = 4,
    OMP_CB_TASK_SCHEDULE = 6,
    OMP_CB_IMPLICIT_TASK = 7,
    OMP_CB_SYNC_REGION_WAIT = 16,
    OMP_CB_WORK = 20,
    OMP_CB_SYNC_REGION = 23,
};
enum { OMP_SCOPE_BEGIN = 1, OMP_SCOPE_END = 2 };
enum {
    OMP_SYNC_BARRIER = 1,
    OMP_SYNC_BARRIER_IMPLICIT = 2,
    OMP_SYNC_BARRIER_EXPLICIT = 3,
    OMP_SYNC_BARRIER_IMPLEMENTATION = 4,
    OMP_SYNC_TASKWAIT = 5,
    OMP_SYNC_TASKGROUP = 6,
    OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE = 8,
    OMP_SYNC_BARRIER_IMPLICIT_PARALLEL = 9,
};
#define OMP_TASK_INITIAL 1

#define TEAMS        64  /* parallel regions in flight at once per process (nested ones too) */
#define TEAM_THREADS 256 /* threads of a team accounted (the others are not counted) */
#define NEST         8   /* nested parallel regions a thread follows */

/* One thread of a team, written by that thread, read by the encountering one at the end. */
struct member {
    uint64_t start_ns;    /* its implicit task began */
    uint64_t arrive_ns;   /* it began the region's last implicit barrier (0: not yet) */
    uint64_t wait_ns;     /* barrier waits that ended inside the region */
    uint64_t taskwait_ns; /* task waits */
    uint32_t present;
    uint32_t tid;                  /* its thread id */
    volatile uint64_t *wait_frame; /* its collector_tls.wait_frame */
};

/* One parallel region in flight. */
struct team {
    _Atomic int used;
    uint32_t id;           /* region name id */
    uint64_t begin_ns;     /* parallel begin */
    _Atomic uint32_t size; /* members: highest index seen + 1 */
    struct member m[TEAM_THREADS];
};

/* A thread's place in the teams it is in, innermost last. */
struct omp_thread {
    struct {
        struct team *team;
        uint32_t index;
        uint32_t id;
        uint64_t barrier_begin_ns; /* its last implicit barrier's begin */
        int region_open;           /* a worker's region is pushed */
        int work_ended;            /* a worksharing construct just ended: its barrier follows */
    } nest[NEST];
    uint32_t depth;
    uint64_t wait_begin_ns; /* the wait in progress began */
    /* the waits it is in, innermost last (a task run inside a wait may wait in turn), each with
     * the tasks it had begun running then: it waits while it runs no task begun since */
    struct {
        uint64_t frame; /* ROCSYS_WAIT_FRAME of the wait */
        uint32_t tasks;
    } waits[NEST];
    uint32_t nwaits;     /* may exceed NEST: the deeper ones are not followed */
    uint32_t tasks;      /* explicit tasks begun and not completed on this thread */
    uint64_t wait_frame; /* the wait leaf it set (0: none) */
};

struct omp_start_tool_result *ompt_start_tool(unsigned int omp_version,
                                              const char *runtime_version);

static struct team teams[TEAMS];
static __thread struct omp_thread ot __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t team_hint;

/* A free team slot, or NULL when TEAMS regions are in flight. */
static struct team *team_claim(void)
{
    uint32_t start = atomic_fetch_add_explicit(&team_hint, 1, memory_order_relaxed);

    for (uint32_t k = 0; k < TEAMS; k++) {
        struct team *t = &teams[(start + k) % TEAMS];
        int expect = 0;
        if (atomic_compare_exchange_strong(&t->used, &expect, 1))
            return t;
    }
    return NULL;
}

/* The innermost team entry of the calling thread, or NULL. */
static __typeof__(&ot.nest[0]) top(void)
{
    return ot.depth && ot.depth <= NEST ? &ot.nest[ot.depth - 1] : NULL;
}

/* Parallel begin, on the encountering thread: claim a team, push the region. */
static void on_parallel_begin(omp_data_t *task, const void *frame, omp_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    char name[64];
    struct team *t;
    uint64_t now;

    (void)task, (void)frame, (void)requested, (void)flags;
    parallel->ptr = NULL;
    if (!collector_g.enabled || !(t = team_claim()))
        return;
    snprintf(name, sizeof(name), "%s%u:%#llx", ROCSYS_OMP_NAME_PREFIX, (unsigned)collector_g.pid,
             (unsigned long long)(uintptr_t)codeptr);
    now = collector_now_ns();
    t->id = collector_region_id(name);
    t->begin_ns = now;
    atomic_store_explicit(&t->size, 0, memory_order_relaxed);
    parallel->ptr = t;
    collector_region_push_id(t->id, ROCSYS_REGION_SRC_OMPT, now);
}

/* The wait leaf frame *slot ends at time_ns if it is still expected (a thread's own, or a
 * worker's in the closing barrier ended by the encountering thread: tid); the perf engine is
 * told (WAIT_END). */
static void wait_leaf_end(volatile uint64_t *slot, uint64_t expected, uint32_t tid,
                          uint64_t time_ns)
{
    if (!expected ||
        !__atomic_compare_exchange_n(slot, &expected, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    if (collector_g.no_timer && collector_g.enabled) {
        struct rocsys_rec_wait_end r = {.h = {.type = ROCSYS_REC_WAIT_END, .size = sizeof(r)},
                                        .tid = tid,
                                        .kind = ROCSYS_WAIT_OMP,
                                        .time_ns = time_ns};
        collector_write_any(&r);
    }
}

/* The calling thread's wait leaf as its waits and tasks say at time now: its innermost wait's,
 * unless it runs a task begun since (libomp runs queued tasks while a thread waits in a barrier
 * or a task wait: that is work). Set only outside another wait (a HIP or MPI call's). */
static void wait_leaf_update(uint64_t now)
{
    uint64_t want = 0;
    uint32_t n = ot.nwaits < NEST ? ot.nwaits : NEST;

    if (n && n == ot.nwaits && ot.waits[n - 1].tasks == ot.tasks)
        want = ot.waits[n - 1].frame;
    if (want == ot.wait_frame)
        return;
    wait_leaf_end(&collector_tls.wait_frame, ot.wait_frame, 0, now);
    ot.wait_frame = 0;
    if (want && collector_g.enabled && !collector_tls.wait_frame) {
        collector_wait_begin(ROCSYS_WAIT_OMP, ROCSYS_WAIT_FRAME_ID(want), now);
        ot.wait_frame = want;
    }
}

/* Parallel end, on the encountering thread once the team has joined: the record, the pop. */
static void on_parallel_end(omp_data_t *parallel, omp_data_t *task, int flags, const void *codeptr)
{
    struct team *t = parallel ? parallel->ptr : NULL;
    struct rocsys_rec_omp_parallel rec = {
        .h = {.type = ROCSYS_REC_OMP_PARALLEL, .size = sizeof(rec)}};
    uint32_t n;

    (void)task, (void)flags, (void)codeptr;
    if (!t)
        return;
    rec.end_ns = collector_now_ns();
    rec.id = t->id;
    rec.begin_ns = t->begin_ns;
    n = atomic_load_explicit(&t->size, memory_order_acquire);
    for (uint32_t i = 0; i < n && i < TEAM_THREADS; i++) {
        struct member *m = &t->m[i];
        uint64_t arrive = __atomic_load_n(&m->arrive_ns, __ATOMIC_ACQUIRE), work;
        if (!__atomic_load_n(&m->present, __ATOMIC_ACQUIRE))
            continue;
        if (!arrive || arrive > rec.end_ns)
            arrive = rec.end_ns;
        work = arrive > m->start_ns ? arrive - m->start_ns : 0;
        work -= m->wait_ns + m->taskwait_ns < work ? m->wait_ns + m->taskwait_ns : work;
        rec.nthreads++;
        rec.work_sum_ns += work;
        if (work > rec.work_max_ns)
            rec.work_max_ns = work;
        rec.barrier_ns += m->wait_ns + (rec.end_ns - arrive);
        rec.taskwait_ns += m->taskwait_ns;
        if (i && m->wait_frame) { /* a worker waits in the closing barrier until now */
            uint64_t w = *m->wait_frame;
            if (ROCSYS_IS_WAIT_FRAME(w) && ROCSYS_WAIT_FRAME_KIND(w) == ROCSYS_WAIT_OMP)
                wait_leaf_end(m->wait_frame, w, m->tid, rec.end_ns);
        }
        memset(m, 0, sizeof(*m));
    }
    if (collector_g.enabled) { /* the region pushed at parallel begin (counted only if no id) */
        collector_region_pop_at(ROCSYS_REGION_SRC_OMPT, rec.end_ns);
        if (rec.id) /* a thread without a ring yet claims one, as its regions do */
            collector_tls.ring.ctl ? collector_write_normal(&rec) : collector_write_any(&rec);
    }
    parallel->ptr = NULL;
    atomic_store_explicit(&t->used, 0, memory_order_release);
}

/* Close a worker's region at its arrival at the closing barrier. */
static void worker_close(__typeof__(&ot.nest[0]) e)
{
    if (e->region_open && collector_g.enabled)
        collector_region_pop_at(ROCSYS_REGION_SRC_OMPT,
                                e->barrier_begin_ns ? e->barrier_begin_ns : collector_now_ns());
    e->region_open = 0;
}

/* Implicit task begin / end, on every thread of the team. */
static void on_implicit_task(int endpoint, omp_data_t *parallel, omp_data_t *task,
                             unsigned int actual, unsigned int index, int flags)
{
    (void)task, (void)actual;
    if (flags & OMP_TASK_INITIAL)
        return;
    if (endpoint == OMP_SCOPE_BEGIN) {
        struct team *t = parallel ? parallel->ptr : NULL;
        uint64_t now = collector_now_ns();
        uint32_t d = ot.depth++;

        if (d >= NEST)
            return;
        ot.nest[d].team = t;
        ot.nest[d].index = index;
        ot.nest[d].id = t ? t->id : 0;
        ot.nest[d].barrier_begin_ns = 0;
        ot.nest[d].region_open = 0;
        ot.nest[d].work_ended = 0;
        if (!t || !collector_g.enabled)
            return;
        if (index < TEAM_THREADS) {
            struct member *m = &t->m[index];
            m->start_ns = now;
            m->arrive_ns = 0;
            m->wait_ns = m->taskwait_ns = 0;
            m->tid = collector_tls.tid ? collector_tls.tid : collector_gettid();
            m->wait_frame = &collector_tls.wait_frame;
            __atomic_store_n(&m->present, 1, __ATOMIC_RELEASE);
            uint32_t size = atomic_load_explicit(&t->size, memory_order_relaxed);
            while (size < index + 1 &&
                   !atomic_compare_exchange_weak_explicit(
                       &t->size, &size, index + 1, memory_order_release, memory_order_relaxed))
                ;
        }
        if (index != 0) { /* the encountering thread's region is open since parallel begin */
            collector_region_push_id(ot.nest[d].id, ROCSYS_REGION_SRC_OMPT, now);
            ot.nest[d].region_open = 1;
        }
        return;
    }
    if (ot.depth == 0)
        return;
    if (ot.depth <= NEST)
        worker_close(&ot.nest[ot.depth - 1]);
    ot.depth--;
}

/* Whether kind is a barrier the region's threads wait in. */
static int is_barrier(int kind)
{
    return kind == OMP_SYNC_BARRIER || kind == OMP_SYNC_BARRIER_IMPLICIT ||
           kind == OMP_SYNC_BARRIER_EXPLICIT || kind == OMP_SYNC_BARRIER_IMPLEMENTATION ||
           kind == OMP_SYNC_BARRIER_IMPLICIT_WORKSHARE ||
           kind == OMP_SYNC_BARRIER_IMPLICIT_PARALLEL;
}

/* Sync region begin: an implicit barrier's begin may be the thread's arrival at the end. */
static void on_sync_region(int kind, int endpoint, omp_data_t *parallel, omp_data_t *task,
                           const void *codeptr)
{
    __typeof__(&ot.nest[0]) e = top();

    (void)task, (void)codeptr;
    if (endpoint != OMP_SCOPE_BEGIN || !e || !e->team || !parallel || parallel->ptr != e->team)
        return;
    if (kind == OMP_SYNC_BARRIER_IMPLICIT || kind == OMP_SYNC_BARRIER_IMPLICIT_PARALLEL ||
        kind == OMP_SYNC_BARRIER) {
        int closing = kind == OMP_SYNC_BARRIER_IMPLICIT_PARALLEL || !e->work_ended;
        e->work_ended = 0;
        e->barrier_begin_ns = collector_now_ns();
        if (e->index < TEAM_THREADS)
            __atomic_store_n(&e->team->m[e->index].arrive_ns, e->barrier_begin_ns,
                             __ATOMIC_RELEASE);
        if (closing) /* a worker's region ends at its arrival: the wait is outside it */
            worker_close(e);
    }
}

/* Work end (a worksharing construct of the thread's team): an implicit barrier follows. */
static void on_work(int wstype, int endpoint, omp_data_t *parallel, omp_data_t *task,
                    uint64_t count, const void *codeptr)
{
    __typeof__(&ot.nest[0]) e = top();

    (void)wstype, (void)parallel, (void)task, (void)count, (void)codeptr;
    if (e && endpoint == OMP_SCOPE_END)
        e->work_ended = 1;
}

/* Sync region wait begin / end: a wait that ends inside the region is counted for the thread;
 * the closing barrier's ends outside (parallel_data NULL): the worker's region closes. */
static void on_sync_region_wait(int kind, int endpoint, omp_data_t *parallel, omp_data_t *task,
                                const void *codeptr)
{
    __typeof__(&ot.nest[0]) e = top();
    uint64_t now = collector_now_ns(), d;

    (void)task, (void)codeptr;
    if (endpoint == OMP_SCOPE_BEGIN) {
        ot.wait_begin_ns = now;
        if (ot.nwaits < NEST) {
            ot.waits[ot.nwaits].frame = ROCSYS_WAIT_FRAME(
                ROCSYS_WAIT_OMP, kind > 0 && kind < ROCSYS_OMP_WAIT_IDS ? kind : 0);
            ot.waits[ot.nwaits].tasks = ot.tasks;
        }
        ot.nwaits++;
        wait_leaf_update(now);
        return;
    }
    if (ot.nwaits)
        ot.nwaits--;
    wait_leaf_end(&collector_tls.wait_frame, ot.wait_frame, 0, now); /* back at work */
    ot.wait_frame = 0;
    if (!e)
        return;
    if (!parallel || !parallel->ptr || kind == OMP_SYNC_BARRIER_IMPLICIT_PARALLEL) {
        worker_close(e); /* the closing barrier's wait: counted from the arrival at the end */
        ot.wait_begin_ns = 0;
        return;
    }
    if (parallel->ptr != e->team || e->index >= TEAM_THREADS || !ot.wait_begin_ns)
        return;
    d = now > ot.wait_begin_ns ? now - ot.wait_begin_ns : 0;
    if (is_barrier(kind)) {
        e->team->m[e->index].wait_ns += d;
        e->barrier_begin_ns = 0; /* that barrier was not the closing one */
        __atomic_store_n(&e->team->m[e->index].arrive_ns, 0, __ATOMIC_RELEASE);
    } else if (kind == OMP_SYNC_TASKWAIT || kind == OMP_SYNC_TASKGROUP)
        e->team->m[e->index].taskwait_ns += d;
    ot.wait_begin_ns = 0;
}

/* ompt_task_status_t: the prior task completed (or will never run again on this thread) */
static int task_done(int status)
{
    return status == 1 || status == 3 || status == 4 || status == 6; /* complete, cancel,
                                                                        detach, late fulfill */
}

/* Task schedule: the thread begins (or resumes) running an explicit task, or one it ran
 * completed; inside a wait, running a task is work, not waiting. */
static void on_task_schedule(omp_data_t *prior, int prior_status, omp_data_t *next)
{
    (void)prior, (void)next;
    if (task_done(prior_status)) {
        if (ot.tasks)
            ot.tasks--;
    } else {
        ot.tasks++;
    }
    if (ot.nwaits || ot.wait_frame)
        wait_leaf_update(collector_now_ns());
}

/* The runtime initializes the tool: register the callbacks. */
static int ompt_initialize(omp_lookup_t lookup, int initial_device, omp_data_t *tool_data)
{
    omp_set_callback_t set = (omp_set_callback_t)lookup("ompt_set_callback");

    (void)initial_device, (void)tool_data;
    if (!set)
        return 0;
    collector_wait_omp_runtime((const void *)set); /* the runtime's code: where waits are cut */
    set(OMP_CB_PARALLEL_BEGIN, (omp_fn_t)on_parallel_begin);
    set(OMP_CB_PARALLEL_END, (omp_fn_t)on_parallel_end);
    set(OMP_CB_IMPLICIT_TASK, (omp_fn_t)on_implicit_task);
    set(OMP_CB_SYNC_REGION, (omp_fn_t)on_sync_region);
    set(OMP_CB_SYNC_REGION_WAIT, (omp_fn_t)on_sync_region_wait);
    set(OMP_CB_WORK, (omp_fn_t)on_work);
    set(OMP_CB_TASK_SCHEDULE, (omp_fn_t)on_task_schedule);
    collector_log("OMPT: callbacks registered");
    return 1; /* keep the tool */
}

static void ompt_finalize(omp_data_t *tool_data)
{
    (void)tool_data;
}

/* Found by the OpenMP runtime in the loaded libraries. Outside a rocsys-top session the call
 * goes on to the next definition (another tool the program or its environment loads). */
COLLECTOR_EXPORT struct omp_start_tool_result *ompt_start_tool(unsigned int omp_version,
                                                               const char *runtime_version)
{
    static struct omp_start_tool_result result = {ompt_initialize, ompt_finalize, {0}};
    typedef struct omp_start_tool_result *(*start_fn)(unsigned int, const char *);

    if (!getenv(ROCSYS_ENV_SESSION)) {
        start_fn next = (start_fn)dlsym(RTLD_NEXT, "ompt_start_tool");
        return next ? next(omp_version, runtime_version) : NULL;
    }
    collector_log("OMPT: %s (OpenMP %u)", runtime_version ? runtime_version : "?", omp_version);
    return &result;
}
