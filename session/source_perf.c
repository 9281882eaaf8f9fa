/* Perf events as a session source (the perf engine): choosing the engine, opening the events
 * on a launched target before its exec or on running processes (-p), the spool's pass over the
 * perf rings, and the decoding of their records into samples, each put in the user regions its
 * thread had open at its time (from the collector's records: a sample newer than the last
 * barrier waits for the next one). */
#define _GNU_SOURCE
#include "session/session_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "model/mpi.h"
#include "record/record.h"
#include "session/perf_python.h"

/* A small text file of /proc (one line, no newline) into buf; "" when unreadable. */
static void proc_text(const char *path, char *buf, size_t cap, int nul_to_space)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, cap - 1) : -1;

    if (fd >= 0)
        close(fd);
    n = n < 0 ? 0 : n;
    buf[n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\n' || (nul_to_space && buf[i] == '\0'))
            buf[i] = (i == n - 1) ? '\0' : ' ';
}

/* -p: name thread tid of pid in the model (once), from /proc. */
static void attached_thread(struct session *s, uint32_t pid, uint32_t tid)
{
    char path[64], name[32];

    for (size_t i = 0; i < s->nseen; i++)
        if (s->seen_tids[i] == tid)
            return;
    xgrow(&s->seen_tids, &s->seencap, s->nseen + 1, sizeof(*s->seen_tids));
    s->seen_tids[s->nseen++] = tid;
    snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
    proc_text(path, name, sizeof(name), 0);
    model_thread_start(s->m, pid, tid, name, model_clock_ns(CLOCK_MONOTONIC));
    struct record_event ev = {.type = RECORD_EV_THREAD,
                              .time_ns = model_clock_ns(CLOCK_MONOTONIC),
                              .pid = pid,
                              .tid = tid,
                              .data = name};
    record_set_event(s->rec, &ev);
}

/* 1 if process pid runs a program without the collector (so nobody announces its modules). */
static int without_collector(struct session *s, uint32_t pid)
{
    const struct model_process *p = model_process_find(s->m, pid);

    return p && p->no_collector[0];
}

/* session_perf_on_unknown_code's policy: pid's maps are read when its code at pc is unknown
 * and nobody will announce it: an attached process, one run without the collector, or the
 * launched target before its collector announces any module (the dynamic loader's start, its
 * relocations and the constructors before the collector's). Other processes keep the pc alone
 * until announced: those that never are (no room in the collector's rings) stay [unknown], as
 * session.json counts them. */
static int perf_maps_wanted(void *ctx, uint32_t pid, uint64_t pc)
{
    struct session *s = ctx;
    struct symbolizer *sym = model_symbolizer(s->m);

    if (symbolizer_has_module(sym, pid, pc))
        return 0;
    if (s->attached || without_collector(s, pid))
        return 1;
    return pid == (uint32_t)s->target.pid && !symbolizer_has_modules(sym, pid);
}

/* Whether frame k of a stack (k > 0: a return address) is the function named name. */
static int frame_is(struct symbolizer *sym, uint32_t pid, const uint64_t *frames, uint32_t k,
                    const char *name)
{
    struct sym_frame f[8];
    int nf = symbolizer_lookup(sym, pid, frames[k], k > 0, f, 8);

    return nf > 0 && f[nf - 1].function && strcmp(f[nf - 1].function, name) == 0;
}

/* Whether frame k of a stack is in an OpenMP runtime with OMPT (LLVM's libomp, Intel's
 * libiomp5). */
static int in_omp_runtime(struct symbolizer *sym, uint32_t pid, const uint64_t *frames, uint32_t k)
{
    const char *mod =
        MODEL_IS_STATE_FRAME(frames[k]) ? NULL : symbolizer_module_name(sym, pid, frames[k]);

    return mod && (strncmp(mod, "libomp", 6) == 0 || strncmp(mod, "libiomp", 7) == 0);
}

/* An OpenMP wait's sample (seen through OMPT's callbacks, no wrapper frame): the innermost run
 * of the runtime's frames and those below it become the wait leaf, as the collector's handler
 * cuts them; left as it is when no frame is the runtime's. */
static uint32_t omp_wait_frames(struct symbolizer *sym, uint32_t pid, uint64_t *frames, uint32_t n,
                                uint64_t frame)
{
    uint32_t k = 0;

    while (k < n && !in_omp_runtime(sym, pid, frames, k))
        k++;
    if (k >= n)
        return n;
    while (k + 1 < n && in_omp_runtime(sym, pid, frames, k + 1))
        k++;
    return rocsys_wait_cut(frames, n, k, frame);
}

/* A sample's frames taken while its thread waited inside a wrapped call: those up to the
 * collector's wrapper (the runtime's, the wrapper's) become the one wait leaf frame ("[gpu wait]
 * CALL", "[mpi wait] CALL"), as the collector's handler makes them. The wrapper: the first of
 * the collector's frames named as the call (the MPI wrappers are), else its first frame (a
 * runtime may call the collector's other wrappers inside the call); an MPI call whose stack
 * lacks the collector's frame (unwound by frame pointers through a library built without them)
 * is cut at the library's PMPI_NAME or MPI_NAME frame. Returns the new count. */
static uint32_t wait_frames(struct session *s, uint32_t pid, uint64_t *frames, uint32_t n,
                            uint64_t frame)
{
    struct symbolizer *sym = model_symbolizer(s->m);
    const char *name = ROCSYS_WAIT_FRAME_KIND(frame) == ROCSYS_WAIT_MPI
                           ? model_mpi_call_name(ROCSYS_WAIT_FRAME_ID(frame))
                           : NULL;
    uint32_t k = 0, first = n;

    if (ROCSYS_WAIT_FRAME_KIND(frame) == ROCSYS_WAIT_OMP) /* no wrapper: the runtime's frames */
        return omp_wait_frames(sym, pid, frames, n, frame);
    for (; k < n; k++) {
        const char *mod =
            MODEL_IS_STATE_FRAME(frames[k]) ? NULL : symbolizer_module_name(sym, pid, frames[k]);
        if (!mod || strcmp(mod, "librocsys-collector.so") != 0)
            continue;
        first = first < k ? first : k;
        if (!name || frame_is(sym, pid, frames, k, name))
            break;
    }
    if (k >= n && first >= n && name) { /* the wrapper's frame was skipped (a library without
                                           frame pointers): cut at the library's entry point */
        char pname[64];
        snprintf(pname, sizeof(pname), "P%s", name);
        for (k = 0; k < n; k++)
            if (!MODEL_IS_STATE_FRAME(frames[k]) &&
                (frame_is(sym, pid, frames, k, pname) || frame_is(sym, pid, frames, k, name)))
                break;
    }
    return rocsys_wait_cut(frames, n, k < n ? k : first, frame);
}

static void attach_python(struct session *s);
static uint64_t py_probe_ns; /* -p: when the processes were last looked at for CPython */

/* A sample of the out-of-process sampler: to the model (or deferred until its modules are
 * known) and the writers, as the collector's samples. */
static void on_perf_sample(void *ctx, uint32_t pid, uint32_t tid, uint64_t t,
                           const uint64_t *frames, uint32_t n, uint32_t weight)
{
    struct session *s = ctx;
    uint64_t all[SESSION_PERF_MAX_FRAMES + 2 + ROCSYS_MAX_PY_FRAMES + ROCSYS_REGION_DEPTH_MAX];
    int nreg;

    if (s->attached) /* no collector: threads named from /proc */
        attached_thread(s, pid, tid);
    if (s->attached && model_clock_ns(CLOCK_MONOTONIC) - py_probe_ns > 1000000000ull) {
        py_probe_ns = model_clock_ns(CLOCK_MONOTONIC); /* a process that loaded CPython since */
        attach_python(s);
    }
    n = n < SESSION_PERF_MAX_FRAMES + 2 + ROCSYS_MAX_PY_FRAMES
            ? n
            : SESSION_PERF_MAX_FRAMES + 2 + ROCSYS_MAX_PY_FRAMES;
    memcpy(all, frames, n * sizeof(*all));
    uint64_t wait = n ? session_context_wait_at(s->ctx, pid, tid, t) : 0;
    if (wait) /* waiting in a wrapped call: the runtime's frames become "[KIND wait] CALL" */
        n = wait_frames(s, pid, all, n, wait);
    /* the thread's open regions then, above its outermost frame; none while it was paused */
    nreg = session_context_at(s->ctx, pid, tid, t, all + n, ROCSYS_REGION_DEPTH_MAX);
    if (nreg < 0)
        return;
    n += (uint32_t)nreg;
    session_sample(s, pid, tid, t, all, n, weight);
}

/* Hold a spooled perf record until every record older than it has been read (records of
 * different CPUs' rings come out of time order: a thread's switch-in can be read before its
 * switch-out) and the collector's records of its time (regions, pauses) are decoded. Records
 * without a time (lost counts) are decoded at once. */
static void perf_record(struct session *s, const struct session_spool_rec *r, const uint8_t *rec)
{
    uint64_t t;
    if (session_perf_time(rec, r->len, &t) != 0) {
        session_perf_decode(s->perf, s->m, r->kind, rec, r->len, on_perf_sample, s);
        return;
    }
    session_spool_buf_append(&s->held, r, rec);
}

/* A held record: its time, its place in the held buffer, and its order of arrival. */
struct held_ref {
    uint64_t time_ns;
    size_t off, seq;
};

/* Time order; records of the same time in their order of arrival. */
static int held_cmp(const void *a, const void *b)
{
    const struct held_ref *x = a, *y = b;

    if (x->time_ns != y->time_ns)
        return x->time_ns < y->time_ns ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Decode the held perf records older than until_ns in time order, keep the others; then the
 * threads still off the CPU are accounted up to until_ns. */
static void release_held(struct session *s, uint64_t until_ns)
{
    struct session_spool_buf *b = &s->held;
    struct held_ref *refs = NULL;
    size_t n = 0, cap = 0, kept = 0, used = b->len;

    for (size_t off = 0; off + sizeof(struct session_spool_rec) <= b->len;) {
        struct session_spool_rec r;
        uint64_t t = 0;
        memcpy(&r, b->data + off, sizeof(r));
        size_t need = sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
        session_perf_time(b->data + off + sizeof(r), r.len, &t);
        if (t < until_ns) {
            xgrow(&refs, &cap, n + 1, sizeof(*refs));
            refs[n] = (struct held_ref){.time_ns = t, .off = off, .seq = n};
            n++;
        }
        off += need;
    }
    if (n > 1) /* refs is NULL when none is held */
        qsort(refs, n, sizeof(*refs), held_cmp);
    for (size_t i = 0; i < n; i++) {
        struct session_spool_rec r;
        memcpy(&r, b->data + refs[i].off, sizeof(r));
        session_perf_decode(s->perf, s->m, r.kind, b->data + refs[i].off + sizeof(r), r.len,
                            on_perf_sample, s);
    }
    free(refs);
    /* the newer ones stay, in their order */
    for (size_t off = 0; off + sizeof(struct session_spool_rec) <= b->len;) {
        struct session_spool_rec r;
        uint64_t t = 0;
        memcpy(&r, b->data + off, sizeof(r));
        size_t need = sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
        session_perf_time(b->data + off + sizeof(r), r.len, &t);
        if (t >= until_ns) {
            memmove(b->data + kept, b->data + off, need);
            kept += need;
        }
        off += need;
    }
    b->len = kept;
    session_spool_buf_fit(b, used);
    if (until_ns != UINT64_MAX)
        session_perf_advance(s->perf, s->m, until_ns, on_perf_sample, s);
}

/* -p: the attached processes still alive; when none is, the session's target is done. */
void session_check_attached(struct session *s)
{
    int alive = 0;

    for (int i = 0; i < s->npids; i++) {
        if (s->pids[i] <= 0)
            continue;
        if (kill(s->pids[i], 0) != 0 && errno == ESRCH) {
            model_proc_end(s->m, (uint32_t)s->pids[i], MODEL_PROC_EXITED, -1,
                           model_clock_ns(CLOCK_MONOTONIC));
            s->pids[i] = -s->pids[i];
            continue;
        }
        alive++;
    }
    if (alive == 0) {
        session_drain(s, 0);
        s->target_done = 1;
        s->target_end_ns = model_clock_ns(CLOCK_MONOTONIC);
        model_session(s->m)->target_done = 1;
        model_session(s->m)->end_ns = s->target_end_ns;
        snprintf(model_session(s->m)->status_text, sizeof(model_session(s->m)->status_text),
                 "ended (attached: exit status unknown)");
        if (!s->ended_by)
            s->ended_by = "the attached processes ended";
    }
}

/* Append one "; "-separated part to buf. */
static void why_add(char *buf, size_t cap, const char *part)
{
    size_t n = strlen(buf);

    if (*part && n < cap)
        snprintf(buf + n, cap - n, "%s%s", n ? "; " : "", part);
}

/* The part that says samples are of user time only. */
static void why_user_only(char *buf, size_t cap, const struct session_perf_grant *g)
{
    char part[160];

    snprintf(part, sizeof(part),
             "user-space samples only (kernel.perf_event_paranoid=%d): time in system calls is "
             "not sampled",
             g->paranoid);
    why_add(buf, cap, part);
}

void session_engine_explain(struct session *s)
{
    struct model_session *ms = model_session(s->m);
    const struct session_perf_grant *g = &s->grant;
    const char *timer = ms->timer ? ms->timer : "";
    char buf[sizeof(ms->engine_why)] = "", part[160];
    int want = 0; /* what to ask the administrator for, when the kernel took something */

    if (!s->o)
        return; /* records decoded without a live session (tests/fuzz) */
    if (s->use_perf) {
        if (s->perf && !session_perf_kernel(s->perf)) {
            why_user_only(buf, sizeof(buf), g);
            want = SESSION_PERF_FULL;
        }
    } else {
        if (s->engine_cause == SESSION_CAUSE_PYTHON && s->py_why[0]) {
            char py[sizeof(s->py_why) + 80];
            snprintf(py, sizeof(py), "a Python program: its frames are read in its threads; %s",
                     s->py_why);
            why_add(buf, sizeof(buf), py);
        } else if (s->engine_cause == SESSION_CAUSE_PYTHON)
            why_add(buf, sizeof(buf), "a Python program: its frames are read in its threads");
        else if (s->engine_cause == SESSION_CAUSE_KERNEL)
            why_add(buf, sizeof(buf), s->engine_reason);
        if (s->o->wall) {
            if (s->engine_cause == SESSION_CAUSE_KERNEL) {
                why_add(buf, sizeof(buf), "a timer signal in each thread samples instead");
                want = SESSION_PERF_FULL;
            }
        } else if (strcmp(timer, "tick") == 0 && s->o->cpu_timer != SESSION_TIMER_POSIX) {
            why_add(buf, sizeof(buf),
                    "POSIX CPU timers at the scheduler tick instead: coarse, shares biased "
                    "under load");
            want = g->timer == SESSION_PERF_DENIED ? SESSION_PERF_USER : 0;
        } else if (strstr(timer, ":u")) {
            why_user_only(buf, sizeof(buf), g);
            want = SESSION_PERF_FULL;
        }
    }
    if (s->o->causal) /* (forced by the options) */
        why_add(buf, sizeof(buf), "--causal: threads are paused in their own signal handler");
    if (want) {
        session_perf_allow_cmd(g, want, part, sizeof(part));
        why_add(buf, sizeof(buf), "to allow more: ");
        snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s", part);
    }
    snprintf(ms->engine_why, sizeof(ms->engine_why), "%s", buf);
}

/* What raises CPU samples for a --cpu-timer choice: auto is perf events. */
int session_resolve_cpu_timer(int choice)
{
    /* perf events everywhere, a VM included: POSIX CPU-time timers fire at the scheduler tick
     * and are biased under load (64/21/15 for the demo's 50/30/20 next to two busy loops,
     * tests/e2e/test_load.sh); the collector falls back to them where perf events fail */
    return choice == SESSION_TIMER_AUTO ? SESSION_TIMER_PERF : choice;
}

/* Whether a launched Python program can have its frames read from outside: the BPF walker
 * loads (kept in s->py_walker for the perf events), else why not in s->py_why. */
static int python_walker_loads(struct session *s)
{
    s->py_walker =
        perf_python_new(1000000000ull / (uint64_t)s->o->freq_hz, s->py_why, sizeof(s->py_why));
    return s->py_walker != NULL;
}

/* Choose the sampling engine (--engine) by what the kernel grants, probed with the events
 * each engine opens: perf events from outside where they open (user-space samples only at
 * perf_event_paranoid 2; wall mode needs kernel samples), for Python programs too where the BPF
 * walker reads their frames at each sample (CAP_BPF, CAP_PERFMON), else the in-target sampler
 * (also for Python programs where BPF is not permitted, their frames read in the thread, and
 * with an explicit --cpu-timer), whose CPU timer is a perf event where one opens, else a POSIX
 * CPU-time timer. -1 when --engine perf cannot be honoured (engine_why says why and what would
 * allow it). */
int session_choose_engine(struct session *s, const char *program)
{
    struct model_session *ms = model_session(s->m);
    const struct session_config *o = s->o;
    struct session_perf_grant *g = &s->grant;
    int perf_ok;

    session_perf_grant_probe(g, 1000000000ull / (uint64_t)o->freq_hz);
    perf_ok = o->wall ? g->wall_ok : g->cpu != SESSION_PERF_DENIED;
    ms->engine = "signal";
    ms->engine_why[0] = '\0';
    /* what the in-target sampler's timer will be (the samples' flags confirm it) */
    if (!o->wall && session_resolve_cpu_timer(o->cpu_timer) == SESSION_TIMER_PERF)
        ms->timer = g->timer == SESSION_PERF_FULL   ? "task-clock"
                    : g->timer == SESSION_PERF_USER ? "task-clock:u"
                                                    : "tick";
    if (!perf_ok)
        session_perf_why_not(g, o->wall, s->engine_reason, sizeof(s->engine_reason));
    if (o->engine == SESSION_ENGINE_PERF && !perf_ok) {
        session_perf_why_not_line(g, o->wall, ms->engine_why, sizeof(ms->engine_why));
        return -1;
    }
    if (o->engine == SESSION_ENGINE_SIGNAL)
        s->engine_cause = SESSION_CAUSE_ASKED; /* only what its timer loses is said */
    else if (o->engine == SESSION_ENGINE_AUTO && o->python != SESSION_PYTHON_OFF &&
             inject_program_is_python(program) && inject_python_frames_readable(program) &&
             !(perf_ok && o->cpu_timer == SESSION_TIMER_AUTO && python_walker_loads(s)))
        s->engine_cause = SESSION_CAUSE_PYTHON; /* not for a Python whose frames are not read */
    else if (o->engine == SESSION_ENGINE_AUTO && o->cpu_timer != SESSION_TIMER_AUTO)
        s->engine_cause = SESSION_CAUSE_ASKED; /* --cpu-timer names the in-target timer */
    else if (!perf_ok)
        s->engine_cause = SESSION_CAUSE_KERNEL;
    else {
        ms->engine = "perf";
        s->use_perf = 1;
        return 0; /* explained once the events are open (session_perf_before_exec) */
    }
    session_engine_explain(s);
    return 0;
}

/* A launched Python program under the perf engine: the BPF walker set on its events (inherited
 * by its threads and children) before its exec, told of each CPython process as the collector
 * announces it (session_perf_python_process); where it cannot be loaded, the reason. */
static void launch_python(struct session *s)
{
    char why[200] = "";
    struct perf_python *py;

    if (s->o->python == SESSION_PYTHON_OFF || !s->o->target_argv || !s->o->target_argv[0] ||
        !inject_program_is_python(s->o->target_argv[0]))
        return;
    py = s->py_walker; /* auto: loaded when the engine was chosen */
    s->py_walker = NULL;
    if (!py)
        py = perf_python_new(1000000000ull / (uint64_t)s->o->freq_hz, why, sizeof(why));
    if (py && session_perf_python(s->perf, py) != 0) {
        snprintf(why, sizeof(why), "the kernel refused the BPF frame walker on its perf events");
        perf_python_free(py);
        py = NULL;
    }
    if (!py && strstr(why, "CAP_BPF"))
        snprintf(why + strlen(why), sizeof(why) - strlen(why),
                 "; or --engine signal, auto's choice for Python programs where BPF is not "
                 "permitted");
    if (!py)
        model_python_refused(s->m, 0, why);
}

void session_perf_python_process(struct session *s, uint32_t pid)
{
    char why[200];
    uint32_t v;

    if (s->perf && session_perf_walker(s->perf) && perf_python_probe(pid, &v))
        (void)perf_python_add(session_perf_walker(s->perf), s->m, pid, why, sizeof(why));
}

/* inject_spawn's hook: open the perf events on the child before its exec (enabled by it). */
void session_perf_before_exec(pid_t pid, void *ctx)
{
    struct session *s = ctx;
    struct model_session *ms = model_session(s->m);
    char why[sizeof(ms->engine_why)];

    s->perf = session_perf_open(pid, s->o->wall, 1000000000ull / (uint64_t)s->o->freq_hz, 1, why,
                                sizeof(why));
    if (!s->perf) {
        snprintf(ms->engine_why, sizeof(ms->engine_why), "not sampled: %.280s", why);
        return;
    }
    session_perf_on_unknown_code(s->perf, perf_maps_wanted, s);
    s->ctx = session_context_new();
    launch_python(s);
    if (!session_perf_kernel(s->perf))
        ms->timer = "task-clock:u"; /* (wall mode needs kernel samples: never user only) */
    session_engine_explain(s);
}

/* Python frames from outside for the CPython processes among pids (at the attach, then every
 * second for those that had not loaded CPython yet): the BPF walker set on the perf events, or
 * (not permitted, not built) the reason, said on the notice line and in session.json; never
 * frames read later than their sample. */
static void attach_python(struct session *s)
{
    struct perf_python *py = session_perf_walker(s->perf);
    char why[200] = "";
    uint32_t v;

    if (s->o->python == SESSION_PYTHON_OFF ||
        model_session(s->m)->python_status == MODEL_PY_REFUSED)
        return;
    for (int i = 0; i < s->npids; i++) {
        uint32_t pid = (uint32_t)s->pids[i];
        if ((py && perf_python_covers(py, pid)) || !perf_python_probe(pid, &v))
            continue;
        if (!py) { /* the first CPython: the walker on every event */
            py = perf_python_new(1000000000ull / (uint64_t)s->o->freq_hz, why, sizeof(why));
            if (py && session_perf_python(s->perf, py) != 0) {
                snprintf(why, sizeof(why),
                         "the kernel refused the BPF frame walker on its perf events");
                perf_python_free(py);
                py = NULL;
            }
            if (!py) {
                if (strstr(why, "CAP_BPF"))
                    snprintf(why + strlen(why), sizeof(why) - strlen(why),
                             "; or start the program under rocsys-top");
                model_python_refused(s->m, v, why);
                return;
            }
        }
        (void)perf_python_add(py, s->m, pid, why, sizeof(why));
    }
}

/* -p PID[,PID...]: the processes into the model (executable, command line, modules from their
 * maps, threads), then perf events on every thread. 0, or -1 with a one-line reason in err. */
int session_attach(struct session *s, char *err, size_t errlen)
{
    struct model_session *ms = model_session(s->m);
    char path[64], exe[4096], cmd[4096], why[sizeof(ms->engine_why)];
    const char *q = s->o->pids;
    char *end;

    while (*q) {
        xgrow(&s->pids, &s->pidcap, (size_t)s->npids + 1, sizeof(*s->pids));
        s->pids[s->npids++] = (pid_t)strtol(q, &end, 10);
        q = *end ? end + 1 : end;
    }
    struct session_perf_grant *g = &s->grant;
    session_perf_grant_probe(g, 1000000000ull / (uint64_t)s->o->freq_hz);
    if (g->cpu == SESSION_PERF_DENIED || (s->o->wall && !g->wall_ok)) {
        session_perf_why_not_line(g, s->o->wall, err, errlen);
        return -1;
    }
    for (int i = 0; i < s->npids; i++) {
        snprintf(path, sizeof(path), "/proc/%d", (int)s->pids[i]);
        if (access(path, F_OK) != 0) {
            snprintf(err, errlen, "no process %d", (int)s->pids[i]);
            return -1;
        }
        if (s->pids[i] == getpid()) {
            snprintf(err, errlen, "%d is rocsys-top itself", (int)s->pids[i]);
            return -1;
        }
    }
    s->perf = session_perf_attach(s->pids, s->npids, s->o->wall,
                                  1000000000ull / (uint64_t)s->o->freq_hz, why, sizeof(why));
    if (!s->perf) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    session_perf_on_unknown_code(s->perf, perf_maps_wanted, s);
    s->use_perf = 1;
    ms->engine = "perf";
    ms->timer = s->o->wall                     ? "task-clock+switches"
                : session_perf_kernel(s->perf) ? "task-clock"
                                               : "task-clock:u";
    session_engine_explain(s);
    model_set_root_pid(s->m, (uint32_t)s->pids[0]);
    s->target.pid = s->pids[0];
    for (int i = 0; i < s->npids; i++) {
        uint32_t pid = (uint32_t)s->pids[i];
        ssize_t n;
        snprintf(path, sizeof(path), "/proc/%u/exe", pid);
        n = readlink(path, exe, sizeof(exe) - 1);
        exe[n > 0 ? n : 0] = '\0';
        snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
        proc_text(path, cmd, sizeof(cmd), 1);
        model_proc_start(s->m, pid, 0, exe, cmd, model_clock_ns(CLOCK_MONOTONIC));
        struct record_event ev = {.type = RECORD_EV_PROCESS,
                                  .time_ns = model_clock_ns(CLOCK_MONOTONIC),
                                  .pid = pid,
                                  .tid = pid,
                                  .data = exe};
        record_set_event(s->rec, &ev);
        symbolizer_load_maps(model_symbolizer(s->m), pid);
    }
    attach_python(s);
    return 0;
}

/* session_perf_pass's callback: a perf record to the spool. */
static void perf_append(void *ctx, int kind, const uint8_t *rec, uint32_t len)
{
    struct session_spool_rec r = {.source = SESSION_SRC_PERF, .kind = (uint16_t)kind, .len = len};

    session_spool_append(ctx, &r, rec);
}

/* The spool's pass (after the collector's rings): a barrier, then the perf rings. */
static void perf_pass(struct session *s, struct session_spool *sp, int check_orphans)
{
    (void)check_orphans;
    if (!s->perf || session_spool_full(sp))
        return;
    /* the collector's records committed before the pass began precede the barrier */
    struct session_spool_rec r = {
        .source = SESSION_SRC_PERF, .kind = SESSION_PERF_BARRIER, .len = 8};
    session_spool_append(sp, &r, &sp->pass_start_ns);
    session_perf_pass(s->perf, perf_append, sp);
}

/* Records stamped this long before a pass began may still be written while it reads. */
#define PERF_ORDER_SLACK_NS 1000000ull

/* A spooled perf record or barrier. A barrier is the start of a pass: the collector's records
 * before it are decoded, and every perf record older than the previous pass's start has been
 * read (each pass reads every ring to its end), so those are decoded, in time order. */
static void perf_decode(struct session *s, const struct session_spool_rec *r, const uint8_t *rec)
{
    uint64_t prev = s->barrier_ns;

    if (r->kind != SESSION_PERF_BARRIER) {
        perf_record(s, r, rec);
        return;
    }
    /* flushed (the target is done): the records of later passes are held until this drain's
     * flush; a barrier now would release from "UINT64_MAX" and account the threads still off
     * the CPU (a child that outlives the target) up to then: 2^32 periods in one sample */
    if (prev == UINT64_MAX)
        return;
    memcpy(&s->barrier_ns, rec, 8);
    if (prev > PERF_ORDER_SLACK_NS)
        release_held(s, prev - PERF_ORDER_SLACK_NS);
    if (prev > 1000000000ull) /* a record is never held a second longer than its pass */
        session_context_prune(s->ctx, prev - 1000000000ull);
}

/* The target is done: every held record now; the first time, the threads still off the CPU
 * (a child that outlives the target) are accounted up to its end, and no further. */
static void perf_flush(struct session *s)
{
    int first = s->barrier_ns != UINT64_MAX;

    s->barrier_ns = UINT64_MAX; /* nothing more will come */
    release_held(s, UINT64_MAX);
    if (first)
        session_perf_advance(s->perf, s->m,
                             s->target_end_ns ? s->target_end_ns : model_clock_ns(CLOCK_MONOTONIC),
                             on_perf_sample, s);
}

const struct session_source session_source_perf = {
    .name = "perf events",
    .pass = perf_pass,
    .decode = perf_decode,
    .flush = perf_flush,
};
