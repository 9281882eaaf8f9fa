/* rocsys-top --replay DIR: a recording back in the TUI. The trace (trace.pftrace, read and
 * checked by record/perfetto_read) becomes the same model the live session feeds: processes,
 * threads and their names, symbolized samples; session.json gives the command line, sampling
 * facts and how the run ended; output.log the Output view. The user picks the part of the run
 * whose samples are counted (whole run, or a window moved along it: keys w [ ] { }, or
 * --range START:END in seconds from the start), so one phase can be looked at on its own. */
#define _GNU_SOURCE /* sigabbrev_np */
#include "inject.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "record/perfetto_read.h"
#include "tui/tui.h"

struct replay {
    struct model *m;
    struct perfetto_summary trace;
    char *json; /* session.json, "" if missing */
};

/* The whole file at path, NUL-terminated (NULL if it cannot be read). */
static char *slurp(const char *path, size_t *len)
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
static const char *json_string(const char *p, char *out, size_t cap)
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
static const char *json_find(const char *json, const char *key)
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
static void json_get_string(const char *json, const char *key, char *out, size_t cap)
{
    const char *p = json_find(json, key);

    out[0] = '\0';
    if (p && *p == '"')
        json_string(p + 1, out, cap);
}

/* A number of session.json, or dflt. */
static double json_get_number(const char *json, const char *key, double dflt)
{
    const char *p = json_find(json, key);
    char *end;
    double v;

    if (!p)
        return dflt;
    v = strtod(p, &end);
    return end == p ? dflt : v;
}

/* The recorded command line (session.json "command" array) joined with spaces. */
static void json_get_command(const char *json, char *out, size_t cap)
{
    const char *p = json_find(json, "command");
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
        p = json_string(p + 1, word, sizeof(word));
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

/* The per-process status texts of session.json's "processes" list, applied to the model. */
static void end_processes(struct replay *r, uint64_t t)
{
    const char *p = json_find(r->json, "processes");
    char status[128];

    while (p && (p = strstr(p, "{\"pid\": ")) != NULL) {
        uint32_t pid = (uint32_t)strtoul(p + 8, NULL, 10);
        const char *st = strstr(p, "\"status\": \"");
        const char *close = strchr(p, '}');
        if (!close)
            break;
        if (st && st < close) {
            json_string(st + 11, status, sizeof(status));
            end_process(r->m, pid, status, t);
        }
        p = close;
    }
    for (int i = 0; i < model_process_count(r->m); i++) {
        const struct model_process *pr = model_process_at(r->m, i);
        if (pr->state == MODEL_PROC_RUNNING)
            model_proc_end(r->m, pr->pid, MODEL_PROC_EXITED, -1, t);
    }
}

/* Count the samples inside the model's range (the whole run or the user's window). */
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

/* Fill the model from the trace, session.json and output.log. */
static void load_model(struct replay *r, const char *dir)
{
    struct model_session *s = model_session(r->m);
    uint64_t t0 = UINT64_MAX, t1 = 0;
    char path[4096], text[256];
    uint32_t root;
    size_t len = 0;
    char *out;

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
    if (t0 == UINT64_MAX)
        t0 = t1 = 1;
    root = (uint32_t)json_get_number(r->json, "pid", 0);
    model_set_root_pid(r->m, root);
    for (size_t i = 0; i < r->trace.nprocesses; i++)
        model_proc_start(r->m, r->trace.processes[i].pid, 0, r->trace.processes[i].name,
                         r->trace.processes[i].name, t0);
    for (size_t i = 0; i < r->trace.nthreads; i++)
        model_thread_start(r->m, r->trace.threads[i].pid, r->trace.threads[i].tid,
                           r->trace.threads[i].name, t0);
    json_get_command(r->json, s->target, sizeof(s->target));
    if (!s->target[0])
        snprintf(s->target, sizeof(s->target), "%s", dir);
    json_get_string(r->json, "mode", text, sizeof(text));
    s->mode = strcmp(text, "wall") == 0 ? "wall" : "cpu";
    s->freq_hz = (int)json_get_number(r->json, "freq_hz", 0);
    s->dropped = (uint64_t)json_get_number(r->json, "dropped", 0);
    s->start_ns = t0;
    s->end_ns = t1 + 1;
    s->target_done = 1;
    s->exit_status = (int)json_get_number(r->json, "exit_status", 0);
    json_get_string(r->json, "status", text, sizeof(text));
    snprintf(s->status_text, sizeof(s->status_text), "replay: %.110s",
             text[0] ? text : "status unknown");
    end_processes(r, s->end_ns);
    s->replay = 1;
    s->range_start_ns = s->start_ns;
    s->range_end_ns = s->end_ns;
    snprintf(path, sizeof(path), "%s/output.log", dir);
    out = slurp(path, &len);
    if (out) {
        model_output_append(r->m, 1, out, len);
        model_output_flush(r->m);
        if (strlen(path) < sizeof(s->output_log))
            memcpy(s->output_log, path, strlen(path) + 1);
        free(out);
    }
    if (r->trace.truncated)
        snprintf(s->notice, sizeof(s->notice),
                 "the trace ends inside a packet (the run was killed): showing what was written");
}

/* The interactive loop: keys until quit; recount when the user moves the range. */
static int run_tui(struct replay *r, const struct inject_options *o)
{
    struct tui_options to = {.color = o->color, .delay_tenths = o->delay_tenths};
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

int inject_replay(const struct inject_options *o)
{
    struct replay r = {0};
    char path[4096], err[512] = "";
    struct stat st;
    int rc = 1;

    if (stat(o->replay_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "rocsys-top: --replay: %s is not a directory\n", o->replay_dir);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/trace.pftrace", o->replay_dir);
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "rocsys-top: --replay: no readable trace.pftrace in %s (not a recording)\n",
                o->replay_dir);
        return 1;
    }
    if (perfetto_read_file(path, &r.trace, err, sizeof(err)) != 0 && r.trace.packets == 0) {
        fprintf(stderr, "rocsys-top: --replay: %s: %s\n", path, err[0] ? err : "unreadable");
        goto cleanup;
    }
    snprintf(path, sizeof(path), "%s/session.json", o->replay_dir);
    r.json = slurp(path, NULL);
    if (!r.json)
        r.json = xstrdup("");
    r.m = model_new();
    load_model(&r, o->replay_dir);
    if (err[0] && !model_session(r.m)->notice[0])
        snprintf(model_session(r.m)->notice, sizeof(model_session(r.m)->notice),
                 "the trace has problems: %.200s", err);
    if (!r.json[0] && !model_session(r.m)->notice[0])
        snprintf(model_session(r.m)->notice, sizeof(model_session(r.m)->notice),
                 "no session.json: the recording is incomplete");
    if (o->range && apply_range(model_session(r.m), o->range, err, sizeof(err)) != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        goto cleanup;
    }
    recount(&r);
    if (o->batch || !isatty(STDOUT_FILENO)) {
        tui_batch_frame(stdout, r.m, 1, o->max_rows);
        rc = 0;
    } else {
        rc = run_tui(&r, o);
    }
cleanup:
    model_free(r.m);
    perfetto_read_free(&r.trace);
    free(r.json);
    return rc;
}
