/* tp_deep_work [THREADS [DEPTH [UNITS]]] (defaults 16 32 3000): a FIXED amount of CPU-bound
 * work with deep stacks, for bench/perf_engine.sh. THREADS threads ("deepw-<i>") each recurse
 * DEPTH levels through deepw_recurse_a() and deepw_recurse_b() in turn (two functions, so that
 * no return address repeats in consecutive frames, as it would in a direct recursion) and do
 * UNITS/THREADS units of work in deepw_unit() at the bottom (a unit is ~1 ms of CPU on the
 * development machine), so the total work does not depend on THREADS and every sample has a stack
 * of about DEPTH+4 frames. A slowdown under a profiler shows as more CPU time for the same work.
 *
 * At exit it prints "tp_deep_work: ... wall_s W user_s U sys_s S ctxsw C" to stderr, and if the
 * environment variable TP_BENCH_REPORT names a file, appends "W U S C\n" to it: the program's
 * own wall time (main's start to end), CPU time and context switches (getrusage RUSAGE_SELF,
 * all threads; voluntary + involuntary), which do not include a profiler's separate process. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define UNIT_STEPS 400000L /* multiply-adds per unit (~1 ms) */

uint64_t deepw_unit(uint64_t seed);
uint64_t deepw_recurse_a(int depth, long units, uint64_t seed);
uint64_t deepw_recurse_b(int depth, long units, uint64_t seed);

/* One unit of work: dependent multiply-adds through a volatile accumulator. */
__attribute__((noinline)) uint64_t deepw_unit(uint64_t seed)
{
    volatile uint64_t acc = seed;
    for (long i = 0; i < UNIT_STEPS; i++)
        acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
    return acc;
}

/* One level of recursion each (a calls b calls a ...); the volatile read after the call keeps
 * it from becoming a loop or a tail call, so each level is a real frame. At the bottom: the
 * thread's units. */
__attribute__((noinline)) uint64_t deepw_recurse_a(int depth, long units, uint64_t seed)
{
    volatile int level = depth;
    uint64_t r = seed;
    if (depth <= 1)
        for (long i = 0; i < units; i++)
            r = deepw_unit(r);
    else
        r = deepw_recurse_b(depth - 1, units, seed * 3 + 1);
    return r + (uint64_t)level;
}

__attribute__((noinline)) uint64_t deepw_recurse_b(int depth, long units, uint64_t seed)
{
    volatile int level = depth;
    uint64_t r = seed;
    if (depth <= 1)
        for (long i = 0; i < units; i++)
            r = deepw_unit(r);
    else
        r = deepw_recurse_a(depth - 1, units, seed * 5 + 1);
    return r + (uint64_t)level;
}

struct deepw_arg {
    int index, depth;
    long units;
    uint64_t result;
};

/* Thread body: name itself, recurse, work. */
static void *deepw_main(void *p)
{
    struct deepw_arg *a = p;
    char name[16];
    snprintf(name, sizeof name, "deepw-%d", a->index);
    pthread_setname_np(pthread_self(), name);
    a->result = deepw_recurse_a(a->depth, a->units, (uint64_t)a->index + 1);
    return NULL;
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int nthreads = argc > 1 ? atoi(argv[1]) : 16;
    int depth = argc > 2 ? atoi(argv[2]) : 32;
    long units = argc > 3 ? atol(argv[3]) : 3000;
    if (argc > 4 || nthreads < 1 || nthreads > 1024 || depth < 1 || depth > 10000 || units < 1) {
        fprintf(stderr, "usage: tp_deep_work [THREADS [DEPTH [UNITS]]] (defaults 16 32 3000)\n");
        return 2;
    }

    pthread_t *t = calloc((size_t)nthreads, sizeof *t);
    struct deepw_arg *args = calloc((size_t)nthreads, sizeof *args);
    if (!t || !args) {
        fprintf(stderr, "tp_deep_work: out of memory\n");
        return 1;
    }
    int started = 0;
    for (int i = 0; i < nthreads; i++) {
        /* the units split as evenly as possible */
        long share = units / nthreads + (i < units % nthreads ? 1 : 0);
        args[i] = (struct deepw_arg){.index = i, .depth = depth, .units = share};
        int err = pthread_create(&t[i], NULL, deepw_main, &args[i]);
        if (err) {
            fprintf(stderr, "tp_deep_work: pthread_create: %s\n", strerror(err));
            break;
        }
        started++;
    }
    uint64_t checksum = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        checksum ^= args[i].result;
    }

    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double user = tv_s(ru.ru_utime), sys = tv_s(ru.ru_stime);
    long ctxsw = ru.ru_nvcsw + ru.ru_nivcsw;
    fprintf(stderr,
            "tp_deep_work: %d threads, depth %d, %ld units, checksum %016llx, wall_s %.3f user_s "
            "%.3f sys_s %.3f ctxsw %ld\n",
            started, depth, units, (unsigned long long)checksum, wall, user, sys, ctxsw);
    const char *path = getenv("TP_BENCH_REPORT");
    if (path && *path) {
        char line[160];
        int n = snprintf(line, sizeof line, "%.6f %.6f %.6f %ld\n", wall, user, sys, ctxsw);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, line, (size_t)n) != n)
            fprintf(stderr, "tp_deep_work: cannot write report to %s\n", path);
        if (fd >= 0)
            close(fd);
    }
    free(t);
    free(args);
    return started == nthreads ? 0 : 1;
}
