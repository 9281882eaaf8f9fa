/* MPI truth test program (tests/e2e/test_mpi_truth.sh; built there with mpicc): every rank does
 * known unequal work (rank r burns (r + 1) x BURN_MS of its own CPU time per step), then waits
 * for the others in MPI_Barrier, swaps a buffer with its neighbours (MPI_Sendrecv) and sums a
 * value over all ranks (MPI_Allreduce). Each rank times every MPI call it makes with
 * clock_gettime(CLOCK_MONOTONIC) and prints, after MPI_Finalize, one line:
 *   MPITRUTH rank R app_ns A mpi_ns M barrier_ns B MPI_Init 1 MPI_Barrier S MPI_Sendrecv S
 *     MPI_Allreduce S MPI_Finalize 1 sendrecv_bytes N
 * app_ns: from the start of MPI_Init to the end of MPI_Finalize (the span rocsys-top's MPI
 * shares are of); mpi_ns: the time inside all its MPI calls; barrier_ns: inside MPI_Barrier.
 * Usage: mpi_imbalance [steps] [burn_ms] */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpi_timed.h"

#define SWAP_INTS 1024

static unsigned long n_init, n_barrier, n_sendrecv, n_allreduce, n_finalize;

/* One step's communication after the work: the barrier first (the wait we measure). */
__attribute__((noinline)) static void exchange(int rank, int size, int *out, int *in)
{
    double v = rank, sum = 0;

    TIMED(n_barrier, &barrier_ns, MPI_Barrier(MPI_COMM_WORLD));
    TIMED(n_sendrecv, NULL,
          MPI_Sendrecv(out, SWAP_INTS, MPI_INT, (rank + 1) % size, 7, in, SWAP_INTS, MPI_INT,
                       (rank + size - 1) % size, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    TIMED(n_allreduce, NULL, MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 3, rank = 0, size = 1;
    double burn_ms = argc > 2 ? atof(argv[2]) : 100;
    static int out[SWAP_INTS], in[SWAP_INTS];
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), app;

    TIMED(n_init, NULL, MPI_Init(&argc, &argv));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int s = 0; s < steps; s++) {
        burn((rank + 1) * burn_ms);
        exchange(rank, size, out, in);
    }
    TIMED(n_finalize, NULL, MPI_Finalize());
    app = now_ns(CLOCK_MONOTONIC) - t0;
    printf("MPITRUTH rank %d app_ns %llu mpi_ns %llu barrier_ns %llu MPI_Init %lu MPI_Barrier %lu "
           "MPI_Sendrecv %lu MPI_Allreduce %lu MPI_Finalize %lu sendrecv_bytes %lu\n",
           rank, (unsigned long long)app, (unsigned long long)mpi_ns,
           (unsigned long long)barrier_ns, n_init, n_barrier, n_sendrecv, n_allreduce, n_finalize,
           n_sendrecv * 2ul * SWAP_INTS * sizeof(int));
    return 0;
}
