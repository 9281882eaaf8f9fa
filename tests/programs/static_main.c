/* static_main.c, built as tp_static by programs.cmake (statically linked, so LD_PRELOAD cannot
 * inject the collector). Burns ~500 ms of CPU in static_work(), prints "tp_static: done",
 * exits 0.
 * Used by the end-to-end test that a static binary is detected (rocsys-top warns that it cannot
 * sample it, and still runs it and reports its exit status). Not named tp_*.c so that the test
 * programs' glob does not also build it dynamically linked. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

void static_work(long ms);

/* CPU time of the process in nanoseconds. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spin for ms milliseconds of CPU time. */
__attribute__((noinline)) void static_work(long ms)
{
    uint64_t end = cpu_ns() + (uint64_t)ms * 1000000ULL;
    volatile uint64_t acc = 1;
    do {
        for (int i = 0; i < 1 << 16; i++)
            acc = acc * 6364136223846793005ULL + 1;
    } while (cpu_ns() < end);
}

int main(void)
{
    static_work(500);
    printf("tp_static: done\n");
    return 0;
}
