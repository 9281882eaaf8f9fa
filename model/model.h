/* The front end's model of a profiling session: processes, threads, symbolized stacks, call
 * trees, hot functions, process metrics and the target's output. The session feeds it from
 * the transport (or, later, from a recording); views and writers only read it.
 * Everything here runs in the front end: it may allocate; x* helpers abort on OOM. */
#ifndef ROCSYS_MODEL_MODEL_H
#define ROCSYS_MODEL_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* ---- memory helpers (front end only) ---- */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* Clock c in nanoseconds (CLOCK_MONOTONIC is the session's clock). */
uint64_t model_clock_ns(clockid_t c);

/* ---- symbolizer (model/symbolize.c, libdwfl) ---- */
struct symbolizer;

/* One source-level frame of a pc. Strings are owned by the symbolizer, stable until it is freed. */
struct sym_frame {
    const char *function;   /* demangled name, or "module+0xoffset" when the symbol is unknown */
    const char *module;     /* basename of the ELF object, e.g. "libc.so.6" */
    const char *file;       /* source file of the pc, NULL without debug info */
    int line;               /* source line of the pc, 0 if unknown */
    const char *decl_file;  /* where the function is defined, NULL if unknown */
    int decl_line;          /* 0 if unknown */
    uint64_t module_offset; /* pc - load bias: the address within the ELF file */
    int inlined;            /* 1 if this frame was inlined into the next (outer) one */
};

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);
/* Tell the symbolizer about one ELF object mapped in process pid (absolute addresses). */
void symbolizer_add_module(struct symbolizer *s, uint32_t pid, const char *path, uint64_t load_bias,
                           uint64_t start, uint64_t end, const uint8_t *build_id,
                           size_t build_id_len);
/* Resolve pc of process pid into source frames, innermost first (inlined callees before the
 * function they were inlined into). is_return_address: pc is a return address (look up pc-1).
 * Returns the number of frames written (>= 1 when a module covers pc), 0 when no module does. */
int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc, int is_return_address,
                      struct sym_frame *out, int max);
/* Give to_pid the modules of from_pid (a fork child starts with its parent's address space). */
void symbolizer_copy_process(struct symbolizer *s, uint32_t from_pid, uint32_t to_pid);
/* Forget process pid's modules (the pid exited and its frames are already symbolized). */
void symbolizer_forget_process(struct symbolizer *s, uint32_t pid);

/* ---- the model ---- */
struct model;

enum model_proc_state { MODEL_PROC_RUNNING, MODEL_PROC_EXITED, MODEL_PROC_KILLED };

/* Metrics of one process, read from /proc (or rusage at exit). valid == 0: never read. */
struct model_proc_metrics {
    int valid;
    double cpu_pct;       /* of one core, over the last refresh interval */
    uint64_t cpu_time_ns; /* user + system, since start */
    uint64_t rss_bytes;
    uint64_t peak_rss_bytes;
    uint64_t minor_faults;
    uint64_t major_faults;
    uint64_t vol_ctx_switches;
    uint64_t invol_ctx_switches;
    uint32_t threads;
};

struct model_process {
    uint32_t pid;
    uint32_t ppid;
    char *exe;                 /* path of the executable */
    char *cmdline;             /* argv joined with spaces */
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC; end_ns 0 while running */
    enum model_proc_state state;
    int exit_code;   /* MODEL_PROC_EXITED */
    int term_signal; /* MODEL_PROC_KILLED */
    int is_root;     /* the launched target itself */
    struct model_proc_metrics metrics;
};

struct model_thread {
    uint32_t pid;
    uint32_t tid;
    char name[64];
    int alive;
    char state;              /* /proc state letter (R, S, D, ...), '-' once exited */
    double cpu_pct;          /* of one core, over the last refresh interval */
    uint64_t cpu_time_ns;    /* from /proc */
    uint64_t samples;        /* since start (or since the last reset) */
    uint64_t window_samples; /* within the sliding window */
    uint64_t start_ns, end_ns;
    int blocks_sampling; /* it blocks the sampling signal: it cannot be sampled */
};

/* A function (after symbolization), shared by all threads and processes. */
struct model_func {
    const char *name;
    const char *module;
    const char *file; /* definition file (decl_file), or the file of the first pc seen */
    int line;         /* definition line, 0 if unknown */
    int inlined;      /* seen as an inlined frame */
};

/* What a view aggregates over. */
struct model_filter {
    int thread; /* index into the thread table, or -1 for all threads merged */
    int window; /* 1: only the sliding window; 0: since start (or last reset) */
};

/* A call tree built from the interned stacks. Node 0 is the synthetic root (func -1). */
struct model_node {
    int func;           /* index into the function table; -1 for the root */
    int parent;         /* -1 for the root */
    int first_child;    /* -1 if none; children are linked in no particular order */
    int next_sibling;   /* -1 if last */
    int depth;          /* root = 0 */
    uint64_t inclusive; /* samples in this node and below */
    uint64_t self;      /* samples whose leaf is this node */
    uint64_t path_hash; /* stable identity of the path from the root, for UI state */
};

struct model_tree {
    struct model_node *nodes;
    int count;
    uint64_t total; /* samples in the tree (the root's inclusive) */
};

struct model_hot {
    int func;
    uint64_t self;      /* samples with this function as the leaf */
    uint64_t inclusive; /* samples with this function anywhere on the stack (counted once) */
};

struct model_hot_list {
    struct model_hot *items;
    int count;
    uint64_t total; /* samples considered */
};

/* Session-level facts the views show in the header and status line. */
struct model_session {
    char target[256];  /* command line of the target as launched */
    const char *mode;  /* "cpu" or "wall" */
    const char *timer; /* what raises the samples: "task-clock" (perf event), "tick" (POSIX
                          CPU-time timer, kernel-tick resolution), "hrtimer" (wall mode) */
    int freq_hz;
    uint64_t start_ns;     /* CLOCK_MONOTONIC when the target was started */
    uint64_t end_ns;       /* when the root target ended, 0 while it runs */
    int target_done;       /* the root target ended */
    int exit_status;       /* rocsys-top's exit status for the target (code or 128+signal) */
    char status_text[128]; /* e.g. "running", "exited with 0", "killed by SIGSEGV (core dumped)" */
    char output_log[2048]; /* path of the file that keeps the target's full output */
    char notice[256];      /* one-line warning for the user (e.g. static binary), "" if none */
    uint64_t samples;      /* sampling periods counted (a sample may stand for several) */
    uint64_t dropped;      /* lost in transport (ring full, no ring) */
    uint64_t threads_unsampled;   /* threads that ended without ever getting a ring */
    double sample_cost_avg_ns;    /* collector's handler CPU time per sample, mean (measured on one
                                     sample in 16, on the thread's CPU clock) */
    double sample_cost_median_ns; /* the same, median */
    double sample_cost_p99_ns;    /* the same, 99th percentile */
    double frontend_cpu_pct;      /* rocsys-top's own CPU use since the start, % of one core */
    uint32_t window_seconds;
    int sample_signal;         /* the collector's sampling signal number */
    int rank;                  /* MPI rank of this rocsys-top (from the launcher's env), or -1 */
    uint32_t threads_blocking; /* live threads that block it (and so are not sampled) */
};

struct model *model_new(void);
void model_free(struct model *m);
struct model_session *model_session(struct model *m);
struct symbolizer *model_symbolizer(struct model *m);

/* The launched target's pid (its process is flagged is_root). */
void model_set_root_pid(struct model *m, uint32_t pid);

/* Inputs from the collector. Times are CLOCK_MONOTONIC ns. */
void model_proc_start(struct model *m, uint32_t pid, uint32_t ppid, const char *exe,
                      const char *cmdline, uint64_t time_ns);
/* A process ended: how and code (exit code or signal); code -1 = ended, status unknown
 * (ignored once a precise status is known). */
void model_proc_end(struct model *m, uint32_t pid, enum model_proc_state how, int code,
                    uint64_t time_ns);
struct rusage;
/* The root target's final resource usage from wait4() (CPU time, peak RSS, faults, switches). */
void model_proc_final_usage(struct model *m, uint32_t pid, const struct rusage *ru);
/* A thread started (a new entry even if an ended thread had the same tid). */
void model_thread_start(struct model *m, uint32_t pid, uint32_t tid, const char *name,
                        uint64_t time_ns);
/* A thread is known to exist (name may be NULL); updates the latest entry of (pid, tid). */
void model_thread_seen(struct model *m, uint32_t pid, uint32_t tid, const char *name,
                       uint64_t time_ns);
void model_thread_exit(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns);
void model_module(struct model *m, uint32_t pid, const char *path, uint64_t load_bias,
                  uint64_t start, uint64_t end, const uint8_t *build_id, size_t build_id_len);
/* One call-stack sample, frames innermost first (frames[0] is the exact pc). Returns 0, or
 * -EAGAIN when a frame is not yet covered by a known module (the caller may retry later). */
int model_sample(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns,
                 const uint64_t *frames, uint32_t nframes, int final_try);
/* The same for a sample that stands for weight sampling periods (counts grow by weight). */
int model_sample_weighted(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns,
                          const uint64_t *frames, uint32_t nframes, uint32_t weight, int final_try);

/* Advance the sliding window to now_ns (drops buckets older than window_seconds). */
void model_tick(struct model *m, uint64_t now_ns);
void model_set_window(struct model *m, uint32_t seconds);
/* Zero all sample counts (the 'r' key); functions and threads stay known. */
void model_reset_counts(struct model *m);

/* Process metrics: read /proc for every live process and thread (called once per refresh). */
void model_refresh_procfs(struct model *m, uint64_t now_ns);

/* Target output: append bytes from the target's stdout (stream 1) or stderr (stream 2). The
 * model keeps the last lines for the Output view; the session keeps the full log file. */
void model_output_append(struct model *m, int stream, const char *data, size_t len);
size_t model_output_lines(const struct model *m);
/* Turn unfinished last lines into lines (when the target has ended). */
void model_output_flush(struct model *m);
/* Line i (0 = oldest kept); *stream gets 1 or 2. */
const char *model_output_line(const struct model *m, size_t i, int *stream);

/* Read-only tables. Pointers stay valid until the next input call. */
int model_process_count(const struct model *m);
const struct model_process *model_process_at(const struct model *m, int i);
const struct model_process *model_process_find(const struct model *m, uint32_t pid);
int model_thread_count(const struct model *m);
const struct model_thread *model_thread_at(const struct model *m, int i);
int model_func_count(const struct model *m);
const struct model_func *model_func_at(const struct model *m, int i);

/* Build views' data. Free with the matching *_free. */
struct model_tree *model_tree_build(struct model *m, const struct model_filter *f);
void model_tree_free(struct model_tree *t);
struct model_hot_list *model_hot_build(struct model *m, const struct model_filter *f);
void model_hot_free(struct model_hot_list *h);

/* Number of distinct (thread, stack) entries: memory grows with this, not with run time. */
size_t model_distinct_stacks(const struct model *m);

#endif
