/* Sleeps and burns in turn on its main thread: nanosleep 2 ms (sleepy_wait) then ~2 ms of CPU
 * (sleepy_burn), 500 times. Prints how many sleeps ended early (no retry on EINTR) and the
 * share of its wall time spent in nanosleep, as measured by itself. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One 2 ms sleep; 1 if it ended early. */
__attribute__((noinline)) static int sleepy_wait(uint64_t *slept_ns)
{
    struct timespec ts = {0, 2000000};
    uint64_t t0 = now_ns();
    int rc = nanosleep(&ts, NULL);
    uint64_t d = now_ns() - t0;
    *slept_ns += d;
    return rc != 0 || d < 2000000;
}

/* About 2 ms of CPU work. */
__attribute__((noinline)) static double sleepy_burn(void)
{
    volatile double x = 0;
    uint64_t t0 = now_ns();
    while (now_ns() - t0 < 2000000)
        for (int k = 0; k < 1000; k++)
            x += k * 0.5;
    return x;
}

int main(void)
{
    uint64_t slept = 0, t0 = now_ns();
    int early = 0;

    for (int i = 0; i < 500; i++) {
        early += sleepy_wait(&slept);
        sleepy_burn();
    }
    printf("sleepy early %d\n", early);
    printf("sleepy done %.1f\n", 100.0 * (double)slept / (double)(now_ns() - t0));
    return 0;
}
