/* View 5, GPU: a panel per GPU (gauges for busy, power, VRAM and GTT; temperatures, clocks and
 * fan; history graphs of busy and power with min/avg/max) and the processes using GPUs, the
 * target's highlighted. With a target it shows the GPUs the target uses (all while that is
 * unknown); with --attach-gpu every GPU. When the GPUs cannot be read, one line says why. */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"

TUI_VIEW_DECLARE(gpu);

#define HIST_POINTS 512 /* history columns drawn at most */

/* The two graphed metrics of a panel. */
enum { G_BUSY, G_POWER, G_COUNT };
static const int graphed[G_COUNT] = {GPU_M_BUSY, GPU_M_POWER};

/* What the view shows: the monitor's state and histories, copied at rebuild. */
struct gpu_view {
    int monitored;         /* a monitor exists */
    struct gpu_status *st; /* copy of its state */
    int shown[GPU_MAX_DEVICES];
    int nshown;
    int target_only;                        /* only the target's GPUs are shown */
    unsigned char is_target[GPU_MAX_PROCS]; /* process i belongs to the target */
    int order[GPU_MAX_PROCS];               /* processes by VRAM, largest first */
    double hist[GPU_MAX_DEVICES][G_COUNT][HIST_POINTS];
    int nhist[GPU_MAX_DEVICES][G_COUNT];
    struct gpu_stats stats[GPU_MAX_DEVICES][G_COUNT];
    struct tui_list list;
};

/* Which GPUs to show and which processes are the target's: with a target, the GPUs its
 * processes use (every GPU while none is known to use one). */
static void select_gpus(struct model *m, const struct gpu_status *st, int *shown, int *nshown,
                        int *target_only, unsigned char *is_target)
{
    uint32_t mask = 0;

    for (int i = 0; i < st->nproc; i++) {
        is_target[i] = !model_session(m)->attach_gpu && model_process_find(m, st->procs[i].pid);
        if (is_target[i])
            mask |= st->procs[i].gpu_mask;
    }
    *nshown = 0;
    *target_only = mask != 0;
    for (int d = 0; d < st->count; d++)
        if (!mask || (mask >> d) & 1u)
            shown[(*nshown)++] = d;
}

/* Order of processes: VRAM, largest first; ties by pid. */
static int proc_cmp(const void *a, const void *b, void *arg)
{
    const struct gpu_status *st = arg;
    const struct gpu_proc *x = &st->procs[*(const int *)a], *y = &st->procs[*(const int *)b];

    if (x->vram_bytes != y->vram_bytes)
        return x->vram_bytes > y->vram_bytes ? -1 : 1;
    return (x->pid > y->pid) - (x->pid < y->pid);
}

/* "0,2" for a GPU mask ("?" when unknown). */
static void format_mask(char *buf, size_t n, uint32_t mask)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int d = 0; d < GPU_MAX_DEVICES && o + 4 < n; d++)
        if ((mask >> d) & 1u)
            o += (size_t)snprintf(buf + o, n - o, "%s%d", o ? "," : "", d);
    if (!o)
        snprintf(buf, n, "?");
}

void *tui_gpu_create(void)
{
    struct gpu_view *v = xcalloc(1, sizeof(*v));

    v->st = xcalloc(1, sizeof(*v->st));
    return v;
}

void tui_gpu_destroy(void *st)
{
    struct gpu_view *v = st;

    if (!v)
        return;
    free(v->st);
    free(v);
}

void tui_gpu_rebuild(struct tui *t, void *st)
{
    struct gpu_view *v = st;
    struct gpu_monitor *g = model_session(t->m)->gpu;

    v->monitored = g != NULL;
    if (!g)
        return;
    gpu_monitor_status(g, v->st);
    select_gpus(t->m, v->st, v->shown, &v->nshown, &v->target_only, v->is_target);
    for (int i = 0; i < v->st->nproc; i++)
        v->order[i] = i;
    qsort_r(v->order, (size_t)v->st->nproc, sizeof(*v->order), proc_cmp, v->st);
    for (int i = 0; i < v->nshown; i++)
        for (int k = 0; k < G_COUNT; k++) {
            int d = v->shown[i];
            v->nhist[d][k] = gpu_monitor_history(g, d, graphed[k], v->hist[d][k], HIST_POINTS);
            gpu_monitor_stats(g, d, graphed[k], 0, &v->stats[d][k]);
        }
}

/* value / total as a fraction (NAN when either is N/A or total is 0). */
static double fraction(const struct gpu_sample *s, int value, int total)
{
    if (!gpu_sample_has(s, value) || !gpu_sample_has(s, total) || s->v[total] <= 0)
        return NAN;
    return s->v[value] / s->v[total];
}

/* "Label [gauge] text" in w columns at (y, x). */
static void draw_gauge(struct tui *t, int y, int x, int w, const char *label, double frac,
                       const char *text)
{
    char gauge[512];
    int tw = tui_text_width(text, 0), gw = w - 6 - 2 - 1 - tw;
    unsigned int attr =
        !isnan(frac) && frac >= 0.9 ? tui_style(t, TUI_S_HOT) : tui_style(t, TUI_S_GOOD);

    tui_put(t, y, x, 6, tui_style(t, TUI_S_LABEL), label, 1);
    if (gw >= 4) {
        tui_gauge(gauge, sizeof(gauge), frac, gw, t->utf8);
        tui_put(t, y, x + 6, 1, A_NORMAL, "[", 0);
        tui_put(t, y, x + 7, gw, attr, gauge, 1);
        tui_put(t, y, x + 7 + gw, 1, A_NORMAL, "]", 0);
        tui_put(t, y, x + 9 + gw, tw, A_BOLD, text, 0);
    } else {
        tui_put(t, y, x + 6, w - 6, A_BOLD, text, 0);
    }
}

/* "used/total unit" of two metrics, or N/A. */
static void used_of(char *buf, size_t n, const struct gpu_sample *s, int used, int total)
{
    char a[32], b[32];

    gpu_format_value(a, sizeof(a), used, s);
    gpu_format_value(b, sizeof(b), total, s);
    snprintf(buf, n, "%s / %s", a, b);
}

/* A history graph of one metric: the newest reading at the right, scaled to full. */
static void draw_graph(struct tui *t, const struct tui_rect *r, const double *pts, int n,
                       double full, unsigned int attr)
{
    int cols = r->w < n ? r->w : n;

    for (int c = 0; c < cols; c++) {
        double v = pts[n - cols + c], f = full > 0 && !isnan(v) ? v / full : NAN;
        for (int row = 0; row < r->h; row++)
            tui_put(t, r->y + r->h - 1 - row, r->x + r->w - cols + c, 1, attr,
                    tui_graph_cell(f, row, r->h, t->utf8), 0);
    }
}

/* One GPU's full panel. */
static void draw_panel(struct tui *t, struct gpu_view *v, int d, const struct tui_rect *r,
                       int graph_rows)
{
    const struct gpu_sample *s = &v->st->now[d];
    const struct gpu_static *in = &v->st->info[d];
    char buf[512], a[32], b[32], c[32];
    int half = (r->w - 1) / 2, x2 = r->x + half + 1, w2 = r->w - half - 1, y = r->y;

    snprintf(buf, sizeof(buf), "GPU%d %s %s", d, in->pci[0] ? in->pci : "(no PCI address)",
             in->name[0] ? in->name : "(no name)");
    tui_put(t, y++, r->x, r->w, tui_style(t, TUI_S_TITLE), buf, 1);
    gpu_format_value(a, sizeof(a), GPU_M_BUSY, s);
    draw_gauge(t, y, r->x, half, "Busy",
               gpu_sample_has(s, GPU_M_BUSY) ? s->v[GPU_M_BUSY] / 100 : NAN, a);
    used_of(buf, sizeof(buf), s, GPU_M_POWER, GPU_M_POWER_CAP);
    draw_gauge(t, y++, x2, w2, "Power", fraction(s, GPU_M_POWER, GPU_M_POWER_CAP), buf);
    used_of(buf, sizeof(buf), s, GPU_M_VRAM_USED, GPU_M_VRAM_TOTAL);
    draw_gauge(t, y, r->x, half, "VRAM", fraction(s, GPU_M_VRAM_USED, GPU_M_VRAM_TOTAL), buf);
    used_of(buf, sizeof(buf), s, GPU_M_GTT_USED, GPU_M_GTT_TOTAL);
    draw_gauge(t, y++, x2, w2, "GTT", fraction(s, GPU_M_GTT_USED, GPU_M_GTT_TOTAL), buf);
    gpu_format_value(a, sizeof(a), GPU_M_TEMP_EDGE, s);
    gpu_format_value(b, sizeof(b), GPU_M_TEMP_JUNCTION, s);
    gpu_format_value(c, sizeof(c), GPU_M_TEMP_MEMORY, s);
    int n = snprintf(buf, sizeof(buf), "Temp edge %s junction %s memory %s", a, b, c);
    gpu_format_value(a, sizeof(a), GPU_M_SCLK, s);
    gpu_format_value(b, sizeof(b), GPU_M_MCLK, s);
    n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  Clock shader %s memory %s", a, b);
    gpu_format_value(a, sizeof(a), GPU_M_FAN_RPM, s);
    gpu_format_value(b, sizeof(b), GPU_M_FAN_PCT, s);
    snprintf(buf + n, sizeof(buf) - (size_t)n, "  Fan %s (%s)", a, b);
    tui_put(t, y++, r->x, r->w, A_NORMAL, buf, 1);
    /* history: busy on the left, power on the right (when there is room for two) */
    int two = r->w >= 80, gw = two ? half : r->w;
    for (int k = 0; k < (two ? G_COUNT : 1); k++) {
        const struct gpu_stats *stt = &v->stats[d][k];
        int gx = k ? x2 : r->x, m = graphed[k];
        if (stt->n)
            snprintf(buf, sizeof(buf), "%s %s: min %.1f avg %.1f max %.1f", gpu_metrics[m].track,
                     gpu_metrics[m].unit, stt->min, stt->avg, stt->max);
        else
            snprintf(buf, sizeof(buf), "%s %s: N/A", gpu_metrics[m].track, gpu_metrics[m].unit);
        tui_put(t, y, gx, k ? w2 : gw, tui_style(t, TUI_S_DIM), buf, 1);
        if (graph_rows > 0) {
            double full = m == GPU_M_BUSY                      ? 100.0
                          : gpu_sample_has(s, GPU_M_POWER_CAP) ? s->v[GPU_M_POWER_CAP]
                                                               : (stt->n ? stt->max : 0);
            struct tui_rect g = {.y = y + 1, .x = gx, .h = graph_rows, .w = k ? w2 : gw};
            draw_graph(t, &g, v->hist[d][k], v->nhist[d][k], full, tui_style(t, TUI_S_LABEL));
        }
    }
}

/* One GPU on one line (many GPUs in a small terminal). */
static void draw_compact(struct tui *t, struct gpu_view *v, int d, const struct tui_rect *r)
{
    const struct gpu_sample *s = &v->st->now[d];
    char buf[512], a[32], b[32], c[32], vram[80];

    gpu_format_value(a, sizeof(a), GPU_M_BUSY, s);
    gpu_format_value(b, sizeof(b), GPU_M_POWER, s);
    gpu_format_value(c, sizeof(c), GPU_M_TEMP_EDGE, s);
    used_of(vram, sizeof(vram), s, GPU_M_VRAM_USED, GPU_M_VRAM_TOTAL);
    snprintf(buf, sizeof(buf), "GPU%d busy %s  power %s  edge %s  VRAM %s  %s", d, a, b, c, vram,
             v->st->info[d].name);
    tui_put(t, r->y, r->x, r->w, A_NORMAL, buf, 1);
}

#define PROC_FMT "%c %-8s %-16s %-8s %12s %12s %5s  %s"

/* Where a process is, seen from rocsys-top's PID namespace: "" ours, "container pid N" (a
 * namespace below ours: N is its id there), "host id, not in ours" (pid is the host's). */
static void pidns_text(const struct gpu_proc *p, char *buf, size_t n)
{
    if (p->pidns == GPU_PIDNS_CHILD)
        snprintf(buf, n, "container pid %u", (unsigned)p->inner_pid);
    else if (p->pidns == GPU_PIDNS_OUTSIDE)
        snprintf(buf, n, "host id, not in ours");
    else
        snprintf(buf, n, "%s", "");
}

/* The processes using GPUs, the target's marked and highlighted. */
static void draw_procs(struct tui *t, struct gpu_view *v, const struct tui_rect *r)
{
    char line[256], gpus[64], vram[32], sdma[32], cu[16], pid[16], name[40], ns[48];
    int page = r->h - 1;

    snprintf(line, sizeof(line), PROC_FMT, ' ', "PID", "NAME", "GPUS", "VRAM", "SDMA", "CU%",
             "PID NAMESPACE");
    tui_put(t, r->y, r->x, r->w, tui_style(t, TUI_S_COLUMNS), line, 1);
    if (v->st->nproc == 0) {
        if (page > 0)
            tui_put(t, r->y + 1, r->x, r->w, tui_style(t, TUI_S_DIM),
                    v->st->replay ? "  the processes using GPUs are not in recordings"
                                  : "  no process uses a GPU (KFD lists none)",
                    1);
        return;
    }
    tui_list_fit(&v->list, v->st->nproc, page);
    for (int i = 0; i < page && v->list.top + i < v->st->nproc; i++) {
        int idx = v->order[v->list.top + i], sel = v->list.top + i == v->list.sel;
        const struct gpu_proc *p = &v->st->procs[idx];
        snprintf(pid, sizeof(pid), "%u", (unsigned)p->pid);
        tui_fit(name, sizeof(name), p->name, 16, t->utf8);
        format_mask(gpus, sizeof(gpus), p->gpu_mask);
        if (p->valid) {
            tui_format_bytes(vram, sizeof(vram), p->vram_bytes);
            snprintf(sdma, sizeof(sdma), "%.1f ms", (double)p->sdma_us / 1000.0);
            snprintf(cu, sizeof(cu), "%u", (unsigned)p->cu_pct);
        } else {
            snprintf(vram, sizeof(vram), "N/A");
            snprintf(sdma, sizeof(sdma), "N/A");
            snprintf(cu, sizeof(cu), "N/A");
        }
        pidns_text(p, ns, sizeof(ns));
        snprintf(line, sizeof(line), PROC_FMT, v->is_target[idx] ? '*' : ' ', pid, name, gpus, vram,
                 sdma, cu, ns);
        tui_put(t, r->y + 1 + i, r->x, r->w,
                sel                 ? tui_style(t, TUI_S_SELECTED)
                : v->is_target[idx] ? tui_style(t, TUI_S_GOOD) | A_BOLD
                                    : A_NORMAL,
                line, 1);
    }
}

/* Seconds since the last reading when the sampling thread is late (stuck in the library), else
 * 0. */
static double stale_seconds(const struct gpu_status *st)
{
    uint64_t last = st->count ? st->now[0].time_ns : 0, now = model_clock_ns(CLOCK_MONOTONIC);
    uint64_t late = 3ull * st->interval_ms * 1000000ull;

    if (st->replay) /* recorded readings are as old as the recording */
        return 0;
    if (late < 3000000000ull)
        late = 3000000000ull;
    return last && now > last + late ? (double)(now - last) / 1e9 : 0;
}

void tui_gpu_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct gpu_view *v = st;
    struct tui_gpu_layout lay;
    char title[300];

    if (r->h <= 0)
        return;
    if ((!v->monitored || v->st->sweeps == 0) &&
        tui_replay_no_data(t->m, "GPU", title, sizeof(title))) {
        tui_put(t, r->y, r->x, r->w, tui_style(t, TUI_S_NOTICE), title, 1);
        return;
    }
    if (!v->monitored) {
        tui_put(t, r->y, r->x, r->w, tui_style(t, TUI_S_NOTICE),
                "GPU monitoring is off (--gpu-interval 0)", 1);
        return;
    }
    if (v->st->state != GPU_STATE_OK) {
        snprintf(title, sizeof(title), "GPU: %s%s",
                 v->st->state == GPU_STATE_STARTING ? "" : "unavailable: ", v->st->reason);
        tui_put(t, r->y, r->x, r->w, tui_style(t, TUI_S_NOTICE), title, 1);
        return;
    }
    tui_gpu_layout_compute(r, v->nshown, v->st->nproc, &lay);
    int n = snprintf(title, sizeof(title), "GPUs: %d of %d shown (%s)  %s, every %.1f s", v->nshown,
                     v->st->count, v->target_only ? "used by the target" : "all", v->st->backend,
                     v->st->interval_ms / 1000.0);
    if (!v->st->replay)
        n += snprintf(title + n, sizeof(title) - (size_t)n, "  processes: %d", v->st->nproc);
    double age_s = stale_seconds(v->st);
    if (age_s > 0)
        n += snprintf(title + n, sizeof(title) - (size_t)n, "  STALE: last reading %.0f s ago",
                      age_s);
    if (age_s > 0 && v->st->waiting_ms >= GPU_ANSWER_WAIT_MS)
        snprintf(title + n, sizeof(title) - (size_t)n, " (%s did not answer)", v->st->waiting_call);
    tui_put(t, lay.title.y, lay.title.x, lay.title.w, tui_style(t, TUI_S_TITLE), title, 1);
    for (int i = 0; i < lay.npanels; i++) {
        if (lay.compact)
            draw_compact(t, v, v->shown[i], &lay.panel[i]);
        else
            draw_panel(t, v, v->shown[i], &lay.panel[i], lay.graph_rows);
    }
    if (lay.procs.h > 0)
        draw_procs(t, v, &lay.procs);
}

const struct tui_key_help tui_gpu_help[] = {
    {"Enter", "GPU (--attach-gpu): profile the selected process"},
    {NULL, NULL},
};

int tui_gpu_key(struct tui *t, void *st, int key)
{
    struct gpu_view *v = st;
    enum tui_nav nav = tui_key_nav(key);

    if ((key == '\n' || key == '\r' || key == KEY_ENTER) && model_session(t->m)->attach_gpu &&
        !v->st->replay && v->st->nproc > 0) {
        /* profile the selected process: the dashboard hands over to rocsys-top -p PID */
        int sel = v->list.sel < v->st->nproc ? v->list.sel : v->st->nproc - 1;
        t->profile_pid = (int)v->st->procs[v->order[sel]].pid;
        return 1;
    }
    if (nav == TUI_NAV_NONE)
        return 0;
    tui_list_nav(&v->list, nav, v->st->nproc, 5);
    return 1;
}

int tui_gpu_search(struct tui *t, void *st, const char *needle)
{
    struct gpu_view *v = st;
    int n = v->st->nproc;

    (void)t;
    for (int i = 1; i <= n; i++) {
        int k = (v->list.sel + i) % n;
        if (tui_match(v->st->procs[v->order[k]].name, needle)) {
            v->list.sel = k;
            return 1;
        }
    }
    return 0;
}

void tui_gpu_status(struct tui *t, void *st, char *buf, size_t n)
{
    struct gpu_view *v = st;

    (void)t;
    if (v->monitored && v->st->state == GPU_STATE_OK && !v->st->replay)
        snprintf(buf, n, "GPU sweep %.0f us cpu%s", v->st->sweep_cpu_us_mean,
                 model_session(t->m)->attach_gpu && v->st->nproc ? "  Enter: profile process" : "");
    else
        snprintf(buf, n, "%s", "");
}

/* "key=value" of a metric for batch frames: bytes exact, W with one decimal, N/A. */
static void batch_value(FILE *out, int metric, const struct gpu_sample *s)
{
    const char *unit = gpu_metrics[metric].unit;

    if (!gpu_sample_has(s, metric))
        fprintf(out, " %s=N/A", gpu_metrics[metric].key);
    else if (strcmp(unit, "bytes") == 0)
        fprintf(out, " %s=%.0f", gpu_metrics[metric].key, s->v[metric]);
    else if (strcmp(unit, "W") == 0)
        fprintf(out, " %s=%.1fW", gpu_metrics[metric].key, s->v[metric]);
    else
        fprintf(out, " %s=%.0f%s", gpu_metrics[metric].key, s->v[metric], unit);
}

void tui_gpu_batch(FILE *out, struct model *m, int max_rows)
{
    struct gpu_monitor *g = model_session(m)->gpu;
    struct gpu_view *v;
    char name[40], gpus[64], text[160], ns[48];

    fprintf(out, "== GPU ==\n");
    if (!g) {
        if (tui_replay_no_data(m, "GPU", text, sizeof(text)))
            fprintf(out, "gpu: %s\n", text);
        else
            fprintf(out, "gpu: off (--gpu-interval 0)\n");
        return;
    }
    v = tui_gpu_create();
    gpu_monitor_status(g, v->st);
    if (v->st->state != GPU_STATE_OK) {
        fprintf(out, "gpu: %s%s\n",
                v->st->state == GPU_STATE_STARTING ? "" : "unavailable: ", v->st->reason);
        goto out;
    }
    if (v->st->sweeps == 0 && tui_replay_no_data(m, "GPU", text, sizeof(text))) {
        fprintf(out, "gpu: %s\n", text);
        goto out;
    }
    select_gpus(m, v->st, v->shown, &v->nshown, &v->target_only, v->is_target);
    if (v->st->replay) /* no sampling cost to tell: the readings of the range */
        fprintf(out, "gpu: %d devices (%s), showing %d (all), every %u ms, %llu sweeps\n",
                v->st->count, v->st->backend, v->nshown, (unsigned)v->st->interval_ms,
                (unsigned long long)v->st->sweeps);
    else
        fprintf(out,
                "gpu: %d devices (%s), showing %d (%s), every %u ms, %llu sweeps, sweep cost %.0f "
                "us cpu (max %.0f us)\n",
                v->st->count, v->st->backend, v->nshown,
                v->target_only ? "used by the target" : "all", (unsigned)v->st->interval_ms,
                (unsigned long long)v->st->sweeps, v->st->sweep_cpu_us_mean,
                v->st->sweep_cpu_us_max);
    if (stale_seconds(v->st) > 0)
        fprintf(out, "gpu: STALE: last reading %.0f s ago%s%s%s\n", stale_seconds(v->st),
                v->st->waiting_ms >= GPU_ANSWER_WAIT_MS ? " (" : "",
                v->st->waiting_ms >= GPU_ANSWER_WAIT_MS ? v->st->waiting_call : "",
                v->st->waiting_ms >= GPU_ANSWER_WAIT_MS ? " did not answer)" : "");
    for (int i = 0; i < v->nshown; i++) {
        int d = v->shown[i];
        fprintf(out, "GPU%d pci=%s name=\"%s\"", d,
                v->st->info[d].pci[0] ? v->st->info[d].pci : "N/A", v->st->info[d].name);
        for (int k = 0; k < GPU_M_COUNT; k++)
            batch_value(out, k, &v->st->now[d]);
        fputc('\n', out);
        for (int k = 0; k < G_COUNT; k++) {
            struct gpu_stats s;
            gpu_monitor_stats(g, d, graphed[k], 0, &s);
            if (s.n)
                fprintf(out, "GPU%d history %s: min %.1f avg %.1f max %.1f %s over %d samples\n", d,
                        gpu_metrics[graphed[k]].key, s.min, s.avg, s.max,
                        gpu_metrics[graphed[k]].unit, s.n);
            else
                fprintf(out, "GPU%d history %s: N/A\n", d, gpu_metrics[graphed[k]].key);
        }
    }
    if (v->st->replay) {
        fprintf(out, "gpu processes: not recorded\n");
        goto out;
    }
    fprintf(out, "gpu processes: %d\n", v->st->nproc);
    fprintf(out, "  PID      NAME             GPUS     VRAM_BYTES    SDMA_US     CU%%  TARGET  "
                 "PIDNS\n");
    for (int i = 0; i < v->st->nproc; i++)
        v->order[i] = i;
    qsort_r(v->order, (size_t)v->st->nproc, sizeof(*v->order), proc_cmp, v->st);
    for (int i = 0; i < v->st->nproc && (max_rows <= 0 || i < max_rows); i++) {
        int idx = v->order[i];
        const struct gpu_proc *p = &v->st->procs[idx];
        tui_fit(name, sizeof(name), p->name, 15, 1);
        for (char *c = name; *c; c++)
            if (*c == ' ')
                *c = '_'; /* keep the columns splittable on blanks */
        format_mask(gpus, sizeof(gpus), p->gpu_mask);
        /* PIDNS: - (ours), container:N (a namespace below: N its id there), host (not ours) */
        if (p->pidns == GPU_PIDNS_CHILD)
            snprintf(ns, sizeof(ns), "container:%u", (unsigned)p->inner_pid);
        else
            snprintf(ns, sizeof(ns), "%s", p->pidns == GPU_PIDNS_OUTSIDE ? "host" : "-");
        if (p->valid)
            fprintf(out, "  %-7u  %-15s  %-7s  %-12llu  %-10llu  %-3u  %-6s  %s\n",
                    (unsigned)p->pid, name, gpus, (unsigned long long)p->vram_bytes,
                    (unsigned long long)p->sdma_us, (unsigned)p->cu_pct,
                    v->is_target[idx] ? "yes" : "no", ns);
        else
            fprintf(out, "  %-7u  %-15s  %-7s  %-12s  %-10s  %-3s  %-6s  %s\n", (unsigned)p->pid,
                    name, gpus, "N/A", "N/A", "N/A", v->is_target[idx] ? "yes" : "no", ns);
    }
out:
    tui_gpu_destroy(v);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(gpu, "GPU", '5', "GPU", .key = tui_gpu_key, .search = tui_gpu_search,
                .help = tui_gpu_help);
