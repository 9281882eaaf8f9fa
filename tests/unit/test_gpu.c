/* Unit tests of GPU monitoring without a GPU: history rings and their min/avg/max, value
 * formatting, the monitor driven by a fake backend (sampling thread, N/A metrics, history,
 * drain order, unavailable reasons, a library that never answers), stderr's redirections undone
 * in any order, the gpu.csv writer, and the GPU view's layout math and glyphs. */
#define _GNU_SOURCE 1
#include "gpu/gpu.h"

#include <math.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "model/model.h"
#include "base/stderr_route.h"
#include "record/record.h"
#include "tui/tui_internal.h"

/* ---- history ---- */

static void test_history(void)
{
    struct gpu_history h;
    struct gpu_stats st;

    gpu_history_init(&h, 4);
    gpu_history_stats(&h, 0, &st);
    CHECK(st.n == 0);
    CHECK(isnan(gpu_history_at(&h, 0)));
    gpu_history_push(&h, 10, 1);
    gpu_history_push(&h, 30, 1);
    gpu_history_push(&h, 0, 0); /* N/A: skipped by the statistics, not a zero */
    gpu_history_push(&h, 20, 1);
    gpu_history_stats(&h, 0, &st);
    CHECK(st.n == 3);
    CHECK(st.min == 10 && st.max == 30);
    CHECK(fabs(st.avg - 20) < 1e-9);
    CHECK(gpu_history_at(&h, 0) == 20);
    CHECK(isnan(gpu_history_at(&h, 1)));
    CHECK(gpu_history_at(&h, 3) == 10);
    /* the ring wraps: the oldest (10) goes */
    gpu_history_push(&h, 50, 1);
    CHECK(h.count == 4);
    CHECK(gpu_history_at(&h, 0) == 50 && gpu_history_at(&h, 3) == 30);
    gpu_history_stats(&h, 0, &st);
    CHECK(st.n == 3 && st.min == 20 && st.max == 50);
    CHECK(fabs(st.avg - (30 + 20 + 50) / 3.0) < 1e-9);
    /* the newest two only */
    gpu_history_stats(&h, 2, &st);
    CHECK(st.n == 2 && st.min == 20 && st.max == 50 && fabs(st.avg - 35) < 1e-9);
    gpu_history_free(&h);

    struct gpu_running r = {0};
    gpu_running_add(&r, 5);
    gpu_running_add(&r, -1);
    gpu_running_add(&r, 9);
    CHECK(r.n == 3 && r.min == -1 && r.max == 9 && fabs(r.sum - 13) < 1e-9);
}

static void test_format(void)
{
    struct gpu_sample s = {0};
    char buf[64];

    gpu_format_value(buf, sizeof(buf), GPU_M_BUSY, &s);
    CHECK_STR(buf, "N/A");
    s.valid = 1u << GPU_M_BUSY | 1u << GPU_M_POWER | 1u << GPU_M_VRAM_USED | 1u << GPU_M_TEMP_EDGE;
    s.v[GPU_M_BUSY] = 42;
    s.v[GPU_M_POWER] = 101.25;
    s.v[GPU_M_VRAM_USED] = 1.5 * 1024 * 1024 * 1024;
    s.v[GPU_M_TEMP_EDGE] = 40;
    gpu_format_value(buf, sizeof(buf), GPU_M_BUSY, &s);
    CHECK_STR(buf, "42 %");
    gpu_format_value(buf, sizeof(buf), GPU_M_POWER, &s);
    CHECK_STR(buf, "101.2 W");
    gpu_format_value(buf, sizeof(buf), GPU_M_VRAM_USED, &s);
    CHECK_STR(buf, "1.5 GiB");
    gpu_format_value(buf, sizeof(buf), GPU_M_TEMP_EDGE, &s);
    CHECK_STR(buf, "40 C");
    CHECK(gpu_metric_by_track("edge temperature") == GPU_M_TEMP_EDGE);
    CHECK(gpu_metric_by_track("busy") == GPU_M_BUSY);
    CHECK(gpu_metric_by_track("nonsense") == -1);
    /* every metric has a unit and distinct names (recordings depend on them) */
    for (int i = 0; i < GPU_M_COUNT; i++) {
        CHECK(gpu_metrics[i].key && gpu_metrics[i].track && gpu_metrics[i].unit &&
              gpu_metrics[i].csv);
        for (int k = 0; k < i; k++)
            CHECK(strcmp(gpu_metrics[i].track, gpu_metrics[k].track) != 0 &&
                  strcmp(gpu_metrics[i].csv, gpu_metrics[k].csv) != 0);
    }
}

/* ---- the monitor with a fake backend ---- */

static int fake_fail;    /* what init returns */
static int fake_devices; /* what discover returns */
static int fake_reads;   /* samples taken (busy = the read number) */

static int fake_init(void)
{
    return fake_fail;
}

static int fake_discover(void)
{
    return fake_devices;
}

static void fake_static_info(int dev, struct gpu_static *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "Fake GPU %d", dev);
    snprintf(out->pci, sizeof(out->pci), "0000:%02x:00.0", 3 + dev);
}

/* busy grows by one per read of device 0; device 1 has no power reading */
static void fake_sample(int dev, uint32_t want, struct gpu_sample *out)
{
    if (dev == 0)
        fake_reads++;
    if (want & (1u << GPU_M_BUSY)) {
        out->v[GPU_M_BUSY] = dev == 0 ? fake_reads : 50;
        out->valid |= 1u << GPU_M_BUSY;
    }
    if (dev == 0 && (want & (1u << GPU_M_POWER))) {
        out->v[GPU_M_POWER] = 100;
        out->valid |= 1u << GPU_M_POWER;
    }
}

static int fake_processes(struct gpu_proc *out, int max)
{
    if (max < 1)
        return 0;
    memset(out, 0, sizeof(*out));
    out->pid = (uint32_t)getpid();
    out->gpu_mask = 2;
    out->valid = 1;
    out->vram_bytes = 4096;
    return 1;
}

static void fake_shutdown(void) {}

static const char *fake_last_error(void)
{
    return fake_fail ? "fake library missing" : fake_devices ? "" : "no fake GPU";
}

static const struct gpu_backend fake_backend = {
    .name = "fake",
    .init = fake_init,
    .discover = fake_discover,
    .static_info = fake_static_info,
    .sample = fake_sample,
    .processes = fake_processes,
    .shutdown = fake_shutdown,
    .last_error = fake_last_error,
};

struct drained {
    int n, dev[4096];
    double busy[4096];
};

static void on_drained(void *ctx, int dev, const struct gpu_sample *s)
{
    struct drained *d = ctx;
    if (d->n < 4096) {
        d->dev[d->n] = dev;
        d->busy[d->n] = s->v[GPU_M_BUSY];
        d->n++;
    }
}

static void test_monitor(void)
{
    struct gpu_monitor_options o = {.interval_ms = 10, .history_s = 60, .backend = &fake_backend};
    struct gpu_status *st = xcalloc(1, sizeof(*st));
    struct drained *dr = xcalloc(1, sizeof(*dr));
    struct gpu_monitor *m;
    double pts[64];

    fake_fail = 0;
    fake_devices = 2;
    fake_reads = 0;
    m = gpu_monitor_start(&o);
    CHECK(gpu_monitor_wait_started(m, 30000, NULL) == 1);
    gpu_monitor_status(m, st);
    CHECK(st->state == GPU_STATE_OK && st->count == 2);
    CHECK(st->sweeps >= 1); /* the first sweep is taken before it says it started */
    CHECK_STR(st->info[1].pci, "0000:04:00.0");
    CHECK(gpu_sample_has(&st->now[0], GPU_M_POWER));
    CHECK(!gpu_sample_has(&st->now[1], GPU_M_POWER)); /* N/A stays N/A */
    CHECK(st->nproc == 1 && st->procs[0].gpu_mask == 2 && st->procs[0].name[0] != '?');
    /* the thread keeps sampling: wait for 5 sweeps (generous: a loaded machine) */
    for (int i = 0; i < 500 && st->sweeps < 6; i++) {
        usleep(10000);
        gpu_monitor_status(m, st);
    }
    CHECK(st->sweeps >= 6);
    int n = gpu_monitor_history(m, 0, GPU_M_BUSY, pts, 64);
    CHECK(n >= 6);
    int increasing = 1;
    for (int i = 1; i < n; i++)
        increasing &= pts[i] == pts[i - 1] + 1; /* oldest first, one read apart */
    CHECK(increasing);
    struct gpu_stats s;
    gpu_monitor_stats(m, 1, GPU_M_BUSY, 0, &s);
    CHECK(s.n >= 6 && s.min == 50 && s.max == 50);
    gpu_monitor_stats(m, 1, GPU_M_POWER, 0, &s);
    CHECK(s.n == 0); /* never read: no statistics, not zeros */
    gpu_monitor_drain(m, on_drained, dr);
    CHECK(dr->n >= 12);
    int ordered = 1;
    for (int i = 2; i < dr->n; i += 2)
        ordered &= dr->dev[i] == 0 && dr->busy[i] == dr->busy[i - 2] + 1;
    CHECK(ordered);
    int before = dr->n;
    gpu_monitor_drain(m, on_drained, dr); /* what was drained does not come again */
    CHECK(dr->n - before < 6);
    gpu_monitor_stop(m);

    fake_fail = GPU_NO_LIBRARY;
    m = gpu_monitor_start(&o);
    CHECK(gpu_monitor_wait_started(m, 30000, NULL) == 1);
    gpu_monitor_status(m, st);
    CHECK(st->state == GPU_STATE_UNAVAILABLE && st->count == 0);
    CHECK_STR(st->reason, "fake library missing");
    gpu_monitor_stop(m);
    fake_fail = 0;
    fake_devices = 0;
    m = gpu_monitor_start(&o);
    CHECK(gpu_monitor_wait_started(m, 30000, NULL) == 1);
    gpu_monitor_status(m, st);
    CHECK(st->state == GPU_STATE_UNAVAILABLE);
    CHECK_STR(st->reason, "no fake GPU");
    gpu_monitor_stop(m);
    free(st);
    free(dr);
}

/* ---- a library that never answers (ROCm SMI 6.1's rsmi_init without a card) ---- */
static sem_t hang_release;             /* posted at the end: the stuck thread may go */
static struct gpu_monitor *hang_stuck; /* left behind by gpu_monitor_stop (still reachable) */

static int hang_init(void)
{
    fprintf(stderr, "HANG-INIT says this while it starts\n"); /* caught, then given back */
    while (sem_wait(&hang_release) != 0)
        ;
    return GPU_NO_DRIVER;
}

static const char *hang_calling(void)
{
    return "hang_lib_init";
}

static const struct gpu_backend hang_backend = {
    .name = "hang",
    .init = hang_init,
    .discover = fake_discover,
    .static_info = fake_static_info,
    .sample = fake_sample,
    .processes = fake_processes,
    .shutdown = fake_shutdown,
    .last_error = fake_last_error,
    .calling = hang_calling,
};

/* The identity (device, inode) of what fd refers to. */
static int same_file(int a, int b)
{
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static void test_monitor_hang(void)
{
    struct gpu_monitor_options o = {.interval_ms = 10, .history_s = 60, .backend = &hang_backend};
    struct gpu_status *st = xcalloc(1, sizeof(*st));
    int err0 = dup(STDERR_FILENO);
    sigset_t usr1, old;
    uint64_t t0;

    sem_init(&hang_release, 0, 0);
    hang_stuck = gpu_monitor_start(&o);
    t0 = model_clock_ns(CLOCK_MONOTONIC);
    CHECK(gpu_monitor_wait_started(hang_stuck, 300, NULL) == 0);
    CHECK_MSG(model_clock_ns(CLOCK_MONOTONIC) - t0 < 10000000000ull, "the wait took %.1f s",
              (double)(model_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
    /* not started: stderr is ours again (the library's capture was given back) */
    CHECK_MSG(same_file(STDERR_FILENO, err0), "stderr still redirected after the wait");
    gpu_monitor_status(hang_stuck, st);
    CHECK_MSG(st->state == GPU_STATE_STARTING || st->state == GPU_STATE_UNAVAILABLE, "state %d",
              (int)st->state);
    CHECK_MSG(st->count == 0 && st->sweeps == 0, "count %d, sweeps %llu", st->count,
              (unsigned long long)st->sweeps);

    /* a signal to end rocsys-top, pending: the wait ends at once */
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &usr1, &old);
    raise(SIGUSR1);
    t0 = model_clock_ns(CLOCK_MONOTONIC);
    CHECK(gpu_monitor_wait_started(hang_stuck, 60000, &usr1) == 0);
    CHECK_MSG(model_clock_ns(CLOCK_MONOTONIC) - t0 < 5000000000ull,
              "a pending signal did not end the wait (%.1f s)",
              (double)(model_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
    int sig = 0;
    sigwait(&usr1, &sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    /* once it has not answered for GPU_ANSWER_WAIT_MS, the status says so and names the call */
    for (int i = 0; i < 3000 && st->state != GPU_STATE_UNAVAILABLE; i++) {
        usleep(10000);
        gpu_monitor_status(hang_stuck, st);
    }
    CHECK_MSG(st->state == GPU_STATE_UNAVAILABLE, "state %d after 30 s", (int)st->state);
    CHECK_MSG(strstr(st->reason, "did not answer (hang_lib_init after ") != NULL, "reason \"%s\"",
              st->reason);
    CHECK_MSG(st->waiting_ms >= GPU_ANSWER_WAIT_MS, "waiting_ms %llu",
              (unsigned long long)st->waiting_ms);
    CHECK(!gpu_monitor_left_behind());

    /* stopping does not wait for it: the thread is left behind, and said so */
    t0 = model_clock_ns(CLOCK_MONOTONIC);
    gpu_monitor_stop(hang_stuck);
    CHECK_MSG(model_clock_ns(CLOCK_MONOTONIC) - t0 < 500000000ull, "stop took %.2f s",
              (double)(model_clock_ns(CLOCK_MONOTONIC) - t0) / 1e9);
    CHECK(gpu_monitor_left_behind());
    CHECK(same_file(STDERR_FILENO, err0));
    sem_post(&hang_release); /* it ends on its own: stopped, it does not sample */
    close(err0);
    free(st);
}

/* ---- stderr redirections undone in any order ---- */
static void test_stderr_route(void)
{
    int err0 = dup(STDERR_FILENO), a = memfd_create("route-a", 0), b = memfd_create("route-b", 0);
    char buf[64];
    ssize_t n;

    int ha = stderr_route_push(a);
    CHECK(ha > 0 && same_file(STDERR_FILENO, a));
    int hb = stderr_route_push(b);
    CHECK(hb > 0 && hb != ha && same_file(STDERR_FILENO, b));
    CHECK(stderr_route_pop(ha) == 1); /* the older one first: fd 2 stays with the newer */
    CHECK(same_file(STDERR_FILENO, b));
    CHECK(stderr_route_pop(ha) == 0); /* twice: the second does nothing */
    fprintf(stderr, "to b");
    CHECK(stderr_route_pop(hb) == 1); /* then back where it began, not to a */
    CHECK_MSG(same_file(STDERR_FILENO, err0), "stderr not back after popping both");
    n = pread(b, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    CHECK_STR(buf, "to b");
    CHECK(pread(a, buf, sizeof(buf), 0) == 0);
    /* the usual order too */
    ha = stderr_route_push(a);
    hb = stderr_route_push(b);
    CHECK(stderr_route_pop(hb) == 1 && same_file(STDERR_FILENO, a));
    CHECK(stderr_route_pop(ha) == 1 && same_file(STDERR_FILENO, err0));
    close(a);
    close(b);
    close(err0);
}

/* ---- gpu.csv from counter events ---- */

static void counter(struct record_set *rs, uint64_t t, const char *track, const char *unit,
                    double v)
{
    struct record_event ev = {.type = RECORD_EV_COUNTER,
                              .time_ns = t,
                              .pid = 0,
                              .track = track,
                              .unit = unit,
                              .value = v};
    record_set_event(rs, &ev);
}

static void test_csv(void)
{
    char path[] = "/tmp/rocsys-test-gpu-XXXXXX", err[256], line[1024];
    struct model *m = model_new();
    struct record_set *rs = record_set_new();
    int fd = mkstemp(path);
    FILE *f;

    model_session(m)->start_ns = 1000000000ull;
    CHECK(fd >= 0);
    close(fd);
    CHECK(record_set_add(rs, &record_gpu_csv, path, m, err, sizeof(err)) == 0);
    counter(rs, 1500000000ull, "GPU0 busy", "%", 10);
    counter(rs, 1500000000ull, "GPU0 VRAM used", "bytes", 1073741824);
    counter(rs, 1500000000ull, "GPU1 busy", "%", 11);
    counter(rs, 2500000000ull, "GPU0 busy", "%", 77);
    counter(rs, 2500000000ull, "cpu of pid", "%", 5); /* not a GPU track: ignored */
    CHECK(record_set_close(rs, m, NULL, NULL, 0) == 0);
    f = fopen(path, "r");
    CHECK(f != NULL);
    if (f) {
        CHECK(fgets(line, sizeof(line), f) &&
              strncmp(line, "time_s,gpu,busy_pct,power_w,", 28) == 0);
        CHECK(fgets(line, sizeof(line), f) &&
              strncmp(line, "0.500,0,10.000,,,,,,1073741824,", 31) == 0);
        CHECK(fgets(line, sizeof(line), f) && strncmp(line, "0.500,1,11.000,,", 16) == 0);
        CHECK(fgets(line, sizeof(line), f) && strncmp(line, "1.500,0,77.000,,", 16) == 0);
        CHECK(!fgets(line, sizeof(line), f));
        fclose(f);
    }
    unlink(path);
    model_free(m);
}

/* ---- layout and glyphs ---- */

static int inside(const struct tui_rect *r, const struct tui_rect *body)
{
    return r->h > 0 && r->w > 0 && r->y >= body->y && r->x >= body->x &&
           r->y + r->h <= body->y + body->h && r->x + r->w <= body->x + body->w;
}

static int overlap(const struct tui_rect *a, const struct tui_rect *b)
{
    if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
        return 0;
    return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

/* Layout invariants for one body size and GPU count. */
static void check_layout(int h, int w, int ngpu, int nproc)
{
    struct tui_rect body = {.y = 5, .x = 0, .h = h, .w = w};
    struct tui_gpu_layout l;
    int bad = 0;

    tui_gpu_layout_compute(&body, ngpu, nproc, &l);
    CHECK(l.title.y == body.y && l.title.h == 1);
    for (int i = 0; i < l.npanels; i++) {
        bad |= !inside(&l.panel[i], &body) || overlap(&l.panel[i], &l.title) ||
               overlap(&l.panel[i], &l.procs);
        for (int k = 0; k < i; k++)
            bad |= overlap(&l.panel[i], &l.panel[k]);
    }
    CHECK_MSG(!bad, "%dx%d, %d GPUs: panels outside the body or overlapping", h, w, ngpu);
    if (l.procs.h > 0)
        CHECK(inside(&l.procs, &body));
    if (h >= 40) { /* a normal terminal: every GPU, with graphs, and a process list */
        CHECK_MSG(l.npanels == ngpu && !l.compact && l.graph_rows >= 1,
                  "%dx%d, %d GPUs: %d panels, compact %d, graph rows %d", h, w, ngpu, l.npanels,
                  l.compact, l.graph_rows);
        CHECK(l.procs.h >= 2);
    }
    if (!l.compact)
        for (int i = 0; i < l.npanels; i++)
            CHECK(l.panel[i].w >= 50 || l.columns == 1);
}

static void test_layout(void)
{
    static const int sizes[][2] = {{4, 40},   {8, 80},   {20, 80},  {40, 120},
                                   {45, 150}, {60, 200}, {70, 250}, {100, 300}};
    struct tui_rect body = {.y = 0, .x = 0, .h = 60, .w = 200};
    struct tui_gpu_layout l;

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
        for (int n = 1; n <= 8; n++)
            check_layout(sizes[s][0], sizes[s][1], n, 3);
    /* one GPU in a large terminal: one wide panel, tall graphs, the rest for processes */
    tui_gpu_layout_compute(&body, 1, 10, &l);
    CHECK(l.npanels == 1 && l.columns == 1 && l.panel[0].w == 200 && l.graph_rows == 8);
    CHECK(l.procs.h >= 11);
    /* eight GPUs in 200 columns: side by side */
    tui_gpu_layout_compute(&body, 8, 3, &l);
    CHECK(l.columns >= 2 && !l.compact);
    /* eight GPUs in a small terminal: a line each */
    body.h = 12;
    body.w = 80;
    tui_gpu_layout_compute(&body, 8, 0, &l);
    CHECK(l.compact && l.npanels == 8);
}

static void test_glyphs(void)
{
    char buf[256];

    CHECK_STR(tui_graph_cell(0.0, 0, 2, 1), " ");
    CHECK_STR(tui_graph_cell(1.0, 1, 2, 1), "\xe2\x96\x88");
    CHECK_STR(tui_graph_cell(0.5, 0, 2, 1), "\xe2\x96\x88"); /* half of 2 rows: the bottom one */
    CHECK_STR(tui_graph_cell(0.5, 1, 2, 1), " ");
    CHECK_STR(tui_graph_cell(0.25, 0, 2, 1), "\xe2\x96\x84"); /* half a row */
    CHECK_STR(tui_graph_cell(0.01, 0, 1, 1), "\xe2\x96\x81"); /* small but visible */
    CHECK_STR(tui_graph_cell(NAN, 0, 1, 1), " ");             /* N/A: nothing drawn */
    CHECK_STR(tui_graph_cell(1.0, 0, 1, 0), "#");
    CHECK_STR(tui_graph_cell(0.5, 0, 1, 0), ":");
    tui_gauge(buf, sizeof(buf), 0.5, 10, 0);
    CHECK_STR(buf, "|||||.....");
    tui_gauge(buf, sizeof(buf), 1.0, 4, 0);
    CHECK_STR(buf, "||||");
    tui_gauge(buf, sizeof(buf), NAN, 4, 0);
    CHECK_STR(buf, "....");
    tui_gauge(buf, sizeof(buf), 0.5, 3, 1); /* 1.5 cells: a full block and a half block */
    CHECK_STR(buf, "\xe2\x96\x88\xe2\x96\x8c ");
}

/* A replay monitor: the readings pushed are the status, history and statistics; clear
 * forgets them; a device it does not have is ignored. */
static void test_replay_monitor(void)
{
    struct gpu_static info[2] = {{.name = "first", .pci = "0000:03:00.0"}, {.name = "second"}};
    struct gpu_monitor *g = gpu_monitor_replay(2, info, 100, 4);
    struct gpu_status *st = xcalloc(1, sizeof(*st));
    struct gpu_sample s = {0};
    struct gpu_stats stats;
    double hist[8];

    gpu_monitor_status(g, st);
    CHECK(st->state == GPU_STATE_OK && st->count == 2 && st->replay && st->sweeps == 0);
    CHECK(strcmp(st->info[1].name, "second") == 0 && st->interval_ms == 100);
    for (int i = 0; i < 5; i++) { /* five readings, four kept */
        s.time_ns = 1000 + (uint64_t)i;
        s.valid = 1u << GPU_M_BUSY;
        s.v[GPU_M_BUSY] = 10.0 * (i + 1);
        gpu_monitor_replay_push(g, 0, &s);
    }
    gpu_monitor_replay_push(g, 7, &s); /* no such device */
    gpu_monitor_status(g, st);
    CHECK(st->sweeps == 5 && st->now[0].v[GPU_M_BUSY] == 50 && st->now[0].time_ns == 1004);
    CHECK(!gpu_sample_has(&st->now[0], GPU_M_POWER) && !gpu_sample_has(&st->now[1], GPU_M_BUSY));
    gpu_monitor_stats(g, 0, GPU_M_BUSY, 0, &stats);
    CHECK(stats.n == 4 && stats.min == 20 && stats.max == 50 && fabs(stats.avg - 35) < 1e-9);
    CHECK(gpu_monitor_history(g, 0, GPU_M_BUSY, hist, 8) == 4 && hist[0] == 20 && hist[3] == 50);
    gpu_monitor_replay_clear(g);
    gpu_monitor_status(g, st);
    gpu_monitor_stats(g, 0, GPU_M_BUSY, 0, &stats);
    CHECK(st->sweeps == 0 && st->now[0].valid == 0 && stats.n == 0);
    CHECK(gpu_monitor_history(g, 0, GPU_M_BUSY, hist, 8) == 0);
    free(st);
    gpu_monitor_stop(g);
}

int main(void)
{
    test_history();
    test_format();
    test_monitor();
    test_stderr_route();
    test_monitor_hang(); /* last of the monitors: leaves a thread behind */
    test_replay_monitor();
    test_csv();
    test_layout();
    test_glyphs();
    return check_summary();
}
