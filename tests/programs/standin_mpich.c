/* An MPICH-style MPI library stand-in (int handles, MPI_NAME a weak alias of PMPI_NAME, as
 * MPICH builds it), for the test that the collector's MPI wrappers forward int handles intact
 * (tests/e2e/test_mpi_abi.sh): every call checks its handles and returns 1 (an MPI error) for
 * one it does not know; MPI_Barrier sleeps 20 ms, a wait, and adds the time it took, from its
 * first instruction to its last, to what standin_mpich_barrier_ns returns. */
#include "standin_mpich.h"

#include <time.h>

static uint64_t barrier_ns; /* the time inside PMPI_Barrier, summed */

/* CLOCK_MONOTONIC in ns. */
static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t standin_mpich_barrier_ns(void)
{
    return barrier_ns;
}

/* Whether comm is MPI_COMM_WORLD, the only communicator here. */
static int comm_ok(MPI_Comm comm)
{
    return comm == MPI_COMM_WORLD;
}

/* The size of a built-in datatype (MPICH: bits 8-15 of its handle), -1 if not one. */
static int type_size(MPI_Datatype dt)
{
    return dt == MPI_INT || dt == MPI_DOUBLE ? (dt >> 8) & 0xff : -1;
}

int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int PMPI_Finalize(void)
{
    return 0;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    (void)buf;
    (void)tag;
    return count >= 0 && type_size(dt) > 0 && dest >= 0 && dest < STANDIN_MPICH_RANKS &&
                   comm_ok(comm)
               ? 0
               : 1;
}

int PMPI_Barrier(MPI_Comm comm)
{
    uint64_t t0 = now_ns();
    struct timespec ts = {0, 20000000};

    if (!comm_ok(comm))
        return 1;
    while (nanosleep(&ts, &ts) != 0)
        ;
    barrier_ns += now_ns() - t0;
    return 0;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    if (!comm_ok(comm))
        return 1;
    *size = STANDIN_MPICH_RANKS;
    return 0;
}

int PMPI_Type_size(MPI_Datatype dt, int *size)
{
    if (type_size(dt) < 0)
        return 1;
    *size = type_size(dt);
    return 0;
}

#pragma weak MPI_Init = PMPI_Init
#pragma weak MPI_Finalize = PMPI_Finalize
#pragma weak MPI_Send = PMPI_Send
#pragma weak MPI_Barrier = PMPI_Barrier
