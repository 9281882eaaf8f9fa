/* MPI calls of the profiled processes (model/mpi.c): what the MPI view, the Ranks view's MPI
 * columns, mpi.csv and the end-of-recording summary read; fed by session/mpi.c (the collector's
 * MPI_CALL records) and session/replay_decode.c (a trace's "mpi" slices). */
#ifndef ROCSYS_MODEL_MPI_H
#define ROCSYS_MODEL_MPI_H

#include "model/model.h"

/* MPI (mpi.c): the calls of the processes, per process and call. */
#define MODEL_MPI_CALLS 64 /* = ROCSYS_MPI_CALL_MAX: call ids are below this */
struct model_mpi_stats {
    const char *name; /* "MPI_Allreduce" */
    int call;         /* id of ROCSYS_MPI_CALL_LIST */
    int waits;        /* it waits for other ranks (rocsys_mpi_call_waits) */
    struct model_duration time;
    uint64_t bytes;     /* payload moved (mpi.csv's Bytes) */
    uint64_t errors;    /* calls that returned something else than MPI_SUCCESS */
    uint32_t comm_size; /* the largest communicator it was called on (0: none) */
};
/* One completed MPI call. */
struct model_mpi_input {
    uint32_t pid, tid;
    int call; /* id of ROCSYS_MPI_CALL_LIST */
    int result;
    uint64_t start_ns, end_ns, bytes;
    int peer; /* -1: none or any */
    uint32_t comm_size;
    uint64_t stack_key; /* the calling stack (model_launch_stack_*), 0: none */
};
void model_mpi_call(struct model *m, const struct model_mpi_input *c);
/* One MPI call from one call path (summed over the processes a filter keeps). */
struct model_mpi_path {
    const char *name; /* the call */
    uint32_t path;    /* the trie path it was called from (0: not known) */
    struct model_duration time;
    uint64_t bytes;
};
/* The calls per call path of the processes of rank only_rank - 1 (0: every process), by time
 * (most first); *n their number. Free with free(). */
struct model_mpi_path *model_mpi_paths(struct model *m, int only_rank, int *n);
/* 1 once any MPI call was counted. */
int model_mpi_seen(const struct model *m);
/* Forget the calls (a replay recounts; model_gpu_clear does it too). */
void model_mpi_clear(struct model *m);
/* The name of MPI call id ("MPI_?" for an id this build does not know); the id of a name or
 * -1. */
const char *model_mpi_call_name(int id);
int model_mpi_call_id(const char *name);
/* The calls of the processes of rank only_rank - 1 (0: every process) summed per call into out
 * (its first entries, by time, most first); *span_ns: the sum of their MPI spans (from their
 * first call's start to MPI_Finalize's end, or to now_ns while not finalized): what the calls'
 * time is a share of. Returns how many calls. */
int model_mpi_totals(const struct model *m, int only_rank, uint64_t now_ns,
                     struct model_mpi_stats out[MODEL_MPI_CALLS], uint64_t *span_ns);
/* Process pid's MPI time, its MPI span (as model_mpi_totals) and its call with the most time
 * (top may be NULL); 0 when it made no MPI call. */
int model_mpi_process(const struct model *m, uint32_t pid, uint64_t now_ns, uint64_t *total_ns,
                      uint64_t *span_ns, const struct model_mpi_stats **top);

#endif
