/* The GPU monitor: initializes a backend, samples every device (and the processes using them)
 * on its own thread at a fixed interval, keeps history rings and running statistics per
 * metric and device, and queues the samples for the recording. Views copy its state out under
 * its lock; nothing here ever waits on the UI, and the UI never waits on a GPU query: the
 * library is loaded and initialized on that thread too, so that one that never returns (ROCm SMI
 * 6.1's rsmi_init without a card) leaves rocsys-top working and stoppable. */
#define _GNU_SOURCE
#include "gpu/gpu.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "base/stderr_route.h"

const struct gpu_metric_def gpu_metrics[GPU_M_COUNT] = {
    [GPU_M_BUSY] = {"busy", "busy", "%", "busy_pct"},
    [GPU_M_POWER] = {"power", "power", "W", "power_w"},
    [GPU_M_POWER_CAP] = {"power_cap", "power cap", "W", "power_cap_w", 1},
    [GPU_M_TEMP_EDGE] = {"temp_edge", "edge temperature", "C", "temp_edge_c"},
    [GPU_M_TEMP_JUNCTION] = {"temp_junction", "junction temperature", "C", "temp_junction_c"},
    [GPU_M_TEMP_MEMORY] = {"temp_memory", "memory temperature", "C", "temp_memory_c"},
    [GPU_M_VRAM_USED] = {"vram_used", "VRAM used", "bytes", "vram_used_bytes"},
    [GPU_M_VRAM_TOTAL] = {"vram_total", "VRAM total", "bytes", "vram_total_bytes", 1},
    [GPU_M_GTT_USED] = {"gtt_used", "GTT used", "bytes", "gtt_used_bytes"},
    [GPU_M_GTT_TOTAL] = {"gtt_total", "GTT total", "bytes", "gtt_total_bytes", 1},
    [GPU_M_SCLK] = {"sclk", "shader clock", "MHz", "sclk_mhz"},
    [GPU_M_MCLK] = {"mclk", "memory clock", "MHz", "mclk_mhz"},
    [GPU_M_FAN_RPM] = {"fan", "fan", "RPM", "fan_rpm"},
    [GPU_M_FAN_PCT] = {"fan_speed", "fan speed", "%", "fan_pct"},
};

const struct gpu_backend *const gpu_backends[] = {&gpu_backend_rocm_smi, NULL};

int gpu_metric_by_track(const char *track)
{
    for (int i = 0; i < GPU_M_COUNT; i++)
        if (strcmp(gpu_metrics[i].track, track) == 0)
            return i;
    return -1;
}

void gpu_format_value(char *buf, size_t n, int metric, const struct gpu_sample *s)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    double v = s->v[metric];
    int u = -1;

    if (!gpu_sample_has(s, metric)) {
        snprintf(buf, n, "N/A");
        return;
    }
    if (strcmp(gpu_metrics[metric].unit, "bytes") == 0) {
        while (v >= 1024.0 && u < 3) {
            v /= 1024.0;
            u++;
        }
        if (u < 0)
            snprintf(buf, n, "%.0f B", v);
        else
            snprintf(buf, n, "%.1f %s", v, units[u]);
    } else if (strcmp(gpu_metrics[metric].unit, "W") == 0) {
        snprintf(buf, n, "%.1f W", v);
    } else {
        snprintf(buf, n, "%.0f %s", v, gpu_metrics[metric].unit);
    }
}

#define STOP_WAIT_MS  1000 /* how long stopping waits for a sweep in progress */
#define CAPTURE_BYTES 160  /* what the library said while it started, kept for the reason */

/* A queued sample for the recording. */
struct queued {
    int dev;
    struct gpu_sample s;
};

struct gpu_monitor {
    const struct gpu_backend *b;
    int pidns_depth; /* gpu_pidns_self(): how KFD's host ids map to ours */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t lock;
    pthread_cond_t wake; /* the thread: stop; gpu_monitor_wait_started: started */
    int stop;
    int starting;                            /* under lock: the backend is still starting */
    int cap_fd, cap_route;                   /* under lock: stderr caught while it starts */
    _Atomic uint64_t call_since_ns;          /* CLOCK_MONOTONIC: in a backend call since; 0 */
    const char *_Atomic step;                /* the backend call it is in: "init", "sample" */
    struct gpu_status st;                    /* under lock */
    struct gpu_history (*hist)[GPU_M_COUNT]; /* [device][metric], under lock */
    struct gpu_running (*run)[GPU_M_COUNT];  /* [device][metric], under lock */
    struct queued *q;                        /* ring of samples not drained yet */
    int qcap, qhead, qlen;
    uint64_t qlost;
    double cpu_us_sum;
    uint64_t replay_readings[GPU_MAX_DEVICES]; /* replay: readings pushed per device */
    /* the sampling thread's scratch space (no lock needed) */
    struct gpu_sample scratch[GPU_MAX_DEVICES];
    struct gpu_proc scratch_procs[GPU_MAX_PROCS];
};

/* Set when a monitor's thread was left inside the library: the process must end with _exit. */
static atomic_int left_behind;

/* CPU time of the calling thread, in microseconds. */
static double thread_cpu_us(void)
{
    return (double)base_clock_ns(CLOCK_THREAD_CPUTIME_ID) / 1000.0;
}

/* The short name of process pid from /proc ("?" when it is gone). */
static void proc_comm(uint32_t pid, char *buf, size_t n)
{
    char path[64];
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%u/comm", (unsigned)pid);
    f = fopen(path, "re");
    if (!f || !fgets(buf, (int)n, f))
        snprintf(buf, n, "?");
    buf[strcspn(buf, "\n")] = '\0';
    if (f)
        fclose(f);
}

/* The monitor's thread enters a backend call named step (which may never return). */
static void call_begin(struct gpu_monitor *m, const char *step)
{
    atomic_store(&m->step, step);
    atomic_store(&m->call_since_ns, base_clock_ns(CLOCK_MONOTONIC));
}

/* ... and is back from it. */
static void call_end(struct gpu_monitor *m)
{
    atomic_store(&m->call_since_ns, 0);
}

/* Read every device and the process list, then publish it all at once under the lock. The
 * slow metrics are read every GPU_SLOW_EVERY sweeps and carried over in between. */
static void sweep(struct gpu_monitor *m)
{
    double cpu0 = thread_cpu_us();
    int count = m->st.count, nproc, all = m->st.sweeps % GPU_SLOW_EVERY == 0;
    uint32_t slow = 0;

    for (int k = 0; k < GPU_M_COUNT; k++)
        slow |= gpu_metrics[k].slow ? 1u << k : 0;
    for (int d = 0; d < count; d++) {
        struct gpu_sample *s = &m->scratch[d];
        uint32_t kept = all ? 0 : s->valid & slow; /* the previous sweep's slow readings */
        s->valid = kept;
        call_begin(m, "sample");
        m->b->sample(d, all ? ~0u : ~slow, s);
        call_end(m);
        s->time_ns = base_clock_ns(CLOCK_MONOTONIC);
    }
    call_begin(m, "processes");
    nproc = m->b->processes(m->scratch_procs, GPU_MAX_PROCS);
    call_end(m);
    gpu_pidns_map(m->pidns_depth, m->scratch_procs, nproc);
    for (int i = 0; i < nproc; i++) /* /proc's ids are KFD's, but in a namespace of our own */
        if (m->pidns_depth > 0)
            proc_comm(m->scratch_procs[i].host_pid, m->scratch_procs[i].name,
                      sizeof(m->scratch_procs[i].name));
        else
            snprintf(m->scratch_procs[i].name, sizeof(m->scratch_procs[i].name), "?");

    pthread_mutex_lock(&m->lock);
    for (int d = 0; d < count; d++) {
        const struct gpu_sample *s = &m->scratch[d];
        m->st.now[d] = *s;
        for (int k = 0; k < GPU_M_COUNT; k++) {
            gpu_history_push(&m->hist[d][k], s->v[k], gpu_sample_has(s, k));
            if (gpu_sample_has(s, k))
                gpu_running_add(&m->run[d][k], s->v[k]);
        }
        if (m->qlen == m->qcap) { /* nobody drained: the oldest goes */
            m->qhead = (m->qhead + 1) % m->qcap;
            m->qlen--;
            m->qlost++;
        }
        m->q[(m->qhead + m->qlen) % m->qcap] = (struct queued){.dev = d, .s = *s};
        m->qlen++;
    }
    m->st.nproc = nproc;
    memcpy(m->st.procs, m->scratch_procs, (size_t)nproc * sizeof(*m->scratch_procs));
    m->st.sweeps++;
    double cost = thread_cpu_us() - cpu0;
    m->cpu_us_sum += cost;
    m->st.sweep_cpu_us_mean = m->cpu_us_sum / (double)m->st.sweeps;
    if (cost > m->st.sweep_cpu_us_max)
        m->st.sweep_cpu_us_max = cost;
    pthread_mutex_unlock(&m->lock);
}

/* Send stderr into a fresh file while the library starts: what it prints completes the reason
 * shown to the user instead of scribbling over the terminal. */
static void capture_begin(struct gpu_monitor *m)
{
    int fd = memfd_create("rocsys-gpu-init", MFD_CLOEXEC), route = -1;

    if (fd >= 0)
        route = stderr_route_push(fd);
    if (fd >= 0 && route < 0) {
        close(fd);
        fd = -1;
    }
    pthread_mutex_lock(&m->lock);
    m->cap_fd = fd;
    m->cap_route = route;
    pthread_mutex_unlock(&m->lock);
}

/* Take the capture over (once: the thread and the UI thread may race for it); its file
 * descriptor, or -1 when there is none or it was taken already. stderr is given back. */
static int capture_take(struct gpu_monitor *m)
{
    int fd, route;

    pthread_mutex_lock(&m->lock);
    fd = m->cap_fd;
    route = m->cap_route;
    m->cap_fd = m->cap_route = -1;
    pthread_mutex_unlock(&m->lock);
    if (route > 0)
        stderr_route_pop(route);
    return fd;
}

/* The library is back from its start: stderr given back, the first line it printed into said
 * ("" if none; the rest, the library's chatter, is dropped). */
static void capture_end(struct gpu_monitor *m, char *said, size_t n)
{
    int fd = capture_take(m);
    ssize_t got = fd >= 0 ? pread(fd, said, n - 1, 0) : 0;

    said[got > 0 ? got : 0] = '\0';
    said[strcspn(said, "\n")] = '\0';
    if (fd >= 0)
        close(fd);
}

/* The library has not come back (the UI thread): stderr given back now, and what reached the
 * capture meanwhile passed on to it, so that nothing printed is lost. */
static void capture_give_back(struct gpu_monitor *m)
{
    int fd = capture_take(m);
    char buf[4096];
    off_t off = 0;
    ssize_t got;

    if (fd < 0)
        return;
    while ((got = pread(fd, buf, sizeof(buf), off)) > 0) {
        if (write(STDERR_FILENO, buf, (size_t)got) != got)
            break;
        off += got;
    }
    close(fd);
}

/* Mark the monitor unavailable with reason (under the lock). */
static void set_unavailable(struct gpu_monitor *m, const char *reason)
{
    m->st.state = GPU_STATE_UNAVAILABLE;
    snprintf(m->st.reason, sizeof(m->st.reason), "%s", reason && *reason ? reason : "unknown");
}

/* The backend's start on the monitor's thread: load and initialize the library, find the
 * devices, read what does not change and take a first sweep, then publish it. Returns whether
 * monitoring runs. Any call may never return: nothing else waits for it. */
static int start_backend(struct gpu_monitor *m, uint32_t history_s)
{
    char said[CAPTURE_BYTES], why[sizeof(m->st.reason)];
    struct gpu_static info[GPU_MAX_DEVICES];
    int rc, count, cap;

    capture_begin(m);
    call_begin(m, "init");
    rc = m->b->init();
    call_end(m);
    capture_end(m, said, sizeof(said));
    if (rc != GPU_OK) {
        const char *e = m->b->last_error();
        snprintf(why, sizeof(why), "%s%s%.*s%s", e, said[0] ? " (" : "", CAPTURE_BYTES, said,
                 said[0] ? ")" : "");
        pthread_mutex_lock(&m->lock);
        set_unavailable(m, why);
        pthread_mutex_unlock(&m->lock);
        return 0;
    }
    call_begin(m, "discover");
    count = m->b->discover();
    call_end(m);
    if (count <= 0) {
        pthread_mutex_lock(&m->lock);
        set_unavailable(m, m->b->last_error());
        pthread_mutex_unlock(&m->lock);
        return 0;
    }
    count = count > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : count;
    for (int d = 0; d < count; d++) {
        call_begin(m, "static_info");
        m->b->static_info(d, &info[d]);
        call_end(m);
    }
    cap = (int)((uint64_t)(history_s ? history_s : 300) * 1000u / m->st.interval_ms);
    cap = cap < 120 ? 120 : cap > 36000 ? 36000 : cap;
    pthread_mutex_lock(&m->lock); /* the devices, still "starting" until the first sweep */
    m->st.history_cap = cap;
    m->hist = xcalloc((size_t)count, sizeof(*m->hist));
    m->run = xcalloc((size_t)count, sizeof(*m->run));
    for (int d = 0; d < count; d++) {
        m->st.info[d] = info[d];
        for (int k = 0; k < GPU_M_COUNT; k++)
            gpu_history_init(&m->hist[d][k], cap);
    }
    m->qcap = count * 1024;
    m->q = xcalloc((size_t)m->qcap, sizeof(*m->q));
    m->st.count = count;
    pthread_mutex_unlock(&m->lock);
    sweep(m); /* the first frame has values */
    pthread_mutex_lock(&m->lock);
    m->st.state = GPU_STATE_OK;
    pthread_mutex_unlock(&m->lock);
    return 1;
}

struct start_args {
    struct gpu_monitor *m;
    uint32_t history_s;
};

/* The monitor's thread: the backend's start, then a sweep every interval until stopped. */
static void *monitor_main(void *arg)
{
    struct start_args a = *(struct start_args *)arg;
    struct gpu_monitor *m = a.m;
    uint64_t period = (uint64_t)m->st.interval_ms * 1000000ull, next;
    int ok;

    free(arg);
    ok = start_backend(m, a.history_s);
    pthread_mutex_lock(&m->lock);
    m->starting = 0;
    pthread_cond_broadcast(&m->wake); /* gpu_monitor_wait_started */
    next = base_clock_ns(CLOCK_MONOTONIC) + period;
    while (ok && !m->stop) {
        struct timespec ts = {.tv_sec = (time_t)(next / 1000000000ull),
                              .tv_nsec = (long)(next % 1000000000ull)};
        if (pthread_cond_timedwait(&m->wake, &m->lock, &ts) != ETIMEDOUT)
            continue; /* woken to stop (or spuriously): look again */
        pthread_mutex_unlock(&m->lock);
        sweep(m);
        uint64_t now = base_clock_ns(CLOCK_MONOTONIC);
        next += period;
        if (next <= now) /* fell behind (a slow query, a stopped process): no burst */
            next = now + period;
        pthread_mutex_lock(&m->lock);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

struct gpu_monitor *gpu_monitor_start(const struct gpu_monitor_options *o)
{
    struct gpu_monitor *m = xcalloc(1, sizeof(*m));
    struct start_args *a = xmalloc(sizeof(*a));
    pthread_condattr_t ca;
    sigset_t all, old;

    m->b = o->backend ? o->backend : gpu_backends[0];
    m->pidns_depth = gpu_pidns_self();
    m->st.backend = m->b->name;
    m->st.interval_ms = o->interval_ms >= 10 ? o->interval_ms : 10;
    m->st.state = GPU_STATE_STARTING;
    m->starting = 1;
    m->cap_fd = m->cap_route = -1;
    pthread_mutex_init(&m->lock, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->wake, &ca);
    pthread_condattr_destroy(&ca);
    *a = (struct start_args){.m = m, .history_s = o->history_s};
    /* no signal is ever delivered to the thread: rocsys-top's own are read from a signalfd */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    if (pthread_create(&m->thread, NULL, monitor_main, a) == 0) {
        m->thread_started = 1;
    } else {
        free(a);
        m->starting = 0;
        set_unavailable(m, "cannot start the GPU monitor's thread");
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return m;
}

/* Whether a signal of set is pending for this thread or the process. */
static int signal_pending(const sigset_t *set)
{
    sigset_t pending;

    if (!set || sigpending(&pending) != 0)
        return 0;
    for (int s = 1; s < NSIG; s++)
        if (sigismember(set, s) == 1 && sigismember(&pending, s) == 1)
            return 1;
    return 0;
}

int gpu_monitor_wait_started(struct gpu_monitor *m, int timeout_ms, const sigset_t *stop_on)
{
    uint64_t deadline = base_clock_ns(CLOCK_MONOTONIC) + (uint64_t)timeout_ms * 1000000ull;
    int started;

    if (!m)
        return 1;
    pthread_mutex_lock(&m->lock);
    while (m->starting && !signal_pending(stop_on)) {
        uint64_t now = base_clock_ns(CLOCK_MONOTONIC), until = now + 20000000ull;
        if (now >= deadline)
            break;
        until = until < deadline ? until : deadline; /* a pending signal is seen within 20 ms */
        struct timespec ts = {.tv_sec = (time_t)(until / 1000000000ull),
                              .tv_nsec = (long)(until % 1000000000ull)};
        pthread_cond_timedwait(&m->wake, &m->lock, &ts);
    }
    started = !m->starting;
    pthread_mutex_unlock(&m->lock);
    if (!started) /* still in the library: our own messages must not go into its capture */
        capture_give_back(m);
    return started;
}

int gpu_monitor_left_behind(void)
{
    return atomic_load(&left_behind);
}

void gpu_monitor_stop(struct gpu_monitor *m)
{
    struct timespec deadline;
    uint64_t since;
    int starting;

    if (!m)
        return;
    if (m->thread_started) {
        pthread_mutex_lock(&m->lock);
        m->stop = 1;
        starting = m->starting;
        pthread_cond_broadcast(&m->wake);
        pthread_mutex_unlock(&m->lock);
        capture_give_back(m);
        /* a call can hang in the library (rsmi_init looping on a missing card; its per-GPU
         * mutexes are shared with every process using it): rocsys-top still ends at once, the
         * thread and the monitor are left to the exit. A sweep in progress is waited for a
         * little, unless it is stuck already. */
        since = atomic_load(&m->call_since_ns);
        if (starting || (since && base_clock_ns(CLOCK_MONOTONIC) - since >
                                      (uint64_t)GPU_ANSWER_WAIT_MS * 1000000ull))
            goto leave;
        clock_gettime(CLOCK_REALTIME, &deadline);
        deadline.tv_nsec += STOP_WAIT_MS % 1000 * 1000000L;
        deadline.tv_sec += STOP_WAIT_MS / 1000 + deadline.tv_nsec / 1000000000L;
        deadline.tv_nsec %= 1000000000L;
        if (pthread_timedjoin_np(m->thread, NULL, &deadline) != 0)
            goto leave;
    }
    m->b->shutdown();
    for (int d = 0; m->hist && d < m->st.count; d++)
        for (int k = 0; k < GPU_M_COUNT; k++)
            gpu_history_free(&m->hist[d][k]);
    free(m->hist);
    free(m->run);
    free(m->q);
    pthread_cond_destroy(&m->wake);
    pthread_mutex_destroy(&m->lock);
    free(m);
    return;
leave:
    pthread_detach(m->thread);
    atomic_store(&left_behind, 1);
}

void gpu_monitor_status(struct gpu_monitor *m, struct gpu_status *out)
{
    uint64_t since, now = base_clock_ns(CLOCK_MONOTONIC);
    const char *call = NULL;

    pthread_mutex_lock(&m->lock);
    /* everything but the unused tail of the process table */
    memcpy(out, &m->st, offsetof(struct gpu_status, procs));
    memcpy(out->procs, m->st.procs, (size_t)m->st.nproc * sizeof(*out->procs));
    pthread_mutex_unlock(&m->lock);
    since = atomic_load(&m->call_since_ns);
    out->waiting_ms = since && now > since ? (now - since) / 1000000ull : 0;
    if (m->thread_started && since)
        call = m->b->calling ? m->b->calling() : NULL;
    snprintf(out->waiting_call, sizeof(out->waiting_call), "%s",
             call    ? call
             : since ? atomic_load(&m->step)
                     : "");
    if (out->state != GPU_STATE_STARTING)
        return;
    if (out->waiting_ms >= GPU_ANSWER_WAIT_MS) {
        out->state = GPU_STATE_UNAVAILABLE;
        snprintf(out->reason, sizeof(out->reason), "GPU library did not answer (%s after %.0f s)",
                 out->waiting_call, (double)out->waiting_ms / 1000.0);
    } else {
        snprintf(out->reason, sizeof(out->reason), "starting (%s)",
                 out->waiting_call[0] ? out->waiting_call : "reading the devices");
    }
}

int gpu_monitor_history(struct gpu_monitor *m, int dev, int metric, double *out, int max)
{
    int n = 0;

    pthread_mutex_lock(&m->lock);
    if (dev >= 0 && dev < m->st.count && metric >= 0 && metric < GPU_M_COUNT) {
        const struct gpu_history *h = &m->hist[dev][metric];
        n = h->count < max ? h->count : max;
        for (int i = 0; i < n; i++)
            out[i] = gpu_history_at(h, n - 1 - i);
    }
    pthread_mutex_unlock(&m->lock);
    return n;
}

void gpu_monitor_stats(struct gpu_monitor *m, int dev, int metric, int last_n,
                       struct gpu_stats *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&m->lock);
    if (dev >= 0 && dev < m->st.count && metric >= 0 && metric < GPU_M_COUNT)
        gpu_history_stats(&m->hist[dev][metric], last_n, out);
    pthread_mutex_unlock(&m->lock);
}

void gpu_monitor_running(struct gpu_monitor *m, int dev, int metric, struct gpu_running *out)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&m->lock);
    if (dev >= 0 && dev < m->st.count && metric >= 0 && metric < GPU_M_COUNT)
        *out = m->run[dev][metric];
    pthread_mutex_unlock(&m->lock);
}

uint64_t gpu_monitor_drain(struct gpu_monitor *m,
                           void (*fn)(void *ctx, int dev, const struct gpu_sample *s), void *ctx)
{
    struct queued batch[64];
    uint64_t lost;
    int n;

    if (!m)
        return 0;
    pthread_mutex_lock(&m->lock);
    if (!m->q) { /* not started (yet) */
        pthread_mutex_unlock(&m->lock);
        return 0;
    }
    lost = m->qlost;
    m->qlost = 0;
    pthread_mutex_unlock(&m->lock);
    do { /* in batches, so that fn runs without the lock */
        pthread_mutex_lock(&m->lock);
        n = m->qlen < 64 ? m->qlen : 64;
        for (int i = 0; i < n; i++)
            batch[i] = m->q[(m->qhead + i) % m->qcap];
        m->qhead = (m->qhead + n) % m->qcap;
        m->qlen -= n;
        pthread_mutex_unlock(&m->lock);
        for (int i = 0; i < n; i++)
            fn(ctx, batch[i].dev, &batch[i].s);
    } while (n == 64);
    return lost;
}

/* ---- replay: a monitor fed from a recording ---- */

/* The replay monitor's backend: nothing to initialize, sample or shut down. */
static int replay_init(void)
{
    return GPU_OK;
}

static int replay_discover(void)
{
    return 0;
}

static void replay_static_info(int dev, struct gpu_static *out)
{
    (void)dev;
    (void)out;
}

static void replay_sample(int dev, uint32_t want, struct gpu_sample *out)
{
    (void)dev;
    (void)want;
    (void)out;
}

static int replay_processes(struct gpu_proc *out, int max)
{
    (void)out;
    (void)max;
    return 0;
}

static void replay_shutdown(void) {}

static const char *replay_last_error(void)
{
    return "";
}

static const struct gpu_backend replay_backend = {
    .name = "recording",
    .init = replay_init,
    .discover = replay_discover,
    .static_info = replay_static_info,
    .sample = replay_sample,
    .processes = replay_processes,
    .shutdown = replay_shutdown,
    .last_error = replay_last_error,
};

struct gpu_monitor *gpu_monitor_replay(int count, const struct gpu_static *info,
                                       uint32_t interval_ms, int history_cap)
{
    struct gpu_monitor *m = xcalloc(1, sizeof(*m));

    m->b = &replay_backend;
    m->st.backend = replay_backend.name;
    m->st.replay = 1;
    m->st.interval_ms = interval_ms;
    m->st.count = count < 0 ? 0 : count > GPU_MAX_DEVICES ? GPU_MAX_DEVICES : count;
    m->st.state = GPU_STATE_OK;
    m->st.history_cap = history_cap < 1 ? 1 : history_cap;
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->wake, NULL);
    m->hist = xcalloc((size_t)(m->st.count ? m->st.count : 1), sizeof(*m->hist));
    m->run = xcalloc((size_t)(m->st.count ? m->st.count : 1), sizeof(*m->run));
    for (int d = 0; d < m->st.count; d++) {
        if (info)
            m->st.info[d] = info[d];
        for (int k = 0; k < GPU_M_COUNT; k++)
            gpu_history_init(&m->hist[d][k], m->st.history_cap);
    }
    return m;
}

void gpu_monitor_replay_clear(struct gpu_monitor *m)
{
    pthread_mutex_lock(&m->lock);
    for (int d = 0; d < m->st.count; d++) {
        for (int k = 0; k < GPU_M_COUNT; k++) {
            m->hist[d][k].count = m->hist[d][k].next = 0;
            memset(&m->run[d][k], 0, sizeof(m->run[d][k]));
        }
        memset(&m->st.now[d], 0, sizeof(m->st.now[d]));
    }
    memset(m->replay_readings, 0, sizeof(m->replay_readings));
    m->st.sweeps = 0;
    pthread_mutex_unlock(&m->lock);
}

void gpu_monitor_replay_push(struct gpu_monitor *m, int dev, const struct gpu_sample *s)
{
    if (dev < 0 || dev >= m->st.count)
        return;
    pthread_mutex_lock(&m->lock);
    m->st.now[dev] = *s;
    for (int k = 0; k < GPU_M_COUNT; k++) {
        gpu_history_push(&m->hist[dev][k], s->v[k], gpu_sample_has(s, k));
        if (gpu_sample_has(s, k))
            gpu_running_add(&m->run[dev][k], s->v[k]);
    }
    /* sweeps: the readings of the device read most often */
    if (++m->replay_readings[dev] > m->st.sweeps)
        m->st.sweeps = m->replay_readings[dev];
    pthread_mutex_unlock(&m->lock);
}
