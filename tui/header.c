/* The header every view shares: the target and its status, the sampling facts, a line of GPU
 * gauges, notices (symbols loading, unannounced processes) and one line per process with its
 * metrics. */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "collector/protocol.h"
#include "tui/tui_internal.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"

/* Style of the target's status text: green while running, red when it failed. */
static enum tui_style status_style(const char *s)
{
    if (strncmp(s, "running", 7) == 0)
        return TUI_S_GOOD;
    if (strcmp(s, "exited with 0") == 0 || !*s || strncmp(s, "diff: ", 6) == 0)
        return TUI_S_VALUE; /* a comparison (--diff) is no failure */
    return TUI_S_BAD;
}

/* Short name of a process: basename of its executable, else of its first argument. */
static void proc_name(const struct model_process *p, char *buf, size_t n)
{
    const char *s = p->exe && *p->exe ? tui_basename(p->exe) : NULL;

    if (s) {
        snprintf(buf, n, "%s", s);
        return;
    }
    snprintf(buf, n, "%s", p->cmdline ? p->cmdline : "?");
    buf[strcspn(buf, " ")] = '\0';
    memmove(buf, tui_basename(buf), strlen(tui_basename(buf)) + 1);
}

/* One header line of process metrics. */
static void draw_process(struct tui *t, int y, int w, const struct model_process *p)
{
    const struct model_proc_metrics *mt = &p->metrics;
    unsigned int lab = tui_style(t, TUI_S_LABEL), val = tui_style(t, TUI_S_VALUE);
    char name[64], rss[32], peak[32];
    int x = 0;

    proc_name(p, name, sizeof(name));
    tui_seg(t, y, &x, w, lab, "%s", p->is_root ? "PID " : "pid ");
    tui_seg(t, y, &x, w, val, "%u ", (unsigned)p->pid);
    tui_seg(t, y, &x, w, val, "%.20s", name);
    if (p->state == MODEL_PROC_EXITED)
        tui_seg(t, y, &x, w, tui_style(t, p->exit_code ? TUI_S_BAD : TUI_S_VALUE), "  [exited %d]",
                p->exit_code);
    else if (p->state == MODEL_PROC_KILLED)
        tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), "  [killed by signal %d]", p->term_signal);
    if (p->no_collector[0])
        tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), "  [no collector: %s]", p->no_collector);
    if (!mt->valid) {
        /* a recording keeps CPU % and RSS as counter tracks of the trace, not these */
        tui_seg(t, y, &x, w, tui_style(t, TUI_S_DIM), "%s",
                model_session(t->m)->replay      ? "  (process metrics: the trace's counter tracks)"
                : p->state != MODEL_PROC_RUNNING ? "  (ended before its first reading)"
                                                 : "  (no metrics yet)");
        return;
    }
    tui_format_bytes(rss, sizeof(rss), mt->rss_bytes);
    tui_format_bytes(peak, sizeof(peak), mt->peak_rss_bytes);
    tui_seg(t, y, &x, w, lab, mt->recorded ? "  CPU (mean) " : "  CPU ");
    if (isnan(mt->cpu_pct))
        tui_seg(t, y, &x, w, val, "n/a");
    else
        tui_seg(t, y, &x, w, mt->cpu_pct >= 90.0 ? tui_style(t, TUI_S_HOT) : val, "%.1f%%",
                mt->cpu_pct);
    if (mt->recorded) { /* what the recording's counter tracks hold, over the range */
        tui_seg(t, y, &x, w, lab, "  RSS ");
        tui_seg(t, y, &x, w, val, "%s", rss);
        tui_seg(t, y, &x, w, lab, " peak ");
        tui_seg(t, y, &x, w, val, "%s", peak);
        return;
    }
    tui_seg(t, y, &x, w, lab, "  thr ");
    tui_seg(t, y, &x, w, val, "%u", (unsigned)mt->threads);
    tui_seg(t, y, &x, w, lab, "  RSS ");
    tui_seg(t, y, &x, w, val, "%s", rss);
    tui_seg(t, y, &x, w, lab, " peak ");
    tui_seg(t, y, &x, w, val, "%s", peak);
    tui_seg(t, y, &x, w, lab, "  faults ");
    tui_seg(t, y, &x, w, val, "%llu/%llu", (unsigned long long)mt->minor_faults,
            (unsigned long long)mt->major_faults);
    tui_seg(t, y, &x, w, lab, "  ctxsw ");
    tui_seg(t, y, &x, w, val, "%llu/%llu", (unsigned long long)mt->vol_ctx_switches,
            (unsigned long long)mt->invol_ctx_switches);
}

/* The GPU monitor's status for this frame (large: one copy, reused; the UI has one thread). */
static struct gpu_status frame_gpu;

/* Read the GPU monitor's status for this frame; returns whether the header shows a GPU line. */
static int frame_gpu_read(struct tui *t)
{
    struct gpu_monitor *g = model_session(t->m)->gpu;

    if (!g)
        return 0;
    gpu_monitor_status(g, &frame_gpu);
    return frame_gpu.state == GPU_STATE_OK && frame_gpu.count > 0;
}

/* The lines the header has to show: target, sampling, GPU gauges, notice, processes. */
static int header_lines(struct tui *t, int gpu_line)
{
    const struct model_session *s = model_session(t->m);

    int n = 2 + gpu_line + (s->notice[0] != 0) + (s->symbols_status[0] != 0) +
            (s->engine_why[0] != 0) + (s->procs_unannounced != 0) + model_process_count(t->m);

    return n < 3 ? 3 : n; /* the sampling line needs 3 (see draw_header) */
}

/* One header line of GPU gauges (from frame_gpu): busy, power, edge temperature and VRAM per
 * GPU, as many as fit; returns 0 (nothing drawn) when no GPU is monitored. */
static int draw_gpu_summary(struct tui *t, int y, int w)
{
    const struct gpu_status *st = &frame_gpu;
    unsigned int lab = tui_style(t, TUI_S_LABEL), val = tui_style(t, TUI_S_VALUE);
    char busy[32], power[32], temp[32], used[32], total[32], item[160];
    int x = 0, shown = 0;

    if (!t->gpu_line)
        return 0;
    for (int d = 0; d < st->count; d++) {
        const struct gpu_sample *s = &st->now[d];
        gpu_format_value(busy, sizeof(busy), GPU_M_BUSY, s);
        gpu_format_value(power, sizeof(power), GPU_M_POWER, s);
        gpu_format_value(temp, sizeof(temp), GPU_M_TEMP_EDGE, s);
        gpu_format_value(used, sizeof(used), GPU_M_VRAM_USED, s);
        gpu_format_value(total, sizeof(total), GPU_M_VRAM_TOTAL, s);
        snprintf(item, sizeof(item), "%s %s %s %s/%s", busy, power, temp, used, total);
        /* keep room for "+N more" unless this is the last one */
        if (x + 6 + tui_text_width(item, t->utf8) > w - (d + 1 < st->count ? 9 : 0))
            break;
        tui_seg(t, y, &x, w, lab, "%sGPU%d ", shown ? "  " : "", d);
        tui_seg(t, y, &x, w, val, "%s", item);
        shown++;
    }
    if (shown < st->count)
        tui_seg(t, y, &x, w, tui_style(t, TUI_S_DIM), "  +%d more", st->count - shown);
    return 1;
}

/* The header: target and status, sampling facts, GPUs, notice, then one line per process. */
void tui_header_draw(struct tui *t, const struct tui_rect *r)
{
    struct model_session *s = model_session(t->m);
    unsigned int lab = tui_style(t, TUI_S_LABEL), val = tui_style(t, TUI_S_VALUE);
    uint64_t end = s->end_ns ? s->end_ns : model_clock_ns(CLOCK_MONOTONIC);
    char el[32], right[48];
    int y = r->y, x = 0, w = r->w, nproc, shown, room, rw;

    /* line 1: who and how long */
    tui_format_duration(el, sizeof(el), s->start_ns && end > s->start_ns ? end - s->start_ns : 0);
    snprintf(right, sizeof(right), "  elapsed %s", el);
    rw = tui_text_width(right, 0);
    tui_seg(t, y, &x, w - rw, lab | A_BOLD, "rocsys-top ");
    tui_seg(t, y, &x, w - rw, tui_style(t, status_style(s->status_text)), "[%s]",
            s->status_text[0] ? s->status_text : "starting");
    tui_seg(t, y, &x, w - rw, val, " %s", s->target);
    tui_put(t, y, w - rw > x ? w - rw : x, rw, val, right, 0);
    y++;
    /* line 2: sampling */
    if (r->h >= 3 && model_session_gpu_only(s)) {
        /* --attach-gpu: no target, nothing sampled; the GPU view says the rest */
        x = 0;
        tui_seg(t, y, &x, w, lab, "no target: ");
        tui_seg(t, y, &x, w, val, "GPU monitoring only");
        tui_seg(t, y, &x, w, lab, " (CPU views stay empty)");
        y++;
    } else if (r->h >= 3) {
        x = 0;
        tui_seg(t, y, &x, w, lab, "sampling ");
        tui_seg(t, y, &x, w, val, "%s %d Hz", s->mode ? s->mode : "?", s->freq_hz);
        if (s->timer && strcmp(s->timer, "tick") == 0)
            tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), " (tick timer)");
        if (s->engine)
            tui_seg(t, y, &x, w, lab, " %s", strcmp(s->engine, "perf") == 0 ? "perf" : "signals");
        tui_seg(t, y, &x, w, lab, "  samples ");
        tui_seg(t, y, &x, w, val, "%llu", (unsigned long long)s->samples);
        if (s->samples_truncated) { /* stacks that did not reach their thread's start */
            tui_seg(t, y, &x, w, lab, "  truncated ");
            tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), "%llu",
                    (unsigned long long)s->samples_truncated);
        }
        tui_seg(t, y, &x, w, lab, "  dropped ");
        tui_seg(t, y, &x, w, tui_style(t, s->dropped ? TUI_S_BAD : TUI_S_VALUE), "%llu",
                (unsigned long long)s->dropped);
        uint64_t wait_ns, wait_cpu_ns;
        model_gpu_wait_totals(t->m, &wait_ns, &wait_cpu_ns);
        if (wait_ns) { /* threads waiting for the device inside HIP calls */
            tui_seg(t, y, &x, w, lab, "  gpu wait ");
            tui_seg(t, y, &x, w, val, "%.1f ms", (double)wait_ns / 1e6);
        }
        if (s->dropped_events) {
            tui_seg(t, y, &x, w, lab, " (events ");
            tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), "%llu",
                    (unsigned long long)s->dropped_events);
            tui_seg(t, y, &x, w, lab, ")");
        }
        if (s->threads_unsampled) {
            tui_seg(t, y, &x, w, lab, "  unsampled threads ");
            tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), "%llu",
                    (unsigned long long)s->threads_unsampled);
        }
        if (!s->replay && s->engine && strcmp(s->engine, "perf") == 0) {
            tui_seg(t, y, &x, w, lab, "  unwind ");
            tui_seg(t, y, &x, w, val, "%.1f us", s->unwind_us_mean);
        } else if (!s->replay) { /* a recording does not keep the collector's cost */
            tui_seg(t, y, &x, w, lab, "  cost ");
            tui_seg(t, y, &x, w, val, "%.0f ns", s->sample_cost_median_ns);
        }
        tui_seg(t, y, &x, w, lab, "  stacks ");
        tui_seg(t, y, &x, w, val, "%zu", model_distinct_stacks(t->m));
        if (s->python_status == ROCSYS_PY_OK) { /* Python frames are read */
            tui_seg(t, y, &x, w, lab, "  python ");
            tui_seg(t, y, &x, w, val, "%u.%u", s->python_version_hex >> 24,
                    (s->python_version_hex >> 16) & 0xff);
            if (s->python_unreadable) {
                tui_seg(t, y, &x, w, lab, " unreadable ");
                tui_seg(t, y, &x, w, tui_style(t, TUI_S_BAD), "%llu",
                        (unsigned long long)s->python_unreadable);
            }
        }
        if (s->replay) {
            tui_seg(t, y, &x, w, lab, "  range ");
            tui_seg(t, y, &x, w, val, "%.1f-%.1f s of %.1f s",
                    (double)(s->range_start_ns - s->start_ns) / 1e9,
                    (double)(s->range_end_ns - s->start_ns) / 1e9,
                    (double)(s->end_ns - s->start_ns) / 1e9);
        } else {
            tui_seg(t, y, &x, w, lab, "  window ");
            tui_seg(t, y, &x, w, val, "%us", (unsigned)s->window_seconds);
        }
        y++;
    }
    /* why this engine and timer: what a fallback loses, and what would allow more */
    if (s->engine_why[0] && y < r->y + r->h) {
        char buf[sizeof(s->engine_why) + 32];
        snprintf(buf, sizeof(buf), " engine %s: %s", s->engine ? s->engine : "?", s->engine_why);
        tui_put(t, y, 0, w,
                tui_style(t, strstr(s->engine_why, "to allow") ? TUI_S_NOTICE : TUI_S_DIM), buf, 1);
        y++;
    }
    /* a compact line of GPU gauges, when GPUs are monitored (the GPU view has the rest) */
    if (s->gpu && y < r->y + r->h && draw_gpu_summary(t, y, w))
        y++;
    /* the notice, highlighted */
    if (s->notice[0] && y < r->y + r->h) {
        char buf[300];
        snprintf(buf, sizeof(buf), " ! %s", s->notice);
        tui_put(t, y, 0, w, tui_style(t, TUI_S_NOTICE), buf, 1);
        y++;
    }
    /* processes whose collector found no free ring: their samples are [unknown] */
    if (s->procs_unannounced && y < r->y + r->h) {
        char buf[200];
        snprintf(buf, sizeof(buf),
                 " ! %llu processes sent no records (every collector ring was in use): %llu "
                 "samples [unknown]",
                 (unsigned long long)s->procs_unannounced,
                 (unsigned long long)s->samples_unannounced);
        tui_put(t, y, 0, w, tui_style(t, TUI_S_NOTICE), buf, 1);
        y++;
    }
    /* files whose symbols are loading (their frames wait for them) */
    if (s->symbols_status[0] && y < r->y + r->h) {
        char buf[200];
        snprintf(buf, sizeof(buf), " symbols: %s", s->symbols_status);
        tui_put(t, y, 0, w, tui_style(t, TUI_S_DIM), buf, 1);
        y++;
    }
    /* processes: the root target first, then its children */
    nproc = model_process_count(t->m);
    room = r->y + r->h - y;
    shown = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < nproc && room > 0; i++) {
            const struct model_process *p = model_process_at(t->m, i);
            if ((pass == 0) != (p->is_root != 0))
                continue;
            if (room == 1 && shown >= 1 && shown + 1 < nproc) {
                int running = 0;
                for (int k = 0; k < nproc; k++)
                    running += model_process_at(t->m, k)->state == MODEL_PROC_RUNNING;
                x = 0;
                tui_seg(t, y, &x, w, tui_style(t, TUI_S_DIM),
                        "+%d more processes (%d running in total)", nproc - shown, running);
                room = 0;
                break;
            }
            draw_process(t, y++, w, p);
            shown++;
            room--;
        }
    }
}

int tui_header_prepare(struct tui *t)
{
    t->gpu_line = frame_gpu_read(t);
    return header_lines(t, t->gpu_line);
}
