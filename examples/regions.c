/* rocsys-regions: a multi-threaded program annotated with rocsys-top's user API
 * (rocsys/user.h). Each thread computes Fibonacci numbers inside a region named after its work,
 * "run(N) x ITERATIONS"; main marks its phases (initialization, thread_creation, thread_wait)
 * and runs the same work itself. Run it alone (the calls cost nothing), or under rocsys-top:
 *   rocsys-top -- rocsys-regions [N [THREADS [ITERATIONS]]]
 * and look at the call tree (1), the Regions view (6) and, with --record DIR, trace.pftrace. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rocsys/user.h"

static long total; /* sum of all results (atomically updated) */

/* Fibonacci by plain recursion: CPU work with a deep, regular call tree. */
__attribute__((noinline)) static long fib(long n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

struct work {
    long n;
    long iterations;
};

/* One thread's work, inside a region named after it. */
__attribute__((noinline)) static void *run(void *arg)
{
    const struct work *w = arg;
    char label[64];
    long local = 0;

    snprintf(label, sizeof(label), "run(%ld) x %ld", w->n, w->iterations);
    rocsys_user_push(label);
    for (long i = 0; i < w->iterations; i++)
        local += fib(w->n);
    __atomic_add_fetch(&total, local, __ATOMIC_RELAXED);
    rocsys_user_pop();
    return NULL;
}

int main(int argc, char **argv)
{
    struct work w = {.n = 30, .iterations = 20};
    long nthreads = sysconf(_SC_NPROCESSORS_ONLN);
    pthread_t *threads;

    rocsys_user_push("initialization");
    if (argc > 1)
        w.n = atol(argv[1]);
    if (argc > 2)
        nthreads = atol(argv[2]);
    if (argc > 3)
        w.iterations = atol(argv[3]);
    if (nthreads < 1 || nthreads > 256)
        nthreads = 4;
    threads = calloc((size_t)nthreads, sizeof(*threads));
    printf("[%s] threads: %ld, iterations: %ld, fibonacci(%ld)%s\n", argv[0], nthreads,
           w.iterations, w.n, rocsys_user_active() ? " (under rocsys-top)" : "");
    rocsys_user_pop();

    rocsys_user_push("thread_creation");
    for (long i = 0; i < nthreads; i++)
        pthread_create(&threads[i], NULL, run, &w);
    rocsys_user_pop();
    rocsys_user_mark("threads started");

    run(&w); /* main works too */

    rocsys_user_push("thread_wait");
    for (long i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    rocsys_user_pop();

    printf("[%s] fibonacci(%ld) x %ld = %ld\n", argv[0], w.n, nthreads + 1, total);
    free(threads);
    return 0;
}
