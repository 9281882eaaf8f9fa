/* Private header of the session module: the session's state, shared by the session loop and
 * its sources (the collector's rings, perf events), the recording's setup. */
#ifndef ROCSYS_SESSION_SESSION_INTERNAL_H
#define ROCSYS_SESSION_SESSION_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "collector/transport.h"
#include "inject/inject.h"
#include "session/session.h"

#define DRAIN_INTERVAL_MS 50
#define RING_COUNT        256             /* threads sampled at once, at most */
#define RING_BYTES        (128u * 1024u)  /* ~0.4 s of 32-frame samples at 1 kHz */
#define GPU_RING_COUNT    8               /* processes with GPU records at once, at most */
#define GPU_RING_BYTES    (1024u * 1024u) /* 13,000 dispatch records: bursts fit */
#define KILL_GRACE_MS     2000
#define OUTPUT_GRACE_MS   1000 /* after the target ended, wait this long for pipes to close */
#define DEFER_MAX_NS      300000000ull /* a sample waits this long for its module record */
/* ... and a sample with Python frames this long for its code objects' PY_CODE records, which a
 * collector whose ring is filling announces late */
#define DEFER_PY_MAX_NS 3000000000ull
/* at the end, a recording or batch output waits this long for files whose symbols load */
#define SYMBOLS_FINAL_WAIT_MS    60000
#define SESSION_SYMBOLS_QUIET_MS 1000 /* a wait for symbols this short is not said */
#define COST_BIN_NS              25   /* sample-cost histogram: bins of 25 ns ... */
#define COST_BINS                4000 /* ... up to 100 us; slower samples land in the last bin */

/* A sample whose frames were not covered by a known module yet: retried next cycle. */
struct perf_python;

struct deferred {
    uint32_t pid, tid;
    uint64_t time_ns;
    uint64_t until_ns; /* given up on (its unknown frames stay unknown) after this */
    uint32_t n;
    uint32_t weight;
    uint64_t *frames;
};

struct session {
    const struct session_config *o; /* what the session was asked to do */
    struct model *m;
    struct transport tr;
    char shm_path[256];
    struct inject_target target;
    char log_path[2048];
    char rec_failed[192]; /* "FILE: reason" of the first writer that failed, "" while none */
    int log_is_temp;      /* log_path is rocsys-top's own file in $TMPDIR (removed after -b) */
    int sig_fd;
    struct tui *tui;
    int batch;
    int target_done;
    int exit_status;
    uint64_t target_end_ns;
    int quit;      /* leave the loop */
    int kill_sent; /* SIGTERM sent to the target, SIGKILL at kill_deadline */
    uint64_t kill_deadline;
    int hangup;           /* our terminal is gone */
    int headless;         /* recording without display: status on stderr, summary at the end */
    char rank_dir[1100];  /* MPI: DIR/rank-N */
    const char *ended_by; /* why the session ended, for session.json */
    char *files[16];      /* the recording's files, for session.json */
    int refreshes;
    /* from rings already freed (written under the spool's lock) */
    uint64_t acc_dropped, acc_cost_ns, acc_cost_n;
    uint64_t acc_dropped_events; /* of acc_dropped: records, not samples */
    uint64_t acc_waits, acc_waited_ns;
    uint64_t waits, waited_ns;       /* producers that waited for room, and how long (all rings) */
    struct session_spool spool;      /* empties the rings in its own thread */
    struct session_perf *perf;       /* the out-of-process sampler, or NULL */
    int use_perf;                    /* the engine is perf (the collector takes no samples) */
    struct session_perf_grant grant; /* what the kernel grants (probed when choosing) */
    int engine_cause;                /* why the signal engine: SESSION_CAUSE_* */
    char engine_reason[200];         /* ... with SESSION_CAUSE_KERNEL: the refusal */
    struct perf_python *py_walker;   /* auto, a Python program: the BPF walker loaded when
                                        choosing the engine, handed to the perf events */
    char py_why[200];                /* ... or why it could not be loaded */
    int attached;                    /* -p: running processes, sampled from outside only */
    pid_t *pids;                     /* -p: the processes */
    int npids;
    size_t pidcap;
    uint32_t *seen_tids; /* -p: threads already named in the model */
    size_t nseen, seencap;
    struct session_context *ctx;    /* regions and pauses over time, for perf samples */
    struct session_spool_buf held;  /* perf records newer than the last barrier */
    uint64_t barrier_ns;            /* collector records before this time are decoded */
    struct session_spool_buf taken; /* what the main loop took from the spool, being decoded */
    struct deferred *def;
    size_t ndef, defcap;
    struct record_set *rec;        /* writers fed with the session's events */
    struct session_serve *serve;   /* --serve: the HTTP endpoint, or NULL */
    uint64_t cost_hist[COST_BINS]; /* per-sample handler cost, for the median and p99 */
    uint64_t cost_n;
    uint64_t start_cpu_ns; /* our own CPU time when the session started */
    struct {
        uint32_t pid, instance;
    } * inst;
    size_t ninst, instcap;
    struct session_causal *causal; /* --causal: the experiments (causal.c), else NULL */
};

struct model_region_span;

/* An event source of the session: what the spool copies out, and how the main loop decodes it.
 * The rows of session_sources[] run in order in each spool pass: the collector's rings before
 * the perf rings (a perf sample waits for the region records of its time). */
struct session_source {
    const char *name;
    /* Copy what is ready into the spool (spool thread or main loop; spool locked); with
     * check_orphans (main loop, each refresh) also reclaim what was abandoned. */
    void (*pass)(struct session *s, struct session_spool *sp, int check_orphans);
    /* Decode one spooled record (main loop). */
    void (*decode)(struct session *s, const struct session_spool_rec *r, const uint8_t *rec);
    /* The target is done: decode what was held back (main loop). */
    void (*flush)(struct session *s);
};
enum { SESSION_SRC_RINGS, SESSION_SRC_PERF };            /* their rows in session_sources[] */
extern const struct session_source session_source_rings; /* source_perf.c */
/* Why a launched target has the signal engine (session.engine_cause). */
enum { SESSION_CAUSE_ASKED = 0, SESSION_CAUSE_PYTHON = 1, SESSION_CAUSE_KERNEL = 2 };
/* The header's engine line (model_session's engine_why) from the engine, its reason, the timer
 * that runs and what the kernel grants: what a fallback loses and the command to allow more. */
void session_engine_explain(struct session *s);

/* source_rings.c */
extern const struct session_source session_source_perf; /* source_perf.c */
extern const struct session_source *const session_sources[];
extern const int session_nsources;

/* session.c */
/* A decoded sample (native frames, then Python and region pseudo-frames) to the model, or kept
 * for a later retry when its modules are not known yet; then to the writers. */
void session_sample(struct session *s, uint32_t pid, uint32_t tid, uint64_t t,
                    const uint64_t *frames, uint32_t n, uint32_t weight);
/* How a spool pass reclaims the rings of owners that went away (its check_orphans). */
enum {
    SESSION_REAP_NONE = 0,
    SESSION_REAP_ALL = 1,  /* main loop: threads gone, and images replaced by exec */
    SESSION_REAP_GONE = 2, /* spool thread: threads gone (no session state is read) */
};
/* Take what the spool holds and decode it (check_orphans: reclaim abandoned rings too). */
void session_drain(struct session *s, int check_orphans);
/* Wait at most timeout_ms for the files whose symbols are loading (a note on stderr in batch
 * and headless modes once it has taken SESSION_SYMBOLS_QUIET_MS); past that, their frames are
 * named by address. */
void session_finish_symbols(struct session *s, int timeout_ms);

/* stats.c: update the session facts the views show (counts, drops, the collector's cost, the
 * notice), at each refresh */
void session_update_stats(struct session *s);

/* target.c: the target's signals, stopping and end */
/* Ask the target to end (an attached process: detach). */
void session_stop_target(struct session *s);
/* Send sig to the target (its process group when it has one); never to an attached process. */
void session_signal_target(struct session *s, int sig);
/* Reap the target if it ended. */
void session_check_child(struct session *s);
/* The signals that arrived for rocsys-top itself (on its signalfd). */
void session_on_signal(struct session *s);
/* The session is over: a target still running is stopped (SIGTERM, SIGKILL after a grace
 * period) and reaped; an attached process is left running. */
void session_end_target(struct session *s);

/* source_perf.c */
/* The header's engine line (model_session's engine_why) from the engine, its reason, the timer
 * that runs and what the kernel grants: what a fallback loses and the command to allow more. */
void session_engine_explain(struct session *s);

/* source_rings.c */
/* Create the shared memory of the collector's rings. 0, or -1 with a message in err. */
int session_rings_setup(struct session *s, char *err, size_t errlen);
/* model_regions_set_sink's callback: a closed region as a slice for the writers. */
void session_region_span(void *ctx, const struct model_region_span *sp);
/* The spool's release callback: a freed ring's counters into the totals. */
void session_rings_account(void *ctx, const struct rocsys_ring_ctl *c);

/* source_perf.c */
/* Choose the sampling engine (--engine). -1 when --engine perf cannot be honoured. */
int session_choose_engine(struct session *s, const char *program);
/* inject_spawn's hook: open the perf events on the launched child before its exec. */
void session_perf_before_exec(pid_t pid, void *ctx);
/* -p: attach to the processes. 0, or -1 with a one-line reason in err. */
int session_attach(struct session *s, char *err, size_t errlen);
/* A process the collector announced: its Python frames to the perf engine's BPF walker, if
 * one is set (a launched Python program under --engine perf) and it runs CPython. */
void session_perf_python_process(struct session *s, uint32_t pid);
/* -p: note the processes that ended; the target is done when none is left. */
void session_check_attached(struct session *s);

/* causal.c (--causal) */
/* Start causal profiling of the launched target (after the spawn). */
void session_causal_start(struct session *s);
/* The spawn's hook, before the target's exec: the experiment block names it (its first
 * progress points count: a latency point's begin counted after its end would skew the count in
 * flight, and so every latency experiment, for the whole run). */
void session_causal_before_exec(struct session *s, pid_t pid);
void session_causal_free(struct session *s);
/* A decoded sample: its leaf pc may be chosen for an experiment. */
void session_causal_sample(struct session *s, uint32_t pid, const uint64_t *frames, uint32_t n);
/* After a drain: end the running experiment when its time is up, start the next. */
void session_causal_tick(struct session *s);
/* An HSA kernel object got its name: with --progress kernel:NAME, one to count if it matches. */
void session_causal_hsa_symbol(struct session *s, uint32_t pid, uint64_t kernel_object);

/* recording.c */
int session_setup_writers(struct session *s, char *err, size_t errlen);
/* Process metrics of the running processes as counter tracks of the recording. */
void session_record_process_counters(struct session *s, uint64_t t);
/* Headless recording: the summary on stdout at the end. */
void session_print_summary(struct session *s);

#endif
