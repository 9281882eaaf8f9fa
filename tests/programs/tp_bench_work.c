/* tp_bench_work [ITERATIONS]: the overhead benchmark's workload (bench/overhead.sh).
 * Two CPU-bound threads ("bench-0", "bench-1") each do ITERATIONS units of a FIXED amount of
 * work, so runs with and without a profiler are comparable: a slowdown shows as more time for
 * the same work. The default (BENCH_DEFAULT_ITERS) takes about 3 s of wall time (6 s of CPU)
 * on the development machine (x86-64, 2 CPUs). Stacks are a few levels deep:
 * bench_thread -> bench_run -> bench_unit -> bench_mix | bench_filter -> bench_kernel.
 *
 * At exit it prints "tp_bench_work: ... wall_s W user_s U sys_s S" to stderr, and if the
 * environment variable TP_BENCH_REPORT names a file, appends "W U S\n" to it: the target's own
 * wall time (main's start to end) and CPU time (getrusage RUSAGE_SELF, all threads), which does
 * not include a profiler's separate process. */
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

#define BENCH_THREADS       2
#define BENCH_DEFAULT_ITERS 180000L
#define UNIT_STEPS          16384 /* kernel steps per unit, split 5/8 mix, 3/8 filter */

uint64_t bench_mix(uint64_t seed);
uint64_t bench_kernel(uint64_t seed);
uint64_t bench_filter(uint64_t seed);
uint64_t bench_unit(uint64_t seed);
uint64_t bench_run(long iters, uint64_t seed);

/* The fixed-cost step: dependent multiply-adds through a volatile accumulator. */
static inline __attribute__((always_inline)) uint64_t spin(long steps, uint64_t seed)
{
    volatile uint64_t acc = seed;
    for (long i = 0; i < steps; i++)
        acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
    return acc;
}

/* Leaf: 5/8 of a unit. */
__attribute__((noinline)) uint64_t bench_mix(uint64_t seed)
{
    return spin(UNIT_STEPS / 8 * 5, seed);
}

/* Leaf under bench_filter: 3/8 of a unit. */
__attribute__((noinline)) uint64_t bench_kernel(uint64_t seed)
{
    return spin(UNIT_STEPS / 8 * 3, seed);
}

/* Middle level: only calls bench_kernel. */
__attribute__((noinline)) uint64_t bench_filter(uint64_t seed)
{
    uint64_t r = bench_kernel(seed ^ 0x1234);
    return r + 1; /* no tail call */
}

/* One unit of work. */
__attribute__((noinline)) uint64_t bench_unit(uint64_t seed)
{
    uint64_t r = bench_mix(seed);
    r = bench_filter(r);
    return r + 1; /* no tail call */
}

/* A thread's whole share: iters units. */
__attribute__((noinline)) uint64_t bench_run(long iters, uint64_t seed)
{
    for (long i = 0; i < iters; i++)
        seed = bench_unit(seed);
    return seed + 1;
}

struct bench_arg {
    int index;
    long iters;
    uint64_t result;
};

/* Thread body: name itself, do its share. */
static void *bench_thread(void *p)
{
    struct bench_arg *a = p;
    char name[16];
    snprintf(name, sizeof name, "bench-%d", a->index);
    pthread_setname_np(pthread_self(), name);
    a->result = bench_run(a->iters, (uint64_t)a->index + 1);
    return NULL;
}

/* Seconds of a timeval / timespec. */
static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double ts_s(struct timespec ts)
{
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Append "wall user sys" to the file named by TP_BENCH_REPORT, if set. */
static void write_report(double wall, double user, double sys)
{
    const char *path = getenv("TP_BENCH_REPORT");
    if (!path || !*path)
        return;
    char line[128];
    int n = snprintf(line, sizeof line, "%.6f %.6f %.6f\n", wall, user, sys);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, line, (size_t)n) != n)
        fprintf(stderr, "tp_bench_work: cannot write report to %s\n", path);
    if (fd >= 0)
        close(fd);
}

int main(int argc, char **argv)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);

    long iters = BENCH_DEFAULT_ITERS;
    if (argc > 2 || (argc == 2 && (iters = atol(argv[1])) <= 0)) {
        fprintf(stderr, "usage: tp_bench_work [ITERATIONS] (default %ld, ~3 s)\n",
                BENCH_DEFAULT_ITERS);
        return 2;
    }

    pthread_t t[BENCH_THREADS];
    struct bench_arg args[BENCH_THREADS];
    for (int i = 0; i < BENCH_THREADS; i++) {
        args[i] = (struct bench_arg){.index = i, .iters = iters};
        int err = pthread_create(&t[i], NULL, bench_thread, &args[i]);
        if (err) {
            fprintf(stderr, "tp_bench_work: pthread_create: %s\n", strerror(err));
            return 1;
        }
    }
    uint64_t checksum = 0;
    for (int i = 0; i < BENCH_THREADS; i++) {
        pthread_join(t[i], NULL);
        checksum ^= args[i].result;
    }

    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = ts_s(t1) - ts_s(t0), user = tv_s(ru.ru_utime), sys = tv_s(ru.ru_stime);
    fprintf(stderr,
            "tp_bench_work: %ld iterations x %d threads, checksum %016llx, wall_s %.3f "
            "user_s %.3f sys_s %.3f\n",
            iters, BENCH_THREADS, (unsigned long long)checksum, wall, user, sys);
    write_report(wall, user, sys);
    return 0;
}
