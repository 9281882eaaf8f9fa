/* The front end's core: the session loop over the event sources (the collector's rings; see
 * also replay and merge of recordings), the spool that empties rings as they fill, the GPU
 * dashboard, and the decoding of HIP/HSA records into the model and the writers. */
#ifndef ROCSYS_SESSION_SESSION_H
#define ROCSYS_SESSION_SESSION_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "collector/transport.h"
#include "tui/tui.h"

/* What a session is asked to do (a run, -p, --replay, --attach-gpu): the command line (cli/)
 * fills it; nothing under it sees the command line's own options. */
struct session_config {
    int freq_hz;                  /* samples per second per thread */
    int wall;                     /* sample wall time (else thread CPU time) */
    int cpu_timer;                /* SESSION_TIMER_*: what raises the signal engine's CPU samples */
    int engine;                   /* SESSION_ENGINE_* */
    int iterations;               /* refreshes before exiting, 0 = unlimited */
    int batch;                    /* text frames, no curses */
    int window_s;                 /* sliding-window length */
    int follow;                   /* profile the processes the target starts */
    int python;                   /* SESSION_PYTHON_* */
    int launch_stacks_off;        /* no call stacks of kernel launches */
    int use_stdin;                /* the target reads our stdin */
    int max_rows;                 /* rows per view in batch frames, 0 = all */
    double profile_min_pct;       /* profile.txt's pruning threshold, % */
    const char *output_log;       /* the target's full output goes here, NULL: $TMPDIR */
    const char *record_dir;       /* record into this directory, NULL: no recording */
    int force;                    /* overwrite a recording in record_dir */
    uint64_t keep_ns, keep_bytes; /* --keep: the trace keeps the last of these (0: all) */
    int no_tui;                   /* headless recording (or serving) */
    const char *serve;            /* the HTTP endpoint's [ADDR:]PORT, NULL: none */
    const char *replay_dir;       /* the recording replayed */
    const char *range;            /* START:END: the part of a replayed run (seconds), NULL: all */
    const char *diff_dir;         /* the recording a replay is compared with, NULL: none */
    const char *pids;             /* PID[,PID...]: attach to running processes, NULL: start one */
    int gpu_interval_ms;          /* GPU sampling interval, 0 = no GPU monitoring */
    int causal;                   /* causal profiling experiments */
    const char *progress;         /* with causal: the function whose calls are the progress point */
    char **target_argv;           /* PROGRAM [ARGS...], NULL-terminated (NULL: no program) */
    int target_argc;
    struct tui_options tui; /* the display's options (its delay is the refresh delay) */
};

/* The choices of session_config's cpu_timer, engine and python, in the order the command
 * line names them ("auto perf posix", "auto perf signal", "on native off"). */
enum { SESSION_TIMER_AUTO = 0, SESSION_TIMER_PERF = 1, SESSION_TIMER_POSIX = 2 };
enum { SESSION_ENGINE_AUTO = 0, SESSION_ENGINE_PERF = 1, SESSION_ENGINE_SIGNAL = 2 };
enum { SESSION_PYTHON_ON = 0, SESSION_PYTHON_NATIVE = 1, SESSION_PYTHON_OFF = 2 };
/* Resolve cpu_timer auto: perf events (the collector falls back to POSIX timers where they are
 * not permitted). */
int session_resolve_cpu_timer(int choice);

/* The MPI rank of this process from the launcher's environment (OMPI_COMM_WORLD_RANK,
 * PMI_RANK, PMIX_RANK, SLURM_PROCID), or -1. */
int session_mpi_rank(void);
/* --merge DIR: DIR/merged.pftrace, DIR/merged.folded and DIR/merged-profile.txt from the
 * recordings in DIR/rank-N/. Returns the exit status. */
int session_merge(const char *dir);
/* Create recording directory dir (if missing) and refuse one that already holds a recording
 * unless force. Returns 0, or -1 with a one-line message in err. */
int session_record_dir_prepare(const char *dir, int force, char *err, size_t errlen);
/* Block SIGINT, SIGTERM, SIGHUP and SIGQUIT (and SIGCHLD with with_sigchld), ignore SIGPIPE,
 * and return a non-blocking signalfd for the blocked ones; -1 with a one-line message on
 * stderr. */
int session_signalfd(int with_sigchld);
/* --replay DIR: show the recording in DIR in the TUI (or as a text frame with -b). Returns the
 * exit status (0, or 1 with a one-line message on stderr). */
int session_replay(const struct session_config *c);
/* --replay DIR --live: follow DIR's recording, or DIR/rank-N's, while they are written
 * (session/replay_live.c). Returns the exit status. */
int session_replay_live(const struct session_config *c);
/* The Ranks table of the MPI recordings in DIR/rank-N (as the Ranks view shows it) to out;
 * -1 when there are none. */
int session_ranks_table(const char *dir, FILE *out);
/* What --replay -b prints for a recording given as its files' contents (json and output may be
 * NULL: missing; json NUL-terminated), one frame with every row, to out. Returns 0, or 1 when
 * the trace holds no packet. For the fuzzer (tests/fuzz), which feeds it any bytes. */
int session_replay_buffers(const uint8_t *trace, size_t trace_len, const char *json,
                           const char *output, size_t output_len, FILE *out);

/* --attach-gpu: the GPU dashboard of the whole machine, no target (session/attach.c). Returns
 * the exit status. */
int session_attach_gpu(const struct session_config *c);
struct gpu_monitor;
struct record_set;
/* Start GPU monitoring as the options say (NULL with --gpu-interval 0). */
struct gpu_monitor *session_gpu_start(const struct session_config *c);
/* Turn the GPU samples taken since the last call into counter events for the writers. */
void session_gpu_record(struct gpu_monitor *g, struct record_set *rec);

/* serve.c: --serve ADDR:PORT, an HTTP endpoint on the poll loop (no thread): /metrics
 * (Prometheus' text format) and /snapshot.json (serve_content.c) */
struct session_serve;
struct pollfd;
/* A growing response buffer (p NUL-terminated; free(p)). */
struct session_serve_buf {
    char *p;
    size_t len, cap;
};
/* What the answers are made of, on the loop's thread at each request. */
struct session_serve_content {
    struct model *m;  /* the session's model (its GPU monitor too) */
    const char *what; /* the target as the metrics name it (NULL: the model's target line) */
};
#define SESSION_SERVE_MAX_FDS 9 /* the listening socket and 8 clients */
/* Listen on spec ("PORT": 127.0.0.1:PORT, "ADDR:PORT", "[ADDR6]:PORT"); NULL with a one-line
 * message in err. */
struct session_serve *session_serve_open(const char *spec, char *err, size_t errlen);
/* The address listened on ("127.0.0.1:9400"). */
const char *session_serve_address(const struct session_serve *sv);
void session_serve_set_content(struct session_serve *sv, const struct session_serve_content *c);
/* The fds to poll (at most max, SESSION_SERVE_MAX_FDS is enough); their number. */
int session_serve_pollfds(const struct session_serve *sv, struct pollfd *out, int max);
/* After poll: accept, read, answer, write what the sockets take, close clients past their
 * time. p, n: what session_serve_pollfds gave, with their revents. Never blocks. */
void session_serve_handle(struct session_serve *sv, const struct pollfd *p, int n);
void session_serve_close(struct session_serve *sv);
/* serve_content.c: the answers */
void session_serve_metrics(const struct session_serve_content *c, struct session_serve_buf *b);
void session_serve_snapshot(const struct session_serve_content *c, struct session_serve_buf *b);
void session_serve_append(struct session_serve_buf *b, const char *s, size_t n);
void session_serve_printf(struct session_serve_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Run a whole session; returns rocsys-top's exit status. */
int session_run(const struct session_config *c);

/* kernels.c: the collector's HIP and HSA records */
struct model;
struct record_set;
struct rocsys_ring_ctl;
struct rocsys_rec_header;

/* 1 if h is a HIP or HSA record (handled here), 0 otherwise. */
int session_kernels_record(struct model *m, struct record_set *rec,
                           const struct rocsys_ring_ctl *ctl, const struct rocsys_rec_header *h);
/* After a drain: emit the slices whose kernel names and call paths are now known; with final
 * emit all of them, unnamed ones with a fallback name. A name is waited for a bounded time, a
 * call path as long as the model waits for it. */
void session_kernels_flush(struct model *m, struct record_set *rec, int final);
/* Headless summary: the top kernels by GPU time (nothing when there were none). */
void session_kernels_summary(FILE *out, struct model *m, int max_rows);

/* perf_events.c: the out-of-process sampler's perf events (opened by the front end) */
enum {
    SESSION_PERF_CLOCK = 1,  /* a perf record of a task-clock event */
    SESSION_PERF_SWITCH = 2, /* a perf record of a context-switch event */
    SESSION_PERF_BARRIER = 3 /* 8 bytes: every collector record committed before this time
                                (CLOCK_MONOTONIC) is in the spool before it */
};
/* Frames a perf sample is unwound to at most (as many as the model keeps: MODEL_MAX_STACK);
 * a decoded sample may have one more, the "[truncated]" root of a cut stack, and in wall mode
 * one more, its thread state */
#define SESSION_PERF_MAX_FRAMES 1024
struct session_perf;
struct model;
/* A perf record copied out of a ring (kind: SESSION_PERF_CLOCK or _SWITCH). */
typedef void (*session_perf_record_fn)(void *ctx, int kind, const uint8_t *rec, uint32_t len);
/* A decoded sample: pcs innermost first, weight in sampling periods. */
typedef void (*session_perf_sample_fn)(void *ctx, uint32_t pid, uint32_t tid, uint64_t time_ns,
                                       const uint64_t *frames, uint32_t n, uint32_t weight);
/* Whether pid's maps are to be read before its sample at pc is unwound (code the symbolizer
 * does not know there, and nobody will announce it). */
typedef int (*session_perf_maps_fn)(void *ctx, uint32_t pid, uint64_t pc);
/* Sample task pid, its threads and children from outside: a task-clock event every period_ns of
 * CPU time (and in wall mode the context switches), on every CPU, inherited. on_exec: enabled
 * when pid calls exec (a launched target waiting before its exec), else at once. Kernel-mode
 * samples where permitted, else user-mode only (session_perf_kernel). NULL with a one-line
 * reason in why and errno set when perf events are not permitted or not there. */
struct session_perf *session_perf_open(pid_t pid, int wall, uint64_t period_ns, int on_exec,
                                       char *why, size_t cap);
void session_perf_enable(struct session_perf *p);
/* Sample running processes from outside: their every thread now (and the threads they create
 * later, which inherit the events), enabled at once. NULL with a one-line reason in why. */
struct session_perf *session_perf_attach(const pid_t *pids, int npids, int wall, uint64_t period_ns,
                                         char *why, size_t cap);
struct pollfd;
/* The rings' fds to poll for POLLIN (a ring a quarter full); returns how many (at most max). */
int session_perf_pollfds(const struct session_perf *p, struct pollfd *out, int max);
/* Whether time in system calls is sampled (kernel-mode samples permitted). */
int session_perf_kernel(const struct session_perf *p);
/* Samples decoded, samples the kernel lost (a ring was full), and the front end's mean time
 * to unwind one (µs). */
void session_perf_counts(const struct session_perf *p, uint64_t *samples, uint64_t *lost,
                         double *unwind_us);
/* The user stack asked for per sample (bytes), and the samples whose stacks reached their
 * thread's start, were joined to their thread's last whole stack, or stayed cut. */
void session_perf_stack_counts(const struct session_perf *p, uint32_t *stack_bytes, uint64_t *whole,
                               uint64_t *joined, uint64_t *cut);
/* Disable, unmap and close every event: nothing of ours stays in the target. */
void session_perf_close(struct session_perf *p);
/* Python frames from outside: the BPF walker py set on every event of p (p owns it from then
 * on, and samples get the Python frames walked at their instant). 0, or -1 if refused. */
struct perf_python;
int session_perf_python(struct session_perf *p, struct perf_python *py);
/* The BPF walker set on p's events, or NULL. */
struct perf_python *session_perf_walker(const struct session_perf *p);
/* Before a sample is unwound, ask fn whether its process's maps are to be read (at most every
 * 100 ms): else a sample in code not yet known is its pc alone. */
void session_perf_on_unknown_code(struct session_perf *p, session_perf_maps_fn fn, void *ctx);
/* Copy every record in the rings to fn (the spool thread, under the spool's lock). */
void session_perf_pass(struct session_perf *p, session_perf_record_fn fn, void *ctx);
/* Decode one copied record: unwind samples, pair switch records; samples go to fn. */
void session_perf_decode(struct session_perf *p, struct model *m, int kind, const uint8_t *rec,
                         uint32_t len, session_perf_sample_fn fn, void *ctx);

/* Wall mode: the threads still off the CPU get their blocked time up to until_ns (every record
 * older than until_ns decoded), so a call that blocks for long shows while it blocks. */
void session_perf_advance(struct session_perf *p, struct model *m, uint64_t until_ns,
                          session_perf_sample_fn fn, void *ctx);

/* The time of a perf record (samples and switch records), or -1 (lost records). */
int session_perf_time(const uint8_t *rec, uint32_t len, uint64_t *time_ns);

/* perf_access.c: what the kernel grants this user, and the words for a fallback */
enum { SESSION_PERF_DENIED = 0, SESSION_PERF_USER = 1, SESSION_PERF_FULL = 2 };
#define SESSION_PERF_NO_SYSCTL (-1000) /* paranoid: no /proc/sys/kernel/perf_event_paranoid */
struct session_perf_grant {
    int cpu;      /* the perf engine's CPU-mode events: SESSION_PERF_FULL (kernel samples too),
                     _USER (user-space samples only), _DENIED */
    int wall_ok;  /* the perf engine's wall-mode events (context-switch samples) open */
    int timer;    /* the in-target sampler's task-clock timer: _FULL, _USER or _DENIED */
    int err;      /* errno of the first refusal (0: none) */
    int paranoid; /* kernel.perf_event_paranoid, or SESSION_PERF_NO_SYSCTL */
    int seccomp;  /* a seccomp filter is on this process */
};
/* Probe, with the events each engine opens (on this process: the same user as the target),
 * what the kernel grants. */
void session_perf_grant_probe(struct session_perf_grant *g, uint64_t period_ns);
/* Only the sysctl and the seccomp state (no probe). */
void session_perf_grant_sysctl(struct session_perf_grant *g);
/* Why the perf engine cannot run here (wall: in wall mode), in one clause; ..._line: with
 * "; to allow it: " and the command that would. */
void session_perf_why_not(const struct session_perf_grant *g, int wall, char *buf, size_t cap);
void session_perf_why_not_line(const struct session_perf_grant *g, int wall, char *buf, size_t cap);
/* Whether a hardware execution breakpoint fires here (--progress FUNC counts calls with one):
 * one on a function of this process over 3 calls. 1: it counted them; 0: the event opened but
 * counted nothing (a virtual machine without debug registers accepts it and it never fires);
 * -errno: not opened (the collector's own attempt then says why). */
int session_perf_breakpoints_fire(void);
/* Why perf events were refused with errno e, in one clause. */
void session_perf_refusal(const struct session_perf_grant *g, int e, char *buf, size_t cap);
/* The one command an administrator would run to allow want (SESSION_PERF_USER: perf events at
 * all; _FULL: kernel samples and wall mode from outside). */
void session_perf_allow_cmd(const struct session_perf_grant *g, int want, char *buf, size_t cap);

/* context.c: the open user regions and sampling pauses of the target's threads over time, for
 * samples taken outside them */
struct session_context;
struct session_context *session_context_new(void);
void session_context_free(struct session_context *c);
/* A region opened (begin) or closed at depth (0 = outermost) on thread tid. */
void session_context_region(struct session_context *c, uint32_t pid, uint32_t tid, uint64_t time_ns,
                            int begin, uint32_t depth, uint32_t id);
/* The program turned sampling on or off, for its thread tid only or for the whole process. */
void session_context_sampling(struct session_context *c, uint32_t pid, uint32_t tid,
                              uint64_t time_ns, int on, int thread_only);
/* Thread tid's open regions at time_ns as region pseudo-frames, innermost first (at most
 * room); -1 when sampling was paused then. */
int session_context_at(struct session_context *c, uint32_t pid, uint32_t tid, uint64_t time_ns,
                       uint64_t *out, uint32_t room);
/* Forget the changes before before_ns (folded into the state they led to). */
void session_context_prune(struct session_context *c, uint64_t before_ns);
/* Thread (pid, tid) began waiting inside a wrapped call at time_ns: frame is its wait leaf
 * (ROCSYS_WAIT_FRAME: kind and call; 0: the wait ended); session_context_wait_at: the wait leaf
 * of the call it waited in at time_ns, 0 if none. */
void session_context_wait(struct session_context *c, uint32_t pid, uint32_t tid, uint64_t time_ns,
                          uint64_t frame);
uint64_t session_context_wait_at(struct session_context *c, uint32_t pid, uint32_t tid,
                                 uint64_t time_ns);
/* mpi.c: an MPI_CALL record to the model and the recording (an MPI slice on its thread, held
 * by session/kernels.c's pending slices while its call path is not resolved) */
void session_mpi_record(struct model *m, struct record_set *rec, const struct rocsys_ring_ctl *ctl,
                        const struct rocsys_rec_header *h);
struct rocsys_rec_mpi_call;
/* The slice of an MPI call of (pid, tid). */
void session_mpi_emit(struct model *m, struct record_set *rec, uint32_t pid, uint32_t tid,
                      const struct rocsys_rec_mpi_call *r);
/* The end-of-recording summary's MPI lines (nothing without MPI calls): the share of the MPI
 * span and the calls with the most time, at most max_rows. */
void session_mpi_summary(FILE *out, struct model *m, int max_rows);
/* kernels.c: hold the slice of record h (its first size bytes) until session_kernels_flush
 * finds what it waits for known (or waited too long). */
void session_kernels_defer(uint32_t pid, uint32_t tid, const struct rocsys_rec_header *h,
                           size_t size);

/* spool.c: a thread that empties the sources' rings into memory as they fill, so that the
 * target never loses a sample while the main loop is busy; the main loop takes what was spooled
 * in one swap and decodes it at its own pace */
/* One spooled record: where it came from, then the record itself (8-byte aligned). */
struct session_spool_rec {
    uint32_t pid, tid, instance; /* a collector record: its ring's owner */
    uint16_t source;             /* the row of session_sources[] */
    uint16_t kind;               /* per source (perf: SESSION_PERF_*) */
    uint32_t len, pad;           /* bytes of the record */
};

/* Spooled bytes: session_spool_rec + record, one after the other, in a mapping of their own
 * that grows without copying (base's xmap_resize): the spool thread's append never stops
 * draining the rings for a copy of what it holds. */
struct session_spool_buf {
    uint8_t *data;
    size_t len, cap;
};

struct session_spool {
    struct transport *tr; /* the collector's rings: their doorbell wakes the thread */
    pthread_mutex_t lock;
    struct session_spool_buf buf; /* what the thread spooled since the last session_spool_take */
    size_t limit_bytes;           /* past this, rings are left to fill (their drops are counted) */
    uint64_t bytes_total;         /* spooled since the start */
    size_t peak_bytes;            /* the most ever waiting for the main loop */
    void *session;                /* passed to the sources */
    uint64_t pass_start_ns;       /* CLOCK_MONOTONIC when the current pass began */
    int wake_fd;                  /* eventfd: a ring passed half full (the main loop decodes now) */
    pthread_t thread;
    int running;
    _Atomic int stop;
};

/* Prepare the spool (no thread yet): tr's doorbell wakes it, session goes to the sources. */
void session_spool_init(struct session_spool *sp, struct transport *tr, void *session);
/* Start the thread; without it session_spool_pass in the main loop still works. 0 or -errno. */
int session_spool_start(struct session_spool *sp);
/* Stop the thread (returns within one poll interval) and close the eventfd. */
void session_spool_stop(struct session_spool *sp);
/* Free the buffers (after session_spool_stop). */
void session_spool_free(struct session_spool *sp);
/* Free the buffer, keep the lock (after session_spool_stop: nothing is spooled any more). */
void session_spool_release(struct session_spool *sp);
/* Give back b's memory when a drain used (at most) used bytes of it, under a quarter of a
 * capacity over 1 MiB (a burst when the main loop lagged): freed when empty, else halved
 * while it keeps room for twice its length and twice used. */
void session_spool_buf_fit(struct session_spool_buf *b, size_t used);
/* Append r and its record to b; returns the bytes it took. */
size_t session_spool_buf_append(struct session_spool_buf *b, const struct session_spool_rec *r,
                                const void *rec);
/* Unmap b's bytes; b is empty after. */
void session_spool_buf_free(struct session_spool_buf *b);
void session_spool_lock(struct session_spool *sp);
void session_spool_unlock(struct session_spool *sp);
/* With the spool locked: every source's pass, in the table's order. */
void session_spool_pass(struct session_spool *sp, int check_orphans);
/* With the spool locked: append a record (a source's pass). False past the spool's limit. */
int session_spool_append(struct session_spool *sp, const struct session_spool_rec *r,
                         const void *rec);
/* Whether the spool is past its limit (the sources leave their rings to fill). */
int session_spool_full(const struct session_spool *sp);
/* With the spool locked: hand the spooled bytes to *out (whose old buffer, emptied, the spool
 * reuses). */
void session_spool_take(struct session_spool *sp, struct session_spool_buf *out);

#endif
