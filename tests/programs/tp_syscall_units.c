/* tp_syscall_units: a workload whose units of work end in system calls, for the "shares are
 * right under load" test (tests/e2e/test_load.sh).
 *
 * N worker threads (default 2, named "unit-0", "unit-1", ...) loop over rounds of ~10 ms of
 * CPU. A round calls unit_a() (50% of the process's CPU time), unit_b() (30%) and unit_c()
 * (20%). Each unit spins in user space and then ENDS in a burst of read()s from /dev/zero that
 * costs real kernel time (about KERNEL_SHARE of the unit), so that a sampler which loses or
 * misplaces kernel time, or whose samples cluster where a thread comes back from a system
 * call, gets the split wrong.
 *
 * The truth is measured, not assumed: the caller reads the thread's CPU clock around each unit
 * (user and kernel time, all of it), the rounds correct the split as they go (like
 * examples/demo.c), and at exit the program prints each unit's share of the whole process's
 * CPU time (CLOCK_PROCESS_CPUTIME_ID: start-up, the main thread and the round bookkeeping are
 * in the denominator too, as they are in a profile's):
 *   tp_syscall_units: done, R rounds; measured CPU split A / B / C % of P ms process CPU,
 *   kernel K %
 * Usage: tp_syscall_units [--seconds N] [--threads N] */
#define _GNU_SOURCE /* pthread_setname_np */
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUND_NS        10000000.0 /* target CPU length of one round */
#define KERNEL_SHARE    0.30       /* part of each unit spent in its closing read()s */
#define CHUNK_BYTES     (1 << 20)  /* one read() */
#define CALIBRATE_ITERS 200000L
#define MAX_THREADS     64

static const double unit_share[3] = {0.50, 0.30, 0.20};

/* One thread's plan and bookkeeping: per unit, the spin iterations and read() bytes of the
 * next round, running cost estimates, and what the unit has cost so far. */
struct worker {
    int index;
    int fd;             /* /dev/zero */
    unsigned char *buf; /* CHUNK_BYTES */
    uint64_t deadline_ns;
    uint64_t rng;
    unsigned long rounds;
    long spin_iters[3];
    size_t sys_bytes[3];
    double ns_per_iter[3];
    double ns_per_byte;
    uint64_t spent_ns[3];   /* whole unit (caller's clock reads): the truth */
    uint64_t spin_ns[3];    /* this round: user-space part */
    uint64_t sys_ns[3];     /* this round: the closing read()s */
    uint64_t sys_total_ns;  /* all rounds: the closing read()s */
    uint64_t read_failures; /* read() errors (none expected) */
};

void unit_a(struct worker *w);
void unit_b(struct worker *w);
void unit_c(struct worker *w);

/* CPU time of the calling thread in nanoseconds (user + system). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A clock in nanoseconds. */
static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Read `bytes` from /dev/zero in CHUNK_BYTES read()s: kernel time (clearing the buffer). */
static inline __attribute__((always_inline)) void read_zero(struct worker *w, size_t bytes)
{
    while (bytes > 0) {
        size_t n = bytes < CHUNK_BYTES ? bytes : CHUNK_BYTES;
        ssize_t got = read(w->fd, w->buf, n);
        if (got <= 0) {
            w->read_failures++;
            return;
        }
        bytes -= (size_t)got;
    }
}

/* The body of a unit: spin in user space (dependent multiply-adds, no calls), then end in the
 * read()s. A macro so that the spin's samples are the unit's own self time. */
#define UNIT_BODY(w, k)                                                                            \
    do {                                                                                           \
        uint64_t t0_ = thread_cpu_ns();                                                            \
        volatile uint64_t acc_ = (uint64_t)(k) + 1;                                                \
        for (long i_ = 0; i_ < (w)->spin_iters[k]; i_++)                                           \
            acc_ = acc_ * 6364136223846793005ULL + 1442695040888963407ULL;                         \
        uint64_t t1_ = thread_cpu_ns();                                                            \
        read_zero((w), (w)->sys_bytes[k]);                                                         \
        uint64_t t2_ = thread_cpu_ns();                                                            \
        (w)->spin_ns[k] = t1_ - t0_;                                                               \
        (w)->sys_ns[k] = t2_ - t1_;                                                                \
    } while (0)

/* 50% of the process's CPU time. */
__attribute__((noinline)) void unit_a(struct worker *w)
{
    UNIT_BODY(w, 0);
    __asm__ volatile("" ::: "memory"); /* no tail call: unit_a stays a frame */
}

/* 30% of the process's CPU time. */
__attribute__((noinline)) void unit_b(struct worker *w)
{
    UNIT_BODY(w, 1);
    __asm__ volatile("" ::: "memory");
}

/* 20% of the process's CPU time. */
__attribute__((noinline)) void unit_c(struct worker *w)
{
    UNIT_BODY(w, 2);
    __asm__ volatile("" ::: "memory");
}

/* Start-up: cost of a spin iteration and of a byte read from /dev/zero, from short timed runs
 * (best of three), then the first round's plan. Kept short (~10 ms): it is in the profile's
 * denominator but in no unit. */
static void worker_calibrate(struct worker *w)
{
    double best_iter = 0, best_byte = 0;
    for (int t = 0; t < 3; t++) {
        uint64_t t0 = thread_cpu_ns();
        volatile uint64_t acc = 1;
        for (long i = 0; i < CALIBRATE_ITERS; i++)
            acc = acc * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t t1 = thread_cpu_ns();
        read_zero(w, 4 * CHUNK_BYTES);
        uint64_t t2 = thread_cpu_ns();
        double ni = (double)(t1 - t0) / CALIBRATE_ITERS;
        double nb = (double)(t2 - t1) / (4.0 * CHUNK_BYTES);
        if (t == 0 || ni < best_iter)
            best_iter = ni;
        if (t == 0 || nb < best_byte)
            best_byte = nb;
    }
    w->ns_per_byte = best_byte > 0 ? best_byte : 1e-3;
    for (int k = 0; k < 3; k++) {
        w->ns_per_iter[k] = best_iter > 0 ? best_iter : 1e-3;
        double unit_ns = unit_share[k] * ROUND_NS;
        w->sys_bytes[k] = (size_t)(KERNEL_SHARE * unit_ns / w->ns_per_byte);
        w->spin_iters[k] = (long)((1 - KERNEL_SHARE) * unit_ns / w->ns_per_iter[k]);
    }
}

/* After a round: update the cost estimates, then size the next round (random length, 0.7 to
 * 1.3 x ROUND_NS, so that rounds do not alias with the kernel tick) so that the split since the
 * start converges on unit_share whatever else the machine is doing. */
static void worker_adjust(struct worker *w, const uint64_t cost_ns[3])
{
    uint64_t total = 0;
    for (int k = 0; k < 3; k++) {
        if (w->spin_iters[k] > 0 && w->spin_ns[k] > 0)
            w->ns_per_iter[k] =
                0.8 * w->ns_per_iter[k] + 0.2 * (double)w->spin_ns[k] / (double)w->spin_iters[k];
        if (w->sys_bytes[k] > 0 && w->sys_ns[k] > 0)
            w->ns_per_byte =
                0.9 * w->ns_per_byte + 0.1 * (double)w->sys_ns[k] / (double)w->sys_bytes[k];
        w->spent_ns[k] += cost_ns[k];
        w->sys_total_ns += w->sys_ns[k];
        total += w->spent_ns[k];
    }
    w->rng = w->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    double round_ns = ROUND_NS * (0.7 + 0.6 * (double)(w->rng >> 11) / 9007199254740992.0);
    for (int k = 0; k < 3; k++) {
        /* this round's share plus whatever the unit is behind (or minus what it is ahead) */
        double want = unit_share[k] * ((double)total + round_ns) - (double)w->spent_ns[k];
        if (want < 0)
            want = 0;
        if (want > 2 * unit_share[k] * round_ns)
            want = 2 * unit_share[k] * round_ns;
        double sys = KERNEL_SHARE * unit_share[k] * round_ns;
        if (sys > want)
            sys = want;
        w->sys_bytes[k] = (size_t)(sys / w->ns_per_byte);
        w->spin_iters[k] = (long)((want - sys) / w->ns_per_iter[k]);
    }
}

/* One round: the three units, each timed on the thread's CPU clock by the caller. */
__attribute__((noinline)) static void worker_round(struct worker *w)
{
    uint64_t t0 = thread_cpu_ns();
    unit_a(w);
    uint64_t t1 = thread_cpu_ns();
    unit_b(w);
    uint64_t t2 = thread_cpu_ns();
    unit_c(w);
    uint64_t t3 = thread_cpu_ns();
    const uint64_t cost[3] = {t1 - t0, t2 - t1, t3 - t2};
    worker_adjust(w, cost);
}

/* Worker thread: calibrate, then rounds until the deadline (checked once per round). */
static void *worker_main(void *p)
{
    struct worker *w = p;
    char name[16];
    snprintf(name, sizeof name, "unit-%d", w->index);
    pthread_setname_np(pthread_self(), name);
    worker_calibrate(w);
    do {
        worker_round(w);
        w->rounds++;
    } while (clock_ns(CLOCK_MONOTONIC) < w->deadline_ns);
    return NULL;
}

/* A whole number in [lo, hi] from s, or exit with a usage error. */
static int parse_arg(const char *opt, const char *s, int lo, int hi)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "tp_syscall_units: bad value for %s: '%s'\n", opt, s);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv)
{
    int seconds = 5, nthreads = 2;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
            seconds = parse_arg(argv[i], argv[i + 1], 1, 3600);
            i++;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            nthreads = parse_arg(argv[i], argv[i + 1], 1, MAX_THREADS);
            i++;
        } else {
            fprintf(stderr, "usage: tp_syscall_units [--seconds N] [--threads N]\n");
            return 2;
        }
    }
    printf("tp_syscall_units: %d thread%s for %d s, pid %d\n", nthreads, nthreads == 1 ? "" : "s",
           seconds, (int)getpid());
    fflush(stdout);

    static struct worker workers[MAX_THREADS];
    static pthread_t threads[MAX_THREADS];
    uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + (uint64_t)seconds * 1000000000ULL;
    for (int i = 0; i < nthreads; i++) {
        struct worker *w = &workers[i];
        w->index = i;
        w->deadline_ns = deadline;
        w->rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
        w->fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
        w->buf = malloc(CHUNK_BYTES);
        if (w->fd < 0 || !w->buf) {
            perror("tp_syscall_units: /dev/zero");
            return 1;
        }
        memset(w->buf, 1, CHUNK_BYTES); /* fault the pages in now, not in the first unit */
        int err = pthread_create(&threads[i], NULL, worker_main, w);
        if (err) {
            fprintf(stderr, "tp_syscall_units: pthread_create: %s\n", strerror(err));
            return 1;
        }
    }
    uint64_t spent[3] = {0, 0, 0}, sys = 0, failures = 0;
    unsigned long rounds = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(threads[i], NULL);
        for (int k = 0; k < 3; k++)
            spent[k] += workers[i].spent_ns[k];
        sys += workers[i].sys_total_ns;
        rounds += workers[i].rounds;
        failures += workers[i].read_failures;
    }
    double all = (double)clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (all <= 0)
        all = 1;
    printf("tp_syscall_units: done, %lu rounds; measured CPU split %.1f / %.1f / %.1f %% of %.0f "
           "ms process CPU, kernel %.1f %%\n",
           rounds, 100.0 * (double)spent[0] / all, 100.0 * (double)spent[1] / all,
           100.0 * (double)spent[2] / all, all / 1e6, 100.0 * (double)sys / all);
    if (failures) {
        fprintf(stderr, "tp_syscall_units: %llu read() failures\n", (unsigned long long)failures);
        return 1;
    }
    return 0;
}
