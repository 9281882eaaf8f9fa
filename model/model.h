/* The front end's model of a profiling session: processes, threads, symbolized stacks, call
 * trees, hot functions, process metrics and the target's output. The session feeds it from
 * the transport (or, later, from a recording); views and writers only read it.
 * Everything here runs in the front end: it may allocate; x* helpers (base/base.h) abort on OOM. */
#ifndef ROCSYS_MODEL_MODEL_H
#define ROCSYS_MODEL_MODEL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "base/base.h"
#include "symbols/symbols.h"

/* The session's clock and rocsys-top's own CPU time (base/base.h's, under the model's names). */
static inline uint64_t model_clock_ns(clockid_t c)
{
    return base_clock_ns(c);
}
static inline uint64_t model_self_cpu_ns(void)
{
    return base_self_cpu_ns();
}

/* ---- the model ---- */
struct model;

enum model_proc_state { MODEL_PROC_RUNNING, MODEL_PROC_EXITED, MODEL_PROC_KILLED };

/* Metrics of one process, read from /proc (or rusage at exit). valid == 0: never read. */
struct model_proc_metrics {
    int valid;
    /* recorded: from a recording's counter tracks (replay): only cpu_pct (mean over the range,
     * NAN when no reading falls in it), rss_bytes (the last reading), peak_rss_bytes (largest) */
    int recorded;
    double cpu_pct;       /* of one core, over the last refresh interval */
    int cpu_pct_measured; /* cpu_pct covers an interval (0 at the first reading) */
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
    int rank;                /* MPI rank of a multi-rank recording, -1: none */
    uint32_t real_pid;       /* its pid on its host (pid may be renumbered to keep ranks apart) */
    char host[64];           /* host of a multi-rank recording's rank, "" if not known */
    uint64_t gpu_kernel_ns;  /* GPU time of its timed kernel dispatches (since the counts were
                                last cleared: the replayed range) */
    uint64_t gpu_dispatches; /* its kernel dispatches, timed or not */
    char no_collector[96];   /* why its program runs without the collector ("": it has it) */
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
    int blocks_sampling;  /* it blocks the sampling signal: it cannot be sampled */
    uint64_t py_samples;  /* samples taken while it ran Python (had a thread state) */
    uint64_t gil_samples; /* of those, samples while it held the GIL */
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
    /* call trees: leave out paths with less than this share of the tree's samples, in parts
     * per million (0: every path), with everything below them */
    uint32_t min_ppm;
    int only_rank; /* 1 + the MPI rank whose processes alone count; 0: every process */
    /* call trees: each node's gpu_ns (the GPU time of kernels launched from it and below, since
     * start); the launch paths become nodes even without samples */
    int with_gpu;
    /* call trees: at most this many nodes (0: no limit): min_ppm is raised until the tree fits
     * (the tree's min_ppm says what was used) */
    uint32_t max_nodes;
};

/* A call tree built from the interned stacks. Node 0 is the synthetic root (func -1). */
struct model_node {
    int func;           /* index into the function table; -1 for the root */
    int parent;         /* -1 for the root */
    int first_child;    /* -1 if none; children are linked in no particular order */
    int next_sibling;   /* -1 if last */
    int depth;          /* root = 0 */
    int hidden;         /* children left out (below the filter's min_ppm), with all below */
    uint64_t inclusive; /* samples in this node and below */
    uint64_t self;      /* samples whose leaf is this node */
    uint64_t path_hash; /* stable identity of the path from the root, for UI state */
    uint64_t gpu_ns;    /* with_gpu: GPU time of the kernels launched here and below */
};

struct model_tree {
    struct model_node *nodes;
    int count;
    uint64_t total;   /* samples in the tree (the root's inclusive) */
    int hidden;       /* subtrees left out (below the filter's min_ppm) */
    uint32_t min_ppm; /* the share a path needed to be kept: the filter's, or more (max_nodes) */
    uint64_t gpu_ns;  /* with_gpu: the GPU time of all the launches in the tree */
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
#define MODEL_PROFILE_MIN_PCT 0.5 /* profile.txt's default pruning threshold (--profile-min) */

struct model_session {
    char target[256];  /* command line of the target as launched */
    const char *mode;  /* "cpu", "wall" or MODEL_MODE_GPU */
    const char *timer; /* what raises the samples: "task-clock" (perf event), "tick" (POSIX
                          CPU-time timer, kernel-tick resolution), "hrtimer" (wall mode) */
    int freq_hz;
    const char *engine;     /* "perf" (out of process) or "signal" (in-target handler) */
    char engine_why[320];   /* why that engine, what a fallback loses, how to allow more */
    double unwind_us_mean;  /* perf engine: the front end's mean time to unwind a sample */
    double profile_min_pct; /* profile.txt: call-tree nodes below this share of their thread's
                               samples are folded into one line (0: every node, no size cap) */
    uint64_t start_ns;      /* CLOCK_MONOTONIC when the target was started */
    uint64_t end_ns;        /* when the root target ended, 0 while it runs */
    int target_done;        /* the root target ended */
    int exit_status;        /* rocsys-top's exit status for the target (code or 128+signal) */
    char status_text[128];  /* e.g. "running", "exited with 0", "killed by SIGSEGV (core dumped)" */
    char output_log[2048];  /* path of the file that keeps the target's full output */
    char notice[256];       /* one-line warning for the user (e.g. static binary), "" if none */
    char symbols_status[160];   /* "loading symbols: libfoo.so (2 files)" while files load, or "" */
    uint64_t samples;           /* sampling periods counted (a sample may stand for several) */
    uint64_t dropped;           /* lost in transport (ring full, no ring): samples and events */
    uint64_t dropped_events;    /* of those, events (HIP calls, dispatches, copies, regions, names);
                                   the rest are CPU samples */
    uint64_t threads_unsampled; /* threads that ended without ever getting a ring */
    /* processes sampled (perf engine) whose collector sent no record, every ring being in use:
     * their samples have no modules ([unknown]), never another process's names */
    uint64_t procs_unannounced, samples_unannounced;
    /* samples whose stack did not reach its thread's start (cut: the stack copy ended, or it
     * was deeper than the frames a sample keeps), counted under one MODEL_TRUNCATED_FRAME root */
    uint64_t samples_truncated;
    /* the perf engine: the user stack the kernel copies per sample (bytes, 0: another engine),
     * and the samples whose cut stack was joined to their thread's last whole one */
    uint32_t perf_stack_bytes;
    uint64_t samples_joined;
    double sample_cost_avg_ns;    /* collector's handler CPU time per sample, mean (measured on one
                                     sample in 16, on the thread's CPU clock) */
    double sample_cost_median_ns; /* the same, median */
    double sample_cost_p99_ns;    /* the same, 99th percentile */
    double frontend_cpu_pct;      /* rocsys-top's own CPU use since the start, % of one core */
    uint32_t window_seconds;
    int sample_signal;         /* the collector's sampling signal number */
    int rank;                  /* MPI rank of this rocsys-top (from the launcher's env), or -1 */
    uint32_t threads_blocking; /* live threads that block it (and so are not sampled) */
    /* replay (--replay DIR): the model holds a recording; start_ns..end_ns is the whole run */
    int replay;
    uint64_t range_start_ns; /* the part of the run whose samples are counted */
    uint64_t range_end_ns;
    int range_changed; /* the user moved the range: the replay recounts */
    int range_live;    /* --replay --live: the range ends where the recordings end, growing */
    /* --replay NEW --diff OLD: the OLD recording's model, compared with this one (NEW) by the
     * Diff view (tui/view_diff.c, model/diff.h); NULL: no comparison. The directories as given */
    struct model *diff_old;
    const char *diff_new_dir, *diff_old_dir;
    /* GPU monitor (gpu/gpu.h) the views read, NULL when none runs; attach_gpu: no target,
     * the GPU dashboard of the whole machine (--attach-gpu) */
    struct gpu_monitor *gpu;
    int attach_gpu;
    /* CPython in the target: ROCSYS_PY_* of the last process that reported one (-1: none seen),
     * its PY_VERSION_HEX, and samples whose Python frames could not be read safely (dropped) */
    int python_status;
    uint32_t python_version_hex;
    uint64_t python_unreadable;
    /* The HSA runtime's API table as a collector's OnLoad found it: ROCSYS_HSA_TABLE_* (-1: no
     * OnLoad seen; a declined table outranks an accepted one: the worst report is kept), the
     * release whose layout read it, the tables' major, step and size, and why (declined) */
    int hsa_table_status;
    char hsa_release[16];
    uint32_t hsa_root[3], hsa_core[3], hsa_amd[3];
    char hsa_why[112];
    struct model_causal *causal; /* --causal: the experiments (model/causal.h), else NULL */
    /* --record DIR --keep: the rolling trace keeps the last keep_ns of trace time or the last
     * keep_bytes (0 and 0: the whole run); the trace writer says at its close what it kept:
     * the first kept packet's time (MONOTONIC), chunks and bytes dropped, the trace's size,
     * and its chunks (where --replay --live finds the rest of the chunk it was reading) */
    uint64_t keep_ns, keep_bytes;
    uint64_t keep_first_ns, keep_chunks_dropped, keep_bytes_dropped, keep_trace_bytes;
    uint64_t keep_first_chunk, keep_nchunks; /* the chunks it holds: first number, count */
    uint64_t keep_chunk_bytes[16];           /* their sizes (the last 16), in order */
};

struct model *model_new(void);
void model_free(struct model *m);
struct model_session *model_session(struct model *m);
/* The session mode of --attach-gpu: GPUs monitored, no target, nothing sampled. */
#define MODEL_MODE_GPU "gpu"
/* Whether s monitors GPUs only (mode MODEL_MODE_GPU). */
int model_session_gpu_only(const struct model_session *s);
struct symbolizer *model_symbolizer(struct model *m);

/* The launched target's pid (its process is flagged is_root). */
void model_set_root_pid(struct model *m, uint32_t pid);

/* Inputs from the collector. Times are CLOCK_MONOTONIC ns. */
void model_proc_start(struct model *m, uint32_t pid, uint32_t ppid, const char *exe,
                      const char *cmdline, uint64_t time_ns);
/* Process pid runs a program without the collector, for reason why ("" clears it: an exec
 * announced so failed). */
void model_proc_set_no_collector(struct model *m, uint32_t pid, const char *why);
/* Processes whose program runs without the collector; *first (may be NULL) gets the first. */
int model_proc_no_collector_count(const struct model *m, const struct model_process **first);
/* A process ended: how and code (exit code or signal); code -1 = ended, status unknown
 * (ignored once a precise status is known). */
void model_proc_end(struct model *m, uint32_t pid, enum model_proc_state how, int code,
                    uint64_t time_ns);
struct rusage;
/* The root target's final resource usage from wait4() (CPU time, peak RSS, faults, switches). */
/* Replay: a process's metrics from a recording (recorded set, the rest zero). */
void model_proc_set_recorded(struct model *m, uint32_t pid, double cpu_pct, uint64_t rss_bytes,
                             uint64_t peak_rss_bytes);
void model_proc_final_usage(struct model *m, uint32_t pid, const struct rusage *ru);
/* Process pid belongs to MPI rank rank on host (multi-rank recordings); real_pid: its pid
 * there, when the model knows it by another number. */
void model_proc_set_rank(struct model *m, uint32_t pid, int rank, const char *host,
                         uint32_t real_pid);
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
/* A sample whose stack is already symbolized (replay of a recording): function names, root
 * first. Functions are identified by name alone (no module, file or line). */
int model_sample_symbolized(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns,
                            const char *const *functions, uint32_t n, uint32_t weight);

/* states.c: a thread state as a leaf pseudo-frame ("[blocked] futex", "[preempted]") */
#define MODEL_STATE_FRAME_TAG   0xfffc000000000000ull
#define MODEL_STATE_FRAME(id)   (MODEL_STATE_FRAME_TAG | (uint64_t)(uint32_t)(id))
#define MODEL_IS_STATE_FRAME(a) (((a)&0xffffffff00000000ull) == MODEL_STATE_FRAME_TAG)
/* The pseudo-frame of label (added on first use). */
uint64_t model_state_frame(struct model *m, const char *label);
/* The pseudo-frame of a thread that stopped running with stack frames (leaf first):
 * "[preempted]", or "[blocked] CALL" with the system call its libc function waits in, named by
 * the first frame from the leaf that says it (past glibc 2.41's cancellation wrappers and C
 * library functions without symbols); "[blocked] other" when none does. */
uint64_t model_blocked_frame(struct model *m, uint32_t pid, const uint64_t *frames, int nframes,
                             int preempted);
/* 1 while a file that model_blocked_frame would read symbols from is still being loaded (its
 * answer would be "[blocked] other" for now). */
int model_blocked_frame_pending(struct model *m, uint32_t pid, const uint64_t *frames, int nframes);
/* One frame of that walk (pure, unit-tested): f is a function of the leaf pc (leaf 1) or of a
 * caller. Returns 1 when f decides, with *call the call's name or NULL (not a wait it knows);
 * 0 when f says nothing (look at the next frame). */
int model_blocked_step(const struct sym_frame *f, int leaf, const char **call);
/* The walk over frames already symbolized, leaf first (the first nleaf are the leaf pc's,
 * outermost function first): the call's name, or "other". */
const char *model_blocked_call(const struct sym_frame *frames, int n, int nleaf);

/* The root pseudo-frame (model_state_frame) of a stack that did not reach its thread's start:
 * every cut stack under one root, never a top-level function */
#define MODEL_TRUNCATED_FRAME "[truncated]"

/* Functions a stack keeps at most (deeper ones lose their middle: root and leaf side stay). */
#define MODEL_MAX_STACK 1024

/* ---- Python (model/python.c) ----
 * Python frames are functions of module model_python_module ("[python]"): name = qualified
 * name, file = co_filename, line = the line being run (one function entry per line). */
extern const char model_python_module[];
/* What the collector found in a process: ROCSYS_PY_* and PY_VERSION_HEX (the session's
 * python_status and python_version_hex keep the last report). */
void model_python_info(struct model *m, uint32_t status, uint32_t version_hex);
/* The one-line notice about an interpreter whose frames are not read (unsupported version):
 * 1 and buf filled, or 0. */
int model_python_notice(const struct model *m, char *buf, size_t n);
/* Python frames of a CPython version_hex process that cannot be read from outside, and why
 * (python_status MODEL_PY_REFUSED; the notice says why). */
#define MODEL_PY_REFUSED 100
void model_python_refused(struct model *m, uint32_t version_hex, const char *why);
/* A code object of process pid (PY_CODE): UTF-8 name and file, first line, line table. */
void model_python_code(struct model *m, uint32_t pid, uint32_t id, int first_line, int table_kind,
                       const char *name, const char *file, const uint8_t *table, size_t table_len);
/* A sample of a thread that runs Python (holds_gil: it held the GIL), for the Threads view. */
void model_thread_python(struct model *m, uint32_t pid, uint32_t tid, int holds_gil,
                         uint32_t weight);
/* Hide the interpreter's own native frames (evaluation loop, call machinery) where Python frames
 * take their place, and symbolize its module by ELF symbols alone (--python on); else show them,
 * in full (--python native, off). */
void model_python_hide_interpreter(struct model *m, int hide);
/* A developer's check (ROCSYS_PY_MERGE_CHECK=1): how many samples had more Python evaluation
 * calls than native evaluation frames (the extra Python callers placed beyond the native
 * root), and in *first the first one's native functions. */
uint64_t model_python_merge_check(const struct model *m, const char **first);
/* The line of instruction lasti (code units) in a ROCSYS_PY_TABLE_* line table (pure). */
int model_py_line(int kind, const uint8_t *table, size_t n, int first_line, uint32_t lasti);
/* The instructions (code units) of line in a ROCSYS_PY_TABLE_* line table: up to max ranges
 * [lo, hi), the longest first; returns how many (pure). */
int model_py_line_spans(int kind, const uint8_t *table, size_t n, int first_line, int line,
                        uint32_t *lo, uint32_t *hi, int max);
/* The same for Python code id of process pid (its announced table); 0 when it is not known. */
int model_python_line_spans(struct model *m, uint32_t pid, uint32_t code_id, int line, uint32_t *lo,
                            uint32_t *hi, int max);
/* CPython's raw string storage (kind 1, 2 or 4 bytes per character) as UTF-8 (pure). */
size_t model_py_utf8(int kind, const uint8_t *raw, size_t nbytes, char *out, size_t cap);
/* How files and the trace name a function: "qualname (file.py:LINE)" for Python, else the
 * name. */
void model_python_label(const struct model_func *f, char *buf, size_t n);
/* Room for any label: a name and a file of at most ROCSYS_PY_NAME_MAX characters (4 bytes of
 * UTF-8 each), or a native name (the symbolizer cuts nothing, but C++ names rarely pass this) */
#define MODEL_LABEL_MAX (2 * 4 * 1024 + 64)

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
/* Count the processes with samples that never announced themselves (no PROC_START) and their
 * samples into the session's procs_unannounced / samples_unannounced. */
void model_count_unannounced(struct model *m);
int model_thread_count(const struct model *m);
const struct model_thread *model_thread_at(const struct model *m, int i);
int model_func_count(const struct model *m);
const struct model_func *model_func_at(const struct model *m, int i);

/* Build views' data. Free with the matching *_free. */
struct model_tree *model_tree_build(struct model *m, const struct model_filter *f);
/* 1 (default): trees without GPU time are built in 4 bytes a call path, or from the runs of
 * call paths in 16 bytes a stack and branch when that is less (deep stacks that share little);
 * 2: always the first, 3: always the second; 0: always 12 bytes a path (tests compare them). */
extern int model_tree_compact;
void model_tree_free(struct model_tree *t);
struct model_hot_list *model_hot_build(struct model *m, const struct model_filter *f);
void model_hot_free(struct model_hot_list *h);

/* Call paths: every function sequence the model counted is a path of a trie shared by all
 * threads, numbered from 1 in the order first seen (0 is the root; a parent's id is always
 * smaller than its children's). The path of a sample the model counted, 0 if its addresses do
 * not all resolve (recording writers use it to intern a stack once). */
uint32_t model_sample_path(struct model *m, uint32_t pid, const uint64_t *frames, uint32_t n);
/* The same, or 0 while a frame cannot be resolved yet (its module or Python code not announced,
 * its file loading) unless final_try (then such frames are [unknown]). */
uint32_t model_sample_path_try(struct model *m, uint32_t pid, const uint64_t *frames, uint32_t n,
                               int final_try);
/* The trie path of a stack of function names, root first (a recording's; 0 if n is 0). */
uint32_t model_names_path(struct model *m, const char *const *functions, uint32_t n);
/* The path of the last sample counted (0 before any). */
uint32_t model_last_path(const struct model *m);
/* The path of seq (root first), made if new. */
uint32_t model_path_intern(struct model *m, const uint32_t *seq, uint32_t len);
/* Paths so far (ids are below this). */
uint32_t model_path_count(const struct model *m);
/* The innermost function of path (UINT32_MAX for the root) and the path it is called from. */
uint32_t model_path_func(const struct model *m, uint32_t path);
uint32_t model_path_parent(const struct model *m, uint32_t path);

/* A stack record: the samples of one thread on one path. */
struct model_stack_info {
    uint32_t thread; /* index into the thread table */
    uint32_t path;
    uint64_t count; /* samples since start (or the last reset) */
};
/* Record i (below model_distinct_stacks), in the order first seen: 0, or -1 past the end. */
int model_stack_at(const struct model *m, size_t i, struct model_stack_info *out);

/* Number of distinct (thread, stack) entries: memory grows with this, not with run time. */
size_t model_distinct_stacks(const struct model *m);

/* ---- source lines (model/lines.c) ----
 * Self samples per source line of each function (the DWARF line of each sample's exact leaf pc;
 * an inlined function's lines are its own), since start or the last reset, all threads. */
struct model_line_count {
    const char *file; /* the path the debug info gives (the build machine's) */
    int line;
    uint64_t count; /* self samples */
};
/* The lines of function func with samples into *out (free it), in no particular order;
 * returns their number. */
int model_func_lines(const struct model *m, int func, struct model_line_count **out);
struct model_lines_summary {
    size_t records;   /* distinct (function, file, line) */
    uint64_t samples; /* counted on a line */
    uint64_t no_line; /* leaf samples without a line (no debug info, a Python leaf) */
    uint64_t full;    /* leaf samples not counted: the line table was full */
    int recorded;     /* the counts come from a recording's lines.txt */
};
void model_lines_summary(const struct model *m, struct model_lines_summary *out);
/* Replay: count self samples on a line of the function named function (lines.txt). */
void model_lines_add(struct model *m, const char *function, const char *file, int line,
                     uint64_t count);
/* Replay: the counts come from a recording's lines.txt (kept when a recount resets counts). */
void model_lines_recorded(struct model *m);
/* Write the line counts as lines.txt (docs/formats.md); 0. */
int model_lines_write(const struct model *m, FILE *f);
/* One line of lines.txt, cut in place into its fields: 1, or 0 (a comment, malformed). */
int model_lines_parse(char *s, uint64_t *count, int *line, const char **file, const char **func);

/* ---- user regions (model/regions.c) ----
 * Named regions the program pushed and popped (rocsys-top's user API, ROCTx, ROCm Systems
 * Profiler's user API). Samples taken inside regions carry them as pseudo-frames, so regions
 * are functions named "[region] NAME" (module "[region]") in trees and hot lists; this part
 * keeps their names, the open regions of each thread and the time statistics. */

/* Time statistics of one region name on one thread (durations in ns). */
struct model_region_stats {
    const char *name;        /* the region's name */
    int thread;              /* index into the thread table */
    uint64_t count;          /* completed instances */
    uint64_t open;           /* instances open now */
    uint64_t closed_at_exit; /* instances still open when their thread or process ended */
    uint64_t total_ns, min_ns, max_ns;
    double mean_ns; /* running mean (Welford) */
    double m2_ns2;  /* sum of squared deviations from the mean */
};
/* Standard deviation of the instances' durations (population), ns. */
double model_region_stddev_ns(const struct model_region_stats *s);

/* A completed region instance, as handed to the span sink (for the recording). */
struct model_region_span {
    uint32_t pid, tid;
    const char *name;
    uint64_t begin_ns, end_ns;
    int closed_at_exit; /* it was still open when its thread or process ended */
    int range;          /* a start/stop range (not nested on its thread) */
};
typedef void (*model_region_span_fn)(void *ctx, const struct model_region_span *s);
/* Where completed instances go (the session: slices of the recording). */
void model_regions_set_sink(struct model *m, model_region_span_fn fn, void *ctx);

/* Inputs from the collector. Times are CLOCK_MONOTONIC ns. */
void model_region_name(struct model *m, uint32_t pid, uint32_t id, const char *name);
void model_region_begin(struct model *m, uint32_t pid, uint32_t tid, uint32_t id, uint32_t depth,
                        uint64_t time_ns);
void model_region_end(struct model *m, uint32_t pid, uint32_t tid, uint32_t id, uint32_t depth,
                      uint64_t time_ns);
/* A completed start/stop range (counted on the thread that started it). */
void model_region_range(struct model *m, uint32_t pid, uint32_t start_tid, uint32_t id,
                        uint64_t begin_ns, uint64_t end_ns);
/* An anomaly the collector reported: ROCSYS_REGION_ERR_* of collector/protocol.h. */
void model_region_error(struct model *m, int kind);
/* The program stopped (on = 0) or restarted sampling (thread_only: for one thread). */
void model_region_sampling(struct model *m, int on, int thread_only);
/* Name OpenMP parallel regions ("omp parallel @PID:0xADDR" from the collector) by their
 * source: "omp parallel FUNCTION (FILE:LINE)" once the symbols of ADDR are loaded (final: now,
 * by address if they are not). Until then their call-tree frames wait and their spans are held. */
void model_regions_resolve(struct model *m, int final);
/* Name of region id of process pid ("#ID" until its name is known); stable until model_free. */
const char *model_region_name_of(struct model *m, uint32_t pid, uint32_t id);
/* Close the regions still open on a thread that ended, at time_ns. */
void model_regions_thread_end(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns);
/* Close the regions still open on threads that ended (or whose process ended), at that end;
 * with all (the session is over), close the others too, at now_ns. */
void model_regions_close(struct model *m, uint64_t now_ns, int all);
/* Count a mark. */
void model_region_mark(struct model *m);
/* A completed instance known as a whole (a replayed slice): counted like an END, on the thread
 * sp->tid of sp->pid, closed_at_exit included; the sink is not called. */
void model_region_completed(struct model *m, const struct model_region_span *sp);
/* Forget the statistics, marks and open instances (names stay known): a replay recounts. */
void model_regions_clear(struct model *m);
/* The statistics per (region, thread), in no particular order; valid until the next input. */
const struct model_region_stats *model_regions_stats(const struct model *m, int *count);

struct model_regions_summary {
    uint64_t unbalanced_pops; /* pops with no open region */
    uint64_t too_deep;        /* threads that pushed deeper than the collector tracks */
    uint64_t names_full;      /* pushes not recorded: the process's name table was full */
    uint64_t range_errors;    /* start/stop ranges lost (no free slot, unknown id) */
    uint64_t marks;
    uint64_t open;           /* instances open now */
    uint64_t closed_at_exit; /* instances closed by the end of their thread or process */
    int sampling_paused;     /* the program stopped sampling (process-wide) and did not restart */
};
void model_regions_summary(const struct model *m, struct model_regions_summary *out);
/* Symbolize pc if it is a region pseudo-frame: returns 1 (out filled), 0 if pc is not one, or
 * -1 if its name is not known yet and not final_try. */
int model_regions_frame(struct model *m, uint32_t pid, uint64_t pc, int final_try,
                        struct sym_frame *out);

/* ---- OpenMP parallel regions (model/omp.c) ----
 * Sums of the OMP_PARALLEL records per (process, region name id). Imbalance: the time the
 * slowest thread's work exceeds the threads' mean, as a share of the slowest's, summed over the
 * instances; barrier: the threads' time in barriers as a share of their time in the region. */
struct rocsys_rec_omp_parallel;
struct model_omp_stats {
    uint32_t pid, id;
    const char *name;                   /* filled by model_omp_stats */
    uint64_t count;                     /* instances */
    uint32_t threads;                   /* the largest team */
    uint64_t wall_ns;                   /* parallel begin to end, summed */
    uint64_t work_max_ns, work_mean_ns; /* per instance: the slowest thread's, the mean; summed */
    uint64_t work_ns;                   /* all threads' work */
    uint64_t barrier_ns, taskwait_ns;   /* all threads' waits */
    uint64_t thread_ns;                 /* threads x wall time, summed */
};
void model_omp_parallel(struct model *m, uint32_t pid, const struct rocsys_rec_omp_parallel *r);
/* The regions, in no particular order (names filled); valid until the next input. */
const struct model_omp_stats *model_omp_stats(struct model *m, int *count);
double model_omp_imbalance_pct(const struct model_omp_stats *s);
double model_omp_barrier_pct(const struct model_omp_stats *s);
/* The name of an OpenMP wait (a wait leaf's id: ompt_sync_region_t): "explicit barrier",
 * "taskwait", ... */
const char *model_omp_wait_name(int id);
/* A module the target loaded (path): libgomp is noted. */
void model_omp_module(struct model *m, const char *path);
/* The one-line notice about libgomp (no OMPT): 1 and buf filled, or 0. */
int model_omp_notice(const struct model *m, char *buf, size_t n);

/* ---- GPU kernels, HIP API calls and copies (model/kernels.c) ---- */
/* Inputs come from the collector's HIP and HSA records; names arrive in their own records, maybe
 * after the events that use them (different rings), so statistics are kept by (pid, key) and
 * joined with names when a view builds its list. Times are CLOCK_MONOTONIC ns. */

/* idle gaps between dispatches of a queue: <1us, 1-10us, ... >=100ms */
#define MODEL_GAP_BUCKETS 7
/* "gap <1us", "gap 1us-10us", ..., "gap >=100ms" */
extern const char *const model_gap_bucket_names[MODEL_GAP_BUCKETS];
/* The bucket of an idle gap of gap_ns (pure). */
int model_gap_bucket(uint64_t gap_ns);

/* Duration statistics of a set of intervals. */
struct model_duration {
    uint64_t calls;
    uint64_t total_ns, min_ns, max_ns;
    double sum_sq_ns; /* sum of squared durations, for the standard deviation */
};
void model_duration_add(struct model_duration *d, uint64_t ns);
double model_duration_avg_ns(const struct model_duration *d);
double model_duration_stddev_ns(const struct model_duration *d);

/* One kernel (dispatches merged by name over processes). */
struct model_kernel {
    const char *name;          /* demangled, ".kd" stripped; "kernel 0x..." when never named */
    struct model_duration gpu; /* GPU time of the timed dispatches */
    uint64_t dispatches;       /* dispatches seen (timed or not) */
    uint64_t hip_launches;     /* launches of it seen through the HIP API */
    int has_dims;              /* grid/block known */
    uint32_t grid[3];          /* last grid (work-items for dispatches) */
    uint32_t block[3];         /* last work-group size */
};
struct model_kernel_list {
    struct model_kernel *items;
    int count;
    uint64_t gpu_total_ns; /* GPU time of all kernels: the base of the shares */
};
/* The kernels, unsorted; free with model_kernels_list_free. */
struct model_kernel_list *model_kernels_list(struct model *m);
void model_kernels_list_free(struct model_kernel_list *l);
/* Sort a kernel list by GPU time, then HIP launches, then name. */
void model_kernels_sort_by_gpu(struct model_kernel_list *l);

/* One HIP API entry point. */
struct model_hip_api {
    const char *name;
    struct model_duration time; /* host time inside the call */
    uint64_t errors;            /* calls that returned something else than hipSuccess */
    int last_error;             /* the last non-zero result */
    int waits;                  /* it waits for the device (rocsys_hip_api_waits) */
    uint64_t wait_cpu_ns;       /* waits: CPU time the threads burned inside (the rest of
                                   time.total_ns they were blocked) */
};
/* The time threads spent in HIP calls that wait for the device, and the CPU time they burned
 * there (since the counts were last cleared). */
void model_gpu_wait_totals(const struct model *m, uint64_t *wait_ns, uint64_t *cpu_ns);

/* One GPU queue. */
struct model_gpu_queue {
    uint32_t pid;
    uint32_t agent; /* GPU ordinal (order of first queue) */
    uint64_t queue_id;
    uint64_t dispatches;
    uint64_t first_start_ns, last_end_ns;
    uint64_t busy_ns; /* union of the dispatches' [start, end] */
    uint64_t gaps[MODEL_GAP_BUCKETS];
};

/* Copies by direction and source ("hip": host time of hipMemcpy*; "hsa": async copy time). */
struct model_copy {
    const char *direction; /* "HtoD", "DtoH", "DtoD", "HtoH", "default", "async" */
    const char *source;    /* "hip" or "hsa" */
    struct model_duration time;
    uint64_t bytes;
};

/* Inputs. kind 0: a HIP name id of pid; kind 1: an HSA kernel object of pid. raw: as the
 * runtime names it (mangled, maybe with ".kd"). */
void model_kernel_name(struct model *m, uint32_t pid, int kind, uint64_t key, const char *raw);
/* A completed HIP call; launches give name_id, grid and block; copies bytes and copy_kind. */
struct model_hip_call {
    uint32_t pid, tid;
    int api;    /* ROCSYS_HIP_API_LIST id */
    int result; /* hipError_t */
    uint64_t start_ns, end_ns;
    uint32_t name_id;
    uint32_t grid[3], block[3];
    uint64_t bytes;
    int copy_kind;        /* -1: not a copy */
    uint64_t stack_key;   /* launches: the launch stack (model_launch_stack_*), 0: none */
    uint64_t wait_cpu_ns; /* calls that wait for the device: the CPU time burned inside */
    uint64_t correlation; /* launches: the id its dispatch carries (model_launch_dispatch) */
};
/* A HIP call; a launch of one kernel also counts for its launch stack (model_launch_path). */
void model_hip_call(struct model *m, const struct model_hip_call *c);
/* A dispatch (timed unless bad_time). */
void model_gpu_dispatch(struct model *m, uint32_t pid, uint32_t agent, uint64_t queue_id,
                        uint64_t kernel_object, uint64_t start_ns, uint64_t end_ns, int bad_time,
                        const uint32_t grid[3], const uint16_t block[3]);
void model_gpu_copy(struct model *m, uint32_t pid, uint64_t bytes, uint64_t start_ns,
                    uint64_t end_ns, int bad_time);
/* What a collector's OnLoad made of the HSA runtime's API table (an HSA_TABLE record). */
struct rocsys_rec_hsa_table;
void model_hsa_table(struct model *m, const struct rocsys_rec_hsa_table *r);
/* The one-line notice about a declined HSA table (GPU kernels not timed): 1 and buf filled, or
 * 0. */
int model_hsa_notice(const struct model *m, char *buf, size_t n);
/* The HSA table's report in one line ("ROCm 6.4.3 layout (API table 3.1, 64 bytes; ...)"): 1
 * and buf filled, or 0 when no OnLoad was seen. */
int model_hsa_table_text(const struct model *m, char *buf, size_t n);

/* The collector's launch stack key of process pid stands for the call stack frames (as a
 * sample's), or (a replay) for a known trie path. model_launch_stack_path gives its path (0:
 * not defined, or not resolved yet: model_launch_stack_pending says which). */
void model_launch_stack_define(struct model *m, uint32_t pid, uint64_t key, const uint64_t *frames,
                               uint32_t n);
void model_launch_stack_set_path(struct model *m, uint32_t pid, uint64_t key, uint32_t path);
uint32_t model_launch_stack_path(struct model *m, uint32_t pid, uint64_t key);
int model_launch_stack_pending(struct model *m, uint32_t pid, uint64_t key);
/* Resolve the launch stacks still pending for good (the session's end: unknown frames are
 * [unknown] from now on). */
void model_launch_stacks_finish(struct model *m);
/* The functions of a trie path, root first (or innermost first), joined by sep ("" for path 0),
 * cut at n bytes. */
void model_path_names(struct model *m, uint32_t path, const char *sep, int innermost_first,
                      char *buf, size_t n);
/* A kernel launch (HIP) by thread tid of pid from the launch stack stack_key (0: none),
 * with correlation id correlation (0: none). */
void model_launch_path(struct model *m, uint32_t pid, uint32_t tid, uint32_t name_id,
                       uint64_t stack_key, uint64_t correlation);
/* Whether any launch path has GPU time (else a tree's GPU times are all 0). */
int model_launch_gpu_any(const struct model *m);
/* Add the GPU time of the launches f keeps (its thread and rank) to gpu[path] of the path each
 * was launched from (gpu has npaths entries, model_path_count). */
void model_launch_gpu_by_path(struct model *m, const struct model_filter *f, uint64_t *gpu,
                              size_t npaths);
/* The dispatch made by launch correlation of pid took gpu_ns on the GPU (UINT64_MAX: not
 * timed): charged to the launch's call path (the dispatch may come before the launch). */
void model_launch_dispatch(struct model *m, uint32_t pid, uint64_t correlation, uint64_t gpu_ns);
/* The call paths a kernel was launched from. */
struct model_launch_path {
    uint32_t path;       /* trie path (model_path_func / model_path_parent walk it), or 0 */
    int pending;         /* path 0: captured, not resolved yet (symbols loading); else none */
    const char *name;    /* the kernel's name (NULL: not known) */
    uint64_t launches;   /* launches from the path */
    uint64_t dispatches; /* dispatches those launches made */
    uint64_t gpu_ns;     /* GPU time of the timed ones */
};
struct model_launch_path_list {
    struct model_launch_path *items; /* by GPU time, then launches */
    int count;
    uint64_t launches, gpu_ns; /* totals of the items */
};
/* The launch paths of the kernel named kernel (NULL: of every kernel, one row per kernel and
 * path); processes merged. Free with model_launch_paths_free. */
struct model_launch_path_list *model_launch_paths(struct model *m, const char *kernel);
void model_launch_paths_free(struct model_launch_path_list *l);
/* Launch paths l (one kernel's, model_launch_paths) as a caller tree: below the root (the
 * kernel), the functions that launched it, below each its callers, and so on; inclusive =
 * launches through the node, gpu_ns = their GPU time, self = launches whose outermost frame it
 * is. Free with model_tree_free. */
struct model_tree *model_launch_tree(struct model *m, const struct model_launch_path_list *l);

/* Names for events: NULL while unknown. Stable until model_free. */
const char *model_kernel_object_name(struct model *m, uint32_t pid, uint64_t kernel_object);
const char *model_hip_kernel_name(struct model *m, uint32_t pid, uint32_t name_id);
/* The name the Kernels view gives a HIP launch's kernel: its name, else "HIP kernel #ID"
 * (named never), else "(unregistered HIP kernel)" (no name id). Stable until model_free. */
const char *model_hip_kernel_label(struct model *m, uint32_t pid, uint32_t name_id);
/* Name of a HIP API id ("hipApi#N" for ids this build does not know). */
const char *model_hip_api_name(int api);
/* The id whose model_hip_api_name is name, or -1. */
int model_hip_api_id(const char *name);
/* Forget every dispatch, launch, HIP call, queue and copy (names stay known): a replay
 * recounts. */
void model_gpu_clear(struct model *m);

/* Tables; pointers valid until the next input. Only entries with calls are listed. */
int model_hip_api_count(const struct model *m);
const struct model_hip_api *model_hip_api_at(const struct model *m, int i);
int model_gpu_queue_count(const struct model *m);
const struct model_gpu_queue *model_gpu_queue_at(const struct model *m, int i);
int model_copy_count(const struct model *m);
const struct model_copy *model_copy_at(const struct model *m, int i);
/* 1 once any HIP or HSA record arrived (views say so rather than show an empty table). */
int model_gpu_seen(const struct model *m);

/* Name helpers (pure): strip ".kd" and demangle (C names stay as they are). */
void model_kernel_clean_name(const char *raw, char *out, size_t n);
/* Whether a kernel's clean name (demangled) is want: whole, or without its parameters, return
 * type or template arguments (--progress kernel:NAME). */
int model_kernel_name_matches(const char *clean, const char *want);
/* Fold template arguments: every outermost "<...>" becomes "<…>" (utf8) or "<...>". */
void model_kernel_fold_name(const char *name, char *out, size_t n, int utf8);

#endif
