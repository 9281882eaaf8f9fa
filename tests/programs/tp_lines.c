/* Test program for the Source view: lines_work() spends its self time on two lines, about 60 %
 * on LINE_A and 25 % on LINE_B, and calls the inlined lines_inlined(), whose 15 % are on its own
 * line (LINE_C); usage: tp_lines [SECONDS] (default 30). Each SPIN is one source line (a macro:
 * all its code is at the line where it is expanded). The "LINE_" comments mark the lines that
 * tests/e2e/test_source.sh looks for. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define SPIN(acc, n, k)                                                                            \
    do {                                                                                           \
        for (long i_ = 0; i_ < (n); i_++)                                                          \
            (acc) = (acc)*6364136223846793005ULL + (k);                                            \
    } while (0)

static inline __attribute__((always_inline)) uint64_t lines_inlined(volatile uint64_t *acc, long n)
{
    SPIN(*acc, n, 5); /* LINE_C */
    return *acc;
}

uint64_t lines_work(long a, long b, long c);
__attribute__((noinline)) uint64_t lines_work(long a, long b, long c)
{
    volatile uint64_t acc = 1;

    SPIN(acc, a, 1); /* LINE_A */
    SPIN(acc, b, 3); /* LINE_B */
    return lines_inlined(&acc, c);
}

int main(int argc, char **argv)
{
    time_t end = time(NULL) + (argc > 1 ? atol(argv[1]) : 30);
    uint64_t sum = 0;

    while (time(NULL) < end)
        sum += lines_work(600000, 250000, 150000);
    return (int)(sum & 1) * 0;
}
