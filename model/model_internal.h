/* Private header of the model module: the model's state, shared by its source files. */
#ifndef ROCSYS_MODEL_MODEL_INTERNAL_H
#define ROCSYS_MODEL_MODEL_INTERNAL_H

#include "base/hashmap.h"
#include "model.h"

#define MODEL_WINDOW_BUCKETS 64 /* seconds of sliding-window history kept, at most */

/* A stack counted during one second, with its weight. */
struct model_bucket_entry {
    uint32_t id;
    uint32_t weight;
};

/* Stacks sampled during one second. */
struct model_bucket {
    uint64_t sec;
    struct model_bucket_entry *ids;
    size_t n, cap;
};

/* The trie of call paths (shared by threads): path p calls a function from its parent path,
 * which is p - 1 (a path made right after its parent: every deeper frame of a new stack) or,
 * when PATH_BRANCH is set in its word, the parent its branch record names. Only branches are
 * hashed: the child of p that calls f is p + 1 without PATH_BRANCH, or a branch record. */
#define MODEL_PATH_BRANCH   0x80000000u /* in a path's word: its parent is a branch record's */
#define MODEL_PATH_BRANCH16 0x8000u     /* the same in a 16-bit word */
struct model_path_branch {
    uint32_t path;   /* the path (ascending: records are made in path order) */
    uint32_t parent; /* its parent path */
};

/* A hash set of ids (4 bytes a slot: id + 1, 0 = empty) whose keys are recomputed from the
 * entries they name, so a path or a stack costs its record and about 8 bytes of table. */
struct model_idset {
    uint32_t *slots;
    size_t cap, count; /* cap: a power of two, at most 3/4 full */
};

/* The samples of one thread whose function sequence is a path of the trie. */
struct model_stack {
    uint32_t thread;
    uint32_t path;
    uint64_t count;
    uint64_t window_count;
};

/* stacks.c: count weight samples of function sequence seq (root first) in thread; returns
 * its path. */
uint32_t model_stack_count(struct model *m, uint32_t thread, const uint32_t *seq, uint32_t len,
                           uint32_t weight);
void model_stacks_free(struct model *m);

/* lines.c: the line record of (func, file, line), made if new (1, 2, ...; 0: no file or line;
 * UINT32_MAX: the table is full); count a sample's weight on its leaf's record; zero the
 * counts (not those of a recording); free. */
struct model_lines;
uint32_t model_lines_intern(struct model *m, uint32_t func, const char *file, int line);
void model_lines_count(struct model *m, uint32_t rec, uint32_t leaf_func, uint64_t weight);
void model_lines_reset(struct model *m);
void model_lines_free(struct model *m);
/* profile.c: the function id of a replayed function name (made if new). */
uint32_t model_func_named(struct model *m, const char *name);

/* states.c */
int model_state_sym(struct model *m, uint64_t pc, struct sym_frame *out);
void model_states_free(struct model *m);

struct model_output; /* profile.c: the process entry of pid, writable, or NULL. */
struct model_process *model_process_mut(struct model *m, uint32_t pid);

/* output.c */
struct model_procfs; /* procfs.c */

struct model {
    struct model_session session;
    struct symbolizer *sym;
    uint32_t root_pid;
    int own_maps_read; /* this front end's own modules were given to the symbolizer (its pid) */

    struct model_process *procs;
    int nproc;
    size_t proc_cap;

    struct model_thread *threads;
    int nthreads;
    size_t thread_cap;
    struct hashmap thread_map; /* (pid, tid) -> index + 1 */

    struct model_func *funcs;
    int nfuncs;
    size_t func_cap;
    struct hashmap func_map; /* (name, module) -> index + 1 */
    struct hashmap name_map; /* replayed function name -> index + 1 into names */
    char **names;            /* names of replayed functions (a recording has no addresses) */
    size_t nnames, names_cap;

    struct addr_entry *addrs;
    size_t naddrs, addr_cap;
    uint32_t *addr_funcs;
    size_t naddr_funcs, addr_funcs_cap;
    struct hashmap addr_map; /* (pid, pc, is_ret) -> index + 1 */

    /* the trie of call paths (stacks.c): function | MODEL_PATH_BRANCH a path; 0: the root. In
     * 16 bits a path (paths16, MODEL_PATH_BRANCH16) while every function's index fits in 15,
     * then in 32 (paths) */
    uint32_t *paths;
    uint16_t *paths16;
    size_t npaths, path_cap;
    struct model_path_branch *branches; /* paths whose parent is not the path before them */
    size_t nbranches, branch_cap;
    struct model_idset branch_set; /* branch records by (parent path, function) */
    struct model_stack *stacks;
    size_t nstacks, stack_cap;
    struct model_idset stack_set; /* stacks by (path, thread) */
    uint32_t last_path;           /* the path of the last sample counted */

    struct model_bucket buckets[MODEL_WINDOW_BUCKETS];
    uint64_t bucket_now; /* second (CLOCK_MONOTONIC) new samples are counted in */

    struct model_output *output;
    struct model_procfs *procfs;
    struct model_regions *regions;   /* regions.c, created on first use */
    struct model_kernels *kernels;   /* kernels.c, created on first use */
    struct model_launches *launches; /* launch_paths.c, created on first use */
    struct model_python *python;     /* python.c, created on first use */
    struct model_lines *lines;       /* lines.c, created on first use */
    struct model_omp *omp;           /* omp.c, created on first use */
    struct model_mpi *mpi;           /* mpi.c, created on first use */
    char **states;                   /* states.c: labels of the state pseudo-frames */
    size_t nstates, states_cap;
};

/* stacks.c: the trie's paths. The root is path 0; a path's word is its function |
 * MODEL_PATH_BRANCH. */
#define MODEL_PATH_ROOT       0u
#define MODEL_PATH_FUNC(word) ((word) & ~MODEL_PATH_BRANCH)
#define MODEL_FUNC16_END      0x7fffu /* functions below it fit in 16 bits (the root's is it) */

/* Path p's word: function | MODEL_PATH_BRANCH. */
static inline uint32_t model_path_word(const struct model *m, size_t p)
{
    uint32_t w;

    if (m->paths)
        return m->paths[p];
    w = m->paths16[p];
    return (w & MODEL_FUNC16_END) | (w & MODEL_PATH_BRANCH16 ? MODEL_PATH_BRANCH : 0);
}

/* The parents of paths p taken in descending (or ascending) order, without a search: *k
 * walks the branch records along (start it at nbranches, or 0). */
uint32_t model_path_parent_desc(const struct model *m, uint32_t p, size_t *k);
uint32_t model_path_parent_asc(const struct model *m, uint32_t p, size_t *k);

/* profile.c: index of the live thread (pid, tid), created if unknown. */
uint32_t model_thread_get(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns);
/* profile.c: like model_thread_get, but never makes a new entry for an ended thread. */
uint32_t model_thread_discover(struct model *m, uint32_t pid, uint32_t tid, uint64_t time_ns);

/* profile.c: the process entry of pid, writable, or NULL. */
struct model_process *model_process_mut(struct model *m, uint32_t pid);

/* output.c */
void model_output_free(struct model *m);

/* regions.c */
void model_regions_free(struct model *m);
/* omp.c */
void model_omp_free(struct model *m);

/* kernels.c */
void model_kernels_free(struct model *m);

/* mpi.c */
void model_mpi_free(struct model *m);

/* launch_paths.c */
void model_launches_free(struct model *m);
/* Forget the launch paths (with the GPU counts: model_gpu_clear). */
void model_launches_clear(struct model *m);

/* profile.c: the model's own copy of a string (one pointer per distinct string). */
const char *model_intern(struct model *m, const char *s);

/* python.c */
void model_python_free(struct model *m);
/* Process pid exec'ed: its code ids from now on are new ones. */
void model_python_exec(struct model *m, uint32_t pid);
/* What else identifies a Python pseudo-frame pc of pid in the address cache: its image, and
 * whether its code object is known (a frame resolved as unknown is looked up again once its
 * PY_CODE arrives). */
uint64_t model_python_salt(struct model *m, uint32_t pid, uint64_t pc);
/* Symbolize pc if it is a Python pseudo-frame: 1 (out filled), 0 if it is not one, -1 if its
 * code object is not announced yet and not final_try. */
int model_python_frame(struct model *m, uint32_t pid, uint64_t pc, int final_try,
                       struct sym_frame *out);
/* python.c: whether function f is left out of a sample that has no Python frames, as the merge
 * leaves it out of every other sample (the process's Python frames are read and the
 * interpreter's frames hidden): a perf trampoline of 3.12+'s -X perf ("py::NAME:FILE" in [jit];
 * a sample whose walk was not paired, or cut, still has them), or an evaluation frame whose
 * Python frame was not linked yet or any more (its prologue or epilogue, the outermost call). */
int model_python_hidden_alone(struct model *m, uint32_t f);
/* Merge one sample: native[i] are the function ids of native frame i (innermost first, each
 * innermost inline first), py[j] those of Python frame j (pentry[j]: the outermost of its
 * evaluation call; pat[j], for such a frame, the native frame that runs its group, or
 * ROCSYS_PY_AT_UNKNOWN). Writes the merged function ids, innermost first; returns how many. */
uint32_t model_python_merge(struct model *m, const uint32_t *const *native, const uint32_t *nlen,
                            uint32_t nn, const uint32_t *const *py, const uint32_t *plen,
                            const int *pentry, const uint32_t *pat, uint32_t np, uint32_t *out,
                            uint32_t max);

/* procfs.c */
struct model_procfs_stat {
    char comm[64]; /* the name between the parentheses */
    char state;
    uint64_t minflt, majflt;
    uint64_t utime_ticks, stime_ticks;
    uint32_t num_threads;
};
struct model_procfs_status {
    uint64_t rss_bytes, peak_rss_bytes;
    uint64_t vol_ctx, invol_ctx;
    uint64_t sig_blocked; /* SigBlk: bit n-1 set = signal n blocked */
};
/* Parse /proc/PID/stat text. Returns 0 or -1 on malformed input. */
int model_procfs_parse_stat(const char *buf, struct model_procfs_stat *out);
/* Parse /proc/PID/status text (missing keys stay 0). */
int model_procfs_parse_status(const char *buf, struct model_procfs_status *out);
void model_procfs_free(struct model *m);
/* Read /proc/PID/task/TID/comm into buf ("" if gone). */
void model_procfs_thread_name(uint32_t pid, uint32_t tid, char *buf, size_t cap);

#endif
