/* MPI + OpenMP truth test program (tests/e2e/test_mpi_openmp.sh; built there with mpicc and
 * clang -fopenmp, LLVM's libomp): every step, each rank runs one parallel region of THREADS
 * threads in step_region(), thread i spinning (i + 1) x UNIT_MS of its own CPU time (the region
 * is imbalanced across its threads), then burns rank x RANK_MS of CPU time alone (the ranks are
 * imbalanced), then waits for the others in MPI_Barrier and sums a value over all ranks
 * (MPI_Allreduce), both in exchange(). Each rank times its MPI calls and each thread its work in
 * the region (CLOCK_MONOTONIC, from the start of the region's body to the end of its spin) and
 * prints, after MPI_Finalize, one line:
 *   MPITRUTH rank R app_ns A mpi_ns M barrier_ns B MPI_Barrier S MPI_Allreduce S
 *     omp_line L omp_regions S omp_threads N omp_imbalance_pct P
 * app_ns: from the start of MPI_Init_thread to the end of MPI_Finalize; mpi_ns: inside all its
 * MPI calls; barrier_ns: inside MPI_Barrier; omp_line: the parallel construct's source line;
 * omp_imbalance_pct: 100 x sum over regions(slowest thread's work - mean work) / sum(slowest).
 * Usage: mpi_omp [steps] [unit_ms] [rank_ms] */
#include <mpi.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "mpi_timed.h"

#define THREADS 2

static unsigned long n_barrier, n_allreduce;
static double sum_max_ms, sum_mean_ms;
static int omp_line;

/* One imbalanced parallel region: thread i works (i + 1) x unit_ms. */
__attribute__((noinline)) static void step_region(double unit_ms)
{
    double w[THREADS] = {0}, max = 0, sum = 0;

    omp_line = __LINE__ + 1;
#pragma omp parallel num_threads(THREADS)
    {
        int i = omp_get_thread_num();
        uint64_t t0 = now_ns(CLOCK_MONOTONIC);
        burn((double)(i + 1) * unit_ms);
        w[i] = (double)(now_ns(CLOCK_MONOTONIC) - t0) / 1e6;
    }
    for (int i = 0; i < THREADS; i++) {
        sum += w[i];
        max = w[i] > max ? w[i] : max;
    }
    sum_max_ms += max;
    sum_mean_ms += sum / THREADS;
}

/* The step's communication: the barrier (the wait we measure), then a sum over the ranks. */
__attribute__((noinline)) static void exchange(int rank)
{
    double v = rank, sum = 0;

    TIMED(n_barrier, &barrier_ns, MPI_Barrier(MPI_COMM_WORLD));
    TIMED(n_allreduce, NULL, MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 4, rank = 0, provided = 0;
    double unit_ms = argc > 2 ? atof(argv[2]) : 40, rank_ms = argc > 3 ? atof(argv[3]) : 60;
    unsigned long n_init = 0;
    uint64_t t0 = now_ns(CLOCK_MONOTONIC), app;

    omp_set_dynamic(0);
    TIMED(n_init, NULL, MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int s = 0; s < steps; s++) {
        step_region(unit_ms);
        burn(rank * rank_ms);
        exchange(rank);
    }
    TIMED(n_init, NULL, MPI_Finalize());
    app = now_ns(CLOCK_MONOTONIC) - t0;
    printf("MPITRUTH rank %d app_ns %llu mpi_ns %llu barrier_ns %llu MPI_Barrier %lu "
           "MPI_Allreduce %lu omp_line %d omp_regions %d omp_threads %d omp_imbalance_pct %.2f\n",
           rank, (unsigned long long)app, (unsigned long long)mpi_ns,
           (unsigned long long)barrier_ns, n_barrier, n_allreduce, omp_line, steps, THREADS,
           100.0 * (sum_max_ms - sum_mean_ms) / sum_max_ms);
    return 0;
}
