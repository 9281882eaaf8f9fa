/* The MPI part of mpich_style_main (tests/e2e/test_mpi_abi.sh), in a library linked to the
 * MPICH-style stand-in (standin_mpich.c) that the program loads with dlopen, RTLD_GLOBAL or
 * RTLD_LOCAL (as Python loads an extension module): MPI_Init, 5 MPI_Send of 10 doubles and 10
 * MPI_Barrier (20 ms asleep each) from mpich_exchange(), MPI_Finalize; it measures the time in
 * MPI_Barrier around the calls, and the stand-in inside them. */
#include "standin_mpich.h"

#include <stdint.h>
#include <time.h>

int mpich_ext_run(uint64_t *barrier_ns, uint64_t *inside_ns);

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calls; returns how many failed, adds the time in MPI_Barrier to *barrier_ns. */
__attribute__((noinline)) static int mpich_exchange(uint64_t *barrier_ns)
{
    static double buf[10];
    int errors = 0;

    for (int i = 0; i < 5; i++)
        errors += MPI_Send(buf, 10, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD) != 0;
    for (int i = 0; i < 10; i++) {
        uint64_t t0 = now_ns();
        errors += MPI_Barrier(MPI_COMM_WORLD) != 0;
        *barrier_ns += now_ns() - t0;
    }
    return errors;
}

/* The whole MPI run: the calls that failed; the time in MPI_Barrier measured around the calls
 * (*barrier_ns) and inside them (*inside_ns, the stand-in's own). */
int mpich_ext_run(uint64_t *barrier_ns, uint64_t *inside_ns)
{
    int errors = MPI_Init(0, 0) != 0;

    errors += mpich_exchange(barrier_ns);
    *inside_ns = standin_mpich_barrier_ns();
    return errors + (MPI_Finalize() != 0);
}
