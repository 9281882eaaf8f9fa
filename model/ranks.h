/* The ranks of a multi-rank recording (model/ranks.c): one row per MPI rank with its
 * processes summed (CPU %, samples, GPU kernel time, MPI time, a chosen region's time, its
 * hottest function) and its load against the mean of all ranks. Read by the Ranks view
 * (tui/view_ranks.c), its batch section and --merge's merged-profile.txt (session/merge.c). */
#ifndef ROCSYS_MODEL_RANKS_H
#define ROCSYS_MODEL_RANKS_H

#include <stdio.h>

#include "model/model.h"

struct model_mpi_stats;

/* One rank: its processes summed. */
struct model_rank_row {
    int rank;
    char host[64];
    uint32_t pid;   /* real_pid of its first process */
    int procs;      /* its processes */
    double cpu_pct; /* sum of its processes' CPU %, NAN when none is known */
    uint64_t samples;
    int hot_func;                 /* its hottest function by self samples, -1: none */
    uint64_t hot_self;            /* that function's self samples */
    uint64_t hot_total;           /* the samples its hot list counted */
    uint64_t gpu_ns, gpu_disp;    /* kernel time and dispatches */
    uint64_t region_ns;           /* total time of the selected region on its threads */
    double imbal;                 /* load against the mean of all ranks, %; NAN: no mean */
    uint64_t mpi_ns, mpi_span_ns; /* time in MPI calls, and the MPI span it is a share of */
    const struct model_mpi_stats *mpi_top; /* the MPI call with the most time, NULL: none */
};

/* Every rank of a model, rows in rank order unless sorted. */
struct model_rank_table {
    struct model_rank_row *rows;
    int count;
    size_t cap;
    int hosts;          /* distinct host names */
    uint64_t span_ns;   /* what GPU% is a share of: the replayed range or the run */
    const char *region; /* the region of the REGION column, NULL: none */
    int region_load;    /* 1: the region's time is the load; 0: the samples are */
};

/* A rank's cells as text, shared by the view and the text table. */
struct model_rank_cells {
    char rank[16], pid[16], cpu[16], samples[24], gpu_ms[24], gpu_pct[16], region[24];
    char imbal[16], hot_pct[16], mpi_pct[16];
    const char *hot;     /* the hottest function's name, "-" */
    const char *mpi_top; /* the MPI call with the most time, "-" */
};

/* Fill tb with the model's ranks (rows in rank order); window: samples of the sliding window;
 * region, region_load: as model_ranks_load. One hot list per rank. */
void model_ranks_build(struct model *m, int window, const char *region, int region_load,
                       struct model_rank_table *tb);
/* The region column (region NULL: none) and the imbalance, whose load is the region's time
 * when region_load, else the samples. tb's rows must be in rank order. */
void model_ranks_load(struct model *m, struct model_rank_table *tb, const char *region,
                      int region_load);
void model_ranks_free(struct model_rank_table *tb);
/* The load the imbalance compares: the region's time, or the samples. */
uint64_t model_ranks_row_load(const struct model_rank_table *tb, const struct model_rank_row *r);
/* The rank of the process of thread index i, -1 if none. */
int model_ranks_thread_rank(struct model *m, int i);
/* The region with the most time of all (ties: the first by name), NULL when none. */
const char *model_ranks_top_region(struct model *m);
/* The region name after cur in name order (NULL cur: the first), NULL after the last. */
const char *model_ranks_next_region(struct model *m, const char *cur);
/* The rank filter after only_rank (struct model_filter: 1 + rank, 0 = all ranks): the next
 * rank in order, then 0 after the last; -1 when no process has a rank. */
int model_ranks_next(struct model *m, int only_rank);
/* Fill c for row r; times in ms with ms_digits decimals. */
void model_ranks_cells(struct model *m, const struct model_rank_table *tb,
                       const struct model_rank_row *r, int ms_digits, struct model_rank_cells *c);
/* One line saying what the table compares: "3 ranks on 2 hosts; load (IMBAL): samples;
 * REGION: solve; most loaded: rank 1 +12.3%". */
void model_ranks_summary(const struct model_rank_table *tb, char *buf, size_t n);
/* Write the table as aligned text, columns splittable on blanks (the function name last); at
 * most max_rows rows (<= 0: all). */
void model_ranks_print(FILE *out, struct model *m, const struct model_rank_table *tb, int max_rows);
/* The summary line and the table of the model's ranks (the region with the most time as the
 * REGION column, samples as the load); nothing when no process has a rank. */
void model_ranks_write(FILE *out, struct model *m);

#endif
