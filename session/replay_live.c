/* rocsys-top --replay DIR --live: follow recordings while their writers write them. DIR is a
 * recording (DIR/trace.pftrace) or an MPI job's parent directory (DIR/rank-N/, ranks found as
 * they appear); an empty DIR becomes the one or the other by what is first written into it. Each
 * trace is read as it grows (record/perfetto_read's stream reader keeps its state, a packet still
 * being written waits for the next poll) and only what is new is fed to one model shared by every
 * rank: processes (tagged with their rank and host), threads, samples, slices and marks, the
 * process counters and output; session.json, written last, says a recording ended cleanly. File
 * sizes are polled (stat), which is what works on file systems that show appends late (NFS
 * attribute caching): a recording that stops growing without a session.json is said to be stalled
 * (killed, or its node died). */
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "model/ranks.h"
#include "record/perfetto_read.h"
#include "session/replay.h"
#include "tui/tui.h"

#define LIVE_POLL_MS    500        /* how often the files are looked at */
#define LIVE_STALL_S    5          /* no growth this long, no session.json: stalled */
#define LIVE_MAX_RANKS  4096       /* rank-N directories followed, at most */
#define LIVE_READ_CHUNK 65536      /* the read buffer grows by this */
#define LIVE_PID_BASE   (1u << 30) /* renumbered pids start here (above any pid_max) */

/* A pid of one recording and the pid the model knows it by. */
struct live_pid {
    uint32_t from, to;
};

/* One recording being followed. */
struct live_rec {
    char dir[4096];
    int rank; /* -1: a single recording */
    char host[64];
    struct perfetto_stream *st;
    struct replay r; /* r.trace: a shallow copy of the stream's summary (owned by st) */
    size_t nproc, nthread, nsample, nslice, ncounter; /* of the summary, fed so far */
    uint64_t size;                                    /* bytes of the trace seen */
    uint64_t grew_ns;                                 /* when it last grew (CLOCK_MONOTONIC) */
    time_t mtime;                                     /* the trace's last modification */
    int ended;                                        /* session.json is there */
    off_t out_off;                                    /* output.log bytes fed */
    struct live_pid *pids; /* its pids that the model knows by another number, and its own */
    size_t npids;
    size_t rp_thread, rp_sample, rp_slice, rp_track; /* renumbered so far */
    size_t ngpu;                                     /* counters looked at for GPU readings */
    size_t events_cap;                               /* of r.events */
    /* a rolling recording (--keep) while it runs: its chunk files, read one after the other
     * (the chunk being read, its bytes fed); chunked: it is read that way to its end */
    int chunked;
    uint32_t chunk;
    uint64_t chunk_off;
    char err[256]; /* the reader's complaint, "" if none */
};

struct live {
    const char *dir;
    int multi; /* DIR holds rank-N directories */
    struct model *m;
    struct live_rec **recs;
    size_t nrecs;
    uint8_t *buf;
    size_t cap;
    struct live_gpus *gpus;
    struct live_pid *owners; /* pid -> 1 + index of the recording that has it */
    size_t nowners;
    uint32_t next_pid; /* renumbered pids so far */
};

/* The pid the model knows pid of recording lr by: its own, unless another recording (a rank on
 * another host) already has it; then a number of its own above LIVE_PID_BASE. */
static uint32_t map_pid(struct live *l, struct live_rec *lr, uint32_t pid)
{
    uint32_t rec = 0, to = pid;

    if (pid == 0)
        return 0;
    for (size_t i = 0; i < lr->npids; i++)
        if (lr->pids[i].from == pid)
            return lr->pids[i].to;
    for (size_t i = 0; i < l->nrecs; i++)
        if (l->recs[i] == lr)
            rec = (uint32_t)i + 1;
    for (size_t i = 0; i < l->nowners && to == pid; i++)
        if (l->owners[i].from == pid && l->owners[i].to != rec)
            to = LIVE_PID_BASE + l->next_pid++;
    if (to == pid) {
        l->owners = xrealloc(l->owners, (l->nowners + 1) * sizeof(*l->owners));
        l->owners[l->nowners++] = (struct live_pid){pid, rec};
    }
    lr->pids = xrealloc(lr->pids, (lr->npids + 1) * sizeof(*lr->pids));
    lr->pids[lr->npids++] = (struct live_pid){pid, to};
    return to;
}

/* The model's pid for pid of recording ctx (a live_rec), as session.json names it. */
static uint32_t rec_pid(void *ctx, uint32_t pid)
{
    const struct live_rec *lr = ctx;

    for (size_t i = 0; i < lr->npids; i++)
        if (lr->pids[i].from == pid)
            return lr->pids[i].to;
    return pid;
}

/* Renumber the pids of what lr's summary gained (processes are done as they are fed). */
static void renumber(struct live *l, struct live_rec *lr, struct perfetto_summary *sum)
{
    for (; lr->rp_thread < sum->nthreads; lr->rp_thread++)
        sum->threads[lr->rp_thread].pid = map_pid(l, lr, sum->threads[lr->rp_thread].pid);
    for (; lr->rp_sample < sum->nsamples; lr->rp_sample++)
        sum->samples[lr->rp_sample].pid = map_pid(l, lr, sum->samples[lr->rp_sample].pid);
    for (; lr->rp_slice < sum->nslices; lr->rp_slice++)
        sum->slices[lr->rp_slice].pid = map_pid(l, lr, sum->slices[lr->rp_slice].pid);
    for (; lr->rp_track < sum->ntracks; lr->rp_track++)
        sum->tracks[lr->rp_track].pid = map_pid(l, lr, sum->tracks[lr->rp_track].pid);
}

/* Start following the recording in dir (rank, or -1). */
static void add_rec(struct live *l, const char *dir, int rank)
{
    struct live_rec *lr = xcalloc(1, sizeof(*lr));

    snprintf(lr->dir, sizeof(lr->dir), "%s", dir);
    lr->rank = rank;
    lr->st = perfetto_stream_new();
    lr->r.m = l->m;
    lr->r.json = xstrdup("");
    lr->r.pid_of = rec_pid;
    lr->r.pid_ctx = lr;
    lr->grew_ns = model_clock_ns(CLOCK_MONOTONIC);
    l->recs = xrealloc(l->recs, (l->nrecs + 1) * sizeof(*l->recs));
    l->recs[l->nrecs++] = lr;
}

/* Look for recordings not followed yet: DIR itself, or its rank-N directories. */
static void discover(struct live *l)
{
    char path[4096 + 32];
    DIR *d;
    struct dirent *de;

    if (l->multi && l->nrecs == 0) { /* DIR was empty: a recording may have started in it */
        snprintf(path, sizeof(path), "%s/trace.pftrace", l->dir);
        if (access(path, F_OK) != 0)
            snprintf(path, sizeof(path), "%s/trace.chunks", l->dir);
        l->multi = access(path, F_OK) != 0;
    }
    if (!l->multi) {
        if (l->nrecs == 0)
            add_rec(l, l->dir, -1);
        return;
    }
    if (!(d = opendir(l->dir)))
        return;
    while ((de = readdir(d)) != NULL && l->nrecs < LIVE_MAX_RANKS) {
        int rank, known = 0;
        char tail;
        if (sscanf(de->d_name, "rank-%d%c", &rank, &tail) != 1 || rank < 0)
            continue;
        for (size_t i = 0; i < l->nrecs && !known; i++)
            known = l->recs[i]->rank == rank;
        snprintf(path, sizeof(path), "%s/%s/trace.pftrace", l->dir, de->d_name);
        if (!known && access(path, R_OK) != 0) /* (a rolling recording's chunks) */
            snprintf(path, sizeof(path), "%s/%s/trace.chunks", l->dir, de->d_name);
        if (!known && access(path, R_OK) == 0) {
            snprintf(path, sizeof(path), "%s/%s", l->dir, de->d_name);
            add_rec(l, path, rank);
        }
    }
    closedir(d);
}

/* Feed the bytes of the file at path from off on; returns how many the stream consumed (whole
 * packets), the file's size in *size. */
static long feed_from(struct live *l, struct live_rec *lr, const char *path, uint64_t off,
                      uint64_t *size)
{
    struct stat sb;
    long fed = 0;
    int fd;

    *size = 0;
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    if (fstat(fd, &sb) == 0 && (uint64_t)sb.st_size > off) {
        size_t want = (size_t)((uint64_t)sb.st_size - off);
        if (want > l->cap) {
            l->cap = (want / LIVE_READ_CHUNK + 1) * LIVE_READ_CHUNK;
            l->buf = xrealloc(l->buf, l->cap);
        }
        ssize_t n = pread(fd, l->buf, want, (off_t)off);
        long k =
            n > 0 ? perfetto_stream_feed(lr->st, l->buf, (size_t)n, lr->err, sizeof(lr->err)) : 0;
        fed = k > 0 ? k : 0;
    }
    *size = (uint64_t)sb.st_size;
    close(fd);
    return fed;
}

/* A rolling recording (--keep) while it runs: feed its chunk files in order, moving to the next
 * one once it exists (the writer closes a chunk before it starts the next). A chunk deleted
 * before it was read (the reader fell a whole --keep behind) is skipped. When the run ends
 * the chunks are gone, joined in trace.pftrace: the rest of the last chunk read is its tail
 * (session.json's trace_keep says where it starts). Returns the bytes fed. */
static long read_chunks(struct live *l, struct live_rec *lr, uint64_t now)
{
    char path[4096 + 64], next[4096 + 64];
    uint64_t size;
    long fed = 0, k;

    for (int guard = 0; guard < 1000; guard++) {
        snprintf(path, sizeof(path), "%s/trace.chunks/%06u.pftrace", lr->dir, lr->chunk);
        snprintf(next, sizeof(next), "%s/trace.chunks/%06u.pftrace", lr->dir, lr->chunk + 1);
        int more = access(next, F_OK) == 0; /* (before the read: then path is complete) */
        if (access(path, F_OK) != 0) {
            char dir[4096 + 32];
            snprintf(dir, sizeof(dir), "%s/trace.chunks", lr->dir);
            if (access(dir, F_OK) != 0)
                break; /* the run ended: the tail is read below */
            if (!more)
                return fed;                 /* not there yet */
            lr->chunk++, lr->chunk_off = 0; /* dropped before it was read */
            continue;
        }
        k = feed_from(l, lr, path, lr->chunk_off, &size);
        lr->chunk_off += (uint64_t)k;
        fed += k;
        if (!more || (lr->chunk_off < size && k > 0))
            return fed; /* (a closed chunk with a torn tail: nothing more will come of it) */
        lr->chunk++, lr->chunk_off = 0;
    }
    /* the end: trace.pftrace holds the kept chunks, session.json says their sizes: the rest
     * of the chunk being read, and every chunk after it, is the file from there on */
    char *json;
    snprintf(path, sizeof(path), "%s/session.json", lr->dir);
    if (lr->chunked == 2 || !(json = replay_slurp(path, NULL)))
        return fed;
    lr->chunked = 2; /* read to its end */
    double first = replay_json_get_number(json, "first_chunk", 0, 1e10, -1);
    const char *c = strstr(json, "\"chunk_bytes\": [");
    uint64_t off = 0, i = 0;
    int found = 0;
    for (c = c ? c + 16 : NULL; c && first >= 0 && *c && *c != ']'; i++) {
        char *end;
        if ((double)lr->chunk == first + (double)i) {
            found = 1;
            break;
        }
        off += strtoull(c, &end, 10);
        if (end == c)
            break; /* (not a number: a file that is not ours) */
        c = end + strspn(end, ", ");
    }
    free(json);
    if (!found)
        return fed; /* (the chunk was not kept: nothing of it is left to read) */
    snprintf(path, sizeof(path), "%s/trace.pftrace", lr->dir);
    fed += feed_from(l, lr, path, off + lr->chunk_off, &size);
    (void)now;
    return fed;
}

/* Read the trace's bytes after what the stream consumed; returns how many new bytes it fed. */
static long read_trace(struct live *l, struct live_rec *lr, uint64_t now)
{
    char path[4096 + 32];
    struct stat sb;
    uint64_t off = perfetto_stream_offset(lr->st);
    long fed = 0;
    int fd;

    snprintf(path, sizeof(path), "%s/trace.chunks", lr->dir);
    if (!lr->chunked && off == 0 && access(path, F_OK) == 0)
        lr->chunked = 1; /* a rolling recording that runs */
    if (lr->chunked) {
        fed = read_chunks(l, lr, now);
        if (fed > 0) {
            lr->size += (uint64_t)fed;
            lr->grew_ns = now;
            lr->mtime = time(NULL);
        }
        return fed;
    }
    snprintf(path, sizeof(path), "%s/trace.pftrace", lr->dir);
    if (stat(path, &sb) != 0 || (uint64_t)sb.st_size <= off)
        return 0;
    if ((uint64_t)sb.st_size != lr->size) {
        lr->size = (uint64_t)sb.st_size;
        lr->grew_ns = now;
        lr->mtime = sb.st_mtime;
    }
    size_t want = (size_t)((uint64_t)sb.st_size - off);
    if (want > l->cap) {
        l->cap = (want / LIVE_READ_CHUNK + 1) * LIVE_READ_CHUNK;
        l->buf = xrealloc(l->buf, l->cap);
    }
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    ssize_t n = pread(fd, l->buf, want, (off_t)off);
    close(fd);
    if (n > 0)
        fed = perfetto_stream_feed(lr->st, l->buf, (size_t)n, lr->err, sizeof(lr->err));
    return fed;
}

/* Feed output.log's new bytes to the Output view. */
static void read_output(struct live *l, struct live_rec *lr)
{
    char path[4096 + 32], buf[65536];
    ssize_t n;
    int fd;

    snprintf(path, sizeof(path), "%s/output.log", lr->dir);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return;
    while ((n = pread(fd, buf, sizeof(buf), lr->out_off)) > 0) {
        model_output_append(l->m, 1, buf, (size_t)n);
        lr->out_off += n;
    }
    close(fd);
}

/* Whether time t is inside the model's range (live: the whole run unless the user chose). */
static int in_range(const struct model_session *s, uint64_t t)
{
    return t >= s->range_start_ns && t <= s->range_end_ns;
}

/* Feed what rec's summary gained since the last step into the model. */
static void step(struct live *l, struct live_rec *lr, int recount)
{
    struct perfetto_summary *sum = perfetto_stream_summary(lr->st);
    struct model_session *s = model_session(l->m);
    const char *names[1024];
    size_t from;

    for (; lr->nproc < sum->nprocesses; lr->nproc++) {
        struct perfetto_read_process *p = &sum->processes[lr->nproc];
        uint32_t real = p->pid;
        p->pid = map_pid(l, lr, real);
        model_proc_start(l->m, p->pid, 0, p->name, p->name, s->start_ns);
        if (p->host[0] && !lr->host[0])
            snprintf(lr->host, sizeof(lr->host), "%s", p->host);
        if (lr->rank >= 0)
            model_proc_set_rank(l->m, p->pid, p->rank >= 0 ? p->rank : lr->rank, lr->host, real);
    }
    renumber(l, lr, sum);
    lr->r.trace = *sum; /* shallow: the stream owns the arrays */
    for (; lr->nthread < sum->nthreads; lr->nthread++) {
        const struct perfetto_read_thread *t = &sum->threads[lr->nthread];
        model_thread_start(l->m, t->pid, t->tid, t->name, s->start_ns);
    }
    from = recount ? 0 : lr->nsample;
    for (size_t i = from; i < sum->nsamples; i++) {
        const struct perfetto_read_sample *sm = &sum->samples[i];
        const struct perfetto_read_stack *stk = &sum->stacks[sm->stack];
        uint32_t n = stk->n < 1024 ? stk->n : 1024;
        if (sm->mono_ns > s->end_ns)
            s->end_ns = sm->mono_ns;
        if (!s->start_ns || sm->mono_ns < s->start_ns) /* (samples that waited for their */
            s->start_ns = sm->mono_ns;                 /* symbols come late) */
        if (!s->range_live && !in_range(s, sm->mono_ns))
            continue;
        for (uint32_t k = 0; k < n; k++)
            names[k] = stk->functions[k];
        model_sample_symbolized(l->m, sm->pid, sm->tid, sm->mono_ns, names, n, 1);
    }
    lr->nsample = sum->nsamples;
    for (; lr->nslice < sum->nslices; lr->nslice++) { /* new slices become events */
        struct replay_event e;
        if (!replay_decode_slice(&lr->r, &sum->slices[lr->nslice], &e))
            continue;
        xgrow(&lr->r.events, &lr->events_cap, lr->r.nevents + 1, sizeof(*lr->r.events));
        lr->r.events[lr->r.nevents++] = e;
        if (!recount && (s->range_live || in_range(s, e.start_ns)))
            replay_feed_event(l->m, &e);
    }
    for (size_t i = 0; recount && i < lr->r.nevents; i++)
        if (in_range(s, lr->r.events[i].start_ns))
            replay_feed_event(l->m, &lr->r.events[i]);
}

/* The recording's session.json, once it is there: how it ended. It is written last, so the
 * rest of the recording is read to its end first. */
static void check_end(struct live *l, struct live_rec *lr, uint64_t now)
{
    struct model_session *s = model_session(l->m);
    char path[4096 + 32], text[32];
    char *json;

    if (lr->ended)
        return;
    snprintf(path, sizeof(path), "%s/session.json", lr->dir);
    if (!(json = replay_slurp(path, NULL)))
        return;
    while (read_trace(l, lr, now) > 0) /* what was written before it */
        ;
    step(l, lr, 0);
    read_output(l, lr);
    free(lr->r.json);
    lr->r.json = json;
    lr->ended = 1;
    if (!lr->host[0]) /* a recording without processes (--attach-gpu) */
        replay_json_get_string(json, "host", lr->host, sizeof(lr->host));
    replay_end_processes(&lr->r, s->end_ns);
    replay_json_get_string(json, "mode", text, sizeof(text));
    s->mode = strcmp(text, "wall") == 0 ? "wall" : "cpu";
    if (!s->freq_hz)
        s->freq_hz = (int)replay_json_get_number(json, "freq_hz", 0, 1e6, 0);
    s->dropped += (uint64_t)replay_json_get_number(json, "dropped", 0, 1e19, 0);
}

/* The header's line: how many recordings, in which state, how far behind the writers. */
static void status_line(struct live *l, uint64_t now)
{
    struct model_session *s = model_session(l->m);
    size_t open = 0, ended = 0, stalled = 0;
    double behind = 0;
    time_t wall = time(NULL);

    for (size_t i = 0; i < l->nrecs; i++) {
        struct live_rec *lr = l->recs[i];
        if (lr->ended) {
            ended++;
            continue;
        }
        if (now - lr->grew_ns > (uint64_t)LIVE_STALL_S * 1000000000ull)
            stalled++;
        else
            open++;
        double b = lr->mtime ? difftime(wall, lr->mtime) : 0;
        behind = b > behind ? b : behind;
    }
    if (l->nrecs == 0)
        snprintf(s->notice, sizeof(s->notice), "live: waiting for a recording in %s", l->dir);
    else
        snprintf(s->notice, sizeof(s->notice),
                 "live: %zu %s: %zu being written (last write %.0f s ago), %zu ended, %zu "
                 "stalled (no growth for %d s: killed, or its node died)",
                 l->nrecs, l->multi ? "ranks" : "recording", open, behind, ended, stalled,
                 LIVE_STALL_S);
    s->target_done = open == 0 && stalled == 0 && ended == l->nrecs && l->nrecs > 0;
    snprintf(s->status_text, sizeof(s->status_text), "%s",
             s->target_done ? "live: every recording ended" : "live: following the writers");
}

/* One poll: new recordings, new bytes, new events. */
static void live_poll(struct live *l)
{
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);
    struct model_session *s = model_session(l->m);
    int recount = s->range_changed;

    discover(l);
    if (recount) {
        model_reset_counts(l->m);
        model_gpu_clear(l->m);
        model_regions_clear(l->m);
        s->range_live = 0; /* (set again below if the range reaches the end) */
    }
    for (size_t i = 0; i < l->nrecs; i++) {
        struct live_rec *lr = l->recs[i];
        read_trace(l, lr, now);
        step(l, lr, recount);
        read_output(l, lr);
        check_end(l, lr, now);
        live_gpus_feed(l->gpus, l->m, (int)i, lr->host, perfetto_stream_summary(lr->st), &lr->ngpu);
    }
    if (recount) /* the user's range: it follows the end again when it reaches it */
        s->range_live = s->range_end_ns >= s->end_ns;
    if (s->range_live || !s->range_end_ns) {
        s->range_start_ns = s->start_ns;
        s->range_end_ns = s->end_ns ? s->end_ns : s->start_ns;
        s->range_live = 1;
    }
    s->range_changed = 0;
    if (recount)
        live_gpus_recount(l->gpus, l->m);
    for (size_t i = 0; i < l->nrecs; i++) { /* CPU % and RSS over the range, as it grew */
        struct live_rec *lr = l->recs[i];
        size_t n = perfetto_stream_summary(lr->st)->ncounters;
        if (recount || s->range_live || lr->ncounter != n) {
            replay_recount_process_metrics(&lr->r);
            lr->ncounter = n;
        }
    }
    status_line(l, now);
}

/* Everything l holds. */
static void live_free(struct live *l)
{
    for (size_t i = 0; i < l->nrecs; i++) {
        struct live_rec *lr = l->recs[i];
        memset(&lr->r.trace, 0, sizeof(lr->r.trace)); /* the stream's */
        free(lr->r.json);
        free(lr->r.events);
        for (size_t k = 0; k < lr->r.nnames; k++)
            free(lr->r.names[k]);
        free(lr->r.names);
        free(lr->r.readings);
        perfetto_stream_free(lr->st);
        free(lr->pids);
        free(lr);
    }
    free(l->recs);
    free(l->owners);
    live_gpus_free(l->gpus);
    gpu_monitor_stop(model_session(l->m)->gpu);
    free(l->buf);
    model_free(l->m);
}

int session_ranks_table(const char *dir, FILE *out)
{
    struct live l = {.dir = dir, .multi = 1, .gpus = live_gpus_new()};

    l.m = model_new();
    model_session(l.m)->replay = 1;
    model_session(l.m)->range_live = 1;
    live_poll(&l); /* everything written so far */
    if (l.nrecs)
        model_ranks_write(out, l.m);
    live_free(&l);
    return l.nrecs ? 0 : -1;
}

int session_replay_live(const struct session_config *o)
{
    struct live l = {.dir = o->replay_dir};
    char path[4096 + 32];
    struct stat sb;
    int rc = 0, frames = 0;
    struct tui *t = NULL;

    if (stat(o->replay_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "rocsys-top: --replay: %s is not a directory\n", o->replay_dir);
        return 1;
    }
    snprintf(path, sizeof(path), "%s/trace.pftrace", o->replay_dir);
    l.multi = access(path, F_OK) != 0; /* a parent of rank-N directories (maybe none yet) */
    snprintf(path, sizeof(path), "%s/trace.chunks", o->replay_dir);
    if (access(path, F_OK) == 0) /* a rolling recording (--keep) that runs */
        l.multi = 0;
    l.m = model_new();
    l.gpus = live_gpus_new();
    model_session(l.m)->replay = 1;
    model_session(l.m)->range_live = 1; /* the whole run, as it grows */
    snprintf(model_session(l.m)->target, sizeof(model_session(l.m)->target), "%s", o->replay_dir);
    live_poll(&l);
    if (!o->batch && isatty(STDOUT_FILENO)) {
        if (!(t = tui_open(l.m, &o->tui))) {
            fprintf(stderr, "rocsys-top: cannot open the terminal (use -b for text frames)\n");
            rc = 1;
            goto out;
        }
    }
    for (uint64_t next = 0;;) {
        uint64_t now = model_clock_ns(CLOCK_MONOTONIC);
        if (now >= next) {
            live_poll(&l);
            next = now + LIVE_POLL_MS * 1000000ull;
        }
        if (t) {
            struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
            tui_refresh(t);
            if (poll(&p, 1, LIVE_POLL_MS) < 0 && errno != EINTR)
                break;
            if (tui_input(t))
                break;
            if (model_session(l.m)->range_changed)
                next = 0;
            continue;
        }
        tui_batch_frame(stdout, l.m, ++frames, o->max_rows);
        fflush(stdout);
        if (model_session(l.m)->target_done || (o->iterations && frames >= o->iterations))
            break;
        usleep((useconds_t)o->tui.delay_tenths * 100000u);
    }
out:
    if (t)
        tui_close(t);
    live_free(&l);
    return rc;
}
