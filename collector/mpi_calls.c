/* The MPI wrappers, one row per entry point of ROCSYS_MPI_CALL_LIST (MPI_WRAP, mpi_wrap.h):
 * the C prototypes of the MPI standard with handles as mpi_handle; after a call that succeeded,
 * the payload it moved (the caller's buffer: count x datatype; v-variants, waits and tests: 0),
 * the peer of a point-to-point call and the communicator's size. */
#define _GNU_SOURCE
#include "mpi_wrap.h"

typedef const void *cbuf;
typedef void *buf;
typedef const int *cints;
typedef void *req;    /* MPI_Request *, MPI_Request[] */
typedef void *status; /* MPI_Status *, MPI_Status[] */

/* clang-format off */
/* start-up and shut-down: no communicator yet (or any more) */
MPI_WRAP(MPI_Init, (int *argc, char ***argv), (argc, argv), NONE)
MPI_WRAP(MPI_Init_thread, (int *argc, char ***argv, int required, int *provided),
         (argc, argv, required, provided), NONE)
MPI_WRAP(MPI_Finalize, (void), (), NONE)

/* point to point */
#define SEND_P (cbuf b, int n, mpi_handle dt, int dest, int tag, mpi_handle comm)
#define SEND_A (b, n, dt, dest, tag, comm)
#define SEND_I (BYTES(n, dt), PEER(dest), COMM(comm))
MPI_WRAP(MPI_Send, SEND_P, SEND_A, SEND_I)
MPI_WRAP(MPI_Ssend, SEND_P, SEND_A, SEND_I)
MPI_WRAP(MPI_Bsend, SEND_P, SEND_A, SEND_I)
MPI_WRAP(MPI_Rsend, SEND_P, SEND_A, SEND_I)
MPI_WRAP(MPI_Recv, (buf b, int n, mpi_handle dt, int src, int tag, mpi_handle comm, status st),
         (b, n, dt, src, tag, comm, st), (BYTES(n, dt), PEER(src), COMM(comm)))
#define ISEND_P (cbuf b, int n, mpi_handle dt, int dest, int tag, mpi_handle comm, req r)
#define ISEND_A (b, n, dt, dest, tag, comm, r)
MPI_WRAP(MPI_Isend, ISEND_P, ISEND_A, SEND_I)
MPI_WRAP(MPI_Issend, ISEND_P, ISEND_A, SEND_I)
MPI_WRAP(MPI_Irecv, (buf b, int n, mpi_handle dt, int src, int tag, mpi_handle comm, req r),
         (b, n, dt, src, tag, comm, r), (BYTES(n, dt), PEER(src), COMM(comm)))
MPI_WRAP(MPI_Sendrecv,
         (cbuf sb, int sn, mpi_handle st, int dest, int stag, buf rb, int rn, mpi_handle rt,
          int src, int rtag, mpi_handle comm, status s),
         (sb, sn, st, dest, stag, rb, rn, rt, src, rtag, comm, s),
         (bytes_ = mpi_bytes(sn, st) + mpi_bytes(rn, rt), PEER(dest), COMM(comm)))
MPI_WRAP(MPI_Sendrecv_replace,
         (buf b, int n, mpi_handle dt, int dest, int stag, int src, int rtag, mpi_handle comm,
          status s),
         (b, n, dt, dest, stag, src, rtag, comm, s), (BYTES(n, dt), PEER(dest), COMM(comm)))
MPI_WRAP(MPI_Probe, (int src, int tag, mpi_handle comm, status s), (src, tag, comm, s),
         (PEER(src), COMM(comm)))
MPI_WRAP(MPI_Iprobe, (int src, int tag, mpi_handle comm, int *flag, status s),
         (src, tag, comm, flag, s), (PEER(src), COMM(comm)))

/* completion */
MPI_WRAP(MPI_Wait, (req r, status s), (r, s), NONE)
MPI_WRAP(MPI_Waitall, (int n, req r, status s), (n, r, s), NONE)
MPI_WRAP(MPI_Waitany, (int n, req r, int *idx, status s), (n, r, idx, s), NONE)
MPI_WRAP(MPI_Waitsome, (int n, req r, int *outn, int *idx, status s), (n, r, outn, idx, s), NONE)
MPI_WRAP(MPI_Test, (req r, int *flag, status s), (r, flag, s), NONE)
MPI_WRAP(MPI_Testall, (int n, req r, int *flag, status s), (n, r, flag, s), NONE)
MPI_WRAP(MPI_Testany, (int n, req r, int *idx, int *flag, status s), (n, r, idx, flag, s), NONE)
MPI_WRAP(MPI_Testsome, (int n, req r, int *outn, int *idx, status s), (n, r, outn, idx, s), NONE)

/* collectives */
MPI_WRAP(MPI_Barrier, (mpi_handle comm), (comm), COMM(comm))
MPI_WRAP(MPI_Ibarrier, (mpi_handle comm, req r), (comm, r), COMM(comm))
MPI_WRAP(MPI_Bcast, (buf b, int n, mpi_handle dt, int root, mpi_handle comm),
         (b, n, dt, root, comm), (BYTES(n, dt), COMM(comm)))
MPI_WRAP(MPI_Ibcast, (buf b, int n, mpi_handle dt, int root, mpi_handle comm, req r),
         (b, n, dt, root, comm, r), (BYTES(n, dt), COMM(comm)))
#define REDUCE_P (cbuf sb, buf rb, int n, mpi_handle dt, mpi_handle op, mpi_handle comm)
#define REDUCE_A (sb, rb, n, dt, op, comm)
#define REDUCE_I (BYTES(n, dt), COMM(comm))
MPI_WRAP(MPI_Allreduce, REDUCE_P, REDUCE_A, REDUCE_I)
MPI_WRAP(MPI_Scan, REDUCE_P, REDUCE_A, REDUCE_I)
MPI_WRAP(MPI_Exscan, REDUCE_P, REDUCE_A, REDUCE_I)
MPI_WRAP(MPI_Reduce_scatter_block, REDUCE_P, REDUCE_A, REDUCE_I)
MPI_WRAP(MPI_Iallreduce,
         (cbuf sb, buf rb, int n, mpi_handle dt, mpi_handle op, mpi_handle comm, req r),
         (sb, rb, n, dt, op, comm, r), REDUCE_I)
MPI_WRAP(MPI_Reduce,
         (cbuf sb, buf rb, int n, mpi_handle dt, mpi_handle op, int root, mpi_handle comm),
         (sb, rb, n, dt, op, root, comm), REDUCE_I)
MPI_WRAP(MPI_Ireduce,
         (cbuf sb, buf rb, int n, mpi_handle dt, mpi_handle op, int root, mpi_handle comm, req r),
         (sb, rb, n, dt, op, root, comm, r), REDUCE_I)
MPI_WRAP(MPI_Reduce_scatter,
         (cbuf sb, buf rb, cints rn, mpi_handle dt, mpi_handle op, mpi_handle comm),
         (sb, rb, rn, dt, op, comm), COMM(comm))
/* gather: the sender's part, unless in place; scatter: the receiver's part, unless in place;
 * all-to-all and all-gather: the part received from each rank (always significant) */
#define ROOTED_P                                                                                   \
    (cbuf sb, int sn, mpi_handle st, buf rb, int rn, mpi_handle rt, int root, mpi_handle comm)
#define ROOTED_A (sb, sn, st, rb, rn, rt, root, comm)
MPI_WRAP(MPI_Gather, ROOTED_P, ROOTED_A,
         (bytes_ = mpi_in_place(sb) ? 0 : mpi_bytes(sn, st), COMM(comm)))
MPI_WRAP(MPI_Scatter, ROOTED_P, ROOTED_A,
         (bytes_ = mpi_in_place(rb) ? 0 : mpi_bytes(rn, rt), COMM(comm)))
#define ALL_P (cbuf sb, int sn, mpi_handle st, buf rb, int rn, mpi_handle rt, mpi_handle comm)
#define ALL_A (sb, sn, st, rb, rn, rt, comm)
MPI_WRAP(MPI_Allgather, ALL_P, ALL_A, (BYTES(rn, rt), COMM(comm)))
MPI_WRAP(MPI_Alltoall, ALL_P, ALL_A, (BYTES(rn, rt), COMM(comm)))
#define IALL_P                                                                                     \
    (cbuf sb, int sn, mpi_handle st, buf rb, int rn, mpi_handle rt, mpi_handle comm, req r)
#define IALL_A (sb, sn, st, rb, rn, rt, comm, r)
MPI_WRAP(MPI_Iallgather, IALL_P, IALL_A, (BYTES(rn, rt), COMM(comm)))
MPI_WRAP(MPI_Ialltoall, IALL_P, IALL_A, (BYTES(rn, rt), COMM(comm)))
MPI_WRAP(MPI_Gatherv,
         (cbuf sb, int sn, mpi_handle st, buf rb, cints rn, cints displ, mpi_handle rt, int root,
          mpi_handle comm),
         (sb, sn, st, rb, rn, displ, rt, root, comm), COMM(comm))
MPI_WRAP(MPI_Scatterv,
         (cbuf sb, cints sn, cints displ, mpi_handle st, buf rb, int rn, mpi_handle rt, int root,
          mpi_handle comm),
         (sb, sn, displ, st, rb, rn, rt, root, comm), COMM(comm))
MPI_WRAP(MPI_Allgatherv,
         (cbuf sb, int sn, mpi_handle st, buf rb, cints rn, cints displ, mpi_handle rt,
          mpi_handle comm),
         (sb, sn, st, rb, rn, displ, rt, comm), COMM(comm))
MPI_WRAP(MPI_Alltoallv,
         (cbuf sb, cints sn, cints sdispl, mpi_handle st, buf rb, cints rn, cints rdispl,
          mpi_handle rt, mpi_handle comm),
         (sb, sn, sdispl, st, rb, rn, rdispl, rt, comm), COMM(comm))

/* communicators */
MPI_WRAP(MPI_Comm_split, (mpi_handle comm, int color, int key, void *newcomm),
         (comm, color, key, newcomm), COMM(comm))
MPI_WRAP(MPI_Comm_dup, (mpi_handle comm, void *newcomm), (comm, newcomm), COMM(comm))
/* clang-format on */
