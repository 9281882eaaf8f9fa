/* The session's recording: its directory (refused if it holds one unless --force; DIR/rank-N
 * for MPI ranks), the writers, process counters, and the headless summary at the end. */
#define _GNU_SOURCE
#include "session/session_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "record/record.h"

/* Create directory dir (0700: the recording is the user's) unless it exists; an existing one
 * must be a directory of this user (another user's could hold links planted for us). */
static int make_dir(const char *dir, char *err, size_t errlen)
{
    struct stat st;

    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot create the recording directory %.400s: %s", dir,
                 strerror(errno));
        return -1;
    }
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "the recording directory %.400s is not a directory", dir);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(err, errlen,
                 "the recording directory %.400s belongs to user %u, not to you (%u): refused", dir,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    return 0;
}

int session_record_dir_prepare(const char *dir, int force, char *err, size_t errlen)
{
    char path[4096];

    if (make_dir(dir, err, errlen) != 0)
        return -1;
    snprintf(path, sizeof(path), "%.2000s/session.json", dir);
    if (!force && access(path, F_OK) == 0) {
        snprintf(err, errlen,
                 "%.400s already holds a recording (session.json): use --force to "
                 "overwrite it, or another directory",
                 dir);
        return -1;
    }
    return 0;
}

/* Check and prepare the recording directory, then open its writers (before the target starts,
 * so that a directory that cannot be written is an error, not a lost recording). */
static int setup_recording(struct session *s, char *err, size_t errlen)
{
    const char *dir = s->o->record_dir;
    char path[4096];
    int n = 0;
    int rank = model_session(s->m)->rank;

    if (rank >= 0) { /* MPI: DIR/rank-N, no collisions between ranks */
        if (make_dir(dir, err, errlen) != 0)
            return -1;
        snprintf(s->rank_dir, sizeof(s->rank_dir), "%.1000s/rank-%d", dir, rank);
        dir = s->rank_dir;
    }
    if (session_record_dir_prepare(dir, s->o->force, err, errlen) != 0)
        return -1;
    model_session(s->m)->keep_ns = s->o->keep_ns; /* --keep: the trace writer rolls */
    model_session(s->m)->keep_bytes = s->o->keep_bytes;
    for (const struct record_file *r = record_files; r->cls; r++) {
        if (r->cls == &record_profile_coz && !s->o->causal)
            continue; /* causal profiling's experiments */
        if (r->cls == &record_output_log) {
            if (s->o->output_log)
                continue; /* --output-log names it elsewhere (opened by setup_writers) */
            snprintf(s->log_path, sizeof(s->log_path), "%s/%s", dir, r->file);
        }
        snprintf(path, sizeof(path), "%s/%s", dir, r->file);
        if (record_set_add(s->rec, r->cls, path, s->m, err, errlen) != 0)
            return -1;
        s->files[n++] = (char *)r->file;
    }
    s->files[n] = NULL;
    return 0;
}

/* Open the writers: the file that keeps the target's full output, and the recording. */
int session_setup_writers(struct session *s, char *err, size_t errlen)
{
    const char *tmp = getenv("TMPDIR");

    s->rec = record_set_new();
    if (s->o->record_dir && setup_recording(s, err, errlen) != 0)
        return -1;
    if (s->o->record_dir && !s->o->output_log) {
        snprintf(model_session(s->m)->output_log, sizeof(model_session(s->m)->output_log), "%s",
                 s->log_path);
        return 0;
    }
    if (s->o->output_log) {
        snprintf(s->log_path, sizeof(s->log_path), "%s", s->o->output_log);
    } else if (s->attached) {
        return 0; /* -p: no output to capture */
    } else {
        /* a new file of ours (O_EXCL), not a name another user could have taken first */
        snprintf(s->log_path, sizeof(s->log_path), "%s/rocsys-top-%d-XXXXXX.log",
                 tmp && *tmp ? tmp : "/tmp", (int)getpid());
        int fd = mkstemps(s->log_path, 4);
        if (fd < 0) {
            snprintf(err, errlen, "cannot create the output log %s: %s", s->log_path,
                     strerror(errno));
            return -1;
        }
        close(fd);
        s->log_is_temp = 1;
    }
    if (record_set_add(s->rec, &record_output_log, s->log_path, s->m, err, errlen) != 0)
        return -1;
    snprintf(model_session(s->m)->output_log, sizeof(model_session(s->m)->output_log), "%s",
             s->log_path);
    return 0;
}

/* Process metrics of the running processes as counter tracks of the recording. */
void session_record_process_counters(struct session *s, uint64_t t)
{
    if (!s->rec)
        return;
    for (int i = 0; i < model_process_count(s->m); i++) {
        const struct model_process *p = model_process_at(s->m, i);
        if (!p->metrics.valid || p->state != MODEL_PROC_RUNNING)
            continue;
        struct record_event ev = {.type = RECORD_EV_COUNTER,
                                  .time_ns = t,
                                  .pid = p->pid,
                                  .track = "CPU %",
                                  .unit = "%",
                                  .value = p->metrics.cpu_pct};
        if (p->metrics.cpu_pct_measured) /* the first reading covers no interval yet */
            record_set_event(s->rec, &ev);
        ev.track = "RSS";
        ev.unit = "bytes";
        ev.value = (double)p->metrics.rss_bytes;
        record_set_event(s->rec, &ev);
    }
}

/* Order hot-list entries by self count. */
static int hot_by_self(const void *a, const void *b)
{
    const struct model_hot *x = a, *y = b;
    return x->self < y->self ? 1 : x->self > y->self ? -1 : 0;
}

/* Headless recording: what happened, the top functions and where the files are (stdout). */
void session_print_summary(struct session *s)
{
    struct model_session *ms = model_session(s->m);
    struct model_filter all = {.thread = -1, .window = 0};
    struct model_hot_list *h = model_hot_build(s->m, &all);

    if (isatty(STDERR_FILENO))
        fputc('\n', stderr);
    qsort(h->items, (size_t)h->count, sizeof(*h->items), hot_by_self);
    printf("rocsys-top: %s: target %s; %llu samples, %llu dropped (%s %d Hz, timer %s)\n",
           s->rank_dir[0] ? s->rank_dir : s->o->record_dir, ms->status_text,
           (unsigned long long)ms->samples, (unsigned long long)ms->dropped, ms->mode, ms->freq_hz,
           ms->timer ? ms->timer : "?");
    if (ms->procs_unannounced)
        printf("rocsys-top: %llu processes sent no records (every collector ring was in use): "
               "their %llu samples are [unknown]\n",
               (unsigned long long)ms->procs_unannounced,
               (unsigned long long)ms->samples_unannounced);
    if (ms->keep_ns || ms->keep_bytes) { /* --keep: what the rolling trace kept */
        struct record_keep k = {ms->keep_ns, ms->keep_bytes};
        char text[32];
        record_keep_text(&k, text, sizeof(text));
        printf("rocsys-top: trace.pftrace keeps the last %s: from %.1f s on, %llu bytes (%llu "
               "chunks, %llu bytes dropped); the profiles cover the whole run\n",
               text,
               ms->keep_first_ns > ms->start_ns ? (double)(ms->keep_first_ns - ms->start_ns) / 1e9
                                                : 0.0,
               (unsigned long long)ms->keep_trace_bytes,
               (unsigned long long)ms->keep_chunks_dropped,
               (unsigned long long)ms->keep_bytes_dropped);
    }
    if (s->waits)
        printf("rocsys-top: the target waited %llu times (%.1f ms in all) for rings to drain\n",
               (unsigned long long)s->waits, (double)s->waited_ns / 1e6);
    printf("top functions (self):\n");
    for (int i = 0; i < h->count && i < 10 && h->items[i].self; i++) {
        const struct model_func *fn = model_func_at(s->m, h->items[i].func);
        printf("  %5.1f%%  %s  (%s)\n", 100.0 * (double)h->items[i].self / (double)h->total,
               fn->name, fn->module);
    }
    session_kernels_summary(stdout, s->m, 10);
    session_mpi_summary(stdout, s->m, 5);
    printf("files:");
    for (int i = 0; s->files[i]; i++)
        printf(" %s/%s", s->rank_dir[0] ? s->rank_dir : s->o->record_dir, s->files[i]);
    printf("\n");
    fflush(stdout);
    model_hot_free(h);
}
