/* tp_deep [THREADS [DEPTH [SECONDS]]] (defaults 16 32 5): THREADS threads ("deep-<i>") each
 * recurse DEPTH levels through deep_recurse() and spin in deep_spin() at the bottom until
 * SECONDS have passed, so every sample has a stack of about DEPTH+3 frames.
 * Used by bench/sample_cost.sh (the collector's per-sample cost with deep stacks and many
 * threads) and by tests of deep-stack unwinding. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

uint64_t deep_spin(uint64_t seed);
uint64_t deep_recurse(int depth, uint64_t seed);

static uint64_t deadline_ns;

/* CLOCK_MONOTONIC in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The bottom of the stack: spin until the deadline (clock read every 2^16 iterations). */
__attribute__((noinline)) uint64_t deep_spin(uint64_t seed)
{
    volatile uint64_t acc = seed;
    do {
        for (int i = 0; i < 1 << 16; i++)
            acc = acc * 6364136223846793005ULL + 1;
    } while (now_ns() < deadline_ns);
    return acc;
}

/* One level of recursion; the volatile read after the call keeps it from becoming a loop or a
 * tail call, so each level is a real frame. */
__attribute__((noinline)) uint64_t deep_recurse(int depth, uint64_t seed)
{
    volatile int level = depth;
    uint64_t r = depth <= 1 ? deep_spin(seed) : deep_recurse(depth - 1, seed * 3 + 1);
    return r + (uint64_t)level;
}

struct deep_arg {
    int index;
    int depth;
};

/* Thread body: name itself, recurse. */
static void *deep_main(void *p)
{
    struct deep_arg *a = p;
    char name[16];
    snprintf(name, sizeof name, "deep-%d", a->index);
    pthread_setname_np(pthread_self(), name);
    deep_recurse(a->depth, (uint64_t)a->index + 1);
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 16;
    int depth = argc > 2 ? atoi(argv[2]) : 32;
    double secs = argc > 3 ? atof(argv[3]) : 5.0;
    if (argc > 4 || nthreads < 1 || nthreads > 1024 || depth < 1 || depth > 10000 || secs < 0) {
        fprintf(stderr, "usage: tp_deep [THREADS [DEPTH [SECONDS]]] (defaults 16 32 5)\n");
        return 2;
    }
    deadline_ns = now_ns() + (uint64_t)(secs * 1e9);

    pthread_t *t = calloc((size_t)nthreads, sizeof *t);
    struct deep_arg *args = calloc((size_t)nthreads, sizeof *args);
    if (!t || !args) {
        fprintf(stderr, "tp_deep: out of memory\n");
        return 1;
    }
    int started = 0;
    for (int i = 0; i < nthreads; i++) {
        args[i] = (struct deep_arg){i, depth};
        int err = pthread_create(&t[i], NULL, deep_main, &args[i]);
        if (err) {
            fprintf(stderr, "tp_deep: pthread_create: %s\n", strerror(err));
            break;
        }
        started++;
    }
    for (int i = 0; i < started; i++)
        pthread_join(t[i], NULL);
    printf("tp_deep: %d threads, depth %d, %g s done\n", started, depth, secs);
    free(t);
    free(args);
    return started == nthreads ? 0 : 1;
}
