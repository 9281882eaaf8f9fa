/* A thread that appears late: the main thread sleeps ~1.5 s, then starts a thread named "late"
 * that burns ~2 s of CPU in late_burn, joins it and prints "late done". For attaching to a
 * running process: threads created after the attach must be sampled too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

/* Monotonic time in nanoseconds. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* About ms milliseconds of CPU work. */
__attribute__((noinline)) static double late_burn(uint64_t ms)
{
    volatile double x = 0;
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < ms * 1000000ull)
        for (int k = 0; k < 1000; k++)
            x += k * 0.5;
    return x;
}

/* The late thread: names itself "late", then burns ~2 s. */
static void *late_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "late");
    late_burn(2000);
    return NULL;
}

int main(void)
{
    struct timespec pause = {1, 500000000};
    pthread_t t;

    nanosleep(&pause, NULL);
    if (pthread_create(&t, NULL, late_main, NULL) != 0) {
        perror("pthread_create");
        return 1;
    }
    pthread_join(t, NULL);
    printf("late done\n");
    return 0;
}
