/* Batch mode (-b): one plain-text frame of every view, like top -b. The format is parsed by
 * tests and benchmark scripts: keep it stable. */
#include "collector/protocol.h"
#include "tui/tui_internal.h"

#include <math.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Short name of a process: basename of the executable, else of argv[0]. */
static void proc_name(const struct model_process *p, char *buf, size_t n)
{
    char tmp[256];

    if (p->exe && *p->exe) {
        snprintf(buf, n, "%s", tui_basename(p->exe));
        return;
    }
    snprintf(tmp, sizeof(tmp), "%s", p->cmdline && *p->cmdline ? p->cmdline : "?");
    tmp[strcspn(tmp, " ")] = '\0';
    snprintf(buf, n, "%s", tui_basename(tmp));
}

/* One "process" line. */
static void print_process(FILE *out, const struct model_process *p)
{
    const struct model_proc_metrics *mt = &p->metrics;
    char name[256], rss[32], peak[32];

    proc_name(p, name, sizeof(name));
    if (!mt->valid) { /* never measured (a replay has no /proc): no made-up zeros */
        fprintf(out, "process %u %s:", (unsigned)p->pid, name);
        goto status;
    }
    tui_format_bytes(rss, sizeof(rss), mt->rss_bytes);
    tui_format_bytes(peak, sizeof(peak), mt->peak_rss_bytes);
    if (mt->recorded) { /* a replay: the recording's counter tracks, over the range */
        char cpu[32] = "n/a";
        if (!isnan(mt->cpu_pct))
            snprintf(cpu, sizeof(cpu), "%.1f%%", mt->cpu_pct);
        fprintf(out, "process %u %s: cpu (mean) %s  rss %s  peak %s", (unsigned)p->pid, name, cpu,
                rss, peak);
        goto status;
    }
    fprintf(out,
            "process %u %s: cpu %.1f%%  threads %u  rss %s  peak %s  faults %llu/%llu  "
            "ctxsw %llu/%llu",
            (unsigned)p->pid, name, mt->cpu_pct, (unsigned)mt->threads, rss, peak,
            (unsigned long long)mt->minor_faults, (unsigned long long)mt->major_faults,
            (unsigned long long)mt->vol_ctx_switches, (unsigned long long)mt->invol_ctx_switches);
status:
    if (p->state == MODEL_PROC_EXITED && p->exit_code >= 0)
        fprintf(out, "  [exited with %d]", p->exit_code);
    else if (p->state == MODEL_PROC_KILLED)
        fprintf(out, "  [killed by signal %d]", p->term_signal);
    if (p->no_collector[0])
        fprintf(out, "  [no collector: %s]", p->no_collector);
    fputc('\n', out);
}

void tui_batch_frame(FILE *out, struct model *m, int frame_no, int max_rows)
{
    struct model_session *s = model_session(m);
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);
    uint64_t end = s->end_ns ? s->end_ns : now;
    double elapsed = s->start_ns && end > s->start_ns ? (double)(end - s->start_ns) / 1e9 : 0.0;
    int nproc = model_process_count(m);
    char target[sizeof(s->target) + 8], notice[sizeof(s->notice) + 8], hsa[sizeof(notice)];

    tui_sanitize(target, sizeof(target), s->target);
    fprintf(out, "rocsys-top frame %d  elapsed %.1fs  target [%s]: %s\n", frame_no, elapsed,
            s->status_text[0] ? s->status_text : "starting", target);
    if (s->replay) /* what was recorded, and the part of the run counted */
        fprintf(out,
                "mode %s %d Hz  samples %llu  truncated %llu  dropped %llu (events %llu)  stacks "
                "%zu  range %.3f-%.3f s of %.3f s\n",
                s->mode ? s->mode : "?", s->freq_hz, (unsigned long long)s->samples,
                (unsigned long long)s->samples_truncated, (unsigned long long)s->dropped,
                (unsigned long long)s->dropped_events, model_distinct_stacks(m),
                (double)(s->range_start_ns - s->start_ns) / 1e9,
                (double)(s->range_end_ns - s->start_ns) / 1e9, elapsed);
    else if (model_session_gpu_only(s)) /* --attach-gpu: nothing is sampled */
        fprintf(out,
                "mode gpu  no target: GPU monitoring only (the CPU sections stay empty)  "
                "front end %.1f%% cpu\n",
                s->frontend_cpu_pct);
    else {
        /* the cost of a sample: the handler's in the target, or (perf engine, no handler) the
         * front end's unwinding */
        char cost[128];
        if (s->engine && strcmp(s->engine, "perf") == 0)
            snprintf(cost, sizeof(cost), "unwind %.1f us/sample  stack copy %u bytes  joined %llu",
                     s->unwind_us_mean, s->perf_stack_bytes, (unsigned long long)s->samples_joined);
        else
            snprintf(cost, sizeof(cost), "sample cost %.0f ns  (p99 %.0f ns, mean %.0f ns)",
                     s->sample_cost_median_ns, s->sample_cost_p99_ns, s->sample_cost_avg_ns);
        fprintf(out,
                "mode %s %d Hz  samples %llu  truncated %llu  dropped %llu (events %llu)  "
                "unsampled threads %llu  %s  stacks %zu  front end %.1f%% cpu  timer %s  engine "
                "%s%s%s\n",
                s->mode ? s->mode : "?", s->freq_hz, (unsigned long long)s->samples,
                (unsigned long long)s->samples_truncated, (unsigned long long)s->dropped,
                (unsigned long long)s->dropped_events, (unsigned long long)s->threads_unsampled,
                cost, model_distinct_stacks(m), s->frontend_cpu_pct, s->timer ? s->timer : "?",
                s->engine ? s->engine : "?", s->engine_why[0] ? ": " : "", s->engine_why);
    }
    uint64_t wait_ns, wait_cpu_ns;
    model_gpu_wait_totals(m, &wait_ns, &wait_cpu_ns);
    if (wait_ns) /* threads waiting for the device inside HIP calls */
        fprintf(out, "gpu wait %.3f ms  (CPU %.3f ms, blocked %.3f ms)\n", (double)wait_ns / 1e6,
                (double)wait_cpu_ns / 1e6, (double)(wait_ns - wait_cpu_ns) / 1e6);
    for (int pass = 0; pass < 2; pass++) /* the root target first */
        for (int i = 0; i < nproc; i++) {
            const struct model_process *p = model_process_at(m, i);
            if ((pass == 0) == (p->is_root != 0))
                print_process(out, p);
        }
    if (s->python_status >= 0)
        fprintf(out, "python %u.%u.%u  %s  unreadable stacks %llu\n", s->python_version_hex >> 24,
                (s->python_version_hex >> 16) & 0xff, (s->python_version_hex >> 8) & 0xff,
                s->python_status == ROCSYS_PY_OK ? "frames" : "native frames only",
                (unsigned long long)s->python_unreadable);
    if (model_hsa_table_text(m, hsa, sizeof(hsa))) { /* the layout the collector read */
        tui_sanitize(notice, sizeof(notice), hsa);
        fprintf(out, "hsa table: %s\n", notice);
    }
    if (s->notice[0]) {
        tui_sanitize(notice, sizeof(notice), s->notice);
        fprintf(out, "notice: %s\n", notice);
    }
    if (s->procs_unannounced)
        fprintf(out,
                "lost: %llu processes sent no records (every collector ring was in use): their "
                "%llu samples are [unknown]\n",
                (unsigned long long)s->procs_unannounced,
                (unsigned long long)s->samples_unannounced);
    if (s->symbols_status[0]) {
        tui_sanitize(notice, sizeof(notice), s->symbols_status);
        fprintf(out, "symbols: %s\n", notice);
    }
    for (int v = 0; v < tui_view_count; v++)
        if (!s->attach_gpu || v == tui_view_find("GPU")) /* --attach-gpu: no profile */
            tui_views[v]->batch(out, m, max_rows);
    fputc('\n', out);
    fflush(out);
}
