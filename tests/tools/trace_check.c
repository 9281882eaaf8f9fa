/* rocsys-trace-check FILE: read a trace.pftrace with the project's reader (record/perfetto_read)
 * and check its meaning; print its threads, counter and named tracks, slices and the self share
 * of each function, the samples' first and last time (sample_span) and each "CPU %" value with
 * the samples in its interval (cpu_interval), for the end-to-end tests.
 * Exit 0 when every check passes, 1 otherwise (the first problem on stderr). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/perfetto_read.h"

/* For a process's "CPU %" counter track: each value with the interval it covers (since the
 * track's previous value; the first covers an interval the trace does not give) and the
 * process's samples in that interval: "cpu_interval PID T0_NS T1_NS VALUE SAMPLES". */
static void print_cpu_intervals(const struct perfetto_summary *s, size_t track)
{
    uint64_t prev_ns = 0;
    int have_prev = 0;

    if (!s->tracks[track].counter || strcmp(s->tracks[track].name, "CPU %") != 0)
        return;
    for (size_t j = 0; j < s->ncounters; j++) { /* (in the order written: by time) */
        const struct perfetto_read_counter *c = &s->counters[j];
        if (c->track != track)
            continue;
        if (have_prev) {
            uint64_t n = 0;
            for (size_t k = 0; k < s->nsamples; k++)
                if (s->samples[k].pid == s->tracks[track].pid && s->samples[k].mono_ns > prev_ns &&
                    s->samples[k].mono_ns <= c->mono_ns)
                    n++;
            printf("cpu_interval %u %llu %llu %g %llu\n", s->tracks[track].pid,
                   (unsigned long long)prev_ns, (unsigned long long)c->mono_ns, c->value,
                   (unsigned long long)n);
        }
        prev_ns = c->mono_ns;
        have_prev = 1;
    }
}

int main(int argc, char **argv)
{
    struct perfetto_summary s;
    struct perfetto_read_count *counts = NULL;
    char err[512] = "";
    int rc;

    if (argc != 2) {
        fprintf(stderr, "usage: rocsys-trace-check FILE\n");
        return 2;
    }
    rc = perfetto_read_file(argv[1], &s, err, sizeof(err));
    if (rc != 0)
        fprintf(stderr, "rocsys-trace-check: %s\n", err);
    printf("packets %llu sequences %llu samples %zu truncated %d violations %llu\n",
           (unsigned long long)s.packets, (unsigned long long)s.sequences, s.nsamples, s.truncated,
           (unsigned long long)s.violations);
    for (size_t i = 0; i < s.nthreads; i++)
        printf("thread %u %u %s %llu\n", s.threads[i].pid, s.threads[i].tid, s.threads[i].name,
               (unsigned long long)s.threads[i].samples);
    for (size_t i = 0; i < s.ntracks; i++) { /* counter and named tracks, with their values */
        size_t nv = 0;
        double lo = 0, hi = 0;
        for (size_t j = 0; j < s.ncounters; j++) {
            if (s.counters[j].track != i)
                continue;
            double v = s.counters[j].value;
            lo = nv == 0 || v < lo ? v : lo;
            hi = nv == 0 || v > hi ? v : hi;
            nv++;
        }
        printf("track %u %s \"%s\" unit \"%s\" values %zu min %g max %g\n", s.tracks[i].pid,
               s.tracks[i].counter ? "counter" : "slices", s.tracks[i].name, s.tracks[i].unit, nv,
               lo, hi);
    }
    for (size_t i = 0; i < s.ntracks; i++) /* each "CPU %" value against the samples it covers */
        print_cpu_intervals(&s, i);
    for (size_t i = 0; i < s.nslices; i++) {
        const struct perfetto_read_slice *sl = &s.slices[i];
        printf("slice %u %u %s \"%s\" \"%s\" %llu ns%s%s\n", sl->pid, sl->tid,
               sl->track >= 0 ? s.tracks[sl->track].name : "thread", sl->category, sl->name,
               (unsigned long long)(sl->end_ns - sl->start_ns), sl->flow_out ? " flow-out" : "",
               sl->flow_in ? " flow-in" : "");
    }
    if (s.nsamples) { /* the samples' span, CLOCK_MONOTONIC ns (rolling traces: what is kept) */
        uint64_t lo = s.samples[0].mono_ns, hi = lo;
        for (size_t i = 1; i < s.nsamples; i++) {
            lo = s.samples[i].mono_ns < lo ? s.samples[i].mono_ns : lo;
            hi = s.samples[i].mono_ns > hi ? s.samples[i].mono_ns : hi;
        }
        printf("sample_span %llu %llu\n", (unsigned long long)lo, (unsigned long long)hi);
    }
    size_t n = perfetto_read_self_counts(&s, 0, &counts);
    for (size_t i = 0; i < n; i++)
        printf("self %s %.1f\n", counts[i].function,
               s.nsamples ? 100.0 * (double)counts[i].self / (double)s.nsamples : 0.0);
    free(counts);
    perfetto_read_free(&s);
    return rc == 0 ? 0 : 1;
}
