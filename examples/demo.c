/* rocsys-demo: the quick-start target of the README (see examples/README.md).
 *
 * N compute threads ("solver-0", "solver-1", ...) each loop over rounds of ~10 ms; a round is
 * demo_step() -> demo_solve() (50% of the thread's CPU, all self time), demo_transform() ->
 * demo_butterfly() (30%, self time in demo_butterfly) and demo_reduce() (20%); --split S,B,R
 * sets other percentages (a second run to compare with the first: --diff). One more thread,
 * "sleeper", waits in nanosleep (100 ms at a time) so that wall-clock sampling has something to
 * show that CPU sampling does not. The main thread only starts and joins the others.
 *
 * The split is made of one spin kernel (a macro expanded in each function) run for iteration
 * counts calibrated per function at startup and corrected after every round from the thread's
 * CPU clock, so that the split holds on a busy machine; every sample of a round lands in one of
 * the three leaf functions and none in libc: the hot loops never call into the C library. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUND_NS          10000000.0 /* target length of one round */
#define CALIBRATE_ITERS   2000000L
#define CALIBRATE_TRIES   3
#define MAX_THREADS       256
#define SLEEPER_PERIOD_NS 100000000L

/* Iteration counts of one round, per leaf function, and (per thread) what each leaf has cost
 * so far, so that every round can correct the split (see plan_adjust). */
struct demo_plan {
    long solve_iters;
    long butterfly_iters;
    long reduce_iters;
    double ns_per_iter[3]; /* CPU per iteration of solve, butterfly, reduce: running estimate */
    uint64_t spent_ns[3];  /* thread CPU spent in each leaf since the start */
    uint64_t wall_ns[3];   /* wall time spent in each leaf (waits for a core included) */
    uint64_t rng;          /* per-thread random state for the round length */
};

struct solver_arg {
    int index;
    struct demo_plan plan; /* this thread's own copy */
    uint64_t deadline_ns;  /* 0: run until killed */
    unsigned long rounds;  /* written by the thread, read after join */
};

/* The frames the demo documents; non-static and noinline so they show up in call stacks. */
uint64_t demo_solve(long iters, uint64_t seed);
uint64_t demo_butterfly(long iters, uint64_t seed);
uint64_t demo_transform(long iters, uint64_t seed);
uint64_t demo_reduce(long iters, uint64_t seed);
uint64_t demo_step(struct demo_plan *plan, uint64_t seed);

static volatile int sleeper_stop;
/* The CPU split of a round across demo_solve, demo_butterfly and demo_reduce (--split). */
static double leaf_share[3] = {0.50, 0.30, 0.20};

/* The spin kernel: a chain of dependent multiply-adds through a volatile accumulator, so that
 * each iteration costs the same fixed latency wherever it is used. A macro, not an inline
 * function: rocsys-top shows inlined functions as frames of their own (from DWARF), and the
 * documented split is about the demo_* functions' self time. */
#define SPIN_KERNEL(iters, seed)                                                                   \
    do {                                                                                           \
        volatile uint64_t acc_ = (seed);                                                           \
        for (long i_ = 0; i_ < (iters); i_++)                                                      \
            acc_ = acc_ * 6364136223846793005ULL + 1442695040888963407ULL;                         \
        result_ = acc_;                                                                            \
    } while (0)

/* 50% of a round, all self time. */
__attribute__((noinline)) uint64_t demo_solve(long iters, uint64_t seed)
{
    uint64_t result_;
    SPIN_KERNEL(iters, seed);
    return result_;
}

/* 30% of a round, all self time (called through demo_transform). */
__attribute__((noinline)) uint64_t demo_butterfly(long iters, uint64_t seed)
{
    uint64_t result_;
    SPIN_KERNEL(iters, seed ^ 0x5555);
    return result_;
}

/* No self time of its own: only passes the work on to demo_butterfly. */
__attribute__((noinline)) uint64_t demo_transform(long iters, uint64_t seed)
{
    uint64_t r = demo_butterfly(iters, seed);
    return r + 1; /* work after the call: no tail call, demo_transform stays a frame */
}

/* 20% of a round, all self time. */
__attribute__((noinline)) uint64_t demo_reduce(long iters, uint64_t seed)
{
    uint64_t result_;
    SPIN_KERNEL(iters, seed ^ 0xaaaa);
    return result_;
}

static uint64_t thread_cpu_ns(void);
static uint64_t now_ns(void);
static void plan_adjust(struct demo_plan *plan, const uint64_t cost_ns[3]);

/* One round of a solver thread: ~100% of the thread's CPU time inclusive. The thread's CPU
 * clock is read around each leaf (4 reads per ~10 ms round: a negligible share) so that the
 * next round can correct the split. */
__attribute__((noinline)) uint64_t demo_step(struct demo_plan *plan, uint64_t seed)
{
    uint64_t w0 = now_ns(), t0 = thread_cpu_ns();
    uint64_t acc = demo_solve(plan->solve_iters, seed);
    uint64_t t1 = thread_cpu_ns(), w1 = now_ns();
    acc = demo_transform(plan->butterfly_iters, acc);
    uint64_t t2 = thread_cpu_ns(), w2 = now_ns();
    acc = demo_reduce(plan->reduce_iters, acc);
    uint64_t t3 = thread_cpu_ns(), w3 = now_ns();
    const uint64_t cost[3] = {t1 - t0, t2 - t1, t3 - t2};
    plan->wall_ns[0] += w1 - w0;
    plan->wall_ns[1] += w2 - w1;
    plan->wall_ns[2] += w3 - w2;
    plan_adjust(plan, cost);
    return acc + 1; /* work after the last call: no tail call */
}

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* CPU time of the calling thread in nanoseconds: unlike wall time, it does not count the time
 * the thread waits for a core, so calibration holds on a busy machine. */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Nanoseconds of CPU per kernel iteration of one leaf function: best of a few timed runs. */
static double calibrate_one(uint64_t (*leaf)(long, uint64_t))
{
    double best = 0;
    for (int t = 0; t < CALIBRATE_TRIES; t++) {
        uint64_t start = thread_cpu_ns();
        leaf(CALIBRATE_ITERS, (uint64_t)t);
        double ns = (double)(thread_cpu_ns() - start) / (double)CALIBRATE_ITERS;
        if (t == 0 || ns < best)
            best = ns;
    }
    return best > 0 ? best : 1e-3;
}

/* Iteration count of a leaf that makes it take share * ROUND_NS. */
static long iters_for(double share, double ns_per_iter)
{
    double iters = share * ROUND_NS / ns_per_iter;
    return iters < 1 ? 1 : (long)iters;
}

/* Calibrate each leaf separately (code placement can make identical loops run at slightly
 * different speeds) and derive the per-round iteration counts. */
static void plan_calibrate(struct demo_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    plan->ns_per_iter[0] = calibrate_one(demo_solve);
    plan->ns_per_iter[1] = calibrate_one(demo_butterfly);
    plan->ns_per_iter[2] = calibrate_one(demo_reduce);
    plan->solve_iters = iters_for(leaf_share[0], plan->ns_per_iter[0]);
    plan->butterfly_iters = iters_for(leaf_share[1], plan->ns_per_iter[1]);
    plan->reduce_iters = iters_for(leaf_share[2], plan->ns_per_iter[2]);
}

/* After a round: update each leaf's cost estimate, then size the next round so that the CPU
 * split since the start converges on 50 / 30 / 20 (or --split's) whatever else the machine is
 * doing (other processes on a sibling hyperthread change the cost of an iteration while the
 * demo runs). */
static void plan_adjust(struct demo_plan *plan, const uint64_t cost_ns[3])
{
    const double *share = leaf_share;
    long *iters[3] = {&plan->solve_iters, &plan->butterfly_iters, &plan->reduce_iters};
    uint64_t total = 0;

    for (int k = 0; k < 3; k++) {
        if (*iters[k] > 0 && cost_ns[k] > 0)
            plan->ns_per_iter[k] =
                0.8 * plan->ns_per_iter[k] + 0.2 * (double)cost_ns[k] / (double)*iters[k];
        plan->spent_ns[k] += cost_ns[k];
        total += plan->spent_ns[k];
    }
    /* The next round lasts 0.7 to 1.3 x ROUND_NS, at random: a round of fixed length would be
     * periodic with a multiple of the kernel tick (at which CPU-time sampling happens), and
     * the samples would then always fall at the same few points of a round (aliasing). */
    plan->rng = plan->rng * 6364136223846793005ULL + 1442695040888963407ULL;
    double round_ns = ROUND_NS * (0.7 + 0.6 * (double)(plan->rng >> 11) / 9007199254740992.0);
    for (int k = 0; k < 3; k++) {
        /* this round's share plus whatever the leaf is behind (or minus what it is ahead) */
        double want = share[k] * ((double)total + round_ns) - (double)plan->spent_ns[k];
        if (want < 0)
            want = 0;
        if (want > 2 * share[k] * round_ns)
            want = 2 * share[k] * round_ns;
        *iters[k] = (long)(want / plan->ns_per_iter[k]);
    }
}

/* Compute thread: rounds of demo_step until the deadline (checked once per round). */
static void *solver_main(void *p)
{
    struct solver_arg *a = p;
    char name[16];
    snprintf(name, sizeof name, "solver-%d", a->index);
    pthread_setname_np(pthread_self(), name);

    uint64_t seed = (uint64_t)a->index + 1;
    unsigned long rounds = 0;
    for (;;) {
        seed = demo_step(&a->plan, seed);
        rounds++;
        if (a->deadline_ns && now_ns() >= a->deadline_ns)
            break;
    }
    a->rounds = rounds;
    return NULL;
}

/* Sleeping thread: nanosleep 100 ms at a time until the deadline or until main says stop. */
static void *sleeper_main(void *p)
{
    uint64_t deadline = *(const uint64_t *)p;
    pthread_setname_np(pthread_self(), "sleeper");
    while (!__atomic_load_n(&sleeper_stop, __ATOMIC_RELAXED)) {
        if (deadline && now_ns() >= deadline)
            break;
        struct timespec ts = {0, SLEEPER_PERIOD_NS};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* Print the usage text to f. */
static void usage(FILE *f)
{
    fprintf(f,
            "usage: rocsys-demo [--seconds N] [--threads N] [--split S,B,R] [--no-sleeper] "
            "[--help]\n"
            "  --seconds N    run for N seconds (default 30; 0 = until killed)\n"
            "  --threads N    number of compute threads solver-0.. (default 2, at most %d)\n"
            "  --split S,B,R  CPU split in %% of demo_solve, demo_butterfly, demo_reduce\n"
            "                 (whole numbers adding up to 100; default 50,30,20)\n"
            "  --no-sleeper   do not start the sleeping thread\n"
            "CPU split in each solver thread: demo_solve 50%%, demo_butterfly 30%% (via\n"
            "demo_transform), demo_reduce 20%%, all under demo_step.\n",
            MAX_THREADS);
}

/* Parse a non-negative decimal int no larger than max; -1 if it is not one. */
static int parse_count(const char *s, int max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > max)
        return -1;
    return (int)v;
}

/* Parse --split "S,B,R" (whole percentages adding up to 100) into leaf_share; 0, or -1. */
static int parse_split(const char *s)
{
    int pct[3], sum = 0;
    char *end;

    for (int k = 0; k < 3; k++) {
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || v < 0 || v > 100 || *end != (k < 2 ? ',' : '\0'))
            return -1;
        pct[k] = (int)v;
        sum += pct[k];
        s = end + 1;
    }
    if (sum != 100)
        return -1;
    for (int k = 0; k < 3; k++)
        leaf_share[k] = pct[k] / 100.0;
    return 0;
}

int main(int argc, char **argv)
{
    int seconds = 30, nthreads = 2, sleeper = 1;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--no-sleeper")) {
            sleeper = 0;
        } else if (!strcmp(arg, "--split")) {
            if (i + 1 >= argc || parse_split(argv[i + 1]) != 0) {
                fprintf(stderr,
                        "rocsys-demo: --split needs S,B,R: three whole percentages adding up "
                        "to 100 (try --help)\n");
                return 2;
            }
            i++;
        } else if (!strcmp(arg, "--seconds") || !strcmp(arg, "--threads")) {
            int is_seconds = arg[2] == 's';
            if (i + 1 >= argc) {
                fprintf(stderr, "rocsys-demo: %s needs a value (try --help)\n", arg);
                return 2;
            }
            int v = parse_count(argv[++i], is_seconds ? INT_MAX : MAX_THREADS);
            if (v < 0) {
                fprintf(stderr, "rocsys-demo: bad value for %s: '%s' (try --help)\n", arg, argv[i]);
                return 2;
            }
            if (is_seconds)
                seconds = v;
            else
                nthreads = v;
        } else {
            fprintf(stderr, "rocsys-demo: unknown option '%s' (try --help)\n", arg);
            return 2;
        }
    }

    struct demo_plan plan;
    uint64_t calibrate_start_ns = thread_cpu_ns();
    plan_calibrate(&plan);
    /* the calibration runs the leaves outside demo_step: a share of the process's CPU that a
     * busy machine makes larger (the solvers get less CPU in their seconds, it gets the same) */
    uint64_t calibrate_cpu_ns = thread_cpu_ns() - calibrate_start_ns;

    printf("rocsys-demo: %d solver thread%s for ", nthreads, nthreads == 1 ? "" : "s");
    if (seconds)
        printf("%d s, pid %d\n", seconds, (int)getpid());
    else
        printf("until killed, pid %d\n", (int)getpid());
    fflush(stdout);

    uint64_t deadline = seconds ? now_ns() + (uint64_t)seconds * 1000000000ULL : 0;

    pthread_t sleeper_thread;
    int have_sleeper = 0;
    if (sleeper) {
        int err = pthread_create(&sleeper_thread, NULL, sleeper_main, &deadline);
        if (err) {
            fprintf(stderr, "rocsys-demo: cannot start sleeper thread: %s\n", strerror(err));
            return 1;
        }
        have_sleeper = 1;
    }

    static pthread_t threads[MAX_THREADS];
    static struct solver_arg args[MAX_THREADS];
    int started = 0;
    for (int i = 0; i < nthreads; i++) {
        args[i] = (struct solver_arg){.index = i, .plan = plan, .deadline_ns = deadline};
        args[i].plan.rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1);
        int err = pthread_create(&threads[i], NULL, solver_main, &args[i]);
        if (err) {
            fprintf(stderr, "rocsys-demo: cannot start solver thread: %s\n", strerror(err));
            break;
        }
        started++;
    }

    unsigned long rounds = 0;
    uint64_t spent[3] = {0, 0, 0}, wall[3] = {0, 0, 0};
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        rounds += args[i].rounds;
        for (int k = 0; k < 3; k++) {
            spent[k] += args[i].plan.spent_ns[k];
            wall[k] += args[i].plan.wall_ns[k];
        }
    }
    /* With no solver threads the sleeper alone runs to the deadline. */
    if (started > 0)
        __atomic_store_n(&sleeper_stop, 1, __ATOMIC_RELAXED);
    if (have_sleeper)
        pthread_join(sleeper_thread, NULL);

    double all = (double)(spent[0] + spent[1] + spent[2]);
    if (all <= 0)
        all = 1;
    printf("rocsys-demo: done, %lu rounds; measured CPU split %.1f / %.1f / %.1f %% of %.0f ms; "
           "calibration %.0f ms of CPU outside demo_step\n",
           rounds, 100.0 * (double)spent[0] / all, 100.0 * (double)spent[1] / all,
           100.0 * (double)spent[2] / all, all / 1e6, (double)calibrate_cpu_ns / 1e6);
    /* what wall-clock sampling (--sample wall) should see of the leaves: a busy machine makes
     * a leaf wait for a core, which counts in wall time, not in CPU time */
    double wall_all = (double)(wall[0] + wall[1] + wall[2]);
    if (wall_all <= 0)
        wall_all = 1;
    printf("rocsys-demo: measured wall split %.1f / %.1f / %.1f %% of %.0f ms\n",
           100.0 * (double)wall[0] / wall_all, 100.0 * (double)wall[1] / wall_all,
           100.0 * (double)wall[2] / wall_all, wall_all / 1e6);
    return started == nthreads ? 0 : 1;
}
