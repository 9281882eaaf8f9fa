/* rocsys-top --replay DIR: a recording back in the TUI. The trace (trace.pftrace, read and
 * checked by record/perfetto_read) becomes the same model the live session feeds: processes,
 * threads and their names, symbolized samples, GPU kernel dispatches, HIP API calls, copies and
 * user regions (from the trace's slices and marks), and the GPU readings (from its counter
 * tracks, fed to a GPU monitor without a backend); session.json gives the command line,
 * sampling facts, the GPUs' names and how the run ended; output.log the Output view. The user
 * picks the part of the run whose events are counted (whole run, or a window moved along it:
 * keys w [ ] { }, or --range START:END in seconds from the start), so one phase can be looked
 * at on its own. */
#define _GNU_SOURCE /* sigabbrev_np */
#include "session/session.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu/gpu.h"
#include "model/model.h"
#include "record/perfetto_read.h"
#include "session/replay.h"
#include "tui/tui.h"

/* Count the samples, slices, marks and GPU readings inside the model's range (the whole run
 * or the user's window). */
static void recount(struct replay *r)
{
    struct model_session *s = model_session(r->m);
    const char *names[1024];

    model_reset_counts(r->m);
    for (size_t i = 0; i < r->trace.nsamples; i++) {
        const struct perfetto_read_sample *sm = &r->trace.samples[i];
        const struct perfetto_read_stack *st = &r->trace.stacks[sm->stack];
        uint32_t n = st->n < 1024 ? st->n : 1024;
        if (sm->mono_ns < s->range_start_ns || sm->mono_ns > s->range_end_ns)
            continue;
        for (uint32_t k = 0; k < n; k++)
            names[k] = st->functions[k];
        model_sample_symbolized(r->m, sm->pid, sm->tid, sm->mono_ns, names, n, 1);
    }
    model_gpu_clear(r->m);
    model_regions_clear(r->m);
    for (size_t i = 0; i < r->nevents; i++) /* a slice counts when it starts in the range */
        if (r->events[i].start_ns >= s->range_start_ns && r->events[i].start_ns <= s->range_end_ns)
            replay_feed_event(r->m, &r->events[i]);
    if (s->gpu) {
        gpu_monitor_replay_clear(s->gpu);
        for (size_t i = 0; i < r->nreadings; i++) {
            const struct replay_reading *g = &r->readings[i];
            if (g->s.time_ns >= s->range_start_ns && g->s.time_ns <= s->range_end_ns)
                gpu_monitor_replay_push(s->gpu, g->dev, &g->s);
        }
    }
    replay_recount_process_metrics(r);
    s->range_changed = 0;
}

/* Parse --range "START:END" (seconds from the start; either may be empty) into the model. */
static int apply_range(struct model_session *s, const char *spec, char *err, size_t errlen)
{
    char *end;
    double a = 0, b = (double)(s->end_ns - s->start_ns) / 1e9;
    const char *colon = strchr(spec, ':');

    if (!colon)
        goto bad;
    if (colon != spec) {
        a = strtod(spec, &end);
        if (end != colon)
            goto bad;
    }
    if (colon[1]) {
        b = strtod(colon + 1, &end);
        if (*end)
            goto bad;
    }
    if (a < 0 || b <= a)
        goto bad;
    s->range_start_ns = s->start_ns + (uint64_t)(a * 1e9);
    s->range_end_ns = s->start_ns + (uint64_t)(b * 1e9);
    return 0;
bad:
    snprintf(err, errlen, "--range: '%s' is not START:END in seconds from the start (START < END)",
             spec);
    return -1;
}

/* Fill the model from the trace, session.json and output.log (its bytes, NULL if missing). */
static void load_model(struct replay *r, const char *dir, const char *out, size_t len)
{
    struct model_session *s = model_session(r->m);
    uint64_t t0 = UINT64_MAX, t1 = 0;
    char path[4096], text[256];
    uint32_t root;

    for (size_t i = 0; i < r->trace.nsamples; i++) {
        uint64_t t = r->trace.samples[i].mono_ns;
        t0 = t < t0 ? t : t0;
        t1 = t > t1 ? t : t1;
    }
    for (size_t i = 0; i < r->trace.ncounters; i++) {
        uint64_t t = r->trace.counters[i].mono_ns;
        t0 = t < t0 ? t : t0;
        t1 = t > t1 ? t : t1;
    }
    for (size_t i = 0; i < r->trace.nslices; i++) {
        const struct perfetto_read_slice *sl = &r->trace.slices[i];
        t0 = sl->start_ns < t0 ? sl->start_ns : t0;
        t1 = sl->end_ns > t1 ? sl->end_ns : sl->start_ns > t1 ? sl->start_ns : t1;
    }
    if (t0 == UINT64_MAX)
        t0 = t1 = 1;
    root = (uint32_t)replay_json_get_number(r->json, "pid", 0, UINT32_MAX, 0);
    model_set_root_pid(r->m, root);
    for (size_t i = 0; i < r->trace.nprocesses; i++)
        model_proc_start(r->m, r->trace.processes[i].pid, 0, r->trace.processes[i].name,
                         r->trace.processes[i].name, t0);
    for (size_t i = 0; i < r->trace.nthreads; i++)
        model_thread_start(r->m, r->trace.threads[i].pid, r->trace.threads[i].tid,
                           r->trace.threads[i].name, t0);
    replay_json_get_command(r->json, s->target, sizeof(s->target));
    if (!s->target[0])
        snprintf(s->target, sizeof(s->target), "%s", dir);
    replay_json_get_string(r->json, "mode", text, sizeof(text));
    s->mode = strcmp(text, "wall") == 0 ? "wall" : "cpu";
    s->freq_hz = (int)replay_json_get_number(r->json, "freq_hz", 0, INT_MAX, 0);
    s->dropped = (uint64_t)replay_json_get_number(r->json, "dropped", 0, 1e19, 0);
    s->dropped_events = (uint64_t)replay_json_get_number(r->json, "dropped_events", 0, 1e19, 0);
    s->start_ns = t0;
    s->end_ns = t1 + 1;
    s->target_done = 1;
    s->exit_status = (int)replay_json_get_number(r->json, "exit_status", INT_MIN, INT_MAX, 0);
    replay_json_get_string(r->json, "status", text, sizeof(text));
    snprintf(s->status_text, sizeof(s->status_text), "replay: %.110s",
             text[0] ? text : "status unknown");
    replay_end_processes(r, s->end_ns);
    replay_load_events(r);
    replay_load_gpu(r);
    s->replay = 1;
    s->range_start_ns = s->start_ns;
    s->range_end_ns = s->end_ns;
    snprintf(path, sizeof(path), "%s/output.log", dir);
    if (out) {
        model_output_append(r->m, 1, out, len);
        model_output_flush(r->m);
        if (strlen(path) < sizeof(s->output_log))
            memcpy(s->output_log, path, strlen(path) + 1);
    }
    /* a killed run: the trace may end inside a packet, and session.json (written last) is
     * missing; either one says so */
    if (r->trace.truncated || !r->json[0])
        snprintf(s->notice, sizeof(s->notice),
                 "%s%s%s (the run was killed): showing what was written",
                 r->trace.truncated ? "the trace ends inside a packet" : "",
                 r->trace.truncated && !r->json[0] ? " and " : "",
                 r->json[0] ? "" : "there is no session.json");
}

/* The interactive loop: keys until quit; recount when the user moves the range. */
static int run_tui(struct replay *r, const struct session_config *o)
{
    struct tui_options to = o->tui;
    to.initial_view = o->diff_dir ? tui_view_find("Diff") : 0;
    struct tui *t = tui_open(r->m, &to);
    struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};

    if (!t) {
        fprintf(stderr, "rocsys-top: cannot open the terminal (use -b for text frames)\n");
        return 1;
    }
    tui_refresh(t);
    for (;;) {
        if (poll(&p, 1, 1000) < 0 && errno != EINTR)
            break;
        if (tui_input(t))
            break;
        if (model_session(r->m)->range_changed) {
            recount(r);
            tui_refresh(t);
        }
    }
    tui_close(t);
    return 0;
}

/* The model of r from its trace (read, with err its reader's complaint or ""), its json and
 * the output log's bytes (NULL if missing), with a notice for what is incomplete. */
static void replay_build(struct replay *r, const char *dir, const char *out, size_t len,
                         const char *err)
{
    struct model_session *s;

    r->m = model_new();
    s = model_session(r->m);
    load_model(r, dir, out, len);
    if (err[0] && !s->notice[0])
        snprintf(s->notice, sizeof(s->notice), "the trace has problems: %.200s", err);
    if (!r->json[0] && !s->notice[0])
        snprintf(s->notice, sizeof(s->notice), "no session.json: the recording is incomplete");
}

/* Everything r holds. */
static void replay_free(struct replay *r)
{
    if (r->m)
        gpu_monitor_stop(model_session(r->m)->gpu);
    model_free(r->m);
    perfetto_read_free(&r->trace);
    free(r->json);
    free(r->events);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r->readings);
}

int session_replay_buffers(const uint8_t *trace, size_t trace_len, const char *json,
                           const char *output, size_t output_len, FILE *out)
{
    struct replay r = {0};
    char err[512] = "";

    if (perfetto_read_buffer(trace, trace_len, &r.trace, err, sizeof(err)) != 0 &&
        r.trace.packets == 0) {
        perfetto_read_free(&r.trace);
        return 1;
    }
    r.json = xstrdup(json ? json : "");
    replay_build(&r, "recording", output, output_len, err);
    recount(&r);
    tui_batch_frame(out, r.m, 1, 0);
    replay_free(&r);
    return 0;
}

/* lines.txt, when the recording has one: the Source view's samples per line (whole run). */
static void load_lines(struct model *m, const char *dir)
{
    char path[4096], *text, *nl;
    const char *file, *func;
    uint64_t count;
    int line;

    snprintf(path, sizeof(path), "%s/lines.txt", dir);
    text = replay_slurp(path, NULL);
    if (!text)
        return;
    model_lines_recorded(m);
    for (char *p = text; *p; p = nl + 1) {
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (model_lines_parse(p, &count, &line, &file, &func))
            model_lines_add(m, func, file, line, count);
        if (!nl)
            break;
    }
    free(text);
}

/* Read the recording in dir into r (its model built, not yet counted); opt names the option
 * that gave dir in the one-line complaint. 0, or 1 with the complaint on stderr. */
static int replay_open(struct replay *r, const char *dir, const char *opt)
{
    char path[4096], err[512] = "";
    struct stat st;
    size_t len = 0;
    char *out;

    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "rocsys-top: %s: %s is not a directory\n", opt, dir);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/trace.pftrace", dir);
    if (access(path, R_OK) != 0) /* a rolling trace (--keep) whose run could not finish */
        snprintf(path, sizeof(path), "%s/trace.chunks", dir);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "rocsys-top: %s: no readable trace.pftrace in %s (not a recording)\n", opt,
                dir);
        return 1;
    }
    if (perfetto_read_file(path, &r->trace, err, sizeof(err)) != 0 && r->trace.packets == 0) {
        fprintf(stderr, "rocsys-top: %s: %s: %s\n", opt, path, err[0] ? err : "unreadable");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/session.json", dir);
    r->json = replay_slurp(path, NULL);
    if (!r->json)
        r->json = xstrdup("");
    snprintf(path, sizeof(path), "%s/output.log", dir);
    out = replay_slurp(path, &len);
    replay_build(r, dir, out, len, err);
    load_lines(r->m, dir);
    free(out);
    return 0;
}

/* --diff: hand the OLD recording's model (counted over its whole run) to NEW's for the Diff
 * view; the header says what is compared, and the notice what makes the shares differ in
 * kind (another sampling mode) or what OLD lacks. */
static void attach_diff(struct replay *new_r, struct replay *old_r, const struct session_config *o)
{
    struct model_session *s = model_session(new_r->m), *os = model_session(old_r->m);

    recount(old_r);
    s->diff_old = old_r->m;
    s->diff_new_dir = o->replay_dir;
    s->diff_old_dir = o->diff_dir;
    snprintf(s->status_text, sizeof(s->status_text), "diff: %s vs %s", o->replay_dir, o->diff_dir);
    if (s->notice[0])
        return;
    if (strcmp(s->mode, os->mode) != 0)
        snprintf(
            s->notice, sizeof(s->notice),
            "NEW was sampled on %s time, OLD on %s time: their shares measure different things",
            s->mode, os->mode);
    else if (os->notice[0])
        snprintf(s->notice, sizeof(s->notice), "OLD: %.240s", os->notice);
}

int session_replay(const struct session_config *o)
{
    struct replay r = {0}, old = {0};
    char err[512] = "";
    int rc = 1;

    if (replay_open(&r, o->replay_dir, "--replay") != 0)
        goto cleanup;
    if (o->diff_dir && replay_open(&old, o->diff_dir, "--diff") != 0)
        goto cleanup;
    if (o->range && apply_range(model_session(r.m), o->range, err, sizeof(err)) != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        goto cleanup;
    }
    recount(&r);
    if (o->diff_dir)
        attach_diff(&r, &old, o);
    if (o->batch || !isatty(STDOUT_FILENO)) {
        tui_batch_frame(stdout, r.m, 1, o->max_rows);
        rc = 0;
    } else {
        rc = run_tui(&r, o);
    }
cleanup:
    replay_free(&r); /* NEW first: its session points to OLD's model */
    replay_free(&old);
    return rc;
}
