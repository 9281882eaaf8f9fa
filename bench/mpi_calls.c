/* bench/mpi_overhead.sh's program: N calls each of three MPI calls that return at once on one
 * rank (MPI_Barrier and MPI_Allreduce of one int on MPI_COMM_SELF: calls that wait, with a
 * payload and a communicator; MPI_Iprobe: one that does not), timed around each loop on the
 * calling thread's CPU clock (what the calls cost the thread, whatever else the machine runs)
 * and on the wall clock, DEPTH frames down (the collector captures the calling stack of every
 * call); prints "CALL cpu_ns_per_call wall_ns_per_call" lines. Usage: mpi_calls N [DEPTH] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(clockid_t c)
{
    struct timespec ts;

    clock_gettime(c, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define LOOP(name, call)                                                                           \
    do {                                                                                           \
        double c0 = now_ns(CLOCK_THREAD_CPUTIME_ID), w0 = now_ns(CLOCK_MONOTONIC);                 \
        for (long i = 0; i < n; i++)                                                               \
            call;                                                                                  \
        printf("%s %.1f %.1f\n", name, (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / n,                \
               (now_ns(CLOCK_MONOTONIC) - w0) / n);                                                \
    } while (0)

/* The loops, depth frames down. */
__attribute__((noinline)) static int loops(long n, int depth)
{
    int in = 1, out = 0, flag;

    if (depth > 1)
        return loops(n, depth - 1) + 1; /* not a tail call: every level stays a frame */
    LOOP("MPI_Barrier", MPI_Barrier(MPI_COMM_SELF));
    LOOP("MPI_Allreduce", MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF));
    LOOP("MPI_Iprobe", MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE));
    return out;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int depth = argc > 2 ? atoi(argv[2]) : 1;

    MPI_Init(&argc, &argv);
    loops(n, depth);
    MPI_Finalize();
    return 0;
}
