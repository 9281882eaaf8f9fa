/* Shared by the test programs: TP_DEFINE_BURN(name) defines `void name(long ms)`, a function
 * with a frame of its own that spins for ms milliseconds of the thread's CPU time. The clock
 * is read every 2^16 iterations only, so the samples land in the function, not in libc. */
#ifndef ROCSYS_TESTS_TP_BURN_H
#define ROCSYS_TESTS_TP_BURN_H

#include <stdint.h>
#include <time.h>

/* Thread CPU time in nanoseconds. */
static inline uint64_t tp_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#define TP_DEFINE_BURN(name)                                                                       \
    void name(long ms);                                                                            \
    __attribute__((noinline)) void name(long ms)                                                   \
    {                                                                                              \
        uint64_t end_ = tp_cpu_ns() + (uint64_t)ms * 1000000ULL;                                   \
        volatile uint64_t acc_ = 1;                                                                \
        do {                                                                                       \
            for (int i_ = 0; i_ < 1 << 16; i_++)                                                   \
                acc_ = acc_ * 6364136223846793005ULL + 1;                                          \
        } while (tp_cpu_ns() < end_);                                                              \
    }

#endif
