/* tp_deep_stack [DEPTH [SECONDS [LOCAL_BYTES]]] (defaults 300 3 128): stacks far deeper than
 * 8 KiB, for the perf engine's whole-stack tests and bench/perf_stacks.sh. The main thread and
 * one thread ("deepstack-1") each repeat, until SECONDS have passed: recurse through
 * dstack_down_a() and dstack_down_b() in turn (each with LOCAL_BYTES of locals) to a depth
 * between DEPTH/2 and DEPTH, then work ~1 ms in dstack_work() at the bottom and return. With
 * the defaults a stack is ~25-50 KiB and 150-300 frames deep, and the depth changes from one
 * descent to the next. Prints "tp_deep_stack: done" at the end.
 *
 * For benchmarks (bench/perf_stacks.sh), a FIXED amount of work instead: TP_DEEP_DESCENTS=N
 * makes each thread do N descents whatever the time, and TP_BENCH_REPORT=FILE appends
 * "WALL_S CPU_S\n" (main's start to end; getrusage RUSAGE_SELF user+sys, both threads). */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

uint64_t dstack_work(uint64_t seed);
uint64_t dstack_down_a(int depth, uint64_t seed);
uint64_t dstack_down_b(int depth, uint64_t seed);

static uint64_t deadline_ns;
static long descents; /* > 0: this many descents per thread, not a deadline */
static int local_bytes = 128;

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The bottom of a descent: ~1 ms of dependent multiply-adds. */
__attribute__((noinline)) uint64_t dstack_work(uint64_t seed)
{
    volatile uint64_t acc = seed;
    for (long i = 0; i < 400000; i++)
        acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
    return acc;
}

/* One level each (a calls b calls a ...), with local_bytes of locals that the compiler keeps
 * (written and read through a volatile pointer); the read after the call keeps it a real
 * frame, never a tail call or a loop. */
__attribute__((noinline)) uint64_t dstack_down_a(int depth, uint64_t seed)
{
    volatile uint8_t *local = __builtin_alloca((size_t)local_bytes);
    local[0] = (uint8_t)seed;
    uint64_t r = depth <= 1 ? dstack_work(seed) : dstack_down_b(depth - 1, seed * 3 + 1);
    return r + local[0];
}

__attribute__((noinline)) uint64_t dstack_down_b(int depth, uint64_t seed)
{
    volatile uint8_t *local = __builtin_alloca((size_t)local_bytes);
    local[0] = (uint8_t)seed;
    uint64_t r = depth <= 1 ? dstack_work(seed) : dstack_down_a(depth - 1, seed * 5 + 1);
    return r + local[0];
}

/* Descents of varying depth (DEPTH/2 to DEPTH) until the deadline. */
static uint64_t descend_until_deadline(int depth, uint64_t seed)
{
    uint64_t acc = seed;
    unsigned step = 0;

    for (long k = 0; descents > 0 ? k < descents : now_ns() < deadline_ns; k++) {
        int d = depth / 2 + (int)(step++ * 37u % (unsigned)(depth - depth / 2 + 1));
        acc += dstack_down_a(d < 1 ? 1 : d, acc);
    }
    return acc;
}

/* The second thread: named, then the same descents. */
static void *thread_main(void *p)
{
    int depth = *(int *)p;
    pthread_setname_np(pthread_self(), "deepstack-1");
    return (void *)(uintptr_t)descend_until_deadline(depth, 7);
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 300;
    double secs = argc > 2 ? atof(argv[2]) : 3.0;
    local_bytes = argc > 3 ? atoi(argv[3]) : 128;
    if (argc > 4 || depth < 2 || depth > 5000 || secs < 0 || local_bytes < 1 ||
        local_bytes > 4096) {
        fprintf(stderr, "usage: tp_deep_stack [DEPTH [SECONDS [LOCAL_BYTES]]] (300 3 128)\n");
        return 2;
    }
    uint64_t t0 = now_ns();
    const char *n = getenv("TP_DEEP_DESCENTS");
    descents = n ? atol(n) : 0;
    deadline_ns = t0 + (uint64_t)(secs * 1e9);
    pthread_t t;
    int err = pthread_create(&t, NULL, thread_main, &depth);
    if (err) {
        fprintf(stderr, "tp_deep_stack: pthread_create: %s\n", strerror(err));
        return 1;
    }
    uint64_t r = descend_until_deadline(depth, 3);
    void *rv;
    pthread_join(t, &rv);
    printf("tp_deep_stack: done %llu\n", (unsigned long long)(r ^ (uintptr_t)rv));
    const char *report = getenv("TP_BENCH_REPORT");
    if (report && *report) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        FILE *f = fopen(report, "a");
        if (f) {
            fprintf(f, "%.6f %.6f\n", (double)(now_ns() - t0) / 1e9, cpu);
            fclose(f);
        }
    }
    return 0;
}
