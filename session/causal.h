/* Causal profiling in the front end (--causal), shared by its two files: causal.c runs the
 * experiments (slices, the collector's block, the results), causal_choose.c chooses what they
 * run on (the recent samples' functions, Python functions, hot lines). */
#ifndef ROCSYS_SESSION_CAUSAL_H
#define ROCSYS_SESSION_CAUSAL_H

#include "collector/protocol.h"

#include <stddef.h>
#include <stdint.h>

#define CAUSAL_PCS              2048          /* recent sampled pcs of the target, to choose from */
#define CAUSAL_LEN_MIN_NS       1000000000ull /* each half: Coz's ExperimentMinTime, 0.5 s */
#define CAUSAL_LEN_MAX_NS       8000000000ull
#define CAUSAL_COOL_NS          10000000ull  /* between experiments */
#define CAUSAL_SLICE_NS         100000000ull /* an experiment alternates speedup and 0 % slices */
#define CAUSAL_OVERRUN_NS       200000000ull /* a slice this long: the front end was held up */
#define CAUSAL_RANGE_CACHE      256
#define CAUSAL_MIN_SHARE        0.02 /* a candidate has this share of the recent in-scope samples */
#define CAUSAL_PROGRESS_WAIT_NS 10000000000ull /* --progress FUNC not found after this: said */
#define CAUSAL_LINE_FUNCS       3    /* the top functions whose hot lines get experiments */
#define CAUSAL_LINES_PER_FUNC   4    /* hot lines of a function, at most */
#define CAUSAL_LINE_SHARE       0.10 /* a hot line has this share of its function's samples */
#define CAUSAL_LINE_AFTER       10   /* a function's lines: once it has had this many experiments */
#define CAUSAL_LINES            (CAUSAL_LINE_FUNCS * CAUSAL_LINES_PER_FUNC * 2)

struct causal_range {
    uint64_t lo, hi; /* code; a Python function: its ROCSYS_PY_AT_KEY range */
    size_t func;     /* index in the model's functions; SIZE_MAX: out of scope */
    int python;
};

/* A hot source line of a function with a gain: its code (a line is often several ranges). */
struct causal_line {
    size_t entry, func; /* its model entry, and its function's */
    int python;         /* ROCSYS_PY_AT_KEY ranges (a Python function's line) */
    uint32_t nr;
    uint64_t lo[ROCSYS_CAUSAL_RANGES], hi[ROCSYS_CAUSAL_RANGES];
};

struct session_causal {
    struct rocsys_causal_ctl *ctl;
    uint32_t pid;
    char exe[256];            /* basename of the executable: the scope */
    int exe_known;            /* exe is the process's own (argv[0] may be a symbolic link) */
    uint64_t pcs[CAUSAL_PCS]; /* their leaves */
    uint64_t pys[CAUSAL_PCS]; /* their innermost Python frames (a Python function's time), 0 */
    size_t npcs, next_pc;
    struct causal_range cache[CAUSAL_RANGE_CACHE];
    size_t ncache;
    uint64_t rng;
    struct causal_line lines[CAUSAL_LINES];
    size_t nlines;
    uint8_t lines_tried[CAUSAL_RANGE_CACHE]; /* functions whose hot lines were looked for */
    int line_turn; /* the last experiment went to a line: the next one to a function */
    int running;
    size_t func; /* the model entry experimented on: a function or a line */
    int pct;
    uint32_t nr; /* its code: nr ranges */
    uint64_t lo[ROCSYS_CAUSAL_RANGES], hi[ROCSYS_CAUSAL_RANGES];
    int python; /* the ranges are a Python function's code ids */
    uint64_t t0, g0, sel0, p0;
    uint64_t area0, skip0, dep0; /* latency points: at the running slice's start */
    uint64_t own0;               /* own_ns at the running slice's start */
    int on;                      /* the running slice has the speedup (else 0 %) */
    uint64_t slice_ns;           /* when the running slice started */
    uint64_t longest_ns;         /* the experiment's longest slice */
    uint64_t cpu0, wait0;        /* the threads' times on and waiting for a CPU, at its start */
    struct causal_half {
        uint64_t elapsed_ns, delay_ns, delta, selected;
        uint64_t area_ns, departures; /* latency: in-flight x time, less the delays' cut */
        uint64_t cpu_ns, wait_ns; /* wall time: the threads' time on a CPU, and waiting for one */
    } sum[2];                     /* the experiment's 0 % slices [0] and speedup slices [1] */
    int kind;                     /* ROCSYS_CAUSAL_PP_* measured, -1 until progress is seen */
    int bp_silent;                /* --progress FUNC: this machine's breakpoints never fire */
    uint64_t len_ns, next_ns, start_ns;
};

struct session;

/* xorshift64*: the experiments' random draws. */
uint64_t causal_rand(struct session_causal *c);
/* The scope: the executable the process runs, as its PROC_START named it. */
void causal_learn_exe(struct session *s);
/* The next experiment's model entry (a function or a hot line), SIZE_MAX when none qualifies
 * yet (causal_choose.c). */
size_t causal_choose(struct session *s);
/* The code of model entry idx into the running experiment's ranges (c->nr, lo, hi, python);
 * 0 if unknown. */
int causal_range_of(struct session_causal *c, size_t idx);

#endif
