/* GPU monitoring in the front end: backends (a const table of functions, one file each; the
 * ROCm SMI one loads librocm_smi64 at run time), the metric table every consumer shares, the
 * history rings with min/avg/max, and the monitor that samples on its own thread so that the UI
 * never waits for a GPU query. Every metric carries a validity bit: what a backend could not
 * read is N/A, never 0. */
#ifndef ROCSYS_GPU_GPU_H
#define ROCSYS_GPU_GPU_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define GPU_MAX_DEVICES 16  /* devices monitored (the view lays out 1 to 8 well) */
#define GPU_MAX_PROCS   256 /* processes using a GPU, per sweep */

/* ---- metrics: one table row each (name, unit, recording names) ---- */
enum gpu_metric {
    GPU_M_BUSY,          /* % */
    GPU_M_POWER,         /* average power, W */
    GPU_M_POWER_CAP,     /* W */
    GPU_M_TEMP_EDGE,     /* C */
    GPU_M_TEMP_JUNCTION, /* C */
    GPU_M_TEMP_MEMORY,   /* C */
    GPU_M_VRAM_USED,     /* bytes */
    GPU_M_VRAM_TOTAL,    /* bytes */
    GPU_M_GTT_USED,      /* bytes */
    GPU_M_GTT_TOTAL,     /* bytes */
    GPU_M_SCLK,          /* shader clock, MHz */
    GPU_M_MCLK,          /* memory clock, MHz */
    GPU_M_FAN_RPM,       /* RPM */
    GPU_M_FAN_PCT,       /* fan speed, % of its maximum */
    GPU_M_COUNT
};

struct gpu_metric_def {
    const char *key;   /* batch frames and gpu.csv column stem: "busy", "temp_edge" */
    const char *track; /* counter track suffix in recordings: "GPU0 <track>", e.g. "busy" */
    const char *unit;  /* "%", "W", "C", "bytes", "MHz", "RPM" */
    const char *csv;   /* gpu.csv column with its unit: "busy_pct", "power_w" */
    int slow;          /* changes rarely (totals, caps): read every GPU_SLOW_EVERY sweeps */
};
#define GPU_SLOW_EVERY 10
extern const struct gpu_metric_def gpu_metrics[GPU_M_COUNT];
/* The metric whose track suffix is track (e.g. "edge temperature"), or -1. */
int gpu_metric_by_track(const char *track);

/* One reading of every metric of one device. */
struct gpu_sample {
    uint64_t time_ns;      /* CLOCK_MONOTONIC when it was read */
    uint32_t valid;        /* bit (1u << metric): v[metric] was read */
    double v[GPU_M_COUNT]; /* in the metric's unit */
};
static inline int gpu_sample_has(const struct gpu_sample *s, int metric)
{
    return (s->valid >> metric) & 1u;
}

/* What does not change while a device is monitored. */
struct gpu_static {
    char name[96]; /* marketing name, "" if unknown */
    char pci[16];  /* "0000:03:00.0", "" if unknown */
};

/* A process using GPUs (from KFD). */
struct gpu_proc {
    uint32_t pid;        /* in rocsys-top's PID namespace (pidns SAME, CHILD); else the host's */
    uint32_t host_pid;   /* as KFD lists it (the initial namespace's) */
    int pidns;           /* GPU_PIDNS_*: where the process is, seen from rocsys-top */
    uint32_t inner_pid;  /* GPU_PIDNS_CHILD: its id in its own namespace */
    char name[32];       /* from /proc/PID/comm, "?" once gone */
    uint32_t gpu_mask;   /* bit i: uses device i; 0 if unknown */
    int valid;           /* 1: the usage fields below were read */
    uint64_t vram_bytes; /* VRAM it holds, all its GPUs together */
    uint64_t sdma_us;    /* time its SDMA (copy) engines ran */
    uint32_t cu_pct;     /* CUs its waves occupy, % of the CUs of the GPUs KFD lists for it */
};

/* ---- PID namespaces (pidns.c) ---- */
enum {
    GPU_PIDNS_SAME = 0,   /* in rocsys-top's namespace: pid is ours */
    GPU_PIDNS_CHILD = 1,  /* in a namespace below ours (a container): pid is ours, inner_pid its */
    GPU_PIDNS_OUTSIDE = 2 /* not in our namespace (or not mappable from it): pid is the host's */
};
/* The NSpid ids of a /proc/PID/status text, outermost first (at most max); their number. */
int gpu_pidns_parse(const char *status, uint32_t *ids, int max);
/* A process's place from its NSpid ids, for a viewer self_depth levels below the /proc mount's
 * namespace (its own NSpid count): GPU_PIDNS_*, its id in ours, its innermost id (CHILD). */
int gpu_pidns_resolve(int self_depth, const uint32_t *ids, int n, uint32_t *ours, uint32_t *inner);
/* This process's depth below /proc's namespace (1: the same), or 0 when /proc is our own
 * namespace's below the initial one, where host ids cannot be mapped. */
int gpu_pidns_self(void);
/* Turn KFD's host ids of procs into ours (host_pid, pidns, inner_pid set). */
void gpu_pidns_map(int self_depth, struct gpu_proc *procs, int n);

/* ---- backends ---- */
/* Why monitoring is unavailable (the one line the GPU panel shows says which). */
enum gpu_unavailable {
    GPU_OK = 0,
    GPU_NO_LIBRARY, /* the vendor library cannot be loaded */
    GPU_NO_DRIVER,  /* the library loaded but found no driver */
    GPU_NO_DEVICE,  /* the driver reports no GPU */
};

struct gpu_backend {
    const char *name; /* "rocm-smi" */
    /* Load the library and initialize it. Returns GPU_OK or an enum gpu_unavailable value. */
    int (*init)(void);
    /* Number of devices (0 = none). */
    int (*discover)(void);
    /* Name and PCI address of device dev; fills what it can. */
    void (*static_info)(int dev, struct gpu_static *out);
    /* Read the metrics of device dev in want (bit 1u << metric) into out, setting the valid
     * bit of each one read. */
    void (*sample)(int dev, uint32_t want, struct gpu_sample *out);
    /* Processes using GPUs: up to max into out; returns their number (0 when unknown). */
    int (*processes)(struct gpu_proc *out, int max);
    void (*shutdown)(void);
    /* What went wrong last (for the one-line reason), "" if nothing. */
    const char *(*last_error)(void);
    /* The library function called last ("rsmi_init"), to name one that did not answer; read
     * from any thread while the monitor's thread may be inside it. NULL: not said. */
    const char *(*calling)(void);
};

extern const struct gpu_backend gpu_backend_rocm_smi;
extern const struct gpu_backend *const gpu_backends[]; /* NULL-terminated, tried in order */

/* ---- history: a ring of readings of one metric (pure; unit-tested) ---- */
struct gpu_history {
    double *v; /* NAN: not valid at that sample */
    int cap;   /* capacity */
    int count; /* readings kept, <= cap */
    int next;  /* where the next reading goes */
};

struct gpu_stats {
    int n;                /* valid readings considered */
    double min, avg, max; /* meaningless when n == 0 */
};

void gpu_history_init(struct gpu_history *h, int cap);
void gpu_history_free(struct gpu_history *h);
/* Append a reading (valid 0: an N/A point that the statistics skip). */
void gpu_history_push(struct gpu_history *h, double v, int valid);
/* Reading i counted from the newest (0 = newest); NAN if absent or not valid. */
double gpu_history_at(const struct gpu_history *h, int i);
/* Statistics over the newest last_n readings (0 or more than kept: all). */
void gpu_history_stats(const struct gpu_history *h, int last_n, struct gpu_stats *out);

/* Running statistics since the start (summaries of a whole session). */
struct gpu_running {
    uint64_t n;
    double sum, min, max;
};
void gpu_running_add(struct gpu_running *r, double v);

/* ---- the monitor ---- */
struct gpu_monitor;

/* STARTING: the library is being loaded and initialized on the monitor's thread; once that has
 * taken GPU_ANSWER_WAIT_MS, the status says UNAVAILABLE, "GPU library did not answer (CALL after
 * N s)", until it answers (if ever). */
enum gpu_state { GPU_STATE_UNAVAILABLE, GPU_STATE_OK, GPU_STATE_STARTING };
#define GPU_ANSWER_WAIT_MS 2000

/* Everything the views show, copied out under the monitor's lock. */
struct gpu_status {
    enum gpu_state state;
    char reason[256];    /* UNAVAILABLE, STARTING: one line saying why */
    const char *backend; /* "rocm-smi", or NULL */
    int count;           /* devices */
    uint32_t interval_ms;
    uint64_t sweeps;          /* samples of all devices taken so far */
    double sweep_cpu_us_mean; /* the sampling thread's CPU time per sweep, mean */
    double sweep_cpu_us_max;  /* ... and the largest */
    int history_cap;          /* readings kept per metric */
    struct gpu_static info[GPU_MAX_DEVICES];
    struct gpu_sample now[GPU_MAX_DEVICES]; /* latest readings (valid 0 before the first) */
    int replay; /* readings from a recording (gpu_monitor_replay): never stale, no processes */
    char waiting_call[64]; /* the library call the monitor's thread is in ("" if none) */
    uint64_t waiting_ms;   /* ... since how long */
    int nproc;
    struct gpu_proc procs[GPU_MAX_PROCS];
};

struct gpu_monitor_options {
    uint32_t interval_ms;              /* sampling interval (>= 10) */
    uint32_t history_s;                /* seconds of history kept (at least 120 readings) */
    const struct gpu_backend *backend; /* NULL: the first of gpu_backends[] */
};

/* Start the monitor's thread, which initializes the backend and then samples. Returns at once
 * (STARTING); never NULL: an unavailable monitor reports why. */
struct gpu_monitor *gpu_monitor_start(const struct gpu_monitor_options *o);
/* Wait until the backend has started (its first readings are there, or it is unavailable), at
 * most timeout_ms, and no longer once a signal of stop_on (NULL: none) is pending. Returns 1 if
 * it has started; if not, what the library prints from then on goes to stderr. */
int gpu_monitor_wait_started(struct gpu_monitor *m, int timeout_ms, const sigset_t *stop_on);
/* Stop the thread, shut the backend down, free. NULL is fine. A thread that is inside the
 * library (starting, or stuck in a call) is not waited for: it is left behind with the monitor,
 * and gpu_monitor_left_behind() says so. */
void gpu_monitor_stop(struct gpu_monitor *m);
/* Whether a monitor's thread was left inside the library: the process must then end with
 * _exit (exit() would run the library's destructors under that thread). */
int gpu_monitor_left_behind(void);
/* Copy the current state into out. */
void gpu_monitor_status(struct gpu_monitor *m, struct gpu_status *out);
/* The newest readings of metric of device dev, oldest first, into out (at most max; NAN =
 * N/A). Returns their number. */
int gpu_monitor_history(struct gpu_monitor *m, int dev, int metric, double *out, int max);
/* Statistics of metric of device dev over the newest last_n readings (0: all kept). */
void gpu_monitor_stats(struct gpu_monitor *m, int dev, int metric, int last_n,
                       struct gpu_stats *out);
/* Statistics of metric of device dev since the monitor started. */
void gpu_monitor_running(struct gpu_monitor *m, int dev, int metric, struct gpu_running *out);
/* Hand every sample taken since the last call to fn (on the caller's thread, in order), e.g.
 * to turn them into recording events. Returns the number of samples lost because nobody
 * drained them in time (since the last call). */
uint64_t gpu_monitor_drain(struct gpu_monitor *m,
                           void (*fn)(void *ctx, int dev, const struct gpu_sample *s), void *ctx);

/* ---- a monitor fed from a recording (--replay): no backend, no thread ---- */
/* A monitor of count devices described by info (count entries, NULL: unknown) whose readings
 * come from gpu_monitor_replay_push; interval_ms is the recorded sampling interval, history_cap
 * the readings kept per metric (all of a recording). */
struct gpu_monitor *gpu_monitor_replay(int count, const struct gpu_static *info,
                                       uint32_t interval_ms, int history_cap);
/* Forget every reading (the replayed range changed). */
void gpu_monitor_replay_clear(struct gpu_monitor *m);
/* One recorded reading of device dev, published as a sweep would publish it. */
void gpu_monitor_replay_push(struct gpu_monitor *m, int dev, const struct gpu_sample *s);

/* Format a metric value for people, with its unit ("42 %", "101.0 W", "1.5 GiB", "N/A"). */
void gpu_format_value(char *buf, size_t n, int metric, const struct gpu_sample *s);

#endif
