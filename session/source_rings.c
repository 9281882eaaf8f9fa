/* The collector's rings as a session source: the shared memory they live in, the spool's pass
 * over them (rings of threads that ended are freed, their counters kept), and the decoding of
 * the collector's records (processes, threads, modules, samples, regions, Python code objects;
 * HIP and HSA records in kernels.c) into the model and the writers. */
#define _GNU_SOURCE
#include "session/session_internal.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/progcheck.h"
#include "collector/protocol.h"
#include "model/model.h"
#include "record/record.h"

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
void session_region_span(void *ctx, const struct model_region_span *sp)
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

/* PROC_EXEC: a process runs a program without the collector (or such an exec failed). Its
 * old image's modules are forgotten, so that the perf engine, which still samples it, reads
 * the new program's from /proc. */
static void on_proc_exec(struct session *s, const struct rocsys_rec_proc_exec *r, const uint8_t *p)
{
    char *path, *argv;

    if (r->reason == 0) { /* the exec failed: the old program goes on, collector and all */
        model_proc_set_no_collector(s->m, r->pid, "");
        return;
    }
    path = rec_string(p, r->path_len);
    argv = rec_string(p + r->path_len, r->argv_len);
    for (uint32_t i = 0; i + 1 < r->argv_len; i++)
        if (argv[i] == '\0')
            argv[i] = ' ';
    model_proc_start(s->m, r->pid, r->ppid, path, argv, r->time_ns);
    /* the perf engine still samples it, unless its exec was a secure one: the kernel ends the
     * perf events a set-user-ID exec inherits */
    const char *engine = model_session(s->m)->engine;
    int outside = engine && strcmp(engine, "perf") == 0 && r->reason != ROCSYS_PROG_SECURE;
    char why[sizeof(((struct model_process *)0)->no_collector)];
    snprintf(why, sizeof(why), "%s, %s", rocsys_progcheck_reason((int)r->reason),
             outside ? "sampled from outside only" : "not sampled");
    model_proc_set_no_collector(s->m, r->pid, why);
    symbolizer_forget_process(model_symbolizer(s->m), r->pid);
    struct record_event ev = {.type = RECORD_EV_PROCESS,
                              .time_ns = r->time_ns,
                              .pid = r->pid,
                              .tid = r->pid,
                              .data = path};
    record_set_event(s->rec, &ev);
    free(path);
    free(argv);
}

/* What raised a CPU-mode sample, from its flags: the header's timer, and its engine line when
 * that differs from what was expected (a POSIX timer where perf events failed, user time only). */
static void samples_timer(struct session *s, uint32_t flags)
{
    struct model_session *ms = model_session(s->m);
    const char *t = flags & ROCSYS_SAMPLE_TICK ? "tick"
                    : flags & ROCSYS_SAMPLE_CYCLES
                        ? (flags & ROCSYS_SAMPLE_USER_ONLY ? "cycles:u" : "cycles")
                    : flags & ROCSYS_SAMPLE_USER_ONLY ? "task-clock:u"
                                                      : "task-clock";

    if (ms->timer && strcmp(ms->timer, t) == 0)
        return;
    ms->timer = t;
    session_engine_explain(s);
}

/* A sample of the in-target sampler whose native stack was deeper than the frames it keeps
 * (the leaf side is kept): the "[truncated]" root above its outermost frame, below its open
 * user regions, as the perf engine roots its cut stacks. */
static void truncated_sample(struct session *s, const struct rocsys_ring_ctl *ctl,
                             const struct rocsys_rec_sample *r)
{
    uint64_t all[ROCSYS_MAX_FRAMES + ROCSYS_MAX_PY_FRAMES + 1];
    uint32_t n = r->nframes, native = n;

    while (native > 0 && ROCSYS_IS_REGION_FRAME(r->frames[native - 1]))
        native--;
    memcpy(all, r->frames, native * sizeof(*all));
    all[native] = model_state_frame(s->m, MODEL_TRUNCATED_FRAME);
    memcpy(all + native + 1, r->frames + native, (n - native) * sizeof(*all));
    session_sample(s, ctl->pid, ctl->tid, r->time_ns, all, n + 1, r->weight ? r->weight : 1);
}

/* Transport callback: turn one record into model input. Every record is validated. */
static void on_record(struct session *s, const struct rocsys_ring_ctl *ctl,
                      const struct rocsys_rec_header *h)
{
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
        session_perf_python_process(s, r->pid); /* the perf engine's BPF Python frames */
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
    case ROCSYS_REC_PROC_EXEC: {
        const struct rocsys_rec_proc_exec *r = (const void *)h;
        if (h->size < sizeof(*r) || (uint64_t)sizeof(*r) + r->path_len + r->argv_len > h->size)
            break;
        on_proc_exec(s, r, base + sizeof(*r));
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
        model_omp_module(s->m, path);
        free(path);
        break;
    }
    case ROCSYS_REC_SAMPLE: {
        const struct rocsys_rec_sample *r = (const void *)h;
        if (h->size < sizeof(*r) || r->nframes > ROCSYS_MAX_FRAMES + ROCSYS_MAX_PY_FRAMES ||
            (uint64_t)sizeof(*r) + 8ull * r->nframes > h->size || r->nframes == 0)
            break;
        if (!(h->flags & ROCSYS_SAMPLE_WALL))
            samples_timer(s, h->flags);
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
        if ((h->flags & (ROCSYS_SAMPLE_TRUNCATED | ROCSYS_SAMPLE_PYTHON)) ==
            ROCSYS_SAMPLE_TRUNCATED) { /* deeper than the frames a sample keeps */
            truncated_sample(s, ctl, r);
            break;
        }
        session_sample(s, ctl->pid, ctl->tid, r->time_ns, r->frames, r->nframes,
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
    case ROCSYS_REC_OMP_PARALLEL: /* an OpenMP parallel region ended (collector/ompt.c) */
        if (h->size >= sizeof(struct rocsys_rec_omp_parallel))
            model_omp_parallel(s->m, ctl->pid, (const struct rocsys_rec_omp_parallel *)h);
        break;
    case ROCSYS_REC_HSA_TABLE:
        if (h->size >= sizeof(struct rocsys_rec_hsa_table))
            model_hsa_table(s->m, (const struct rocsys_rec_hsa_table *)h);
        break;
    case ROCSYS_REC_GPU_WAIT: { /* for the perf engine's samples: a wait leaf began */
        const struct rocsys_rec_gpu_wait *r = (const void *)h;
        if (h->size >= sizeof(*r) &&
            ((r->kind == ROCSYS_WAIT_GPU && rocsys_hip_api_waits((int)r->api)) ||
             (r->kind == ROCSYS_WAIT_MPI && rocsys_mpi_call_waits((int)r->api)) ||
             (r->kind == ROCSYS_WAIT_OMP && r->api < ROCSYS_OMP_WAIT_IDS)))
            session_context_wait(s->ctx, ctl->pid, ctl->tid, r->time_ns,
                                 ROCSYS_WAIT_FRAME(r->kind, r->api));
        break;
    }
    case ROCSYS_REC_WAIT_END: { /* a wait no call's record ends (OpenMP's) is over */
        const struct rocsys_rec_wait_end *r = (const void *)h;
        if (h->size >= sizeof(*r))
            session_context_wait(s->ctx, ctl->pid, r->tid ? r->tid : ctl->tid, r->time_ns, 0);
        break;
    }
    case ROCSYS_REC_MPI_CALL:
        if (h->size >= sizeof(struct rocsys_rec_mpi_call) &&
            rocsys_mpi_call_waits(((const struct rocsys_rec_mpi_call *)h)->call)) /* it ended */
            session_context_wait(s->ctx, ctl->pid, ctl->tid,
                                 ((const struct rocsys_rec_mpi_call *)h)->end_ns, 0);
        session_mpi_record(s->m, s->rec, ctl, h);
        break;
    default: /* HIP and HSA records (session/kernels.c); a newer collector's record: skipped */
        if (h->type == ROCSYS_REC_HIP_API && h->size >= sizeof(struct rocsys_rec_hip_api) &&
            rocsys_hip_api_waits(((const struct rocsys_rec_hip_api *)h)->api)) /* it ended */
            session_context_wait(s->ctx, ctl->pid, ctl->tid,
                                 ((const struct rocsys_rec_hip_api *)h)->end_ns, 0);
        session_kernels_record(s->m, s->rec, ctl, h);
        if (h->type == ROCSYS_REC_HSA_SYMBOL && h->size >= sizeof(struct rocsys_rec_name))
            session_causal_hsa_symbol(s, ((const struct rocsys_rec_name *)h)->pid,
                                      ((const struct rocsys_rec_name *)h)->key);
        break;
    }
}

/* Whether the owner of an OWNED ring is gone (thread dead, or, with how ==
 * SESSION_REAP_ALL, on the main thread, its process image replaced). */
static int ring_orphaned(const struct session *s, const struct rocsys_ring_ctl *c, int how)
{
    if (syscall(SYS_tgkill, (pid_t)c->pid, (pid_t)c->tid, 0) != 0 && errno == ESRCH)
        return 1;
    return how == SESSION_REAP_ALL && latest_instance(s, c->pid) > c->instance;
}

/* Add a ring's counters to the totals before it is freed (spool locked). */
static void account_ring(struct session *s, const struct rocsys_ring_ctl *c)
{
    s->acc_dropped += atomic_load(&c->dropped_samples) + atomic_load(&c->dropped_records);
    s->acc_dropped_events += atomic_load(&c->dropped_records);
    s->acc_cost_ns += atomic_load(&c->sample_cost_ns);
    s->acc_cost_n += atomic_load(&c->cost_measured);
    s->acc_waits += atomic_load(&c->waits);
    s->acc_waited_ns += atomic_load(&c->waited_ns);
}

/* The rings threads write to: RING_COUNT, or ROCSYS_RINGS (4-4096: a test makes them run out). */
static uint32_t ring_count(void)
{
    const char *e = getenv("ROCSYS_RINGS");
    long n = e ? strtol(e, NULL, 10) : 0;
    return n >= 4 && n <= 4096 ? (uint32_t)n : RING_COUNT;
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
int session_rings_setup(struct session *s, char *err, size_t errlen)
{
    const char *dirs[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    int rc = -ENOENT;

    for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        if (!dirs[i] || !*dirs[i])
            continue;
        sweep_stale(dirs[i]);
        snprintf(s->shm_path, sizeof(s->shm_path), "%s/rocsys-top-%d-%lx", dirs[i], (int)getpid(),
                 (unsigned long)(model_clock_ns(CLOCK_MONOTONIC) & 0xffffff));
        rc = transport_create(&s->tr, s->shm_path, ring_count(), RING_BYTES, GPU_RING_COUNT,
                              GPU_RING_BYTES);
        if (rc == 0)
            return 0;
    }
    s->shm_path[0] = '\0';
    snprintf(err, errlen, "cannot create the shared-memory transport: %s", strerror(-rc));
    return -1;
}

/* transport_drain_ring's callback: a collector record with its ring's owner, to the spool. */
static void rings_append(void *ctx, const struct rocsys_ring_ctl *ctl,
                         const struct rocsys_rec_header *h)
{
    struct session_spool_rec r = {.pid = ctl->pid,
                                  .tid = ctl->tid,
                                  .instance = ctl->instance,
                                  .source = SESSION_SRC_RINGS,
                                  .len = h->size};
    session_spool_append(ctx, &r, h);
}

/* Drain ring i into the spool, add its counters to the totals and free it. */
static void reap(struct session *s, struct session_spool *sp, uint32_t i)
{
    transport_drain_ring(&s->tr, i, rings_append, sp);
    account_ring(s, &s->tr.rings[i]);
    transport_free_ring(&s->tr, i);
}

/* The spool's pass: every ring drained; released ones (and with check_orphans, those of
 * threads that are gone) freed. */
static void rings_pass(struct session *s, struct session_spool *sp, int check_orphans)
{
    if (!s->tr.hdr)
        return; /* attached (-p): no collector */
    for (uint32_t i = 0; i < s->tr.ring_count; i++) {
        struct rocsys_ring_ctl *c = &s->tr.rings[i];
        uint32_t st = atomic_load_explicit(&c->state, memory_order_acquire);
        if (st != ROCSYS_RING_OWNED && st != ROCSYS_RING_RELEASED)
            continue;
        if (session_spool_full(sp))
            break; /* the main loop is far behind: the rings fill and count their drops */
        if (st == ROCSYS_RING_RELEASED) /* everything was written before the release */
            reap(s, sp, i);
        else if (check_orphans && ring_orphaned(s, c, check_orphans))
            reap(s, sp, i); /* (it may have written after the last pass, before it went away) */
        else
            transport_drain_ring(&s->tr, i, rings_append, sp);
    }
    transport_drained(&s->tr); /* producers waiting for room try again */
}

/* A spooled collector record: decoded with its ring's owner. */
static void rings_decode(struct session *s, const struct session_spool_rec *r, const uint8_t *rec)
{
    struct rocsys_ring_ctl owner = {.pid = r->pid, .tid = r->tid, .instance = r->instance};

    on_record(s, &owner, (const struct rocsys_rec_header *)rec);
}

/* Nothing is held back. */
static void rings_flush(struct session *s)
{
    (void)s;
}

const struct session_source session_source_rings = {
    .name = "collector rings",
    .pass = rings_pass,
    .decode = rings_decode,
    .flush = rings_flush,
};
