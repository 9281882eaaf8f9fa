/* tp_blocked_many [THREADS [ITERATIONS [SLEEP_US [STEPS]]]] (defaults 200 600 5000 4000): many
 * mostly-blocked threads, for bench/perf_engine.sh (wall mode's cost). THREADS threads
 * ("blocked-<i>") each do ITERATIONS rounds of: nanosleep SLEEP_US microseconds (blocked_wait;
 * the rest of the sleep is slept again after an EINTR) then STEPS multiply-adds (blocked_work,
 * ~10 us at the default). A fixed amount of work: a slowdown under a profiler shows as more
 * time (wall and CPU) for the same rounds. Every round is two context switches per thread.
 *
 * At exit it prints "tp_blocked_many: ... wall_s W user_s U sys_s S ctxsw C eintr E" to
 * stderr, and if the environment variable TP_BENCH_REPORT names a file, appends "W U S C\n" to
 * it: the program's own wall time (main's start to end), CPU time and context switches
 * (getrusage RUSAGE_SELF, all threads; voluntary + involuntary). */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

uint64_t blocked_work(long steps, uint64_t seed);
long blocked_wait(long us);
uint64_t blocked_loop(long iters, long us, long steps, uint64_t seed, long *eintr);

/* The tiny work of a round. */
__attribute__((noinline)) uint64_t blocked_work(long steps, uint64_t seed)
{
    volatile uint64_t acc = seed;
    for (long i = 0; i < steps; i++)
        acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
    return acc;
}

/* Sleep us microseconds in full; returns how many times the sleep was interrupted. */
__attribute__((noinline)) long blocked_wait(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000}, rem;
    long n = 0;
    while (nanosleep(&ts, &rem) != 0 && errno == EINTR) {
        ts = rem;
        n++;
    }
    return n;
}

/* A thread's rounds. */
__attribute__((noinline)) uint64_t blocked_loop(long iters, long us, long steps, uint64_t seed,
                                                long *eintr)
{
    for (long i = 0; i < iters; i++) {
        *eintr += blocked_wait(us);
        seed = blocked_work(steps, seed);
    }
    return seed + 1;
}

struct blocked_arg {
    int index;
    long iters, us, steps, eintr;
    uint64_t result;
};

/* Thread body: name itself, do its rounds. */
static void *blocked_main(void *p)
{
    struct blocked_arg *a = p;
    char name[16];
    snprintf(name, sizeof name, "blocked-%d", a->index);
    pthread_setname_np(pthread_self(), name);
    a->result = blocked_loop(a->iters, a->us, a->steps, (uint64_t)a->index + 1, &a->eintr);
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
    int nthreads = argc > 1 ? atoi(argv[1]) : 200;
    long iters = argc > 2 ? atol(argv[2]) : 600;
    long us = argc > 3 ? atol(argv[3]) : 5000;
    long steps = argc > 4 ? atol(argv[4]) : 4000;
    if (argc > 5 || nthreads < 1 || nthreads > 4096 || iters < 1 || us < 0 || steps < 0) {
        fprintf(stderr, "usage: tp_blocked_many [THREADS [ITERATIONS [SLEEP_US [STEPS]]]] "
                        "(defaults 200 600 5000 4000)\n");
        return 2;
    }

    pthread_t *t = calloc((size_t)nthreads, sizeof *t);
    struct blocked_arg *args = calloc((size_t)nthreads, sizeof *args);
    if (!t || !args) {
        fprintf(stderr, "tp_blocked_many: out of memory\n");
        return 1;
    }
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    int started = 0;
    for (int i = 0; i < nthreads; i++) {
        args[i] = (struct blocked_arg){.index = i, .iters = iters, .us = us, .steps = steps};
        int err = pthread_create(&t[i], &attr, blocked_main, &args[i]);
        if (err) {
            fprintf(stderr, "tp_blocked_many: pthread_create: %s\n", strerror(err));
            break;
        }
        started++;
    }
    pthread_attr_destroy(&attr);
    uint64_t checksum = 0;
    long eintr = 0;
    for (int i = 0; i < started; i++) {
        pthread_join(t[i], NULL);
        checksum ^= args[i].result;
        eintr += args[i].eintr;
    }

    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double user = tv_s(ru.ru_utime), sys = tv_s(ru.ru_stime);
    long ctxsw = ru.ru_nvcsw + ru.ru_nivcsw;
    fprintf(stderr,
            "tp_blocked_many: %d threads x %ld rounds (sleep %ld us, %ld steps), checksum "
            "%016llx, wall_s %.3f user_s %.3f sys_s %.3f ctxsw %ld eintr %ld\n",
            started, iters, us, steps, (unsigned long long)checksum, wall, user, sys, ctxsw, eintr);
    const char *path = getenv("TP_BENCH_REPORT");
    if (path && *path) {
        char line[160];
        int n = snprintf(line, sizeof line, "%.6f %.6f %.6f %ld\n", wall, user, sys, ctxsw);
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, line, (size_t)n) != n)
            fprintf(stderr, "tp_blocked_many: cannot write report to %s\n", path);
        if (fd >= 0)
            close(fd);
    }
    free(t);
    free(args);
    return started == nthreads ? 0 : 1;
}
