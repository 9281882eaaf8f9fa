/* A tight uncontended mutex loop for bench/mutex.sh: one thread locks and unlocks one mutex
 * N times and prints what a pair cost it (its own monotonic clock). usage: mutex_loop [N] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Now, in nanoseconds of the monotonic clock. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50000000L;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    volatile long work = 0;

    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        work++;
        pthread_mutex_unlock(&m);
    }
    double t1 = now_ns();
    printf("mutex: %ld pairs %.3f s %.2f ns/pair\n", n, (t1 - t0) / 1e9, (t1 - t0) / (double)n);
    return work == n ? 0 : 1;
}
