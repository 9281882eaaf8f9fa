/* The front end's main loop: start the target (or attach to running processes), decode what
 * the spool took from the sources (session_sources[]) into the model, keep the target's output
 * (log file + tail), refresh the TUI or print batch frames, and end with the target's exit
 * status. One thread, poll()-driven; the spool empties the rings in its own thread. */
#define _GNU_SOURCE
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
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

#include "session/perf_python.h"
#include "session/session_internal.h"

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
                              .weight = weight,
                              .path = model_last_path(s->m)};
    record_set_event(s->rec, &ev);
}

void session_sample(struct session *s, uint32_t pid, uint32_t tid, uint64_t t,
                    const uint64_t *frames, uint32_t n, uint32_t weight)
{
    if (s->causal) /* --causal chooses its experiments from the samples */
        session_causal_sample(s, pid, frames, n);
    if (model_sample_weighted(s->m, pid, tid, t, frames, n, weight, 0) == -EAGAIN)
        defer_sample(s, pid, tid, t, frames, n, weight);
    else
        record_sample(s, pid, tid, t, frames, n, weight);
}

void session_finish_symbols(struct session *s, int timeout_ms)
{
    struct symbolizer *sym = model_symbolizer(s->m);
    char file[96];
    int quiet_ms;

    model_launch_stacks_finish(s->m); /* every file their frames need starts loading */
    if (symbolizer_loading(sym, file, sizeof(file)) == 0)
        return;
    /* a wait a user would notice is said (batch and headless: the TUI's header says it) */
    quiet_ms = timeout_ms < SESSION_SYMBOLS_QUIET_MS ? timeout_ms : SESSION_SYMBOLS_QUIET_MS;
    if (symbolizer_wait(sym, quiet_ms) != 0) {
        if ((s->batch || s->headless) && symbolizer_loading(sym, file, sizeof(file)) != 0)
            fprintf(stderr, "rocsys-top: waiting for the symbols of %s (at most %d s)\n", file,
                    (timeout_ms - quiet_ms) / 1000);
        if (symbolizer_wait(sym, timeout_ms - quiet_ms) != 0)
            symbolizer_give_up(sym); /* their frames are named by address */
    }
    model_launch_stacks_finish(s->m);
}

/* The sources, in the order of each spool pass (session_internal.h: SESSION_SRC_*). */
const struct session_source *const session_sources[] = {&session_source_rings,
                                                        &session_source_perf};
const int session_nsources = (int)(sizeof(session_sources) / sizeof(session_sources[0]));

void session_drain(struct session *s, int check_orphans)
{
    struct session_spool_buf *b = &s->taken;
    size_t used;

    session_spool_lock(&s->spool);
    session_spool_pass(&s->spool, check_orphans);
    session_spool_take(&s->spool, b);
    session_spool_unlock(&s->spool);
    used = b->len;
    for (size_t off = 0; off + sizeof(struct session_spool_rec) <= b->len;) {
        struct session_spool_rec r;
        memcpy(&r, b->data + off, sizeof(r));
        if (r.source < session_nsources)
            session_sources[r.source]->decode(s, &r, b->data + off + sizeof(r));
        off += sizeof(r) + (((size_t)r.len + 7) & ~(size_t)7);
    }
    b->len = 0;
    session_spool_buf_fit(b, used); /* a burst's buffer is not kept for the quiet drains after */
    for (int i = 0; s->target_done && i < session_nsources; i++)
        session_sources[i]->flush(s);
    model_regions_resolve(s->m, s->target_done); /* OpenMP regions' names, held spans */
    /* samples whose modules were not known yet */
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
    session_causal_tick(s);                 /* --causal: the next experiment, when due */
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

/* One refresh: metrics, stats, then a TUI draw or a batch frame. */
static void refresh(struct session *s)
{
    uint64_t t = model_clock_ns(CLOCK_MONOTONIC);

    if (s->attached && !s->target_done)
        session_check_attached(s);

    session_drain(s, 1);
    model_regions_close(s->m, t, 0); /* regions left open by threads that ended */
    model_tick(s->m, t);
    model_refresh_procfs(s->m, t);
    session_record_process_counters(s, t);
    session_gpu_record(model_session(s->m)->gpu, s->rec);
    session_update_stats(s);
    s->refreshes++;
    if (s->headless) {
        if (isatty(STDERR_FILENO)) {
            struct model_session *ms = model_session(s->m);
            fprintf(stderr, "\rrocsys-top: %s %s: %.0f s, %llu samples, %llu dropped, %s ",
                    s->o->record_dir ? "recording to" : "serving on",
                    s->o->record_dir ? s->o->record_dir : session_serve_address(s->serve),
                    (double)(t - ms->start_ns) / 1e9, (unsigned long long)ms->samples,
                    (unsigned long long)ms->dropped, ms->status_text);
        }
    } else if (s->batch)
        tui_batch_frame(stdout, s->m, s->refreshes, s->o->max_rows);
    else if (s->tui && !s->hangup)
        tui_refresh(s->tui);
    if (s->batch)
        fflush(stdout);
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

/* Milliseconds until deadline (0 if passed), capped at cap. */
static int ms_until(uint64_t deadline, uint64_t now, int cap)
{
    if (deadline <= now)
        return 0;
    uint64_t ms = (deadline - now + 999999) / 1000000;
    return ms < (uint64_t)cap ? (int)ms : cap;
}

/* The poll loop. Returns when the session is over. */
static void run_loop(struct session *s)
{
    uint64_t refresh_ns = (uint64_t)s->o->tui.delay_tenths * 100000000ull;
    uint64_t next_refresh = model_clock_ns(CLOCK_MONOTONIC) + refresh_ns;
    uint64_t next_drain = model_clock_ns(CLOCK_MONOTONIC);

    while (!s->quit) {
        struct pollfd p[5 + SESSION_SERVE_MAX_FDS];
        int np = 0, i_out = -1, i_err = -1, i_key = -1, i_bell = -1, bell = 0, i_srv, n_srv;
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
        i_srv = np;
        n_srv = session_serve_pollfds(s->serve, p + np, SESSION_SERVE_MAX_FDS);
        np += n_srv;
        int timeout = ms_until(next_drain, t, 1000);
        timeout = ms_until(next_refresh, t, timeout);
        if (s->kill_sent && !s->target_done)
            timeout = ms_until(s->kill_deadline, t, timeout);
        if (poll(p, (nfds_t)np, timeout) < 0 && errno != EINTR)
            break;
        if (p[0].revents)
            session_on_signal(s);
        if (i_bell >= 0 && (p[i_bell].revents & POLLIN)) {
            uint64_t rings;
            bell = read(s->spool.wake_fd, &rings, sizeof(rings)) == (ssize_t)sizeof(rings);
        }
        if (i_out >= 0 && p[i_out].revents)
            read_output(s, &s->target.out_fd, 1);
        session_serve_handle(s->serve, p + i_srv, n_srv); /* never waits for a client */
        if (i_err >= 0 && p[i_err].revents)
            read_output(s, &s->target.err_fd, 2);
        if (i_key >= 0 && (p[i_key].revents & POLLIN) && tui_input(s->tui)) {
            /* the user quits: end a running target first */
            if (!s->ended_by)
                s->ended_by = "quit by the user";
            if (s->target_done)
                s->quit = 1;
            else
                session_stop_target(s);
        }
        if (i_key >= 0 && (p[i_key].revents & (POLLHUP | POLLERR)))
            s->hangup = s->quit = 1;
        t = model_clock_ns(CLOCK_MONOTONIC);
        if (s->kill_sent && !s->target_done && t >= s->kill_deadline) {
            session_signal_target(s, SIGKILL);
            s->kill_deadline = t + 60 * 1000000000ull;
        }
        if (t >= next_drain || bell) {
            session_drain(s, 0);
            next_drain = t + DRAIN_INTERVAL_MS * 1000000ull;
        }
        if (s->target_done) {
            int pipes_open = s->target.out_fd >= 0 || s->target.err_fd >= 0;
            int grace_over = t - s->target_end_ns > OUTPUT_GRACE_MS * 1000000ull;
            if (!pipes_open || grace_over) {
                model_output_flush(s->m);
                if (s->batch || s->headless || s->kill_sent || s->o->iterations) {
                    session_finish_symbols(s, SYMBOLS_FINAL_WAIT_MS);
                    refresh(s);
                    break; /* batch: the final frame; TUI: the user already quit */
                }
            }
        }
        if (t >= next_refresh) {
            refresh(s);
            if (s->tui) /* F2 may have changed the delay */
                refresh_ns = (uint64_t)tui_delay_tenths(s->tui) * 100000000ull;
            next_refresh = t + refresh_ns;
            if (s->o->iterations && s->refreshes >= s->o->iterations) {
                if (s->target_done)
                    break;
                if (!s->ended_by)
                    s->ended_by = "the -n refresh limit";
                session_stop_target(s);
            }
        }
    }
}

/* Text frames, headless or the TUI, from the configuration and the terminal. 0, or 2 with a
 * message when --stdin cannot go with it. */
static int choose_display(struct session *s)
{
    const struct session_config *o = s->o;

    s->batch = o->batch || !isatty(STDOUT_FILENO);
    s->headless = (o->record_dir || o->serve) && !o->batch && (o->no_tui || !isatty(STDOUT_FILENO));
    if (o->record_dir && session_mpi_rank() >= 0 && !o->batch)
        s->headless = 1; /* ranks never take over a terminal */
    if (s->headless)
        s->batch = 0;
    if (o->use_stdin && !s->batch && isatty(STDIN_FILENO)) {
        fprintf(stderr, "rocsys-top: --stdin needs -b: the TUI reads the keyboard\n");
        return 2;
    }
    return 0;
}

/* Check the program to start and find the collector (nothing with -p). 0, or the exit status
 * with a one-line message on stderr. */
static int check_target(struct session *s, struct inject_program *prog, char *collector, size_t cap)
{
    memset(prog, 0, sizeof(*prog));
    if (s->attached)
        return 0;
    inject_check_program(s->o->target_argv[0], prog);
    if (prog->exit_code != 0) {
        fprintf(stderr, "rocsys-top: %s\n", prog->error);
        return prog->exit_code;
    }
    if (inject_find_collector(collector, cap) != 0) {
        fprintf(stderr, "rocsys-top: cannot find librocsys-collector.so next to rocsys-top "
                        "(set ROCSYS_COLLECTOR_PATH)\n");
        return 1;
    }
    return 0;
}

/* The session facts shown from the start: sampling mode, signal, timer, rate, window and the
 * target's command line. */
static void describe_session(struct session *s)
{
    const struct session_config *o = s->o;
    struct model_session *ms = model_session(s->m);
    const char *env = getenv("ROCSYS_SIGNAL"); /* as the collector chooses it */
    int timer = session_resolve_cpu_timer(o->cpu_timer);
    size_t off = 0;

    ms->mode = o->wall ? "wall" : "cpu";
    ms->sample_signal = SIGRTMIN + 6;
    if (env && atoi(env) >= SIGRTMIN && atoi(env) <= SIGRTMAX)
        ms->sample_signal = atoi(env);
    /* what is expected; the samples' flags correct it (cycles, or a fallback to tick) */
    ms->timer = o->wall ? "hrtimer" : timer == SESSION_TIMER_POSIX ? "tick" : "task-clock";
    ms->freq_hz = o->freq_hz;
    ms->profile_min_pct = o->profile_min_pct;
    model_set_window(s->m, (uint32_t)o->window_s);
    if (s->attached)
        snprintf(ms->target, sizeof(ms->target), "attached to %s", o->pids);
    for (int i = 0; i < o->target_argc && off < sizeof(ms->target) - 1; i++)
        off += (size_t)snprintf(ms->target + off, sizeof(ms->target) - off, "%s%s", i ? " " : "",
                                o->target_argv[i]);
}

/* The model, the HTTP endpoint's content, the writers and the collector's rings, then the
 * session facts. 0, or -1 with a one-line message in err. */
static int setup_model(struct session *s, char *err, size_t errlen)
{
    s->m = model_new();
    session_serve_set_content(s->serve, &(struct session_serve_content){.m = s->m});
    /* files' symbols (debuginfod downloads, big DWARF) load off this thread: the display and
     * the rings never wait for them */
    symbolizer_set_async(model_symbolizer(s->m), 1);
    model_regions_set_sink(s->m, session_region_span, s);
    model_session(s->m)->rank = s->o->record_dir ? session_mpi_rank() : -1;
    if (session_setup_writers(s, err, errlen) != 0 ||
        (!s->attached && session_rings_setup(s, err, errlen) != 0))
        return -1;
    describe_session(s);
    return 0;
}

/* inject_spawn's hook, while the child waits before its exec: --causal's experiment block names
 * it, and the perf engine opens its events on it. */
static void launch_before_exec(pid_t pid, void *ctx)
{
    struct session *s = ctx;

    if (s->o->causal)
        session_causal_before_exec(s, pid);
    if (s->use_perf)
        session_perf_before_exec(pid, ctx);
}

/* Start the program with the collector injected: the engine chosen first, the collector's
 * settings in its environment. 0, or the exit status with a one-line message on stderr. */
static int launch_target(struct session *s, const struct inject_program *prog,
                         const char *collector)
{
    const struct session_config *o = s->o;
    struct model_session *ms = model_session(s->m);
    int timer = session_resolve_cpu_timer(o->cpu_timer);
    char env_session[512], err[600];
    char *env_extra[2];

    if (session_choose_engine(s, prog->path) != 0) {
        fprintf(stderr, "rocsys-top: --engine perf: %s\n", ms->engine_why);
        return 1;
    }
    if (s->use_perf)
        ms->timer = o->wall ? "task-clock+switches" : "task-clock";
    /* one variable (protocol.h); the launcher adds root=PID in the child */
    snprintf(env_session, sizeof(env_session),
             "%s=protocol=%d,hz=%d,mode=%s,follow=%d,timer=%s,python=%d,lstacks=%d,shm=%s",
             ROCSYS_ENV_SESSION, ROCSYS_PROTOCOL_VERSION, o->freq_hz, o->wall ? "wall" : "cpu",
             o->follow,
             s->use_perf                   ? "none"
             : timer == SESSION_TIMER_PERF ? "perf"
                                           : "posix",
             o->python != SESSION_PYTHON_OFF, !o->launch_stacks_off, s->shm_path);
    model_python_hide_interpreter(s->m, o->python == SESSION_PYTHON_ON);
    env_extra[0] = env_session;
    env_extra[1] = NULL;

    ms->start_ns = model_clock_ns(CLOCK_MONOTONIC);
    s->start_cpu_ns = model_self_cpu_ns();
    struct inject_launch launch = {
        .argv = o->target_argv, .use_stdin = o->use_stdin, .causal = o->causal};
    int rc = inject_spawn(&launch, prog, collector, env_extra, &s->target, err, sizeof(err),
                          launch_before_exec, s);
    if (rc != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        return rc;
    }
    model_set_root_pid(s->m, (uint32_t)s->target.pid);
    if (o->causal)
        session_causal_start(s);
    fcntl(s->target.out_fd, F_SETFL, O_NONBLOCK);
    fcntl(s->target.err_fd, F_SETFL, O_NONBLOCK);
    return 0;
}

/* -p: sample the running processes from outside. 0, or 1 with a one-line message on stderr. */
static int attach_target(struct session *s)
{
    char err[600];

    model_session(s->m)->start_ns = model_clock_ns(CLOCK_MONOTONIC);
    s->start_cpu_ns = model_self_cpu_ns();
    if (session_attach(s, err, sizeof(err)) != 0) {
        fprintf(stderr, "rocsys-top: -p: %s\n", err);
        return 1;
    }
    return 0;
}

/* Once the target runs: GPU monitoring, the spool's thread and the display (text frames when
 * the terminal cannot take the TUI). */
static void start_watching(struct session *s)
{
    struct model_session *ms = model_session(s->m);

    ms->gpu = session_gpu_start(s->o); /* after the fork: the child expects one thread */
    session_spool_start(&s->spool);    /* without it, the loop drains on its tick */
    snprintf(ms->status_text, sizeof(ms->status_text), "running");
    if (!s->batch && !s->headless) {
        s->tui = tui_open(s->m, &s->o->tui);
        if (!s->tui) {
            s->batch = 1; /* no usable terminal: fall back to text frames */
            fprintf(stderr, "rocsys-top: cannot start the terminal UI; printing text frames\n");
        }
    }
}

/* The end of a session that ran: the display closed, the last slices and regions written, the
 * recording closed (exit status 74 when it lost data), the output log kept or removed, the
 * headless summary (and ROCSYS_UNWIND_CHECK's line). Returns rc, or 74. */
static int close_outputs(struct session *s, int rc)
{
    const struct session_config *o = s->o;

    if (s->tui)
        tui_close(s->tui);
    /* our own log in $TMPDIR is removed when the target ended well, kept (and said) if not */
    int keep_log = s->log_is_temp && s->target.pid > 0 && s->exit_status != 0;
    if (s->rec && !s->hangup && s->target.pid > 0 && !s->attached &&
        (keep_log || (!s->log_is_temp && !s->batch && !s->headless)))
        fprintf(stderr, "rocsys-top: %s; the target's output is in %s\n",
                model_session(s->m)->status_text, s->log_path);
    if (s->target.out_fd >= 0)
        close(s->target.out_fd);
    if (s->target.err_fd >= 0)
        close(s->target.err_fd);
    struct record_end end = {.exit_status = s->exit_status,
                             .status_text = model_session(s->m)->status_text,
                             .ended_by = s->ended_by ? s->ended_by : "target ended",
                             .argv = o->target_argv,
                             .argc = o->target_argc,
                             .root_pid = (int)s->target.pid,
                             .files = (const char *const *)s->files};
    if (s->m) /* regions still open (a process that outlived the session): closed now */
        model_regions_close(s->m, model_clock_ns(CLOCK_MONOTONIC), 1);
    if (s->m) /* OpenMP regions still unnamed: named now, their held slices written */
        model_regions_resolve(s->m, 1);
    if (s->m)
        session_gpu_record(model_session(s->m)->gpu, s->rec);
    if (s->m) /* GPU slices still waiting for a kernel name: written with what is known */
        session_kernels_flush(s->m, s->rec, 1);
    char lost[192];
    if (record_set_close(s->rec, s->m, &end, lost, sizeof(lost)) > 0) {
        fprintf(stderr, "rocsys-top: the %s is incomplete: %s\n",
                o->record_dir ? "recording" : "output log", lost);
        if (rc == 0) /* a run that lost data never looks like one that succeeded */
            rc = 74; /* EX_IOERR */
    }
    s->rec = NULL;
    if (s->log_is_temp && !keep_log)
        unlink(s->log_path);
    if (s->headless && s->target.pid > 0 && o->record_dir)
        session_print_summary(s);
    const char *check = getenv("ROCSYS_UNWIND_CHECK");
    if (check && check[0] == '1') { /* a developer's check of the cached unwinder */
        struct symbolizer_unwind_stats us;
        symbolizer_unwind_stats(&us);
        fprintf(stderr,
                "unwind check: %" PRIu64 " samples, %" PRIu64 " by cached rules, %" PRIu64
                " compared with libdwfl, %" PRIu64 " differ\n",
                us.samples, us.cached, us.checked, us.differ);
    }
    check = getenv("ROCSYS_PY_MERGE_CHECK");
    if (check && check[0] == '1' && s->m) { /* a developer's check of the Python merge */
        const char *first;
        uint64_t beyond = model_python_merge_check(s->m, &first);
        char files[1024];
        symbolizer_describe_files(model_symbolizer(s->m), "python", files, sizeof(files));
        fprintf(stderr,
                "python merge check: %" PRIu64 " samples with Python callers beyond the "
                "native root%s%s; files: %s\n",
                beyond, beyond ? "; the first: " : "", first, files[0] ? files : "none");
    }
    return rc;
}

/* Free what the session holds; nothing of ours stays in the target (perf events, rings). */
static void free_session(struct session *s)
{
    if (s->sig_fd >= 0)
        close(s->sig_fd);
    session_serve_close(s->serve);
    session_spool_stop(&s->spool);
    session_perf_close(s->perf);
    perf_python_free(s->py_walker); /* (loaded, never handed to the events) */
    session_context_free(s->ctx);
    session_spool_buf_free(&s->held);
    free(s->pids);
    free(s->seen_tids);
    if (s->tr.hdr) {
        transport_consumer_gone(&s->tr); /* a process that outlives us must not wait for room */
        transport_detach(&s->tr);
    }
    if (s->shm_path[0])
        unlink(s->shm_path);
    for (size_t i = 0; i < s->ndef; i++)
        free(s->def[i].frames);
    free(s->def);
    free(s->inst);
    session_spool_free(&s->spool);
    session_causal_free(s);
    session_spool_buf_free(&s->taken);
    if (s->m)
        gpu_monitor_stop(model_session(s->m)->gpu);
    model_free(s->m);
}

int session_run(const struct session_config *o)
{
    static struct session s; /* one per process */
    struct inject_program prog;
    char collector[4096], err[600];
    int rc;

    memset(&s, 0, sizeof(s));
    s.o = o;
    s.sig_fd = -1;
    s.target.out_fd = s.target.err_fd = -1;
    s.target.pid = -1;
    s.attached = o->pids != NULL;
    session_spool_init(&s.spool, &s.tr, &s);
    if ((rc = choose_display(&s)) != 0 ||
        (rc = check_target(&s, &prog, collector, sizeof(collector))) != 0)
        return rc;
    if (o->serve && !(s.serve = session_serve_open(o->serve, err, sizeof(err)))) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        return 2;
    }
    rc = 1;
    if (setup_model(&s, err, sizeof(err)) != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        goto out;
    }
    /* signals: handled through a signalfd; the child restores the mask before exec */
    s.sig_fd = session_signalfd(1);
    if (s.sig_fd < 0)
        goto out;
    rc = s.attached ? attach_target(&s) : launch_target(&s, &prog, collector);
    if (rc != 0)
        goto out;
    start_watching(&s);
    run_loop(&s);
    session_end_target(&s); /* it must not outlive a session that is over */
    rc = s.exit_status;
    /* samples still waiting for their files: named now (after a short wait when the user quit
     * the TUI, the full one when a recording or batch output must be complete) */
    session_finish_symbols(&s, s.tui ? 3000 : SYMBOLS_FINAL_WAIT_MS);
    session_drain(&s, 0);
    /* the recording's session.json counts what that last drain brought too (a sample of a
     * process that sent no records, among unannounced_samples: its stack is in stacks.folded) */
    session_update_stats(&s);
    if (s.tr.hdr)
        transport_consumer_gone(&s.tr); /* no more drains: nobody waits for room from here on */
    /* nor spooling: the buffers' memory goes back before the writers end the recording */
    session_spool_stop(&s.spool);
    session_spool_release(&s.spool);
    session_spool_buf_free(&s.taken);
    session_spool_buf_free(&s.held);
out:
    rc = close_outputs(&s, rc);
    free_session(&s);
    return rc;
}
