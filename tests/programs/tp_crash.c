/* tp_crash: prints "tp_crash: before crash", burns ~300 ms of CPU in crash_burn(), then
 * dereferences NULL in crash_here() (SIGSEGV).
 * Used by the end-to-end tests of a crashing target: rocsys-top reports "killed by SIGSEGV",
 * exits with 128+11, keeps the samples taken before the crash and the target's output. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "tp_burn.h"

void crash_burn(long ms);
void crash_here(void);

/* Spin for ms milliseconds of CPU time (clock read every 2^16 iterations). */
TP_DEFINE_BURN(crash_burn)

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
