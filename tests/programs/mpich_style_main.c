/* A program of the MPICH-style stand-in library (standin_mpich.c, int handles), for
 * tests/e2e/test_mpi_abi.sh: 5 MPI_Send of 10 doubles and 3 MPI_Barrier (20 ms asleep each)
 * from mpich_exchange(); prints "errors N barrier_ns B" (N: calls that did not return 0,
 * B: its own measure of the time in MPI_Barrier). */
#include "standin_mpich.h"

#include <stdint.h>
#include <stdio.h>
#include <time.h>

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
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = now_ns();
        errors += MPI_Barrier(MPI_COMM_WORLD) != 0;
        *barrier_ns += now_ns() - t0;
    }
    return errors;
}

int main(int argc, char **argv)
{
    uint64_t barrier_ns = 0;
    int errors = MPI_Init(&argc, &argv) != 0;

    errors += mpich_exchange(&barrier_ns);
    errors += MPI_Finalize() != 0;
    printf("errors %d barrier_ns %llu\n", errors, (unsigned long long)barrier_ns);
    return errors != 0;
}
