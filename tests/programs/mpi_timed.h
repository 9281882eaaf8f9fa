/* Shared by the MPI truth programs (mpi_imbalance.c, mpi_omp.c): a clock, TIMED() that times one
 * MPI call into the program's own totals (mpi_ns, barrier_ns), and burn(), a frame of its own
 * that spins for a given CPU time of its thread. Included once per program. */
#ifndef ROCSYS_TESTS_MPI_TIMED_H
#define ROCSYS_TESTS_MPI_TIMED_H

#include <stdint.h>
#include <time.h>

static uint64_t mpi_ns, barrier_ns;

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Time one MPI call: its duration is added to mpi_ns (and to *also when not NULL). */
#define TIMED(counter, also, call)                                                                 \
    do {                                                                                           \
        uint64_t t0_ = now_ns(CLOCK_MONOTONIC);                                                    \
        call;                                                                                      \
        uint64_t d_ = now_ns(CLOCK_MONOTONIC) - t0_;                                               \
        mpi_ns += d_;                                                                              \
        if (also)                                                                                  \
            *(uint64_t *)(also) += d_;                                                             \
        counter++;                                                                                 \
    } while (0)

/* Burn ms of the calling thread's CPU time. */
__attribute__((noinline)) static double burn(double ms)
{
    uint64_t end = now_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(ms * 1e6);
    volatile double x = 1.0;

    while (now_ns(CLOCK_THREAD_CPUTIME_ID) < end)
        for (int i = 0; i < 2000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

#endif
