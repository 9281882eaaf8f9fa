/* tp_crash: prints "tp_crash: before crash", burns ~300 ms of CPU in crash_burn(), then
 * dereferences NULL in crash_here() (SIGSEGV).
 * Used by the end-to-end tests of a crashing target: rocsys-top reports "killed by SIGSEGV",
 * exits with 128+11, keeps the samples taken before the crash and the target's output. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

void crash_burn(long ms);
void crash_here(void);

/* Thread CPU time in nanoseconds. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Spin for ms milliseconds of CPU time (clock read every 2^16 iterations). */
__attribute__((noinline)) void crash_burn(long ms)
{
    uint64_t end = cpu_ns() + (uint64_t)ms * 1000000ULL;
    volatile uint64_t acc = 1;
    do {
        for (int i = 0; i < 1 << 16; i++)
            acc = acc * 6364136223846793005ULL + 1;
    } while (cpu_ns() < end);
}

/* Write through a NULL pointer the compiler cannot see is NULL: a real SIGSEGV, not a trap. */
__attribute__((noinline)) void crash_here(void)
{
    int *volatile p = NULL;
    *(volatile int *)p = 42;
}

int main(void)
{
    printf("tp_crash: before crash\n");
    fflush(stdout);
    crash_burn(300);
    crash_here();
    printf("tp_crash: still alive?\n");
    return 0;
}
