/* GPU monitoring in a session, and rocsys-top --attach-gpu: no target, the GPU dashboard of the
 * whole machine (every GPU, every process using one), as a TUI, text frames (-b) or a headless
 * recording (--record DIR). GPU samples reach the writers as machine-wide counter events
 * ("GPU0 busy" in %, "GPU0 power" in W, ...) on the session's clock. */
#define _GNU_SOURCE
#include "session/session.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "model/model.h"
#include "record/record.h"
#include "tui/tui.h"

/* Enter on a process of the dashboard: become rocsys-top -p PID with the same display options.
 * Returns only when that cannot be started (1, with a one-line message). */
static int profile_process(const struct session_config *o, int pid)
{
    char spid[16], delay[16], gpu[16];
    char *argv[12];
    int n = 0;

    snprintf(spid, sizeof(spid), "%d", pid);
    snprintf(delay, sizeof(delay), "%d", o->tui.delay_tenths);
    snprintf(gpu, sizeof(gpu), "%d", o->gpu_interval_ms);
    argv[n++] = "rocsys-top";
    argv[n++] = "-p";
    argv[n++] = spid;
    argv[n++] = "-d";
    argv[n++] = delay;
    argv[n++] = "--gpu-interval";
    argv[n++] = gpu;
    if (!o->tui.color)
        argv[n++] = "--no-color";
    if (o->tui.no_mouse)
        argv[n++] = "--no-mouse";
    argv[n] = NULL;
    execv("/proc/self/exe", argv);
    fprintf(stderr, "rocsys-top: cannot start rocsys-top -p %d: %s\n", pid, strerror(errno));
    return 1;
}

struct gpu_monitor *session_gpu_start(const struct session_config *o)
{
    struct gpu_monitor_options go = {.interval_ms = (uint32_t)o->gpu_interval_ms, .history_s = 300};
    struct gpu_monitor *g;
    sigset_t stop_on;

    if (o->gpu_interval_ms <= 0)
        return NULL;
    g = gpu_monitor_start(&go);
    /* the first frame shows the GPUs where the library answers in time; one that does not
     * answer (or a signal to end rocsys-top) does not hold the views back */
    sigemptyset(&stop_on);
    sigaddset(&stop_on, SIGINT);
    sigaddset(&stop_on, SIGTERM);
    sigaddset(&stop_on, SIGHUP);
    sigaddset(&stop_on, SIGQUIT);
    gpu_monitor_wait_started(g, GPU_ANSWER_WAIT_MS, &stop_on);
    return g;
}

/* One GPU sample: a counter event per metric that was read. */
static void record_gpu_sample(void *ctx, int dev, const struct gpu_sample *s)
{
    struct record_set *rec = ctx;
    char track[64];

    for (int k = 0; k < GPU_M_COUNT; k++) {
        if (!gpu_sample_has(s, k))
            continue;
        snprintf(track, sizeof(track), "GPU%d %s", dev, gpu_metrics[k].track);
        struct record_event ev = {.type = RECORD_EV_COUNTER,
                                  .time_ns = s->time_ns,
                                  .pid = 0,
                                  .track = track,
                                  .unit = gpu_metrics[k].unit,
                                  .value = s->v[k]};
        record_set_event(rec, &ev);
    }
}

/* A sample is lost only when nobody drains: nothing to do with it but drop it. */
static void drop_gpu_sample(void *ctx, int dev, const struct gpu_sample *s)
{
    (void)ctx;
    (void)dev;
    (void)s;
}

void session_gpu_record(struct gpu_monitor *g, struct record_set *rec)
{
    if (g)
        gpu_monitor_drain(g, rec ? record_gpu_sample : drop_gpu_sample, rec);
}

/* --attach-gpu state. */
struct attach {
    const struct session_config *o;
    struct model *m;
    struct gpu_monitor *gpu;
    struct record_set *rec;
    struct tui *tui;
    int batch, headless, quit, hangup, refreshes;
    const char *ended_by;
    const char *files[16];
    uint64_t start_cpu_ns;
    struct session_serve *serve; /* --serve, or NULL */
};

/* The recording directory and its writers (no output.log: there is no target output). */
static int open_recording(struct attach *a, char *err, size_t errlen)
{
    const char *dir = a->o->record_dir;
    char path[4096];
    int n = 0;

    if (session_record_dir_prepare(dir, a->o->force, err, errlen) != 0)
        return -1;
    model_session(a->m)->keep_ns = a->o->keep_ns; /* --keep: the trace writer rolls */
    model_session(a->m)->keep_bytes = a->o->keep_bytes;
    for (const struct record_file *r = record_files; r->cls; r++) {
        if (r->cls == &record_output_log || r->cls == &record_profile_coz)
            continue; /* (no output; --causal starts its program) */
        snprintf(path, sizeof(path), "%.2000s/%s", dir, r->file);
        if (record_set_add(a->rec, r->cls, path, a->m, err, errlen) != 0)
            return -1;
        if (n < 15)
            a->files[n++] = r->file;
    }
    a->files[n] = NULL;
    return 0;
}

/* One refresh: samples to the writers, then a frame (TUI, text, or the headless status). */
static void attach_refresh(struct attach *a)
{
    struct model_session *ms = model_session(a->m);
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);

    session_gpu_record(a->gpu, a->rec);
    if (now > ms->start_ns)
        ms->frontend_cpu_pct =
            100.0 * (double)(model_self_cpu_ns() - a->start_cpu_ns) / (double)(now - ms->start_ns);
    a->refreshes++;
    if (a->headless) {
        if (isatty(STDERR_FILENO))
            fprintf(stderr, "\rrocsys-top: %s GPUs %s %s: %.0f s ",
                    a->o->record_dir ? "recording" : "serving", a->o->record_dir ? "to" : "on",
                    a->o->record_dir ? a->o->record_dir : session_serve_address(a->serve),
                    (double)(now - ms->start_ns) / 1e9);
    } else if (a->batch) {
        tui_batch_frame(stdout, a->m, a->refreshes, a->o->max_rows);
        fflush(stdout);
    } else if (a->tui && !a->hangup) {
        tui_refresh(a->tui);
    }
}

/* The end of a headless recording: min/mean/max of the main metrics per GPU (stdout). */
static void print_gpu_summary(struct attach *a)
{
    static const int shown[] = {GPU_M_BUSY, GPU_M_POWER, GPU_M_TEMP_EDGE, GPU_M_VRAM_USED};
    struct gpu_status *st = xmalloc(sizeof(*st));

    gpu_monitor_status(a->gpu, st);
    if (isatty(STDERR_FILENO))
        fputc('\n', stderr);
    printf("rocsys-top: %s: GPUs recorded for %.1f s (%s)\n", a->o->record_dir,
           (double)(model_clock_ns(CLOCK_MONOTONIC) - model_session(a->m)->start_ns) / 1e9,
           a->ended_by ? a->ended_by : "?");
    if (st->state != GPU_STATE_OK)
        printf("gpu: %s%s\n", st->state == GPU_STATE_STARTING ? "" : "unavailable: ", st->reason);
    for (int d = 0; d < st->count; d++)
        for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
            struct gpu_running r;
            gpu_monitor_running(a->gpu, d, shown[i], &r);
            if (r.n)
                printf("GPU%d %s: min %.1f mean %.1f max %.1f %s\n", d, gpu_metrics[shown[i]].track,
                       r.min, r.sum / (double)r.n, r.max, gpu_metrics[shown[i]].unit);
            else
                printf("GPU%d %s: N/A\n", d, gpu_metrics[shown[i]].track);
        }
    printf("files:");
    for (int i = 0; a->files[i]; i++)
        printf(" %s/%s", a->o->record_dir, a->files[i]);
    printf("\n");
    fflush(stdout);
    free(st);
}

/* Signals to rocsys-top end the dashboard. */
static void attach_signal(struct attach *a, int fd)
{
    struct signalfd_siginfo si;

    while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
        if (si.ssi_signo == SIGHUP) {
            a->hangup = 1;
            a->ended_by = "SIGHUP to rocsys-top (terminal closed)";
        } else if (!a->ended_by) {
            a->ended_by = si.ssi_signo == SIGINT    ? "SIGINT to rocsys-top (Ctrl-C)"
                          : si.ssi_signo == SIGTERM ? "SIGTERM to rocsys-top"
                                                    : "SIGQUIT to rocsys-top";
        }
        a->quit = 1;
    }
}

int session_attach_gpu(const struct session_config *o)
{
    static struct attach a; /* one per process */
    struct model_session *ms;
    char err[600];
    int sig_fd = -1, rc = 1, profile_pid = 0;

    memset(&a, 0, sizeof(a));
    a.o = o;
    a.batch = o->batch || !isatty(STDOUT_FILENO);
    a.headless = (o->record_dir || o->serve) && !o->batch && (o->no_tui || !isatty(STDOUT_FILENO));
    if (a.headless)
        a.batch = 0;
    if (o->serve && !(a.serve = session_serve_open(o->serve, err, sizeof(err)))) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        return 2;
    }
    a.m = model_new();
    session_serve_set_content(a.serve, &(struct session_serve_content){.m = a.m});
    ms = model_session(a.m);
    ms->attach_gpu = 1;
    ms->rank = -1;
    ms->mode = MODEL_MODE_GPU;
    ms->timer = "none";
    snprintf(ms->target, sizeof(ms->target), "all GPUs (--attach-gpu)");
    snprintf(ms->status_text, sizeof(ms->status_text), "monitoring");
    a.rec = record_set_new();
    if (o->record_dir && open_recording(&a, err, sizeof(err)) != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        goto out;
    }
    sig_fd = session_signalfd(0);
    if (sig_fd < 0)
        goto out;
    ms->start_ns = model_clock_ns(CLOCK_MONOTONIC);
    a.start_cpu_ns = model_self_cpu_ns();
    a.gpu = session_gpu_start(o);
    ms->gpu = a.gpu;
    if (!a.batch && !a.headless) {
        struct tui_options to = o->tui;
        to.initial_view = tui_view_find("GPU");
        a.tui = tui_open(a.m, &to);
        if (!a.tui) {
            a.batch = 1;
            fprintf(stderr, "rocsys-top: cannot start the terminal UI; printing text frames\n");
        }
    }

    uint64_t period = (uint64_t)o->tui.delay_tenths * 100000000ull;
    uint64_t next = model_clock_ns(CLOCK_MONOTONIC) + period;
    if (a.tui)
        tui_refresh(a.tui); /* the dashboard at once, not after the first delay */
    while (!a.quit) {
        struct pollfd p[2 + SESSION_SERVE_MAX_FDS] = {{.fd = sig_fd, .events = POLLIN},
                                                      {.fd = a.tui ? 0 : -1, .events = POLLIN}};
        uint64_t now = model_clock_ns(CLOCK_MONOTONIC);
        int timeout = next > now ? (int)((next - now + 999999) / 1000000) : 0;
        int n_srv = session_serve_pollfds(a.serve, p + 2, SESSION_SERVE_MAX_FDS);

        if (n_srv && timeout > 100)
            timeout = 100; /* a client's time limit is checked at least this often */
        if (poll(p, (nfds_t)(2 + n_srv), timeout) < 0 && errno != EINTR)
            break;
        session_serve_handle(a.serve, p + 2, n_srv);
        if (p[0].revents)
            attach_signal(&a, sig_fd);
        if (a.tui && (p[1].revents & POLLIN) && tui_input(a.tui)) {
            profile_pid = tui_profile_pid(a.tui);
            a.ended_by = profile_pid > 0 ? "Enter: profile a process" : "quit by the user";
            break;
        }
        if (a.tui && (p[1].revents & (POLLHUP | POLLERR))) {
            a.hangup = 1;
            break;
        }
        now = model_clock_ns(CLOCK_MONOTONIC);
        if (now >= next && !a.quit) {
            attach_refresh(&a);
            if (a.tui) /* F2 may have changed the delay */
                period = (uint64_t)tui_delay_tenths(a.tui) * 100000000ull;
            next = now + period;
            if (o->iterations && a.refreshes >= o->iterations) {
                a.ended_by = "the -n refresh limit";
                break;
            }
        }
    }
    rc = 0;
out:
    if (a.tui)
        tui_close(a.tui);
    session_gpu_record(a.gpu, a.rec); /* what was sampled since the last refresh */
    snprintf(ms->status_text, sizeof(ms->status_text), "ended");
    ms->end_ns = model_clock_ns(CLOCK_MONOTONIC);
    struct record_end end = {.exit_status = rc,
                             .status_text = "GPU monitoring ended",
                             .ended_by = a.ended_by ? a.ended_by : "?",
                             .files = a.files};
    char lost[192];
    if (record_set_close(a.rec, a.m, &end, lost, sizeof(lost)) > 0) {
        fprintf(stderr, "rocsys-top: the recording is incomplete: %s\n", lost);
        if (rc == 0)
            rc = 74; /* EX_IOERR */
    }
    if (a.headless && rc == 0 && o->record_dir)
        print_gpu_summary(&a);
    session_serve_close(a.serve);
    gpu_monitor_stop(a.gpu);
    if (sig_fd >= 0)
        close(sig_fd);
    model_free(a.m);
    if (profile_pid > 0)
        rc = profile_process(o, profile_pid);
    return rc;
}
