/* tp_threads500: starts 500 short-lived threads, at most 16 alive at a time; thread i names
 * itself "short-<i>", burns ~2 ms of CPU in short_work() and exits. Then main prints
 * "tp_threads500: 500 threads done" and exits 0.
 * Used by the end-to-end test of thread churn (many thread starts/exits, names, ring reuse). */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define NTHREADS 500
#define BATCH    16

void short_work(long us);

/* Thread CPU time in nanoseconds. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spin for us microseconds of CPU time (clock read every 2^12 iterations). */
__attribute__((noinline)) void short_work(long us)
{
    uint64_t end = cpu_ns() + (uint64_t)us * 1000ULL;
    volatile uint64_t acc = 1;
    do {
        for (int i = 0; i < 1 << 12; i++)
            acc = acc * 6364136223846793005ULL + 1;
    } while (cpu_ns() < end);
}

/* Body of thread i: name itself, burn ~2 ms. */
static void *short_main(void *p)
{
    char name[16];
    snprintf(name, sizeof name, "short-%d", (int)(intptr_t)p);
    pthread_setname_np(pthread_self(), name);
    short_work(2000);
    return NULL;
}

int main(void)
{
    pthread_t t[BATCH];
    for (int base = 0; base < NTHREADS; base += BATCH) {
        int n = NTHREADS - base < BATCH ? NTHREADS - base : BATCH;
        for (int i = 0; i < n; i++) {
            int err = pthread_create(&t[i], NULL, short_main, (void *)(intptr_t)(base + i));
            if (err) {
                fprintf(stderr, "tp_threads500: pthread_create: %s\n", strerror(err));
                return 1;
            }
        }
        for (int i = 0; i < n; i++)
            pthread_join(t[i], NULL);
    }
    printf("tp_threads500: %d threads done\n", NTHREADS);
    return 0;
}
