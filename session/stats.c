/* The session facts the views and the recording show at each refresh: samples dropped, the
 * collector's cost per sample, the front end's CPU use, the symbols still loading, and the
 * notice (what keeps samples from being taken, or what is not shown). */
#define _GNU_SOURCE
#include "session/session_internal.h"

#include <string.h>
#include <time.h>

#include "model/model.h"
#include "record/record.h"

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
void session_update_stats(struct session *s)
{
    struct model_session *ms = model_session(s->m);
    uint64_t dropped, cost, cost_n, dropped_events;
    char file[96];
    uint64_t big = 0;
    const struct model_process *bare; /* the first process without the collector */
    int nbare = model_proc_no_collector_count(s->m, &bare);
    int loading = symbolizer_loading(model_symbolizer(s->m), file, sizeof(file));

    if (loading > 1)
        snprintf(ms->symbols_status, sizeof(ms->symbols_status),
                 "loading %s (and %d more files): their frames wait", file, loading - 1);
    else if (loading)
        snprintf(ms->symbols_status, sizeof(ms->symbols_status), "loading %s: its frames wait",
                 file);
    else if (symbolizer_names_only(model_symbolizer(s->m), file, sizeof(file), &big) > 0)
        snprintf(ms->symbols_status, sizeof(ms->symbols_status),
                 "%.60s: debug info of %llu MiB inflated: names only (no lines, inlines)", file,
                 (unsigned long long)(big >> 20));
    else
        ms->symbols_status[0] = '\0';

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
        if (s->perf) /* (the signal engine samples only threads that have a ring) */
            model_count_unannounced(s->m);
    }
    uint64_t perf_samples, perf_lost;
    session_perf_counts(s->perf, &perf_samples, &perf_lost, &ms->unwind_us_mean);
    if (s->perf) {
        uint64_t whole, cut;
        session_perf_stack_counts(s->perf, &ms->perf_stack_bytes, &whole, &ms->samples_joined,
                                  &cut);
    }
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
    if (s->rec_failed[0] || record_set_check(s->rec, s->rec_failed, sizeof(s->rec_failed)))
        snprintf(ms->notice, sizeof(ms->notice),
                 "RECORDING STOPPED: %.180s: what was written so far is kept; exit status 74",
                 s->rec_failed);
    else if (s->tr.hdr && s->target_done && atomic_load(&s->tr.hdr->next_instance) <= 1 &&
             ms->samples == 0)
        snprintf(ms->notice, sizeof(ms->notice),
                 "the collector never started in the target: LD_PRELOAD was ignored or "
                 "removed (no samples)");
    else if (ms->threads_blocking && !(ms->engine && strcmp(ms->engine, "perf") == 0))
        snprintf(ms->notice, sizeof(ms->notice),
                 "%u thread%s block%s the sampling signal (%d): not sampled", ms->threads_blocking,
                 ms->threads_blocking == 1 ? "" : "s", ms->threads_blocking == 1 ? "s" : "",
                 ms->sample_signal);
    else if (nbare > 0) {
        const char *slash = bare->exe ? strrchr(bare->exe, '/') : NULL;
        snprintf(ms->notice, sizeof(ms->notice),
                 "%d process%s without the collector: pid %u %.40s: %.110s", nbare,
                 nbare == 1 ? "" : "es", (unsigned)bare->pid, slash ? slash + 1 : bare->exe,
                 bare->no_collector);
    } else if (s->attached && s->m && model_python_notice(s->m, ms->notice, sizeof(ms->notice))) {
        /* Python frames that cannot be read from outside: why, before the rest */
    } else if (s->attached)
        snprintf(ms->notice, sizeof(ms->notice),
                 "attached: HIP API, GPU kernels, user regions and output need the injected "
                 "collector (start the program under rocsys-top): not shown");
    else if (s->o->wall && ms->engine && strcmp(ms->engine, "signal") == 0)
        snprintf(ms->notice, sizeof(ms->notice),
                 "wall mode with in-target signals: waits may end early (EINTR)");
    else if (!model_hsa_notice(s->m, ms->notice, sizeof(ms->notice)) &&
             !model_python_notice(s->m, ms->notice, sizeof(ms->notice)) &&
             !model_omp_notice(s->m, ms->notice, sizeof(ms->notice)))
        ms->notice[0] = '\0';
}
