/* What the MPI wrappers share (collector/mpi*.c): resolving PMPI_NAME, the MPI_CALL record of a
 * call, and MPI_WRAP, the body of every wrapper. mpi.c defines the functions, mpi_calls.c the
 * wrappers.
 *
 * The collector is built without any MPI header: it must load in every program, and Open MPI's
 * and MPICH's headers differ. The wrappers take the handles (MPI_Comm, MPI_Datatype, MPI_Op)
 * as mpi_handle, a register-wide integer: Open MPI's handles are pointers, MPICH's are ints;
 * on x86-64 and aarch64 either one travels in one integer register or one 8-byte stack slot,
 * and a wrapper forwards the whole word, so the library reads what the caller passed. Requests
 * and statuses are only passed on, by pointer. */
#ifndef ROCSYS_COLLECTOR_MPI_WRAP_H
#define ROCSYS_COLLECTOR_MPI_WRAP_H

#include "collector.h"

#include <stdint.h>

/* The entry points are MPI's: their prototypes live in mpi.h, which the collector does not
 * include. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

typedef uintptr_t mpi_handle; /* MPI_Comm, MPI_Datatype, MPI_Op */

/* What a wrapper returns when no MPI library defines PMPI_NAME (MPI_ERR_OTHER's value in Open
 * MPI; any non-zero value is an error to the caller). */
#define MPI_ERR_NO_LIBRARY 16

enum {
#define MPI_CALL_ENUM(id, name, waits) MPI_ID_##name = id,
    ROCSYS_MPI_CALL_LIST(MPI_CALL_ENUM)
#undef MPI_CALL_ENUM
};

/* The library's definition of one entry point (PMPI_NAME), resolved on first use. */
struct mpi_real {
    _Atomic(void *) fn;
    const char *name;
};

/* PMPI_NAME of r, cached; NULL when no loaded library defines it. */
void *mpi_resolve(struct mpi_real *r);
/* Start of a traced call of id: the calling stack's key into *stack (collector_launch_stack:
 * the call path, sent once per thread), then its start time (and the wait leaf begins for a
 * call that waits); 0 when not tracing (no session, or inside another wrapper). */
uint64_t mpi_begin(int id, uint64_t *stack);
/* End of a traced call begun at t0: the MPI_CALL record; the caller's errno survives. */
void mpi_end(int id, uint64_t t0, int result, uint64_t bytes, int peer, uint32_t comm_size,
             uint64_t stack);
/* count elements of datatype dt, in bytes (0 when its size is not known). Only after a call
 * that succeeded with them (the handle is valid then). */
uint64_t mpi_bytes(int count, mpi_handle dt);
/* The size of communicator comm (0 when not known). Only after a call that succeeded. */
uint32_t mpi_comm_size(mpi_handle comm);
/* 1 if buf is MPI_IN_PLACE (Open MPI's (void *)1, MPICH's (void *)-1): its count and type
 * are not significant. */
static inline int mpi_in_place(const void *buf)
{
    return buf == (const void *)1 || buf == (const void *)-1;
}

/* One traced entry point: MPI_WRAP(name, (parameters), (arguments), info) defines name (returning
 * int) with those parameters; it forwards to PMPI_name; info runs after a call that succeeded,
 * with bytes_, peer_ and comm_size_ in scope (all 0 / -1 before). */
#define MPI_WRAP(name, params, args, info)                                                         \
    COLLECTOR_EXPORT COLLECTOR_WAIT_WRAPPER int name params                                        \
    {                                                                                              \
        static struct mpi_real real_ = {NULL, "P" #name};                                          \
        int(*fn_) params = (int(*) params)mpi_resolve(&real_);                                     \
        uint64_t t0_, bytes_ = 0, stack_ = 0;                                                      \
        uint32_t comm_size_ = 0;                                                                   \
        int rc_, peer_ = -1;                                                                       \
        if (!fn_)                                                                                  \
            return MPI_ERR_NO_LIBRARY;                                                             \
        t0_ = mpi_begin(MPI_ID_##name, &stack_);                                                   \
        if (!t0_)                                                                                  \
            return fn_ args;                                                                       \
        rc_ = fn_ args;                                                                            \
        if (rc_ == 0) {                                                                            \
            info;                                                                                  \
        }                                                                                          \
        mpi_end(MPI_ID_##name, t0_, rc_, bytes_, peer_, comm_size_, stack_);                       \
        return rc_;                                                                                \
    }

/* info helpers: the payload of count x dt; a peer rank; the communicator's size */
#define BYTES(count, dt) (bytes_ = mpi_bytes((count), (dt)))
#define PEER(rank)       (peer_ = (rank) >= 0 ? (rank) : -1)
#define COMM(c)          (comm_size_ = mpi_comm_size(c))
#define NONE             ((void)0)

#endif
