/* Causal profiling results (--causal): the experiments run on each function (virtual speedup,
 * effective duration, progress made) and what they predict: the program's speedup if the
 * function were that much faster (Coz's method: progress rate per unit of time not spent in
 * inserted delays, against the 0 % baseline experiments), or its latency between two points. */
#ifndef ROCSYS_MODEL_CAUSAL_H
#define ROCSYS_MODEL_CAUSAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MODEL_CAUSAL_MIN_DELTA 5  /* an experiment counts with this much progress, at least */
#define MODEL_CAUSAL_STEPS     11 /* predictions shown at 0, 10, ..., 100 % */

struct model_causal_exp {
    uint64_t start_ns;    /* when it started (CLOCK_MONOTONIC) */
    int speedup_pct;      /* 0-100, steps of 5 */
    uint64_t duration_ns; /* elapsed minus the delays inserted meanwhile, as the program's time
                           * (session/causal.c: own clock, or scaled by its CPU share) */
    uint64_t delta;       /* progress points reached */
    uint64_t selected;    /* samples in the function */
    /* latency points (model_causal.latency): the area under the count in flight (ns), in
     * virtual time (less what the inserted delays cut), and the departures; delta counts the
     * arrivals. Latency by Little's law: area_ns / delta. */
    uint64_t area_ns;
    uint64_t departures;
};

struct model_causal_func {
    char *name;     /* function; a line: basename:line */
    char *location; /* file:line of its definition, or its module; a line: path:line */
    int parent;     /* -1: a function; a source line of function f[parent] (its hot lines) */
    struct model_causal_exp *exp;
    size_t nexp, cap;
};

/* A function's curve: program speedup (fraction) predicted at 0, 10, ..., 100 % (the mean of
 * the experiments within 5 % of the step; NAN where none), and a line fitted through the origin
 * to every experiment's measured speedup, +- its 95 % interval. An experiment's speedup is
 * measured against its own 0 % slices (session/causal.c), else against the 0 % experiments
 * nearest to it in time, whatever function they selected (at 0 % nothing is delayed, so the
 * selection does not matter): the machine's load drifts, and a baseline taken at the same time
 * cancels the drift. Valid when there are baselines and
 * experiments at two speedups at least. */
struct model_causal_curve {
    int valid;
    double slope; /* predicted program speedup at 100 % */
    double slope_ci;
    double gain[MODEL_CAUSAL_STEPS];
    double ci[MODEL_CAUSAL_STEPS];
    int experiments, baselines;
};

struct model_causal {
    struct model_causal_func *f;
    size_t n, cap;
    struct model_causal_exp *base; /* every 0 % experiment, in time order */
    size_t nbase, base_cap;
    char progress[160];      /* the progress point experiments measure */
    int latency;             /* it is a latency point (begin, end): predictions are of latency */
    char note[200];          /* what runs now, or why nothing does */
    uint64_t experiments;    /* run, including those with too little progress */
    uint64_t kept;           /* with enough progress to count */
    uint64_t stalled;        /* not counted: one of its halves stalled */
    uint64_t exp_len_ns;     /* the length experiments have now */
    uint64_t paid_ns;        /* delays the threads slept */
    uint64_t progress_total; /* the progress point reached, since the start */
};

struct model_causal *model_causal_new(void);
void model_causal_free(struct model_causal *c);
/* The function named name (added if new). */
struct model_causal_func *model_causal_func(struct model_causal *c, const char *name,
                                            const char *location);
/* The source line named name (basename:line) of function f[parent] (added if new). */
struct model_causal_func *model_causal_line(struct model_causal *c, size_t parent, const char *name,
                                            const char *location);
/* One experiment's result (in time order). */
void model_causal_add(struct model_causal *c, struct model_causal_func *f,
                      const struct model_causal_exp *e);
/* f's curve into out. */
void model_causal_curve(const struct model_causal *c, const struct model_causal_func *f,
                        struct model_causal_curve *out);
/* The functions, best predicted gain at 20 % (the fitted line's) first (those without a curve
 * last), each followed by its lines in the same order: indexes into c->f in order (count
 * c->n; free with free()). */
size_t *model_causal_order(const struct model_causal *c);
/* The table as text (batch frames, tests): a line per function, at most max_rows (0: all). */
void model_causal_print(FILE *out, const struct model_causal *c, int max_rows);

struct model;
/* The Python function of code id (ROCSYS_PY_FRAME_CODE) in process pid: its qualified name
 * and where it is defined ("file:line"). 1; 0 while its description is not known (yet). */
int model_causal_python_func(struct model *m, uint32_t pid, uint32_t code_id, char *name,
                             size_t name_cap, char *loc, size_t loc_cap);
/* The function holding pc in process pid, in module (a basename; NULL: any): its code
 * [lo, hi) (absolute, from its ELF symbol), its name and where it is defined. 1; 0 when pc is
 * in another module or no sized symbol covers it; -1 while the file's symbols load. */
int model_causal_func_range(struct model *m, uint32_t pid, uint64_t pc, const char *module,
                            uint64_t *lo, uint64_t *hi, char *name, size_t name_cap, char *loc,
                            size_t loc_cap);
/* Where the function symbol (its ELF name) of the module holding pc starts in pid; 0 if it
 * has none (or the file's symbols are not loaded yet). */
uint64_t model_causal_symbol(struct model *m, uint32_t pid, uint64_t pc, const char *symbol);
/* The source line of pc (its line table row: an inlined callee's line, as Coz): file (as the
 * line table names it) and line; 1, or 0 without line information. */
int model_causal_pc_line(struct model *m, uint32_t pid, uint64_t pc, char *file, size_t cap,
                         int *line);
/* The code of source line (file, line) within [lo, hi) (a function's, absolute) in the module
 * holding pc, from its compilation unit's line table: up to max ranges [rlo, rhi), the longest
 * first (a line is often several). Returns how many. */
int model_causal_line_ranges(struct model *m, uint32_t pid, uint64_t pc, uint64_t lo, uint64_t hi,
                             const char *file, int line, uint64_t *rlo, uint64_t *rhi, int max);
/* The source line of a Python frame (ROCSYS_PY_FRAME) of pid: its file and line; 1, or 0 while
 * its code is not known. */
int model_causal_python_line(struct model *m, uint32_t pid, uint64_t frame, char *file, size_t cap,
                             int *line);
/* The instructions of line in Python code code_id of pid, as ROCSYS_PY_AT_KEY ranges
 * [rlo, rhi): up to max, the longest first. Returns how many. */
int model_causal_python_line_ranges(struct model *m, uint32_t pid, uint32_t code_id, int line,
                                    uint64_t *rlo, uint64_t *rhi, int max);

#endif
