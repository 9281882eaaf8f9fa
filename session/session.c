/* The front end's main loop: start the target, drain the collector's rings into the model,
 * keep the target's output (log file + tail), refresh the TUI or print batch frames, and end
 * with the target's exit status. Single-threaded, poll()-driven. */
#define _GNU_SOURCE
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/transport.h"
#include "gpu/gpu.h"
#include "model/model.h"
#include "record/record.h"
#include "tui/tui.h"

#define DRAIN_INTERVAL_MS 50
#define RING_COUNT        256             /* threads sampled at once, at most */
#define RING_BYTES        (128u * 1024u)  /* ~0.4 s of 32-frame samples at 1 kHz */
#define GPU_RING_COUNT    8               /* processes with GPU records at once, at most */
#define GPU_RING_BYTES    (1024u * 1024u) /* 13,000 dispatch records: bursts fit */
#define KILL_GRACE_MS     2000
#define OUTPUT_GRACE_MS   1000 /* after the target ended, wait this long for pipes to close */
#define DEFER_MAX_NS      300000000ull /* a sample waits this long for its module record */
/* ... and a sample with Python frames this long for its code objects' PY_CODE records, which a
 * collector whose ring is filling announces late */
#define DEFER_PY_MAX_NS 3000000000ull
#define COST_BIN_NS     25   /* sample-cost histogram: bins of 25 ns ... */
#define COST_BINS       4000 /* ... up to 100 us; slower samples land in the last bin */

/* A sample whose frames were not covered by a known module yet: retried next cycle. */
struct deferred {
    uint32_t pid, tid;
    uint64_t time_ns;
    uint64_t until_ns; /* given up on (its unknown frames stay unknown) after this */
    uint32_t n;
    uint32_t weight;
    uint64_t *frames;
};

struct session {
    const struct inject_options *o;
    struct model *m;
    struct transport tr;
    char shm_path[256];
    struct inject_target target;
    char log_path[2048];
    int sig_fd;
    struct tui *tui;
    int batch;
    int target_done;
    int exit_status;
    uint64_t target_end_ns;
    int quit;      /* leave the loop */
    int kill_sent; /* SIGTERM sent to the target, SIGKILL at kill_deadline */
    uint64_t kill_deadline;
    int hangup;           /* our terminal is gone */
    int headless;         /* recording without display: status on stderr, summary at the end */
    char rank_dir[1100];  /* MPI: DIR/rank-N */
    const char *ended_by; /* why the session ended, for session.json */
    char *files[16];      /* the recording's files, for session.json */
    int refreshes;
    /* from rings already freed (written under the spool's lock) */
    uint64_t acc_dropped, acc_cost_ns, acc_cost_n;
    uint64_t acc_dropped_events; /* of acc_dropped: records, not samples */
    uint64_t acc_waits, acc_waited_ns;
    uint64_t waits, waited_ns;  /* producers that waited for room, and how long (all rings) */
    struct session_spool spool; /* empties the rings in its own thread */
    struct session_perf *perf;  /* the out-of-process sampler, or NULL */
    int use_perf;               /* the engine is perf (the collector takes no samples) */
    int attached;               /* -p: running processes, sampled from outside only */
    pid_t *pids;                /* -p: the processes */
    int npids;
    size_t pidcap;
    uint32_t *seen_tids;   /* -p: threads already named in the model */
    uint64_t maps_read_ns; /* -p: when a process's maps were last read again */
    size_t nseen, seencap;
    struct session_context *ctx;    /* regions and pauses over time, for perf samples */
    struct session_spool_buf held;  /* perf records newer than the last barrier */
    uint64_t barrier_ns;            /* collector records before this time are decoded */
    struct session_spool_buf taken; /* what the main loop took from the spool, being decoded */
    struct deferred *def;
    size_t ndef, defcap;
    struct record_set *rec;        /* writers fed with the session's events */
    uint64_t cost_hist[COST_BINS]; /* per-sample handler cost, for the median and p99 */
    uint64_t cost_n;
    uint64_t start_cpu_ns; /* our own CPU time when the session started */
    struct {
        uint32_t pid, instance;
    } * inst;
    size_t ninst, instcap;
};

/* "SIGSEGV" for 11. */
static void signal_name(int sig, char *buf, size_t cap)
{
    const char *abbrev = sigabbrev_np(sig);
    if (abbrev)
        snprintf(buf, cap, "SIG%s", abbrev);
    else
        snprintf(buf, cap, "signal %d", sig);
}

/* Remember the newest collector instance of pid (an exec starts a new one). */
static void note_instance(struct session *s, uint32_t pid, uint32_t instance)
{
    for (size_t i = 0; i < s->ninst; i++)
        if (s->inst[i].pid == pid) {
            if (instance > s->inst[i].instance)
                s->inst[i].instance = instance;
            return;
        }
    if (s->ninst == s->instcap) {
        s->instcap = s->instcap ? s->instcap * 2 : 16;
        s->inst = xrealloc(s->inst, s->instcap * sizeof(*s->inst));
    }
    s->inst[s->ninst].pid = pid;
    s->inst[s->ninst].instance = instance;
    s->ninst++;
}

static uint32_t latest_instance(const struct session *s, uint32_t pid)
{
    for (size_t i = 0; i < s->ninst; i++)
        if (s->inst[i].pid == pid)
            return s->inst[i].instance;
    return 0;
}

/* Keep a sample for a later retry. */
static void defer_sample(struct session *s, uint32_t pid, uint32_t tid, uint64_t t,
                         const uint64_t *frames, uint32_t n, uint32_t weight)
{
    if (s->ndef == s->defcap) {
        s->defcap = s->defcap ? s->defcap * 2 : 64;
        s->def = xrealloc(s->def, s->defcap * sizeof(*s->def));
    }
    struct deferred *d = &s->def[s->ndef++];
    d->pid = pid;
    d->tid = tid;
    d->time_ns = t;
    d->until_ns = model_clock_ns(CLOCK_MONOTONIC) + DEFER_MAX_NS; /* from its arrival here */
    for (uint32_t i = 0; i < n; i++)
        if (ROCSYS_IS_PY_FRAME(frames[i])) {
            d->until_ns += DEFER_PY_MAX_NS - DEFER_MAX_NS;
            break;
        }
    d->n = n;
    d->weight = weight;
    d->frames = xmalloc(n * sizeof(*frames) + 1);
    memcpy(d->frames, frames, n * sizeof(*frames));
}

/* Hand a sample the model accepted to the writers (so that its modules are known to them). */
static void record_sample(struct session *s, uint32_t pid, uint32_t tid, uint64_t t,
                          const uint64_t *frames, uint32_t n, uint32_t weight)
{
    struct record_event ev = {.type = RECORD_EV_SAMPLE,
                              .time_ns = t,
                              .pid = pid,
                              .tid = tid,
                              .frames = frames,
                              .nframes = n,
                              .weight = weight};
    record_set_event(s->rec, &ev);
}

/* Copy a length-delimited string out of a record into a NUL-terminated buffer. */
static char *rec_string(const uint8_t *p, size_t len)
{
    char *s = xmalloc(len + 1);
    memcpy(s, p, len);
    s[len] = '\0';
    return s;
}

/* Model sink: a completed user region becomes a slice of the recording (start/stop ranges on
 * the process's "ranges" track, nested regions on their thread's own track). */
static void on_region_span(void *ctx, const struct model_region_span *sp)
{
    struct session *s = ctx;
    char args[32]; /* a range's slice is on the process's track: the thread that started it */
    snprintf(args, sizeof(args), "start_tid=%u", (unsigned)sp->tid);
    struct record_event ev = {.type = RECORD_EV_SLICE,
                              .time_ns = sp->begin_ns,
                              .end_ns = sp->end_ns,
                              .pid = sp->pid,
                              .tid = sp->tid,
                              .track = sp->range ? "ranges" : NULL,
                              .category = "region",
                              .name = sp->name,
                              .args = sp->range            ? args
                                      : sp->closed_at_exit ? "closed_at_exit=1"
                                                           : NULL};
    record_set_event(s->rec, &ev);
}

/* User-region records (collector/regions.c) into the model; marks and sampling changes become
 * instants of the recording. */
static void on_region_record(struct session *s, const struct rocsys_ring_ctl *ctl,
                             const struct rocsys_rec_header *h)
{
    const struct rocsys_rec_region *r = (const void *)h;
    struct record_event ev = {.type = RECORD_EV_INSTANT, .pid = ctl->pid, .tid = ctl->tid};

    if (h->type == ROCSYS_REC_REGION_NAME) {
        const struct rocsys_rec_region_name *n = (const void *)h;
        if (h->size < sizeof(*n) || n->name_len > ROCSYS_REGION_NAME_MAX ||
            (uint64_t)sizeof(*n) + n->name_len > h->size || n->id == 0)
            return;
        char *name = rec_string((const uint8_t *)h + sizeof(*n), n->name_len);
        model_region_name(s->m, ctl->pid, n->id, name);
        free(name);
        return;
    }
    if (h->type == ROCSYS_REC_REGION_RANGE) {
        const struct rocsys_rec_region_range *g = (const void *)h;
        if (h->size >= sizeof(*g) && g->id != 0)
            model_region_range(s->m, ctl->pid, g->start_tid, g->id, g->begin_ns, g->end_ns);
        return;
    }
    if (h->size < sizeof(*r))
        return;
    switch (h->type) {
    case ROCSYS_REC_REGION_BEGIN:
        if (r->id)
            model_region_begin(s->m, ctl->pid, ctl->tid, r->id, r->depth, r->time_ns);
        session_context_region(s->ctx, ctl->pid, ctl->tid, r->time_ns, 1, r->depth, r->id);
        break;
    case ROCSYS_REC_REGION_END:
        if (r->id)
            model_region_end(s->m, ctl->pid, ctl->tid, r->id, r->depth, r->time_ns);
        session_context_region(s->ctx, ctl->pid, ctl->tid, r->time_ns, 0, r->depth, r->id);
        break;
    case ROCSYS_REC_REGION_MARK:
        if (!r->id)
            break;
        model_region_mark(s->m);
        ev.time_ns = r->time_ns;
        ev.category = "mark";
        ev.name = model_region_name_of(s->m, ctl->pid, r->id);
        record_set_event(s->rec, &ev);
        break;
    case ROCSYS_REC_REGION_ERROR:
        model_region_error(s->m, h->flags);
        break;
    case ROCSYS_REC_SAMPLING:
        model_region_sampling(s->m, h->flags & ROCSYS_SAMPLING_ON,
                              (h->flags & ROCSYS_SAMPLING_THREAD) != 0);
        session_context_sampling(s->ctx, ctl->pid, ctl->tid, r->time_ns,
                                 (h->flags & ROCSYS_SAMPLING_ON) != 0,
                                 (h->flags & ROCSYS_SAMPLING_THREAD) != 0);
        ev.time_ns = r->time_ns;
        ev.category = "mark";
        ev.name = (h->flags & ROCSYS_SAMPLING_ON) ? "sampling started" : "sampling stopped";
        record_set_event(s->rec, &ev);
        break;
    default:
        break;
    }
}

/* A PY_CODE record: a code object's strings (CPython's raw storage) and line table. */
static void on_py_code(struct session *s, const struct rocsys_ring_ctl *ctl,
                       const struct rocsys_rec_header *h)
{
    const struct rocsys_rec_py_code *r = (const void *)h;
    const uint8_t *p = (const uint8_t *)(r + 1);
    char name[4 * ROCSYS_PY_NAME_MAX + 1], file[4 * ROCSYS_PY_NAME_MAX + 1];

    if (h->size < sizeof(*r) || r->name_len > ROCSYS_PY_NAME_MAX ||
        r->file_len > ROCSYS_PY_NAME_MAX || r->table_len > ROCSYS_PY_TABLE_MAX ||
        (uint64_t)sizeof(*r) + r->name_len + r->file_len + r->table_len > h->size ||
        r->id == ROCSYS_PY_CODE_UNKNOWN || r->id >= ROCSYS_PY_CODE_NONE)
        return;
    model_py_utf8(r->name_kind, p, r->name_len, name, sizeof(name));
    model_py_utf8(r->file_kind, p + r->name_len, r->file_len, file, sizeof(file));
    model_python_code(s->m, ctl->pid, r->id, r->first_line, r->table_kind, name, file,
                      p + r->name_len + r->file_len, r->table_len);
}

/* Transport callback: turn one record into model input. Every record is validated. */
static void on_record(void *ctx, const struct rocsys_ring_ctl *ctl,
                      const struct rocsys_rec_header *h)
{
    struct session *s = ctx;
    const uint8_t *base = (const uint8_t *)h;

    switch (h->type) {
    case ROCSYS_REC_PROC_START: {
        const struct rocsys_rec_proc_start *r = (const void *)h;
        if (h->size < sizeof(*r) || (uint64_t)sizeof(*r) + r->exe_len + r->cmdline_len > h->size)
            break;
        char *exe = rec_string(base + sizeof(*r), r->exe_len);
        char *cmd = rec_string(base + sizeof(*r) + r->exe_len, r->cmdline_len);
        for (uint32_t i = 0; i + 1 < r->cmdline_len; i++)
            if (cmd[i] == '\0')
                cmd[i] = ' ';
        note_instance(s, r->pid, r->instance);
        if (r->flags & ROCSYS_PROC_FORKED) /* same address space as the parent at fork */
            symbolizer_copy_process(model_symbolizer(s->m), r->ppid, r->pid);
        model_proc_start(s->m, r->pid, r->ppid, exe, cmd, r->time_ns);
        struct record_event ev = {.type = RECORD_EV_PROCESS,
                                  .time_ns = r->time_ns,
                                  .pid = r->pid,
                                  .tid = r->pid,
                                  .data = exe};
        record_set_event(s->rec, &ev);
        free(exe);
        free(cmd);
        break;
    }
    case ROCSYS_REC_PROC_EXIT: {
        const struct rocsys_rec_proc_exit *r = (const void *)h;
        if (h->size >= sizeof(*r) && latest_instance(s, r->pid) == r->instance)
            model_proc_end(s->m, r->pid, MODEL_PROC_EXITED, -1, r->time_ns);
        break;
    }
    case ROCSYS_REC_THREAD_START:
    case ROCSYS_REC_THREAD_NAME:
    case ROCSYS_REC_THREAD_EXIT: {
        const struct rocsys_rec_thread *r = (const void *)h;
        char name[ROCSYS_THREAD_NAME + 1];
        if (h->size < sizeof(*r))
            break;
        memcpy(name, r->name, ROCSYS_THREAD_NAME);
        name[ROCSYS_THREAD_NAME] = '\0';
        if (h->type == ROCSYS_REC_THREAD_START)
            model_thread_start(s->m, r->pid, r->tid, name, r->time_ns);
        else
            model_thread_seen(s->m, r->pid, r->tid, name, r->time_ns);
        struct record_event ev = {.type = RECORD_EV_THREAD,
                                  .time_ns = r->time_ns,
                                  .pid = r->pid,
                                  .tid = r->tid,
                                  .data = name};
        record_set_event(s->rec, &ev);
        if (h->type == ROCSYS_REC_THREAD_EXIT) {
            model_regions_thread_end(s->m, r->pid, r->tid, r->time_ns);
            model_thread_exit(s->m, r->pid, r->tid, r->time_ns);
        }
        break;
    }
    case ROCSYS_REC_MODULE: {
        const struct rocsys_rec_module *r = (const void *)h;
        if (h->size < sizeof(*r) || (uint64_t)sizeof(*r) + r->path_len > h->size ||
            r->build_id_len > ROCSYS_MAX_BUILD_ID)
            break;
        char *path = rec_string(base + sizeof(*r), r->path_len);
        model_module(s->m, r->pid, path, r->load_bias, r->start, r->end, r->build_id,
                     r->build_id_len);
        free(path);
        break;
    }
    case ROCSYS_REC_SAMPLE: {
        const struct rocsys_rec_sample *r = (const void *)h;
        if (h->size < sizeof(*r) || r->nframes > ROCSYS_MAX_FRAMES + ROCSYS_MAX_PY_FRAMES ||
            (uint64_t)sizeof(*r) + 8ull * r->nframes > h->size || r->nframes == 0)
            break;
        if (h->flags & ROCSYS_SAMPLE_TICK)
            model_session(s->m)->timer = "tick";
        else if ((h->flags & ROCSYS_SAMPLE_CYCLES) && !(h->flags & ROCSYS_SAMPLE_WALL))
            model_session(s->m)->timer = "cycles";
        if (r->cost_ns) {
            uint32_t bin = r->cost_ns / COST_BIN_NS;
            s->cost_hist[bin < COST_BINS ? bin : COST_BINS - 1]++;
            s->cost_n++;
        }
        if (h->flags & ROCSYS_SAMPLE_PYTSTATE)
            model_thread_python(s->m, ctl->pid, ctl->tid, (h->flags & ROCSYS_SAMPLE_GIL) != 0,
                                r->weight ? r->weight : 1);
        if (h->flags & ROCSYS_SAMPLE_PY_DROPPED)
            model_session(s->m)->python_unreadable += r->weight ? r->weight : 1;
        if (model_sample_weighted(s->m, ctl->pid, ctl->tid, r->time_ns, r->frames, r->nframes,
                                  r->weight ? r->weight : 1, 0) == -EAGAIN)
            defer_sample(s, ctl->pid, ctl->tid, r->time_ns, r->frames, r->nframes,
                         r->weight ? r->weight : 1);
        else
            record_sample(s, ctl->pid, ctl->tid, r->time_ns, r->frames, r->nframes,
                          r->weight ? r->weight : 1);
        break;
    }
    case ROCSYS_REC_REGION_NAME:
    case ROCSYS_REC_REGION_BEGIN:
    case ROCSYS_REC_REGION_END:
    case ROCSYS_REC_REGION_MARK:
    case ROCSYS_REC_REGION_ERROR:
    case ROCSYS_REC_REGION_RANGE:
    case ROCSYS_REC_SAMPLING:
        on_region_record(s, ctl, h);
        break;
    case ROCSYS_REC_PY_INFO: {
        const struct rocsys_rec_py_info *r = (const void *)h;
        if (h->size >= sizeof(*r))
            model_python_info(s->m, r->status, r->version_hex);
        break;
    }
    case ROCSYS_REC_PY_CODE:
        on_py_code(s, ctl, h);
        break;
    default: /* HIP and HSA records (session/kernels.c); a newer collector's record: skipped */
        session_kernels_record(s->m, s->rec, ctl, h);
        break;
    }
}

/* Whether the owner of an OWNED ring is gone (thread dead, or its process image replaced). */
static int ring_orphaned(const struct session *s, const struct rocsys_ring_ctl *c)
{
    if (syscall(SYS_tgkill, (pid_t)c->pid, (pid_t)c->tid, 0) != 0 && errno == ESRCH)
        return 1;
    return latest_instance(s, c->pid) > c->instance;
}

/* Add a ring's counters to the totals before it is freed (the spool's release callback). */
static void account_ring(void *ctx, const struct rocsys_ring_ctl *c)
{
    struct session *s = ctx;

    s->acc_dropped += atomic_load(&c->dropped_samples) + atomic_load(&c->dropped_records);
    s->acc_dropped_events += atomic_load(&c->dropped_records);
    s->acc_cost_ns += atomic_load(&c->sample_cost_ns);
    s->acc_cost_n += atomic_load(&c->cost_measured);
    s->acc_waits += atomic_load(&c->waits);
    s->acc_waited_ns += atomic_load(&c->waited_ns);
}

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

/* A sample of the out-of-process sampler: to the model (or deferred until its modules are
 * known) and the writers, as the collector's samples. */
static void on_perf_sample(void *ctx, uint32_t pid, uint32_t tid, uint64_t t,
                           const uint64_t *frames, uint32_t n, uint32_t weight)
{
    struct session *s = ctx;
    uint64_t all[ROCSYS_MAX_FRAMES + 1 + ROCSYS_REGION_DEPTH_MAX];
    int nreg;

    if (s->attached) {
        /* no collector: threads named from /proc, code loaded since read from the maps */
        attached_thread(s, pid, tid);
        if (n && !MODEL_IS_STATE_FRAME(frames[0]) &&
            !symbolizer_has_module(model_symbolizer(s->m), pid, frames[0]) &&
            model_clock_ns(CLOCK_MONOTONIC) - s->maps_read_ns > 200000000ull) {
            symbolizer_load_maps(model_symbolizer(s->m), pid);
            s->maps_read_ns = model_clock_ns(CLOCK_MONOTONIC);
        }
    }
    n = n < ROCSYS_MAX_FRAMES + 1 ? n : ROCSYS_MAX_FRAMES + 1;
    memcpy(all, frames, n * sizeof(*all));
    /* the thread's open regions then, above its outermost frame; none while it was paused */
    nreg = session_context_at(s->ctx, pid, tid, t, all + n, ROCSYS_REGION_DEPTH_MAX);
    if (nreg < 0)
        return;
    n += (uint32_t)nreg;
    if (model_sample_weighted(s->m, pid, tid, t, all, n, weight, 0) != 0)
        defer_sample(s, pid, tid, t, all, n, weight);
    else
        record_sample(s, pid, tid, t, all, n, weight);
}

/* Decode one spooled perf record now, or hold it until the collector's records of its time
 * (regions, pauses) are decoded: until a barrier later than its time. */
static void perf_record(struct session *s, const struct session_spool_rec *r, const uint8_t *rec,
                        int hold_ok)
{
    uint64_t t;
    struct session_spool_buf *b = &s->held;
    size_t need = sizeof(*r) + (((size_t)r->len + 7) & ~(size_t)7);

    if (hold_ok && session_perf_time(rec, r->len, &t) == 0 && t >= s->barrier_ns) {
        xgrow(&b->data, &b->cap, b->len + need, 1);
        memcpy(b->data + b->len, r, sizeof(*r));
        memcpy(b->data + b->len + sizeof(*r), rec, r->len);
        b->len += need;
        return;
    }
    session_perf_decode(s->perf, s->m, r->source, rec, r->len, on_perf_sample, s);
}

/* Decode the held perf records older than the barrier (all of them when all). */
static void release_held(struct session *s, int all)
{
    struct session_spool_buf b = s->held;

    if (b.len == 0)
        return;
    if (all)
        s->barrier_ns = UINT64_MAX; /* the target is gone: nothing more will come */
    s->held = (struct session_spool_buf){0};
    for (size_t off = 0; off + sizeof(struct session_spool_rec) <= b.len;) {
        struct session_spool_rec r;
        memcpy(&r, b.data + off, sizeof(r));
        const uint8_t *rec = b.data + off + sizeof(r);
        perf_record(s, &r, rec, 1);
        off += sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
    }
    free(b.data);
}

/* Take what the spool holds (draining every ring first; with check_orphans, the rings of
 * threads that are gone are freed), decode it, and retry deferred samples. */
static void drain(struct session *s, int check_orphans)
{
    struct session_spool_buf *b = &s->taken;

    session_spool_lock(&s->spool);
    session_spool_pass(&s->spool);
    for (uint32_t i = 0; check_orphans && i < s->tr.ring_count; i++) {
        struct rocsys_ring_ctl *c = &s->tr.rings[i];
        if (atomic_load_explicit(&c->state, memory_order_acquire) == ROCSYS_RING_OWNED &&
            ring_orphaned(s, c))
            session_spool_reap(&s->spool, i);
    }
    session_spool_take(&s->spool, b);
    session_spool_unlock(&s->spool);
    for (size_t off = 0; off + sizeof(struct session_spool_rec) < b->len;) {
        struct session_spool_rec r;
        memcpy(&r, b->data + off, sizeof(r));
        const uint8_t *rec = b->data + off + sizeof(r);
        if (r.source == SESSION_SOURCE_RINGS) {
            struct rocsys_ring_ctl owner = {.pid = r.pid, .tid = r.tid, .instance = r.instance};
            on_record(s, &owner, (const struct rocsys_rec_header *)rec);
        } else if (r.source == SESSION_SOURCE_BARRIER) {
            memcpy(&s->barrier_ns, rec, 8);
            release_held(s, 0);
            if (s->barrier_ns > 1000000000ull) /* a sample is never held longer than a pass */
                session_context_prune(s->ctx, s->barrier_ns - 1000000000ull);
        } else {
            perf_record(s, &r, rec, 1);
        }
        off += sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
    }
    b->len = 0;
    if (s->target_done)
        release_held(s, 1);
    size_t kept = 0;
    uint64_t t = model_clock_ns(CLOCK_MONOTONIC);
    for (size_t i = 0; i < s->ndef; i++) {
        struct deferred *d = &s->def[i];
        int final = t > d->until_ns || s->target_done;
        if (model_sample_weighted(s->m, d->pid, d->tid, d->time_ns, d->frames, d->n, d->weight,
                                  final) == 0) {
            record_sample(s, d->pid, d->tid, d->time_ns, d->frames, d->n, d->weight);
            free(d->frames);
            continue;
        }
        s->def[kept++] = *d;
    }
    s->ndef = kept;
    session_kernels_flush(s->m, s->rec, 0); /* slices whose kernel names came in this drain */
}

/* The cost (ns, bin centre) at quantile q of the sample-cost histogram. */
static double cost_quantile(const struct session *s, double q)
{
    uint64_t want = (uint64_t)(q * (double)s->cost_n), seen = 0;

    for (uint32_t i = 0; i < COST_BINS; i++) {
        seen += s->cost_hist[i];
        if (seen > want)
            return (i + 0.5) * COST_BIN_NS;
    }
    return 0;
}

/* Update the session facts the views show: counts, drops, the collector's cost. */
static void update_stats(struct session *s)
{
    struct model_session *ms = model_session(s->m);
    uint64_t dropped, cost, cost_n, dropped_events;

    session_spool_lock(
        &s->spool); /* the spool's thread frees rings and adds them to the acc_ totals */
    dropped = s->acc_dropped;
    cost = s->acc_cost_ns;
    cost_n = s->acc_cost_n;
    dropped_events = s->acc_dropped_events;

    s->waits = s->acc_waits;
    s->waited_ns = s->acc_waited_ns;
    for (uint32_t i = 0; i < s->tr.ring_count; i++) {
        const struct rocsys_ring_ctl *c = &s->tr.rings[i];
        uint32_t st = atomic_load(&c->state);
        if (st != ROCSYS_RING_OWNED && st != ROCSYS_RING_RELEASED)
            continue;
        uint64_t records = atomic_load(&c->dropped_records); /* read once: both totals agree */
        dropped += atomic_load(&c->dropped_samples) + records;
        dropped_events += records;
        cost += atomic_load(&c->sample_cost_ns);
        cost_n += atomic_load(&c->cost_measured);
        s->waits += atomic_load(&c->waits);
        s->waited_ns += atomic_load(&c->waited_ns);
    }
    session_spool_unlock(&s->spool);
    /* the collector counts records_no_ring after dropped_no_ring: read it first, so that the
     * events never exceed the total in a snapshot */
    if (s->tr.hdr) {
        dropped_events += atomic_load(&s->tr.hdr->records_no_ring);
        dropped += atomic_load(&s->tr.hdr->dropped_no_ring);
        ms->threads_unsampled = atomic_load(&s->tr.hdr->threads_no_ring);
    }
    uint64_t perf_samples, perf_lost;
    session_perf_counts(s->perf, &perf_samples, &perf_lost);
    dropped += perf_lost; /* samples the kernel could not write: a perf ring was full */
    if (dropped < dropped_events)
        dropped = dropped_events;
    ms->dropped = dropped;
    ms->dropped_events = dropped_events;
    ms->sample_cost_avg_ns = cost_n ? (double)cost / (double)cost_n : 0;
    ms->sample_cost_median_ns = cost_quantile(s, 0.5);
    ms->sample_cost_p99_ns = cost_quantile(s, 0.99);
    uint64_t wall = model_clock_ns(CLOCK_MONOTONIC) - ms->start_ns;
    if (wall > 0)
        ms->frontend_cpu_pct =
            100.0 * (double)(model_self_cpu_ns() - s->start_cpu_ns) / (double)wall;
    /* the notice says what keeps samples from being taken, derived from the facts of now */
    if (s->tr.hdr && s->target_done && atomic_load(&s->tr.hdr->next_instance) <= 1 &&
        ms->samples == 0)
        snprintf(ms->notice, sizeof(ms->notice),
                 "the collector never started in the target: LD_PRELOAD was ignored or "
                 "removed (no samples)");
    else if (ms->threads_blocking)
        snprintf(ms->notice, sizeof(ms->notice),
                 "%u thread%s block%s the sampling signal (%d): not sampled", ms->threads_blocking,
                 ms->threads_blocking == 1 ? "" : "s", ms->threads_blocking == 1 ? "s" : "",
                 ms->sample_signal);
    else if (s->attached)
        snprintf(ms->notice, sizeof(ms->notice),
                 "attached: HIP API, GPU kernels, user regions and output need the injected "
                 "collector (start the program under rocsys-top): not shown");
    else if (s->o->wall && ms->engine && strcmp(ms->engine, "signal") == 0)
        snprintf(ms->notice, sizeof(ms->notice),
                 "wall mode with in-target signals: waits may end early (EINTR)%s%.150s",
                 ms->engine_why[0] ? ": " : "", ms->engine_why);
    else if (!model_python_notice(s->m, ms->notice, sizeof(ms->notice)))
        ms->notice[0] = '\0';
}

/* Read what the target wrote on fd (stream 1 or 2): to the writers and the output tail. */
static void read_output(struct session *s, int *fd, int stream)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof(buf));

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(*fd);
        *fd = -1;
        return;
    }
    struct record_event ev = {.type = RECORD_EV_OUTPUT,
                              .time_ns = model_clock_ns(CLOCK_MONOTONIC),
                              .pid = (uint32_t)s->target.pid,
                              .stream = stream,
                              .data = buf,
                              .len = (size_t)n};
    record_set_event(s->rec, &ev);
    model_output_append(s->m, stream, buf, (size_t)n);
}

/* The target ended: record how, and what rocsys-top will exit with. */
static void target_ended(struct session *s, int status, const struct rusage *ru)
{
    struct model_session *ms = model_session(s->m);
    char sig[32];

    /* the target's records are all in the rings by now (it wrote them before it died): take
     * them first, so that a target too short-lived to have been seen yet is known to the model
     * before its exit status is applied (else its own "ended" record would come later and
     * leave it as "exited, status unknown") */
    drain(s, 0);
    s->target_done = 1;
    s->target_end_ns = model_clock_ns(CLOCK_MONOTONIC);
    ms->target_done = 1;
    ms->end_ns = s->target_end_ns;
    if (WIFEXITED(status)) {
        s->exit_status = WEXITSTATUS(status);
        snprintf(ms->status_text, sizeof(ms->status_text), "exited with %d", s->exit_status);
        model_proc_end(s->m, (uint32_t)s->target.pid, MODEL_PROC_EXITED, s->exit_status,
                       s->target_end_ns);
    } else {
        int n = WTERMSIG(status);
        s->exit_status = 128 + n;
        signal_name(n, sig, sizeof(sig));
        snprintf(ms->status_text, sizeof(ms->status_text), "killed by %s%s", sig,
                 WCOREDUMP(status) ? " (core dumped)" : "");
        model_proc_end(s->m, (uint32_t)s->target.pid, MODEL_PROC_KILLED, n, s->target_end_ns);
    }
    ms->exit_status = s->exit_status;
    model_proc_final_usage(s->m, (uint32_t)s->target.pid, ru);
}

/* Reap the target if it ended. */
static void check_child(struct session *s)
{
    int status;
    struct rusage ru;
    pid_t p;

    while ((p = wait4(-1, &status, WNOHANG, &ru)) > 0)
        if (p == s->target.pid && !s->target_done)
            target_ended(s, status, &ru);
}

/* Send sig to the target (its process group when it has one). */
static void signal_target(struct session *s, int sig)
{
    if (s->target_done || s->attached) /* an attached process never gets a signal from us */
        return;
    if (s->target.own_group)
        kill(-s->target.pid, sig);
    else
        kill(s->target.pid, sig);
}

/* -p: the attached processes still alive; when none is, the session's target is done. */
static void check_attached(struct session *s)
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
        drain(s, 0);
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

/* Ask the target to end (SIGTERM now, SIGKILL after a grace period), then leave. */
static void stop_target(struct session *s)
{
    if (s->attached) { /* leave the processes as they are: running */
        if (!s->target_done) {
            s->target_done = 1;
            model_session(s->m)->target_done = 1;
            snprintf(model_session(s->m)->status_text, sizeof(model_session(s->m)->status_text),
                     "detached (still running)");
        }
        s->quit = 1;
        return;
    }
    if (s->target_done || s->kill_sent)
        return;
    signal_target(s, SIGTERM);
    s->kill_sent = 1;
    s->kill_deadline = model_clock_ns(CLOCK_MONOTONIC) + KILL_GRACE_MS * 1000000ull;
}

/* A signal arrived for rocsys-top itself. */
static void on_signal(struct session *s)
{
    struct signalfd_siginfo si;

    while (read(s->sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        switch (si.ssi_signo) {
        case SIGCHLD:
            check_child(s);
            break;
        case SIGHUP:
            s->ended_by = "SIGHUP to rocsys-top (terminal closed)";
            s->hangup = 1;
            signal_target(s, SIGHUP);
            s->quit = 1;
            break;
        case SIGINT:
        case SIGTERM:
        case SIGQUIT:
            if (!s->ended_by)
                s->ended_by = si.ssi_signo == SIGINT    ? "SIGINT to rocsys-top (Ctrl-C)"
                              : si.ssi_signo == SIGTERM ? "SIGTERM to rocsys-top"
                                                        : "SIGQUIT to rocsys-top";
            if (s->attached) {
                stop_target(s); /* detach */
            } else if (s->kill_sent) {
                signal_target(s, SIGKILL);
            } else {
                /* pass it on, like a shell would; we end when the target does */
                signal_target(s, (int)si.ssi_signo);
                s->kill_sent = 1;
                s->kill_deadline =
                    model_clock_ns(CLOCK_MONOTONIC) + 10 * KILL_GRACE_MS * 1000000ull;
            }
            break;
        default:
            break;
        }
    }
}

/* Process metrics of the running processes as counter tracks of the recording. */
static void record_process_counters(struct session *s, uint64_t t)
{
    if (!s->rec)
        return;
    for (int i = 0; i < model_process_count(s->m); i++) {
        const struct model_process *p = model_process_at(s->m, i);
        if (!p->metrics.valid || p->state != MODEL_PROC_RUNNING)
            continue;
        struct record_event ev = {.type = RECORD_EV_COUNTER,
                                  .time_ns = t,
                                  .pid = p->pid,
                                  .track = "CPU %",
                                  .unit = "%",
                                  .value = p->metrics.cpu_pct};
        if (p->metrics.cpu_pct_measured) /* the first reading covers no interval yet */
            record_set_event(s->rec, &ev);
        ev.track = "RSS";
        ev.unit = "bytes";
        ev.value = (double)p->metrics.rss_bytes;
        record_set_event(s->rec, &ev);
    }
}

/* One refresh: metrics, stats, then a TUI draw or a batch frame. */
static void refresh(struct session *s)
{
    uint64_t t = model_clock_ns(CLOCK_MONOTONIC);

    if (s->attached && !s->target_done)
        check_attached(s);

    drain(s, 1);
    model_regions_close(s->m, t, 0); /* regions left open by threads that ended */
    model_tick(s->m, t);
    model_refresh_procfs(s->m, t);
    record_process_counters(s, t);
    session_gpu_record(model_session(s->m)->gpu, s->rec);
    update_stats(s);
    s->refreshes++;
    if (s->headless) {
        if (isatty(STDERR_FILENO)) {
            struct model_session *ms = model_session(s->m);
            fprintf(
                stderr, "\rrocsys-top: recording to %s: %.0f s, %llu samples, %llu dropped, %s ",
                s->o->record_dir, (double)(t - ms->start_ns) / 1e9, (unsigned long long)ms->samples,
                (unsigned long long)ms->dropped, ms->status_text);
        }
    } else if (s->batch)
        tui_batch_frame(stdout, s->m, s->refreshes, s->o->max_rows);
    else if (s->tui && !s->hangup)
        tui_refresh(s->tui);
    if (s->batch)
        fflush(stdout);
}

/* Remove session files of rocsys-top processes that died without cleaning up (SIGKILL). */
static void sweep_stale(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[512];

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        int pid;
        if (sscanf(de->d_name, "rocsys-top-%d-", &pid) != 1 || pid <= 0)
            continue;
        if (kill(pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (or not ours to judge) */
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        unlink(path);
    }
    closedir(d);
}

/* Create the shared-memory file the collector attaches to. */
static int setup_transport(struct session *s, char *err, size_t errlen)
{
    const char *dirs[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    int rc = -ENOENT;

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        sweep_stale(dirs[i]);
        snprintf(s->shm_path, sizeof(s->shm_path), "%s/rocsys-top-%d-%lx", dirs[i], (int)getpid(),
                 (unsigned long)(model_clock_ns(CLOCK_MONOTONIC) & 0xffffff));
        rc = transport_create(&s->tr, s->shm_path, RING_COUNT, RING_BYTES, GPU_RING_COUNT,
                              GPU_RING_BYTES);
        if (rc == 0)
            return 0;
    }
    s->shm_path[0] = '\0';
    snprintf(err, errlen, "cannot create the shared-memory transport: %s", strerror(-rc));
    return -1;
}

/* Create directory dir unless it exists. */
static int make_dir(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the recording directory %.400s: %s", dir,
                 strerror(errno));
        return -1;
    }
    return 0;
}

int session_signalfd(int with_sigchld)
{
    sigset_t mask;
    int fd;

    sigemptyset(&mask);
    if (with_sigchld)
        sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    sigprocmask(SIG_BLOCK, &mask, NULL);
    signal(SIGPIPE, SIG_IGN);
    fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (fd < 0)
        fprintf(stderr, "rocsys-top: signalfd: %s\n", strerror(errno));
    return fd;
}

int session_record_dir_prepare(const char *dir, int force, char *err, size_t errlen)
{
    char path[4096];

    if (make_dir(dir, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof(path), "%.2000s/session.json", dir);
    if (!force && access(path, F_OK) == 0) {
        snprintf(err, errlen,
                 "%.400s already holds a recording (session.json): use --force to "
                 "overwrite it, or another directory",
                 dir);
        return -1;
    }
    return 0;
}

/* Check and prepare the recording directory, then open its writers (before the target starts,
 * so that a directory that cannot be written is an error, not a lost recording). */
static int setup_recording(struct session *s, char *err, size_t errlen)
{
    const char *dir = s->o->record_dir;
    char path[4096];
    int n = 0;
    int rank = model_session(s->m)->rank;

    if (rank >= 0) { /* MPI: DIR/rank-N, no collisions between ranks */
        if (make_dir(dir, err, errlen) != 0)
            return -1;
        snprintf(s->rank_dir, sizeof(s->rank_dir), "%.1000s/rank-%d", dir, rank);
        dir = s->rank_dir;
    }
    if (session_record_dir_prepare(dir, s->o->force, err, errlen) != 0)
        return -1;
    for (const struct record_file *r = record_files; r->cls; r++) {
        if (r->cls == &record_output_log) {
            if (s->o->output_log)
                continue; /* --output-log names it elsewhere (opened by setup_writers) */
            snprintf(s->log_path, sizeof(s->log_path), "%s/%s", dir, r->file);
        }
        snprintf(path, sizeof(path), "%s/%s", dir, r->file);
        if (record_set_add(s->rec, r->cls, path, s->m, err, errlen) != 0)
            return -1;
        s->files[n++] = (char *)r->file;
    }
    s->files[n] = NULL;
    return 0;
}

/* Open the writers: the file that keeps the target's full output, and the recording. */
static int setup_writers(struct session *s, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");

    s->rec = record_set_new();
    if (s->o->record_dir && setup_recording(s, err, errlen) != 0)
        return -1;
    if (s->o->record_dir && !s->o->output_log) {
        snprintf(model_session(s->m)->output_log, sizeof(model_session(s->m)->output_log), "%s",
                 s->log_path);
        return 0;
    }
    if (s->o->output_log)
        snprintf(s->log_path, sizeof(s->log_path), "%s", s->o->output_log);
    else
        snprintf(s->log_path, sizeof(s->log_path), "%s/rocsys-top-%d.log",
                 tmp && *tmp ? tmp : "/tmp", (int)getpid());
    if (record_set_add(s->rec, &record_output_log, s->log_path, s->m, err, errlen) != 0)
        return -1;
    snprintf(model_session(s->m)->output_log, sizeof(model_session(s->m)->output_log), "%s",
             s->log_path);
    return 0;
}

/* Milliseconds until deadline (0 if passed), capped at cap. */
static int ms_until(uint64_t deadline, uint64_t now, int cap)
{
    if (deadline <= now)
        return 0;
    uint64_t ms = (deadline - now + 999999) / 1000000;
    return ms < (uint64_t)cap ? (int)ms : cap;
}

/* Choose the sampling engine (--engine): perf events from outside in wall mode where permitted, but
 * the in-target sampler for Python programs (their frames are read in the thread) and where perf
 * events are not permitted. -1 when --engine perf cannot be honoured. */
static int choose_engine(struct session *s, const char *program)
{
    struct model_session *ms = model_session(s->m);
    const struct inject_options *o = s->o;
    char why[sizeof(ms->engine_why)];

    ms->engine = "signal";
    ms->engine_why[0] = '\0';
    if (o->engine == INJECT_ENGINE_SIGNAL)
        return 0;
    if (o->engine == INJECT_ENGINE_AUTO && o->python != INJECT_PYTHON_OFF &&
        inject_program_is_python(program)) {
        snprintf(ms->engine_why, sizeof(ms->engine_why),
                 "a Python program: its frames are read by the in-target sampler");
        return 0;
    }
    /* an explicit --cpu-timer asks for the in-target sampler's timer */
    if (o->engine == INJECT_ENGINE_AUTO && o->cpu_timer != INJECT_TIMER_AUTO)
        return 0;
    if (session_perf_probe(o->wall, why, sizeof(why)) != 0) {
        snprintf(ms->engine_why, sizeof(ms->engine_why), "%s", why);
        return o->engine == INJECT_ENGINE_PERF ? -1 : 0;
    }
    ms->engine = "perf";
    s->use_perf = 1;
    return 0;
}

/* inject_spawn's hook: open the perf events on the child before its exec (enabled by it). */
static void open_perf(pid_t pid, void *ctx)
{
    struct session *s = ctx;
    struct model_session *ms = model_session(s->m);
    char why[sizeof(ms->engine_why)];

    s->perf = session_perf_open(pid, s->o->wall, 1000000000ull / (uint64_t)s->o->freq_hz, 1, why,
                                sizeof(why));
    if (!s->perf)
        snprintf(ms->engine_why, sizeof(ms->engine_why), "not sampled: %.180s", why);
    else
        s->ctx = session_context_new();
    if (s->perf && !session_perf_kernel(s->perf))
        snprintf(ms->engine_why, sizeof(ms->engine_why),
                 "time in system calls not sampled (kernel.perf_event_paranoid >= 2)");
    s->spool.perf = s->perf; /* the spool thread starts after the spawn */
}

/* -p PID[,PID...]: the processes into the model (executable, command line, modules from their
 * maps, threads), then perf events on every thread. 0, or -1 with a one-line reason in err. */
static int attach_targets(struct session *s, char *err, size_t errlen)
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
    if (session_perf_probe(s->o->wall, why, sizeof(why)) != 0) {
        snprintf(err, errlen, "%s", why);
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
    s->spool.perf = s->perf;
    s->use_perf = 1;
    ms->engine = "perf";
    ms->timer = s->o->wall ? "task-clock+switches" : "task-clock";
    if (!session_perf_kernel(s->perf))
        snprintf(ms->engine_why, sizeof(ms->engine_why),
                 "time in system calls not sampled (kernel.perf_event_paranoid >= 2)");
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
    return 0;
}

/* The poll loop. Returns when the session is over. */
static void run_loop(struct session *s)
{
    uint64_t refresh_ns = (uint64_t)s->o->delay_tenths * 100000000ull;
    uint64_t next_refresh = model_clock_ns(CLOCK_MONOTONIC) + refresh_ns;
    uint64_t next_drain = model_clock_ns(CLOCK_MONOTONIC);

    while (!s->quit) {
        struct pollfd p[5];
        int np = 0, i_out = -1, i_err = -1, i_key = -1, i_bell = -1, bell = 0;
        uint64_t t = model_clock_ns(CLOCK_MONOTONIC);

        p[np] = (struct pollfd){.fd = s->sig_fd, .events = POLLIN};
        np++;
        if (s->target.out_fd >= 0) {
            i_out = np;
            p[np++] = (struct pollfd){.fd = s->target.out_fd, .events = POLLIN};
        }
        if (s->target.err_fd >= 0) {
            i_err = np;
            p[np++] = (struct pollfd){.fd = s->target.err_fd, .events = POLLIN};
        }
        if (s->tui) {
            i_key = np;
            p[np++] = (struct pollfd){.fd = 0, .events = POLLIN};
        }
        if (s->spool.wake_fd >= 0) {
            i_bell = np;
            p[np++] = (struct pollfd){.fd = s->spool.wake_fd, .events = POLLIN};
        }
        int timeout = ms_until(next_drain, t, 1000);
        timeout = ms_until(next_refresh, t, timeout);
        if (s->kill_sent && !s->target_done)
            timeout = ms_until(s->kill_deadline, t, timeout);
        if (poll(p, (nfds_t)np, timeout) < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            on_signal(s);
        if (i_bell >= 0 && (p[i_bell].revents & POLLIN)) {
            uint64_t rings;
            bell = read(s->spool.wake_fd, &rings, sizeof(rings)) == (ssize_t)sizeof(rings);
        }
        if (i_out >= 0 && p[i_out].revents)
            read_output(s, &s->target.out_fd, 1);
        if (i_err >= 0 && p[i_err].revents)
            read_output(s, &s->target.err_fd, 2);
        if (i_key >= 0 && (p[i_key].revents & POLLIN) && tui_input(s->tui)) {
            /* the user quits: end a running target first */
            if (!s->ended_by)
                s->ended_by = "quit by the user";
            if (s->target_done)
                s->quit = 1;
            else
                stop_target(s);
        }
        if (i_key >= 0 && (p[i_key].revents & (POLLHUP | POLLERR)))
            s->hangup = s->quit = 1;
        t = model_clock_ns(CLOCK_MONOTONIC);
        if (s->kill_sent && !s->target_done && t >= s->kill_deadline) {
            signal_target(s, SIGKILL);
            s->kill_deadline = t + 60 * 1000000000ull;
        }
        if (t >= next_drain || bell) {
            drain(s, 0);
            next_drain = t + DRAIN_INTERVAL_MS * 1000000ull;
        }
        if (s->target_done) {
            int pipes_open = s->target.out_fd >= 0 || s->target.err_fd >= 0;
            int grace_over = t - s->target_end_ns > OUTPUT_GRACE_MS * 1000000ull;
            if (!pipes_open || grace_over) {
                model_output_flush(s->m);
                if (s->batch || s->headless || s->kill_sent || s->o->iterations) {
                    refresh(s);
                    break; /* batch: the final frame; TUI: the user already quit */
                }
            }
        }
        if (t >= next_refresh) {
            refresh(s);
            next_refresh = t + refresh_ns;
            if (s->o->iterations && s->refreshes >= s->o->iterations) {
                if (s->target_done)
                    break;
                if (!s->ended_by)
                    s->ended_by = "the -n refresh limit";
                stop_target(s);
            }
        }
    }
}

/* Order hot-list entries by self count. */
static int hot_by_self(const void *a, const void *b)
{
    const struct model_hot *x = a, *y = b;
    return x->self < y->self ? 1 : x->self > y->self ? -1 : 0;
}

/* Headless recording: what happened, the top functions and where the files are (stdout). */
static void print_summary(struct session *s)
{
    struct model_session *ms = model_session(s->m);
    struct model_filter all = {.thread = -1, .window = 0};
    struct model_hot_list *h = model_hot_build(s->m, &all);

    if (isatty(STDERR_FILENO))
        fputc('\n', stderr);
    qsort(h->items, (size_t)h->count, sizeof(*h->items), hot_by_self);
    printf("rocsys-top: %s: target %s; %llu samples, %llu dropped (%s %d Hz, timer %s)\n",
           s->rank_dir[0] ? s->rank_dir : s->o->record_dir, ms->status_text,
           (unsigned long long)ms->samples, (unsigned long long)ms->dropped, ms->mode, ms->freq_hz,
           ms->timer ? ms->timer : "?");
    if (s->waits)
        printf("rocsys-top: the target waited %llu times (%.1f ms in all) for rings to drain\n",
               (unsigned long long)s->waits, (double)s->waited_ns / 1e6);
    printf("top functions (self):\n");
    for (int i = 0; i < h->count && i < 10 && h->items[i].self; i++) {
        const struct model_func *fn = model_func_at(s->m, h->items[i].func);
        printf("  %5.1f%%  %s  (%s)\n", 100.0 * (double)h->items[i].self / (double)h->total,
               fn->name, fn->module);
    }
    session_kernels_summary(stdout, s->m, 10);
    printf("files:");
    for (int i = 0; s->files[i]; i++)
        printf(" %s/%s", s->rank_dir[0] ? s->rank_dir : s->o->record_dir, s->files[i]);
    printf("\n");
    fflush(stdout);
    model_hot_free(h);
}

int session_run(const struct inject_options *o)
{
    static struct session s; /* one per process */
    struct inject_program prog;
    char collector[4096], err[600];
    char env_session[512];
    char *env_extra[2];
    int rc = 1;

    memset(&s, 0, sizeof(s));
    s.o = o;
    s.sig_fd = -1;
    s.target.out_fd = s.target.err_fd = -1;
    s.target.pid = -1;
    session_spool_init(&s.spool, &s.tr, account_ring, &s);
    s.batch = o->batch || !isatty(STDOUT_FILENO);
    s.headless = o->record_dir && !o->batch && (o->no_tui || !isatty(STDOUT_FILENO));
    if (o->record_dir && session_mpi_rank() >= 0 && !o->batch)
        s.headless = 1; /* ranks never take over a terminal */
    if (s.headless)
        s.batch = 0;
    if (o->use_stdin && !s.batch && isatty(STDIN_FILENO)) {
        fprintf(stderr, "rocsys-top: --stdin needs -b: the TUI reads the keyboard\n");
        return 2;
    }
    s.attached = o->pids != NULL;
    memset(&prog, 0, sizeof(prog));
    if (!s.attached)
        inject_check_program(o->target_argv[0], &prog);
    if (prog.exit_code != 0) {
        fprintf(stderr, "rocsys-top: %s\n", prog.error);
        return prog.exit_code;
    }
    if (!s.attached && inject_find_collector(collector, sizeof(collector)) != 0) {
        fprintf(stderr, "rocsys-top: cannot find librocsys-collector.so next to rocsys-top "
                        "(set ROCSYS_COLLECTOR_PATH)\n");
        return 1;
    }
    s.m = model_new();
    model_regions_set_sink(s.m, on_region_span, &s);
    model_session(s.m)->rank = o->record_dir ? session_mpi_rank() : -1;
    if (setup_writers(&s, err, sizeof(err)) != 0 ||
        (!s.attached && setup_transport(&s, err, sizeof(err)) != 0)) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        goto out;
    }
    struct model_session *ms = model_session(s.m);
    ms->mode = o->wall ? "wall" : "cpu";
    {
        const char *env = getenv("ROCSYS_SIGNAL"); /* as the collector chooses it */
        ms->sample_signal = SIGRTMIN + 6;
        if (env && atoi(env) >= SIGRTMIN && atoi(env) <= SIGRTMAX)
            ms->sample_signal = atoi(env);
    }
    int timer = inject_resolve_cpu_timer(o->cpu_timer);
    /* what is expected; the samples' flags correct it (cycles, or a fallback to tick) */
    ms->timer = o->wall ? "hrtimer" : timer == INJECT_TIMER_POSIX ? "tick" : "task-clock";
    ms->freq_hz = o->freq_hz;
    model_set_window(s.m, (uint32_t)o->window_s);
    size_t off = 0;
    if (s.attached)
        snprintf(ms->target, sizeof(ms->target), "attached to %s", o->pids);
    for (int i = 0; i < o->target_argc && off < sizeof(ms->target) - 1; i++)
        off += (size_t)snprintf(ms->target + off, sizeof(ms->target) - off, "%s%s", i ? " " : "",
                                o->target_argv[i]);

    /* signals: handled through a signalfd; the child restores the mask before exec */
    s.sig_fd = session_signalfd(1);
    if (s.sig_fd < 0)
        goto out;

    if (s.attached) {
        ms->start_ns = model_clock_ns(CLOCK_MONOTONIC);
        s.start_cpu_ns = model_self_cpu_ns();
        if (attach_targets(&s, err, sizeof(err)) != 0) {
            fprintf(stderr, "rocsys-top: -p: %s\n", err);
            goto out;
        }
        goto started;
    }
    if (choose_engine(&s, prog.path) != 0) {
        fprintf(stderr, "rocsys-top: --engine perf: %s\n", ms->engine_why);
        goto out;
    }
    if (s.use_perf)
        ms->timer = o->wall ? "task-clock+switches" : "task-clock";
    /* one variable (protocol.h); the launcher adds root=PID in the child */
    snprintf(env_session, sizeof(env_session),
             "%s=protocol=%d,hz=%d,mode=%s,follow=%d,timer=%s,python=%d,shm=%s", ROCSYS_ENV_SESSION,
             ROCSYS_PROTOCOL_VERSION, o->freq_hz, o->wall ? "wall" : "cpu", o->follow,
             s.use_perf                   ? "none"
             : timer == INJECT_TIMER_PERF ? "perf"
                                          : "posix",
             o->python != INJECT_PYTHON_OFF, s.shm_path);
    model_python_hide_interpreter(s.m, o->python == INJECT_PYTHON_ON);
    env_extra[0] = env_session;
    env_extra[1] = NULL;

    ms->start_ns = model_clock_ns(CLOCK_MONOTONIC);
    s.start_cpu_ns = model_self_cpu_ns();
    rc = inject_spawn(o, &prog, collector, env_extra, &s.target, err, sizeof(err),
                      s.use_perf ? open_perf : NULL, &s);
    if (rc != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        goto out;
    }
    model_set_root_pid(s.m, (uint32_t)s.target.pid);
    fcntl(s.target.out_fd, F_SETFL, O_NONBLOCK);
    fcntl(s.target.err_fd, F_SETFL, O_NONBLOCK);
started:
    ms->gpu = session_gpu_start(o); /* after the fork: the child expects one thread */
    session_spool_start(&s.spool);  /* without it, the loop drains on its tick */
    snprintf(ms->status_text, sizeof(ms->status_text), "running");

    if (!s.batch && !s.headless) {
        struct tui_options to = {.color = o->color, .delay_tenths = o->delay_tenths};
        s.tui = tui_open(s.m, &to);
        if (!s.tui) {
            s.batch = 1; /* no usable terminal: fall back to text frames */
            fprintf(stderr, "rocsys-top: cannot start the terminal UI; printing text frames\n");
        }
    }
    run_loop(&s);
    /* the target must not outlive a session that is over (an attached one is left running) */
    if (!s.target_done && !s.attached) {
        stop_target(&s);
        for (int i = 0; i < KILL_GRACE_MS / 10 && !s.target_done; i++) {
            usleep(10000);
            check_child(&s);
        }
        if (!s.target_done) {
            signal_target(&s, SIGKILL);
            while (!s.target_done && waitpid(s.target.pid, NULL, 0) < 0 && errno == EINTR)
                ;
            if (!s.target_done) {
                s.target_done = 1;
                s.exit_status = 128 + SIGKILL;
            }
        }
    }
    rc = s.exit_status;
    if (s.tr.hdr)
        transport_consumer_gone(&s.tr); /* no more drains: nobody waits for room from here on */
out:
    if (s.tui)
        tui_close(s.tui);
    if (!s.batch && !s.headless && s.rec && !s.hangup && s.target.pid > 0)
        fprintf(stderr, "rocsys-top: %s; the target's output is in %s\n",
                model_session(s.m)->status_text, s.log_path);
    if (s.target.out_fd >= 0)
        close(s.target.out_fd);
    if (s.target.err_fd >= 0)
        close(s.target.err_fd);
    struct record_end end = {.exit_status = s.exit_status,
                             .status_text = model_session(s.m)->status_text,
                             .ended_by = s.ended_by ? s.ended_by : "target ended",
                             .argv = o->target_argv,
                             .argc = o->target_argc,
                             .root_pid = (int)s.target.pid,
                             .files = (const char *const *)s.files};
    if (s.m) /* regions still open (a process that outlived the session): closed now */
        model_regions_close(s.m, model_clock_ns(CLOCK_MONOTONIC), 1);
    if (s.m)
        session_gpu_record(model_session(s.m)->gpu, s.rec);
    if (s.m) /* GPU slices still waiting for a kernel name: written with what is known */
        session_kernels_flush(s.m, s.rec, 1);
    record_set_close(s.rec, s.m, &end);
    if (s.headless && s.target.pid > 0)
        print_summary(&s);
    if (s.sig_fd >= 0)
        close(s.sig_fd);
    session_spool_stop(&s.spool);
    session_perf_close(s.perf);
    session_context_free(s.ctx);
    free(s.held.data);
    free(s.pids);
    free(s.seen_tids);
    if (s.tr.hdr) {
        transport_consumer_gone(&s.tr); /* a process that outlives us must not wait for room */
        transport_detach(&s.tr);
    }
    if (s.shm_path[0])
        unlink(s.shm_path);
    for (size_t i = 0; i < s.ndef; i++)
        free(s.def[i].frames);
    free(s.def);
    free(s.inst);
    session_spool_free(&s.spool);
    free(s.taken.data);
    if (s.m)
        gpu_monitor_stop(model_session(s.m)->gpu);
    model_free(s.m);
    return rc;
}
