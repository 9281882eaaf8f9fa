/* The machine's side of the BPF walker's cost (bench/python_outside.sh): what a first touch costs
 * here, measured in user space, so that runs at different loads can be told apart from changes
 * of the walker. For SECONDS of CPU: every millisecond of its own CPU time (a loop of dependent
 * additions in between, like the bench's target), times a copy of 6 KiB it last copied a
 * millisecond before into the buffer it wrote then (the walker's window read at 50 frames, whose
 * lines come from wherever the machine left them), and the same copy again at once (warm); then
 * prints the medians and means in ns, and the median ns per 1000 dependent additions (the core's
 * speed; a median, so that the times the loop was preempted do not count).
 * usage: cache_ref SECONDS */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COPY_BYTES 6144
#define MAX_COPIES 100000

static unsigned char src[COPY_BYTES], dst[COPY_BYTES];
static uint64_t cold_ns[MAX_COPIES], warm_ns[MAX_COPIES], spin_ns[MAX_COPIES];

/* Nanoseconds on clock c. */
static uint64_t clock_ns(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* n dependent additions (not optimised away). */
static uint64_t spin(uint64_t n, uint64_t x)
{
    for (uint64_t i = 0; i < n; i++)
        __asm__ volatile("add $1, %0" : "+r"(x));
    return x;
}

/* Copy src to dst and return the nanoseconds it took. */
static uint64_t timed_copy(void)
{
    uint64_t t0 = clock_ns(CLOCK_MONOTONIC);
    memcpy(dst, src, COPY_BYTES);
    __asm__ volatile("" ::"r"(dst) : "memory");
    return clock_ns(CLOCK_MONOTONIC) - t0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median and mean of v[0..n) into *med, *mean (v sorted). */
static void stats(uint64_t *v, size_t n, double *med, double *mean)
{
    double s = 0;
    qsort(v, n, sizeof(*v), cmp_u64);
    for (size_t i = 0; i < n; i++)
        s += (double)v[i];
    *med = n ? (double)v[n / 2] : 0;
    *mean = n ? s / (double)n : 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 0;
    uint64_t x = 1, end, next, t0;
    size_t n = 0, nspin = 0;

    if (seconds <= 0 || seconds > 60) {
        fprintf(stderr, "usage: cache_ref SECONDS (0-60]\n");
        return 2;
    }
    memset(src, 1, sizeof(src));
    end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + (uint64_t)(seconds * 1e9);
    next = clock_ns(CLOCK_THREAD_CPUTIME_ID) + 1000000;
    while (n < MAX_COPIES) {
        t0 = clock_ns(CLOCK_MONOTONIC);
        x = spin(20000, x);
        if (nspin < MAX_COPIES)
            spin_ns[nspin++] = clock_ns(CLOCK_MONOTONIC) - t0;
        uint64_t now = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        if (now >= end)
            break;
        if (now < next)
            continue;
        next = now + 1000000;
        cold_ns[n] = timed_copy();
        warm_ns[n++] = timed_copy();
    }
    double cm, ca, wm, wa, sm, sa;
    stats(cold_ns, n, &cm, &ca);
    stats(warm_ns, n, &wm, &wa);
    stats(spin_ns, nspin, &sm, &sa);
    /* (x: printed, so that the loop is not optimised away) */
    printf("%zu %.0f %.0f %.0f %.0f %.1f %llu\n", n, cm, ca, wm, wa, sm / 20.0,
           (unsigned long long)(x & 1));
    return 0;
}
