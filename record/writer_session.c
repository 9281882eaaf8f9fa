/* Writer "session" -> session.json: what was recorded and how the session ended.
 *
 * File format: one JSON object: tool, version, protocol, command (argv array), host, pid
 * (the launched target), processes [{pid, ppid, exe, status}], start_time / end_time (UTC,
 * ISO 8601), duration_s, exit_status (the target's: code, or 128+signal), status (text),
 * ended_by (why the session ended), sampling {mode, freq_hz, timer}, samples, dropped (samples
 * and events), dropped_events (HIP calls, dispatches, copies, regions, names), unsampled_threads,
 * threads, gpus [{index, pci, name}] (the GPUs monitored; empty when none could be read, gpu_status
 * then says why), trace_keep (--keep only: keep, the value given; first_kept_s, the first kept
 * packet's time in seconds from the start, and first_kept_mono_ns, on CLOCK_MONOTONIC;
 * chunks_dropped and bytes_dropped from the trace's front; trace_bytes kept; first_chunk and
 * chunk_bytes, the number of its first chunk and the sizes of its chunks, in order), files (every
 * file of the recording). Written last, when the session ends; its presence marks a complete
 * recording. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/ostream.h"
#include "collector/protocol.h"
#include "gpu/gpu.h"
#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
    char *path;
    time_t start;
    uint64_t start_ns; /* CLOCK_MONOTONIC at open, for duration_s */
};

/* A JSON string literal for s (quotes, backslashes and control characters escaped). */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* The GPUs monitored during the session, and why there are none. */
static void json_gpus(FILE *f, struct gpu_monitor *g)
{
    struct gpu_status *st;

    fprintf(f, "\n  \"gpus\": [");
    if (!g) {
        fprintf(f, "],\n  \"gpu_status\": \"off\"");
        return;
    }
    st = xmalloc(sizeof(*st));
    gpu_monitor_status(g, st);
    for (int d = 0; d < st->count; d++) {
        fprintf(f, "%s\n    {\"index\": %d, \"pci\": ", d ? "," : "", d);
        json_str(f, st->info[d].pci);
        fprintf(f, ", \"name\": ");
        json_str(f, st->info[d].name);
        fprintf(f, "}");
    }
    fprintf(f, "],\n  \"gpu_status\": ");
    json_str(f, st->state == GPU_STATE_OK ? "ok" : st->reason);
    free(st);
}

/* ISO 8601 UTC time. */
static void json_time(FILE *f, time_t t)
{
    char buf[64];
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_str(f, buf);
}

static struct record_writer *session_open(const char *path, struct model *m, char *err,
                                          size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));
    (void)m;
    /* the file is created at the end; check now that it can be */
    FILE *probe = record_fopen_err(path, err, errlen);
    if (!probe) {
        free(w);
        return NULL;
    }
    fclose(probe);
    unlink(path); /* absent until the session is complete */
    w->path = xstrdup(path);
    w->start = time(NULL);
    w->start_ns = model_clock_ns(CLOCK_MONOTONIC);
    return w;
}

static int session_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    struct model_session *s = model_session(m);
    char host[256] = "";
    char tmp[4096 + 8];
    int err = 0;

    snprintf(tmp, sizeof(tmp), "%s.tmp", w->path);
    w->f = record_fopen(tmp);
    if (!w->f) {
        err = errno;
        goto out;
    }
    gethostname(host, sizeof(host) - 1);
    FILE *f = w->f;
    fprintf(f, "{\n  \"tool\": \"rocsys-top\",\n  \"version\": ");
    json_str(f, ROCSYS_VERSION);
    fprintf(f, ",\n  \"protocol\": %d,\n  \"command\": [", ROCSYS_PROTOCOL_VERSION);
    for (int i = 0; end && i < end->argc; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, end->argv[i]);
    }
    fprintf(f, "],\n  \"host\": ");
    json_str(f, host);
    fprintf(f, ",\n  \"pid\": %d,\n  \"processes\": [", end ? end->root_pid : 0);
    for (int i = 0; i < model_process_count(m); i++) {
        const struct model_process *p = model_process_at(m, i);
        fprintf(f, "%s\n    {\"pid\": %u, \"ppid\": %u, \"exe\": ", i ? "," : "", p->pid, p->ppid);
        json_str(f, p->exe);
        fprintf(f, ", \"status\": ");
        if (p->state == MODEL_PROC_RUNNING)
            json_str(f, "running");
        else if (p->state == MODEL_PROC_KILLED)
            fprintf(f, "\"killed by signal %d\"", p->term_signal);
        else if (p->exit_code >= 0)
            fprintf(f, "\"exited with %d\"", p->exit_code);
        else
            json_str(f, "exited");
        if (p->no_collector[0]) { /* its program ran without the collector: why */
            fprintf(f, ", \"no_collector\": ");
            json_str(f, p->no_collector);
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ],\n  \"start_time\": ");
    json_time(f, w->start);
    fprintf(f, ",\n  \"end_time\": ");
    json_time(f, time(NULL));
    fprintf(f, ",\n  \"duration_s\": %.3f",
            (double)(model_clock_ns(CLOCK_MONOTONIC) - w->start_ns) / 1e9);
    fprintf(f, ",\n  \"exit_status\": %d,\n  \"status\": ", end ? end->exit_status : -1);
    json_str(f, end && end->status_text ? end->status_text : "");
    fprintf(f, ",\n  \"ended_by\": ");
    json_str(f, end && end->ended_by ? end->ended_by : "");
    fprintf(f, ",\n  \"notice\": "); /* what the header said last: why something is missing */
    json_str(f, s->notice);
    fprintf(f, ",\n  \"sampling\": {\"mode\": ");
    json_str(f, s->mode);
    fprintf(f, ", \"freq_hz\": %d, \"timer\": ", s->freq_hz);
    json_str(f, s->timer);
    fprintf(f, ", \"engine\": ");
    json_str(f, s->engine ? s->engine : "");
    fprintf(f, ", \"engine_note\": ");
    json_str(f, s->engine_why);
    fprintf(f,
            "},\n  \"samples\": %llu,\n  \"truncated_samples\": %llu,\n  \"dropped\": %llu,"
            "\n  \"dropped_events\": %llu,"
            "\n  \"unsampled_threads\": %llu,\n  \"unannounced_processes\": %llu,"
            "\n  \"unannounced_samples\": %llu,\n  \"threads\": %d,"
            "\n  \"distinct_stacks\": %llu,\n  \"call_paths\": %llu,",
            (unsigned long long)s->samples, (unsigned long long)s->samples_truncated,
            (unsigned long long)s->dropped, (unsigned long long)s->dropped_events,
            (unsigned long long)s->threads_unsampled, (unsigned long long)s->procs_unannounced,
            (unsigned long long)s->samples_unannounced, model_thread_count(m),
            (unsigned long long)model_distinct_stacks(m), (unsigned long long)model_path_count(m));
    if (s->python_status >= 0) {
        char why[300];
        fprintf(f,
                "\n  \"python\": {\"version\": \"%u.%u.%u\", \"frames\": %s, "
                "\"unreadable_stacks\": %llu, \"reader\": \"%s\"",
                s->python_version_hex >> 24, (s->python_version_hex >> 16) & 0xff,
                (s->python_version_hex >> 8) & 0xff,
                s->python_status == ROCSYS_PY_OK ? "true" : "false",
                (unsigned long long)s->python_unreadable,
                /* the perf engine reads them from outside (BPF), the signal engine inside */
                s->engine && strcmp(s->engine, "perf") == 0 ? "bpf" : "in-target");
        if (model_python_notice(m, why, sizeof(why))) { /* why not */
            fprintf(f, ", \"why\": ");
            json_str(f, why);
        }
        fprintf(f, "},");
    }
    if (s->perf_stack_bytes) /* the perf engine's stack copies */
        fprintf(f, "\n  \"perf_stack\": {\"bytes\": %u, \"joined_samples\": %llu},",
                s->perf_stack_bytes, (unsigned long long)s->samples_joined);
    char hsa[300];
    if (model_hsa_table_text(m, hsa, sizeof(hsa))) { /* what the collector read the table as */
        fprintf(f, "\n  \"hsa_table\": {\"status\": \"%s\", \"release\": ",
                s->hsa_table_status == ROCSYS_HSA_TABLE_EXACT        ? "exact"
                : s->hsa_table_status == ROCSYS_HSA_TABLE_COMPATIBLE ? "compatible"
                                                                     : "declined");
        json_str(f, s->hsa_release);
        fprintf(f, ", \"text\": ");
        json_str(f, hsa);
        fprintf(f, "},");
    }
    if (s->keep_ns || s->keep_bytes) { /* --keep: what the rolling trace kept */
        struct record_keep k = {s->keep_ns, s->keep_bytes};
        char text[32];
        record_keep_text(&k, text, sizeof(text));
        fprintf(f,
                "\n  \"trace_keep\": {\"keep\": \"%s\", \"first_kept_s\": %.3f, "
                "\"first_kept_mono_ns\": %llu, \"chunks_dropped\": %llu, \"bytes_dropped\": %llu, "
                "\"trace_bytes\": %llu, \"first_chunk\": %llu, \"chunk_bytes\": [",
                text,
                s->keep_first_ns > s->start_ns ? (double)(s->keep_first_ns - s->start_ns) / 1e9
                                               : 0.0,
                (unsigned long long)s->keep_first_ns, (unsigned long long)s->keep_chunks_dropped,
                (unsigned long long)s->keep_bytes_dropped, (unsigned long long)s->keep_trace_bytes,
                (unsigned long long)s->keep_first_chunk);
        for (uint64_t c = 0; c < s->keep_nchunks && c < 16; c++)
            fprintf(f, "%s%llu", c ? ", " : "", (unsigned long long)s->keep_chunk_bytes[c]);
        fprintf(f, "]},");
    }
    json_gpus(f, s->gpu);
    fprintf(f, ",\n  \"files\": [");
    for (int i = 0; end && end->files && end->files[i]; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, end->files[i]);
    }
    fprintf(f, "],\n  \"complete\": %s,\n  \"incomplete_files\": [",
            end && end->incomplete && end->incomplete[0] ? "false" : "true");
    for (int i = 0; end && end->incomplete && end->incomplete[i]; i++) {
        fprintf(f, "%s", i ? ", " : "");
        json_str(f, end->incomplete[i]);
    }
    fprintf(f, "]\n}\n");
    err = ostream_close(w->f);
    if (!err && rename(tmp, w->path) != 0) /* complete or absent, never half written */
        err = errno;
    if (err)
        unlink(tmp);
out:
    free(w->path);
    free(w);
    return err;
}

const struct record_writer_class record_session_json = {
    .name = "session",
    .open = session_open,
    .event = NULL,
    .close = session_close,
};
