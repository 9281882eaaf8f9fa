/* What --serve answers: /metrics in Prometheus' text exposition format (version 0.0.4: HELP and
 * TYPE lines, escaped label values) and /snapshot.json, both made from the model and the GPU
 * monitor at the moment of the request, on the main loop's thread. */
#define _GNU_SOURCE
#include "session/session.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu/gpu.h"
#include "model/model.h"

/* append a string literal */
#define LIT(b, s) session_serve_append((b), (s), sizeof(s) - 1)

#define SERVE_TOP_FUNCS   20 /* functions with share gauges */
#define SERVE_TOP_KERNELS 20 /* kernels with GPU-time counters */

void session_serve_append(struct session_serve_buf *b, const char *s, size_t n)
{
    size_t cap = b->cap;
    xgrow(&b->p, &cap, b->len + n + 1, 1);
    b->cap = cap;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void session_serve_printf(struct session_serve_buf *b, const char *fmt, ...)
{
    va_list ap;
    char small[512];

    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof(small), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof(small)) {
        session_serve_append(b, small, (size_t)n);
        return;
    }
    char *big = xmalloc((size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    session_serve_append(b, big, (size_t)n);
    free(big);
}

/* A label value in Prometheus' escaping: \\, \" and \n; other bytes as they are. */
static void prom_label(struct session_serve_buf *b, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '\\')
            LIT(b, "\\\\");
        else if (*s == '"')
            LIT(b, "\\\"");
        else if (*s == '\n')
            LIT(b, "\\n");
        else
            session_serve_append(b, s, 1);
    }
}

/* A JSON string (quoted): ", \ and control characters escaped. */
static void json_str(struct session_serve_buf *b, const char *s)
{
    LIT(b, "\"");
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\') {
            char e[2] = {'\\', (char)ch};
            session_serve_append(b, e, 2);
        } else if (ch < 0x20)
            session_serve_printf(b, "\\u%04x", ch);
        else
            session_serve_append(b, s, 1);
    }
    LIT(b, "\"");
}

/* A JSON number, null when not finite. */
static void json_num(struct session_serve_buf *b, double v)
{
    if (isfinite(v))
        session_serve_printf(b, "%.6g", v);
    else
        LIT(b, "null");
}

/* HELP and TYPE lines of a metric family. */
static void prom_family(struct session_serve_buf *b, const char *name, const char *type,
                        const char *help)
{
    session_serve_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The Prometheus name of GPU metric k ("rocsys_gpu_power_watts") and the factor from the
 * metric's unit to the base unit Prometheus names (MHz: hertz). */
static double gpu_prom_name(int k, char *buf, size_t n)
{
    static const struct {
        const char *csv_suffix, *prom_suffix;
        double scale;
    } units[] = {{"_pct", "_percent", 1},
                 {"_w", "_watts", 1},
                 {"_c", "_celsius", 1},
                 {"_mhz", "_hertz", 1e6}};
    const char *csv = gpu_metrics[k].csv;
    size_t len = strlen(csv);

    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        size_t sl = strlen(units[i].csv_suffix);
        if (len > sl && strcmp(csv + len - sl, units[i].csv_suffix) == 0) {
            snprintf(buf, n, "rocsys_gpu_%.*s%s", (int)(len - sl), csv, units[i].prom_suffix);
            return units[i].scale;
        }
    }
    snprintf(buf, n, "rocsys_gpu_%s", csv);
    return 1;
}

/* The basename of a path (the whole string without a '/'). */
static const char *base_name(const char *p)
{
    const char *s = p ? strrchr(p, '/') : NULL;
    return s ? s + 1 : p ? p : "";
}

/* Sort hot functions by self samples, then inclusive, descending. */
static int hot_cmp(const void *a, const void *b)
{
    const struct model_hot *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    if (x->inclusive != y->inclusive)
        return x->inclusive < y->inclusive ? 1 : -1;
    return x->func - y->func;
}

/* The hot functions since the start, all threads, sorted (free with model_hot_free). */
static struct model_hot_list *hot_sorted(struct model *m)
{
    struct model_filter f = {.thread = -1};
    struct model_hot_list *h = model_hot_build(m, &f);
    qsort(h->items, (size_t)h->count, sizeof(*h->items), hot_cmp);
    return h;
}

/* The GPU monitor's state, or NULL without a monitor (free it). */
static struct gpu_status *gpu_state(struct model *m)
{
    struct gpu_monitor *g = model_session(m)->gpu;
    if (!g)
        return NULL;
    struct gpu_status *st = xcalloc(1, sizeof(*st));
    gpu_monitor_status(g, st);
    return st;
}

/* GPU families: one gauge per metric and device, and the processes KFD lists. */
static void metrics_gpu(struct session_serve_buf *b, const struct gpu_status *st)
{
    char name[96];

    prom_family(b, "rocsys_gpu_monitor_up", "gauge",
                "1 when GPU monitoring reads devices, 0 when it cannot (see /snapshot.json)");
    session_serve_printf(b, "rocsys_gpu_monitor_up %d\n", st && st->state == GPU_STATE_OK);
    if (!st || st->state != GPU_STATE_OK)
        return;
    for (int k = 0; k < GPU_M_COUNT; k++) {
        double scale = gpu_prom_name(k, name, sizeof(name));
        int any = 0;
        for (int d = 0; d < st->count && d < GPU_MAX_DEVICES; d++) {
            if (!gpu_sample_has(&st->now[d], k))
                continue; /* N/A: no sample rather than a 0 */
            if (!any++) {
                char help[160];
                snprintf(help, sizeof(help), "GPU %s (read in %s)", gpu_metrics[k].track,
                         gpu_metrics[k].unit);
                prom_family(b, name, "gauge", help);
            }
            session_serve_printf(b, "%s{gpu=\"%d\",pci=\"", name, d);
            prom_label(b, st->info[d].pci);
            LIT(b, "\",name=\"");
            prom_label(b, st->info[d].name);
            session_serve_printf(b, "\"} %.10g\n", st->now[d].v[k] * scale);
        }
    }
    static const struct {
        const char *name, *type, *help;
    } procs[] = {
        {"rocsys_gpu_process_vram_bytes", "gauge", "VRAM a process holds on its GPUs (KFD)"},
        {"rocsys_gpu_process_cu_percent", "gauge",
         "CUs the process's waves occupy, % of its GPUs' CUs (KFD)"},
        {"rocsys_gpu_process_sdma_seconds_total", "counter",
         "time the process's SDMA (copy) engines ran (KFD)"},
    };
    for (size_t k = 0; k < sizeof(procs) / sizeof(procs[0]); k++) {
        prom_family(b, procs[k].name, procs[k].type, procs[k].help);
        for (int i = 0; i < st->nproc; i++) {
            const struct gpu_proc *p = &st->procs[i];
            if (!p->valid)
                continue;
            double v = k == 0   ? (double)p->vram_bytes
                       : k == 1 ? (double)p->cu_pct
                                : (double)p->sdma_us / 1e6;
            session_serve_printf(b, "%s{pid=\"%u\",comm=\"", procs[k].name, p->pid);
            prom_label(b, p->name);
            session_serve_printf(b, "\",gpu_mask=\"0x%x\",host_pid=\"%u\",pidns=\"%s\"} %.10g\n",
                                 p->gpu_mask, p->host_pid,
                                 p->pidns == GPU_PIDNS_CHILD     ? "container"
                                 : p->pidns == GPU_PIDNS_OUTSIDE ? "host"
                                                                 : "same",
                                 v);
        }
    }
}

/* The target's processes: CPU, memory, threads. */
static void metrics_processes(struct session_serve_buf *b, struct model *m)
{
    static const struct {
        const char *name, *type, *help;
    } fam[] = {
        {"rocsys_process_cpu_percent", "gauge", "CPU use, % of one core, over the last refresh"},
        {"rocsys_process_cpu_seconds_total", "counter", "user + system CPU time since start"},
        {"rocsys_process_resident_memory_bytes", "gauge", "resident set size"},
        {"rocsys_process_threads", "gauge", "threads"},
        {"rocsys_process_running", "gauge", "1 while the process runs"},
    };
    for (size_t k = 0; k < sizeof(fam) / sizeof(fam[0]); k++) {
        prom_family(b, fam[k].name, fam[k].type, fam[k].help);
        for (int i = 0; i < model_process_count(m); i++) {
            const struct model_process *p = model_process_at(m, i);
            const struct model_proc_metrics *pm = &p->metrics;
            if (!pm->valid && k != 4)
                continue;
            double v = k == 0   ? pm->cpu_pct
                       : k == 1 ? (double)pm->cpu_time_ns / 1e9
                       : k == 2 ? (double)pm->rss_bytes
                       : k == 3 ? (double)pm->threads
                                : (double)(p->state == MODEL_PROC_RUNNING);
            if (!isfinite(v))
                continue;
            session_serve_printf(b, "%s{pid=\"%u\",exe=\"", fam[k].name, p->pid);
            prom_label(b, base_name(p->exe));
            session_serve_printf(b, "\",root=\"%d\"} %.10g\n", p->is_root, v);
        }
    }
}

/* Top functions by self samples: their shares of all samples since the start. */
static void metrics_functions(struct session_serve_buf *b, struct model *m)
{
    struct model_hot_list *h = hot_sorted(m);
    char label[512];

    for (int pass = 0; pass < 2; pass++) {
        prom_family(b, pass ? "rocsys_function_total_share" : "rocsys_function_self_share", "gauge",
                    pass ? "share of all samples with the function on the stack (top functions "
                           "by self samples, since start)"
                         : "share of all samples with the function as the leaf (top functions "
                           "by self samples, since start)");
        for (int i = 0; i < h->count && i < SERVE_TOP_FUNCS && h->total && h->items[i].self; i++) {
            const struct model_func *f = model_func_at(m, h->items[i].func);
            model_python_label(f, label, sizeof(label));
            session_serve_printf(
                b, "%s{position=\"%d\",function=\"",
                pass ? "rocsys_function_total_share" : "rocsys_function_self_share", i + 1);
            prom_label(b, label);
            LIT(b, "\",module=\"");
            prom_label(b, base_name(f->module));
            session_serve_printf(b, "\"} %.6f\n",
                                 (double)(pass ? h->items[i].inclusive : h->items[i].self) /
                                     (double)h->total);
        }
    }
    model_hot_free(h);
}

/* Top kernels by GPU time. */
static void metrics_kernels(struct session_serve_buf *b, struct model *m)
{
    struct model_kernel_list *l = model_kernels_list(m);

    model_kernels_sort_by_gpu(l);
    prom_family(b, "rocsys_kernel_gpu_seconds_total", "counter",
                "GPU time of the kernel's timed dispatches (top kernels by GPU time)");
    for (int i = 0; i < l->count && i < SERVE_TOP_KERNELS; i++) {
        LIT(b, "rocsys_kernel_gpu_seconds_total{kernel=\"");
        prom_label(b, l->items[i].name);
        session_serve_printf(b, "\"} %.9f\n", (double)l->items[i].gpu.total_ns / 1e9);
    }
    prom_family(b, "rocsys_kernel_dispatches_total", "counter", "dispatches of the kernel");
    for (int i = 0; i < l->count && i < SERVE_TOP_KERNELS; i++) {
        LIT(b, "rocsys_kernel_dispatches_total{kernel=\"");
        prom_label(b, l->items[i].name);
        session_serve_printf(b, "\"} %llu\n", (unsigned long long)l->items[i].dispatches);
    }
    model_kernels_list_free(l);
}

void session_serve_metrics(const struct session_serve_content *c, struct session_serve_buf *b)
{
    struct model *m = c->m;
    struct model_session *ms = model_session(m);
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);

    prom_family(b, "rocsys_info", "gauge", "the session: what it profiles and how (always 1)");
    LIT(b, "rocsys_info{target=\"");
    prom_label(b, c->what ? c->what : ms->target);
    LIT(b, "\",engine=\"");
    prom_label(b, ms->engine ? ms->engine : "");
    LIT(b, "\",mode=\"");
    prom_label(b, ms->mode ? ms->mode : "");
    LIT(b, "\"} 1\n");
    prom_family(b, "rocsys_uptime_seconds", "gauge", "time since the session started");
    session_serve_printf(b, "rocsys_uptime_seconds %.3f\n",
                         ms->start_ns && now > ms->start_ns ? (double)(now - ms->start_ns) / 1e9
                                                            : 0.0);
    prom_family(b, "rocsys_target_running", "gauge", "1 while the profiled program runs");
    session_serve_printf(b, "rocsys_target_running %d\n", !ms->target_done && !ms->attach_gpu);
    prom_family(b, "rocsys_samples_total", "counter", "CPU sampling periods counted");
    session_serve_printf(b, "rocsys_samples_total %llu\n", (unsigned long long)ms->samples);
    prom_family(b, "rocsys_dropped_total", "counter",
                "samples and events lost in transport (a ring was full)");
    session_serve_printf(b, "rocsys_dropped_total %llu\n", (unsigned long long)ms->dropped);
    prom_family(b, "rocsys_dropped_events_total", "counter",
                "of rocsys_dropped_total: events (HIP calls, dispatches, copies, regions, names)");
    session_serve_printf(b, "rocsys_dropped_events_total %llu\n",
                         (unsigned long long)ms->dropped_events);
    prom_family(b, "rocsys_samples_truncated_total", "counter",
                "samples whose stack did not reach its thread's start");
    session_serve_printf(b, "rocsys_samples_truncated_total %llu\n",
                         (unsigned long long)ms->samples_truncated);
    prom_family(b, "rocsys_frontend_cpu_percent", "gauge",
                "rocsys-top's own CPU use since the start, % of one core");
    session_serve_printf(b, "rocsys_frontend_cpu_percent %.3f\n", ms->frontend_cpu_pct);
    metrics_processes(b, m);
    metrics_functions(b, m);
    metrics_kernels(b, m);
    struct gpu_status *st = gpu_state(m);
    metrics_gpu(b, st);
    free(st);
}

/* The snapshot's "gpu" member. */
static void snapshot_gpu(struct session_serve_buf *b, const struct gpu_status *st)
{
    if (!st) {
        LIT(b, "null");
        return;
    }
    LIT(b, "{\"state\":");
    json_str(b, st->state == GPU_STATE_OK         ? "ok"
                : st->state == GPU_STATE_STARTING ? "starting"
                                                  : "unavailable");
    LIT(b, ",\"reason\":");
    json_str(b, st->reason);
    LIT(b, ",\"devices\":[");
    for (int d = 0; d < st->count && d < GPU_MAX_DEVICES; d++) {
        session_serve_printf(b, "%s{\"index\":%d,\"name\":", d ? "," : "", d);
        json_str(b, st->info[d].name);
        LIT(b, ",\"pci\":");
        json_str(b, st->info[d].pci);
        for (int k = 0; k < GPU_M_COUNT; k++) {
            session_serve_printf(b, ",\"%s\":", gpu_metrics[k].csv);
            json_num(b, gpu_sample_has(&st->now[d], k) ? st->now[d].v[k] : NAN);
        }
        LIT(b, "}");
    }
    LIT(b, "],\"processes\":[");
    for (int i = 0; i < st->nproc; i++) {
        const struct gpu_proc *p = &st->procs[i];
        session_serve_printf(b, "%s{\"pid\":%u,\"comm\":", i ? "," : "", p->pid);
        json_str(b, p->name);
        session_serve_printf(b, ",\"gpu_mask\":%u,\"host_pid\":%u,\"pidns\":\"%s\"", p->gpu_mask,
                             p->host_pid,
                             p->pidns == GPU_PIDNS_CHILD     ? "container"
                             : p->pidns == GPU_PIDNS_OUTSIDE ? "host"
                                                             : "same");
        if (p->pidns == GPU_PIDNS_CHILD)
            session_serve_printf(b, ",\"container_pid\":%u", p->inner_pid);
        if (p->valid)
            session_serve_printf(b, ",\"vram_bytes\":%llu,\"cu_pct\":%u,\"sdma_us\":%llu",
                                 (unsigned long long)p->vram_bytes, p->cu_pct,
                                 (unsigned long long)p->sdma_us);
        LIT(b, "}");
    }
    LIT(b, "]}");
}

void session_serve_snapshot(const struct session_serve_content *c, struct session_serve_buf *b)
{
    struct model *m = c->m;
    struct model_session *ms = model_session(m);
    char label[512];

    LIT(b, "{\"session\":{\"target\":");
    json_str(b, c->what ? c->what : ms->target);
    LIT(b, ",\"engine\":");
    json_str(b, ms->engine);
    LIT(b, ",\"mode\":");
    json_str(b, ms->mode);
    LIT(b, ",\"status\":");
    json_str(b, ms->status_text);
    session_serve_printf(b,
                         ",\"samples\":%llu,\"dropped\":%llu,\"dropped_events\":%llu,"
                         "\"truncated_samples\":%llu,\"frontend_cpu_pct\":",
                         (unsigned long long)ms->samples, (unsigned long long)ms->dropped,
                         (unsigned long long)ms->dropped_events,
                         (unsigned long long)ms->samples_truncated);
    json_num(b, ms->frontend_cpu_pct);
    LIT(b, "},\"processes\":[");
    for (int i = 0; i < model_process_count(m); i++) {
        const struct model_process *p = model_process_at(m, i);
        session_serve_printf(b, "%s{\"pid\":%u,\"ppid\":%u,\"exe\":", i ? "," : "", p->pid,
                             p->ppid);
        json_str(b, p->exe);
        session_serve_printf(b, ",\"running\":%s,\"root\":%s,\"cpu_pct\":",
                             p->state == MODEL_PROC_RUNNING ? "true" : "false",
                             p->is_root ? "true" : "false");
        json_num(b, p->metrics.valid ? p->metrics.cpu_pct : NAN);
        session_serve_printf(b, ",\"rss_bytes\":%llu,\"threads\":%u}",
                             (unsigned long long)p->metrics.rss_bytes, p->metrics.threads);
    }
    LIT(b, "],\"threads\":[");
    for (int i = 0; i < model_thread_count(m); i++) {
        const struct model_thread *t = model_thread_at(m, i);
        session_serve_printf(b, "%s{\"pid\":%u,\"tid\":%u,\"name\":", i ? "," : "", t->pid, t->tid);
        json_str(b, t->name);
        session_serve_printf(b, ",\"alive\":%s,\"samples\":%llu,\"cpu_pct\":",
                             t->alive ? "true" : "false", (unsigned long long)t->samples);
        json_num(b, t->cpu_pct);
        LIT(b, "}");
    }
    struct model_hot_list *h = hot_sorted(m);
    session_serve_printf(b, "],\"hot\":{\"total_samples\":%llu,\"functions\":[",
                         (unsigned long long)h->total);
    for (int i = 0; i < h->count && i < 100; i++) {
        const struct model_func *f = model_func_at(m, h->items[i].func);
        model_python_label(f, label, sizeof(label));
        if (i)
            LIT(b, ",");
        LIT(b, "{\"function\":");
        json_str(b, label);
        LIT(b, ",\"module\":");
        json_str(b, f->module);
        session_serve_printf(b, ",\"self\":%llu,\"total\":%llu}",
                             (unsigned long long)h->items[i].self,
                             (unsigned long long)h->items[i].inclusive);
    }
    model_hot_free(h);
    struct model_kernel_list *l = model_kernels_list(m);
    model_kernels_sort_by_gpu(l);
    LIT(b, "]},\"kernels\":[");
    for (int i = 0; i < l->count && i < 100; i++) {
        if (i)
            LIT(b, ",");
        LIT(b, "{\"name\":");
        json_str(b, l->items[i].name);
        session_serve_printf(b, ",\"dispatches\":%llu,\"gpu_ns\":%llu}",
                             (unsigned long long)l->items[i].dispatches,
                             (unsigned long long)l->items[i].gpu.total_ns);
    }
    model_kernels_list_free(l);
    LIT(b, "],\"gpu\":");
    struct gpu_status *st = gpu_state(m);
    snapshot_gpu(b, st);
    free(st);
    LIT(b, "}\n");
}
