/* Decoding a recording for --replay: session.json's fields, the trace's slices and marks as
 * model events, the GPU readings of its counter tracks, process metrics (session/replay.h). */
#define _GNU_SOURCE /* sigabbrev_np */
#include "session/replay.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/mpi.h"

/* The whole file at path, NUL-terminated (NULL if it cannot be read). */
char *replay_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t n = 0, cap = 0, k;

    if (!f)
        return NULL;
    do {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 65536;
            buf = xrealloc(buf, cap);
        }
        k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
    } while (k > 0);
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* Decode the JSON string starting at p (after its opening quote) into out; returns the
 * position after the closing quote. Escapes other than \" \\ \/ \n \t become '?'. */
const char *replay_json_string(const char *p, char *out, size_t cap)
{
    size_t n = 0;

    for (; *p && *p != '"'; p++) {
        char c = *p;
        if (c == '\\' && p[1]) {
            p++;
            c = *p == 'n' ? '\n' : *p == 't' ? '\t' : strchr("\"\\/", *p) ? *p : '?';
            if (*p == 'u')
                p += strspn(p + 1, "0123456789abcdefABCDEF") > 3 ? 4 : 0;
        }
        if (n + 1 < cap)
            out[n++] = c;
    }
    if (cap)
        out[n] = '\0';
    return *p == '"' ? p + 1 : p;
}

/* The value of key in session.json (after `"key": `), or NULL: a top-level key (written on a
 * line of its own, indented by two) before one nested anywhere. */
const char *replay_json_find(const char *json, const char *key)
{
    char pat[64];
    const char *p;

    snprintf(pat, sizeof(pat), "\n  \"%s\":", key);
    p = strstr(json, pat);
    if (!p) {
        snprintf(pat, sizeof(pat), "\"%s\":", key);
        p = strstr(json, pat);
    }
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    return p;
}

/* A string value of session.json into out ("" if absent). */
void replay_json_get_string(const char *json, const char *key, char *out, size_t cap)
{
    const char *p = replay_json_find(json, key);

    out[0] = '\0';
    if (p && *p == '"')
        replay_json_string(p + 1, out, cap);
}

/* A number of session.json in [lo, hi] (so that it converts to the field it goes to), else
 * dflt (absent, not a number, or out of range). */
double replay_json_get_number(const char *json, const char *key, double lo, double hi, double dflt)
{
    const char *p = replay_json_find(json, key);
    char *end;
    double v;

    if (!p)
        return dflt;
    v = strtod(p, &end);
    return end != p && v >= lo && v <= hi ? v : dflt;
}

/* The recorded command line (session.json "command" array) joined with spaces. */
void replay_json_get_command(const char *json, char *out, size_t cap)
{
    const char *p = replay_json_find(json, "command");
    size_t n = 0;
    char word[1024];

    out[0] = '\0';
    if (!p || *p != '[')
        return;
    for (p++; *p && *p != ']';) {
        if (*p != '"') {
            p++;
            continue;
        }
        p = replay_json_string(p + 1, word, sizeof(word));
        n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s", n ? " " : "", word);
        if (n >= cap)
            break;
    }
}

/* How a process ended, from its status text ("exited with 3", "killed by SIGSEGV ..."). */
static void end_process(struct model *m, uint32_t pid, const char *status, uint64_t t)
{
    int code;
    char sig[32];

    if (sscanf(status, "exited with %d", &code) == 1) {
        model_proc_end(m, pid, MODEL_PROC_EXITED, code, t);
        return;
    }
    if (sscanf(status, "killed by SIG%31[A-Z0-9+-]", sig) == 1) {
        for (int s = 1; s < NSIG; s++) {
            const char *abbrev = sigabbrev_np(s);
            if (abbrev && strcmp(abbrev, sig) == 0) {
                model_proc_end(m, pid, MODEL_PROC_KILLED, s, t);
                return;
            }
        }
    }
    model_proc_end(m, pid, MODEL_PROC_EXITED, -1, t);
}

/* The per-process status texts (and reasons for no collector) of session.json's "processes"
 * list, applied to the model. */
void replay_end_processes(struct replay *r, uint64_t t)
{
    const char *p = replay_json_find(r->json, "processes");
    char status[128];

    while (p && (p = strstr(p, "{\"pid\": ")) != NULL) {
        uint32_t pid = (uint32_t)strtoul(p + 8, NULL, 10);
        const char *st = strstr(p, "\"status\": \"");
        const char *close = strchr(p, '}');
        if (!close)
            break;
        const char *bare = strstr(p, "\"no_collector\": \"");
        pid = r->pid_of ? r->pid_of(r->pid_ctx, pid) : pid;
        if (st && st < close) {
            replay_json_string(st + 11, status, sizeof(status));
            end_process(r->m, pid, status, t);
        }
        if (bare && bare < close) { /* its program ran without the collector: why */
            replay_json_string(bare + 17, status, sizeof(status));
            model_proc_set_no_collector(r->m, pid, status);
        }
        p = close;
    }
    for (size_t i = 0; i < r->trace.nprocesses; i++) { /* this recording's, no others' */
        const struct model_process *pr = model_process_find(r->m, r->trace.processes[i].pid);
        if (pr && pr->state == MODEL_PROC_RUNNING)
            model_proc_end(r->m, pr->pid, MODEL_PROC_EXITED, -1, t);
    }
}

/* Feed one decoded slice or mark to the model, as the live session would have. */
void replay_feed_event(struct model *m, const struct replay_event *e)
{
    uint16_t block16[3];

    switch (e->kind) {
    case RK_DISPATCH:
        for (int i = 0; i < 3; i++)
            block16[i] = (uint16_t)e->block[i];
        model_gpu_dispatch(m, e->pid, e->agent, e->queue_id, e->name_id, e->start_ns, e->end_ns, 0,
                           e->grid, block16);
        model_launch_dispatch(m, e->pid, e->flow, e->end_ns - e->start_ns);
        break;
    case RK_HIP: {
        struct model_hip_call c = {.pid = e->pid,
                                   .tid = e->tid,
                                   .api = e->api,
                                   .result = e->result,
                                   .start_ns = e->start_ns,
                                   .end_ns = e->end_ns,
                                   .name_id = e->name_id,
                                   .bytes = e->bytes,
                                   .copy_kind = e->copy_kind,
                                   .stack_key = e->launch_path, /* the path is its own key */
                                   .wait_cpu_ns = e->wait_cpu_ns,
                                   .correlation = e->flow};
        memcpy(c.grid, e->grid, sizeof(c.grid));
        memcpy(c.block, e->block, sizeof(c.block));
        model_launch_stack_set_path(m, e->pid, e->launch_path, e->launch_path);
        model_hip_call(m, &c);
        break;
    }
    case RK_COPY:
        model_gpu_copy(m, e->pid, e->bytes, e->start_ns, e->end_ns, 0);
        break;
    case RK_REGION: {
        struct model_region_span sp = {.pid = e->pid,
                                       .tid = e->tid,
                                       .name = e->name,
                                       .begin_ns = e->start_ns,
                                       .end_ns = e->end_ns,
                                       .closed_at_exit = e->closed_at_exit};
        model_region_completed(m, &sp);
        break;
    }
    case RK_MARK:
        model_region_mark(m);
        break;
    case RK_MPI: {
        struct model_mpi_input c = {.pid = e->pid,
                                    .tid = e->tid,
                                    .call = e->api,
                                    .result = e->result,
                                    .start_ns = e->start_ns,
                                    .end_ns = e->end_ns,
                                    .bytes = e->bytes,
                                    .peer = e->peer,
                                    .comm_size = e->comm_size,
                                    .stack_key = e->launch_path}; /* the path is its own key */
        model_launch_stack_set_path(m, e->pid, e->launch_path, e->launch_path);
        model_mpi_call(m, &c);
        break;
    }
    }
}

/* A counter's reading as a byte count: 0 for NaN or below, the largest for too large. */
static uint64_t bytes_of(double v)
{
    return v >= 1.8e19 ? UINT64_MAX : v > 0 ? (uint64_t)v : 0;
}

/* Each process's CPU % (mean) and RSS (last, largest) from its "CPU %" and "RSS" counter
 * tracks, over the model's range: one pass over the counters. */
void replay_recount_process_metrics(struct replay *r)
{
    struct model_session *s = model_session(r->m);
    struct acc {
        double cpu_sum, rss, peak;
        uint64_t ncpu, nrss, rss_at;
    } *acc = xcalloc(r->trace.nprocesses, sizeof(*acc));
    /* per track: 1 + the index of its process, negative for "RSS", 0 for other tracks */
    long *owner = xcalloc(r->trace.ntracks, sizeof(*owner));

    for (size_t t = 0; t < r->trace.ntracks; t++) {
        const struct perfetto_read_track *tr = &r->trace.tracks[t];
        int cpu = strcmp(tr->name, "CPU %") == 0, rss = strcmp(tr->name, "RSS") == 0;
        for (size_t p = 0; (cpu || rss) && p < r->trace.nprocesses; p++)
            if (tr->pid && tr->pid == r->trace.processes[p].pid)
                owner[t] = cpu ? (long)p + 1 : -((long)p + 1);
    }
    for (size_t i = 0; i < r->trace.ncounters; i++) {
        const struct perfetto_read_counter *c = &r->trace.counters[i];
        long o = owner[c->track];
        if (!o || c->mono_ns < s->range_start_ns || c->mono_ns > s->range_end_ns)
            continue;
        struct acc *a = &acc[(o > 0 ? o : -o) - 1];
        if (o > 0) {
            a->cpu_sum += c->value;
            a->ncpu++;
        } else {
            if (!a->nrss++ || c->mono_ns >= a->rss_at) {
                a->rss = c->value;
                a->rss_at = c->mono_ns;
            }
            a->peak = c->value > a->peak ? c->value : a->peak;
        }
    }
    for (size_t p = 0; p < r->trace.nprocesses; p++)
        if (acc[p].ncpu || acc[p].nrss)
            model_proc_set_recorded(r->m, r->trace.processes[p].pid,
                                    acc[p].ncpu ? acc[p].cpu_sum / (double)acc[p].ncpu : NAN,
                                    bytes_of(acc[p].rss), bytes_of(acc[p].peak));
    free(owner);
    free(acc);
}

/* The value of annotation key in args ("key=value" lines), or NULL. */
static const char *arg_value(const char *args, const char *key)
{
    size_t n = strlen(key);

    for (const char *p = args; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
        if (strncmp(p, key, n) == 0 && p[n] == '=')
            return p + n + 1;
    return NULL;
}

/* A number annotation (dflt when absent or not a number). */
static long long arg_number(const char *args, const char *key, long long dflt)
{
    const char *v = arg_value(args, key);
    char *end;
    long long x;

    if (!v)
        return dflt;
    x = strtoll(v, &end, 10);
    return end == v ? dflt : x;
}

/* A "x,y,z" annotation into d (zeros when absent). */
static void arg_dims(const char *args, const char *key, uint32_t d[3])
{
    const char *v = arg_value(args, key);
    unsigned a = 0, b = 0, c = 0;

    if (v)
        sscanf(v, "%u,%u,%u", &a, &b, &c);
    d[0] = a;
    d[1] = b;
    d[2] = c;
}

/* The id (1 + index) of kernel name text (up to its line's end), added when new. */
static uint32_t name_id(struct replay *r, const char *text)
{
    size_t len = strcspn(text, "\n");

    for (size_t i = 0; i < r->nnames; i++)
        if (strlen(r->names[i]) == len && strncmp(r->names[i], text, len) == 0)
            return (uint32_t)i + 1;
    r->names = xrealloc(r->names, (r->nnames + 1) * sizeof(*r->names));
    r->names[r->nnames] = xmalloc(len + 1);
    memcpy(r->names[r->nnames], text, len);
    r->names[r->nnames][len] = '\0';
    return (uint32_t)++r->nnames;
}

/* The call path of a launch_path annotation (functions root first, ';'-separated, up to its
 * line's end), 0 without one. */
static uint32_t launch_path_of(struct replay *r, const char *text)
{
    const char *names[MODEL_MAX_STACK];
    char buf[4096];
    uint32_t n = 0;
    size_t len;

    if (!text)
        return 0;
    len = strcspn(text, "\n");
    len = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok && n < MODEL_MAX_STACK;
         tok = strtok_r(NULL, ";", &save))
        names[n++] = tok;
    return model_names_path(r->m, names, n);
}

/* Decode slice sl into e; returns 0 when it is nothing the views count. Kernel names are
 * given to the model under their ids (HSA kernel objects for dispatches, HIP name ids for
 * launches). */
int replay_decode_slice(struct replay *r, const struct perfetto_read_slice *sl,
                        struct replay_event *e)
{
    const char *track = sl->track >= 0 ? r->trace.tracks[sl->track].name : NULL;
    const char *kernel;
    unsigned agent;
    unsigned long long queue;

    memset(e, 0, sizeof(*e));
    e->pid = sl->pid;
    e->tid = sl->tid;
    e->start_ns = sl->start_ns;
    e->end_ns = sl->end_ns >= sl->start_ns ? sl->end_ns : sl->start_ns;
    if (sl->instant) { /* user marks; the program's sampling changes are marks too */
        e->kind = RK_MARK;
        return strcmp(sl->category, "mark") == 0 && strcmp(sl->name, "sampling started") != 0 &&
               strcmp(sl->name, "sampling stopped") != 0;
    }
    if (!sl->end_ns) /* still open where a killed run's trace ends */
        return 0;
    if (strcmp(sl->category, "kernel") == 0) {
        e->kind = RK_DISPATCH;
        if (track && sscanf(track, "GPU%u queue %llu", &agent, &queue) == 2) {
            e->agent = agent;
            e->queue_id = queue;
        } else {
            e->queue_id = (uint64_t)sl->track;
        }
        e->name_id = name_id(r, sl->name);
        if (!model_kernel_object_name(r->m, e->pid, e->name_id))
            model_kernel_name(r->m, e->pid, 1, e->name_id, r->names[e->name_id - 1]);
        arg_dims(sl->args, "grid", e->grid);
        arg_dims(sl->args, "block", e->block);
        e->flow = sl->flow_in;
        return 1;
    }
    if (strcmp(sl->category, "hip") == 0) {
        e->kind = RK_HIP;
        e->api = model_hip_api_id(sl->name);
        if (e->api < 0)
            return 0;
        e->result = (int)arg_number(sl->args, "result", 0);
        e->bytes = (uint64_t)arg_number(sl->args, "bytes", 0);
        e->copy_kind = (int)arg_number(sl->args, "copy_kind", -1);
        e->wait_cpu_ns = (uint64_t)arg_number(sl->args, "wait_cpu_ns", 0);
        kernel = arg_value(sl->args, "kernel");
        if (kernel && strncmp(kernel, "?\n", 2) != 0 && strcmp(kernel, "?") != 0) {
            e->name_id = name_id(r, kernel);
            if (!model_hip_kernel_name(r->m, e->pid, e->name_id))
                model_kernel_name(r->m, e->pid, 0, e->name_id, r->names[e->name_id - 1]);
        }
        arg_dims(sl->args, "grid", e->grid);
        arg_dims(sl->args, "block", e->block);
        e->flow = sl->flow_out;
        e->launch_path = launch_path_of(r, arg_value(sl->args, "launch_path"));
        return 1;
    }
    if (strcmp(sl->category, "mpi") == 0) { /* session/mpi.c's slices */
        e->kind = RK_MPI;
        e->api = model_mpi_call_id(sl->name);
        e->result = (int)arg_number(sl->args, "result", 0);
        e->bytes = (uint64_t)arg_number(sl->args, "bytes", 0);
        e->peer = (int)arg_number(sl->args, "peer", -1);
        e->comm_size = (uint32_t)arg_number(sl->args, "comm_size", 0);
        e->launch_path = launch_path_of(r, arg_value(sl->args, "call_path"));
        return e->api > 0;
    }
    if (strcmp(sl->category, "copy") == 0) {
        e->kind = RK_COPY;
        e->bytes = (uint64_t)arg_number(sl->args, "bytes", 0);
        return 1;
    }
    if (strcmp(sl->category, "region") == 0) {
        e->kind = RK_REGION;
        e->name = sl->name;
        if (track) /* a start/stop range, on its process's track */
            e->tid = (uint32_t)arg_number(sl->args, "start_tid", sl->pid);
        e->closed_at_exit = arg_number(sl->args, "closed_at_exit", 0) != 0;
        return 1;
    }
    return 0;
}

/* The trace's slices and marks as events for the model. */
void replay_load_events(struct replay *r)
{
    r->events = xcalloc(r->trace.nslices ? r->trace.nslices : 1, sizeof(*r->events));
    for (size_t i = 0; i < r->trace.nslices; i++)
        if (replay_decode_slice(r, &r->trace.slices[i], &r->events[r->nevents]))
            r->nevents++;
}

/* The GPUs' static info from session.json's "gpus" list into info; returns their number.
 * Entries are read in the order the writer puts their keys: {"index": I, "pci": "...", "name":
 * "..."} (names may hold brackets and braces). */
static int replay_json_get_gpus(const char *json, struct gpu_static *info)
{
    const char *p = replay_json_find(json, "gpus");
    int n = 0;
    char *end;

    if (!p || *p != '[')
        return 0;
    for (p++;;) {
        p += strspn(p, " ,\n");
        if (strncmp(p, "{\"index\": ", 10) != 0)
            break;
        long idx = strtol(p + 10, &end, 10);
        if (end == p + 10 || idx < 0 || idx >= GPU_MAX_DEVICES ||
            strncmp(end, ", \"pci\": \"", 10) != 0)
            break;
        p = replay_json_string(end + 10, info[idx].pci, sizeof(info[idx].pci));
        if (strncmp(p, ", \"name\": \"", 11) != 0)
            break;
        p = replay_json_string(p + 11, info[idx].name, sizeof(info[idx].name));
        if (*p != '}')
            break;
        p++;
        n = (int)idx + 1 > n ? (int)idx + 1 : n;
    }
    return n;
}

/* Order of readings: by device, then time. */
static int reading_cmp(const void *a, const void *b)
{
    const struct replay_reading *x = a, *y = b;

    if (x->dev != y->dev)
        return x->dev - y->dev;
    return (x->s.time_ns > y->s.time_ns) - (x->s.time_ns < y->s.time_ns);
}

/* The GPU readings from the trace's machine-wide "GPU<i> <metric>" counter tracks (the
 * metrics of one reading share its time), and a GPU monitor to show them when there are any
 * or session.json lists GPUs. */
void replay_load_gpu(struct replay *r)
{
    struct gpu_static info[GPU_MAX_DEVICES] = {0};
    int ndev = replay_json_get_gpus(r->json, info), per_dev = 0, run = 0, ngaps = 0;
    size_t open_at[GPU_MAX_DEVICES]; /* 1 + index of each device's latest reading, 0: none */
    uint64_t gaps[64];
    size_t cap = 0;

    memset(open_at, 0, sizeof(open_at));

    for (size_t i = 0; i < r->trace.ncounters; i++) {
        const struct perfetto_read_counter *c = &r->trace.counters[i];
        const struct perfetto_read_track *t = &r->trace.tracks[c->track];
        int dev, pos = 0, metric;
        if (t->pid != 0 || sscanf(t->name, "GPU%d %n", &dev, &pos) != 1 || pos == 0 || dev < 0 ||
            dev >= GPU_MAX_DEVICES || (metric = gpu_metric_by_track(t->name + pos)) < 0)
            continue;
        struct replay_reading *g = open_at[dev] ? &r->readings[open_at[dev] - 1] : NULL;
        if (!g || g->s.time_ns != c->mono_ns) { /* a new reading of dev */
            if (r->nreadings == cap) {
                cap = cap ? cap * 2 : 256;
                r->readings = xrealloc(r->readings, cap * sizeof(*r->readings));
            }
            g = &r->readings[r->nreadings++];
            memset(g, 0, sizeof(*g));
            g->dev = dev;
            g->s.time_ns = c->mono_ns;
            open_at[dev] = r->nreadings;
        }
        g->s.v[metric] = c->value;
        g->s.valid |= 1u << metric;
        ndev = dev + 1 > ndev ? dev + 1 : ndev;
    }
    if (r->nreadings > 1)
        qsort(r->readings, r->nreadings, sizeof(*r->readings), reading_cmp);
    for (size_t i = 0; i < r->nreadings; i++) { /* readings per device; gaps of the first */
        run = i && r->readings[i - 1].dev == r->readings[i].dev ? run + 1 : 1;
        per_dev = run > per_dev ? run : per_dev;
        if (i && run > 1 && r->readings[i].dev == r->readings[0].dev && ngaps < 64)
            gaps[ngaps++] = r->readings[i].s.time_ns - r->readings[i - 1].s.time_ns;
    }
    if (ndev == 0)
        return;
    for (int i = 1; i < ngaps; i++) /* the median gap is the sampling interval */
        for (int k = i; k > 0 && gaps[k - 1] > gaps[k]; k--) {
            uint64_t x = gaps[k];
            gaps[k] = gaps[k - 1];
            gaps[k - 1] = x;
        }
    model_session(r->m)->gpu =
        gpu_monitor_replay(ndev, info, ngaps ? (uint32_t)((gaps[ngaps / 2] + 500000) / 1000000) : 0,
                           per_dev > 120 ? per_dev : 120);
}
