/* tp_plugin: loaded by tp_dlopen after start; its functions must show up by name in the
 * profile (the collector reports modules loaded later). Used by tests/e2e/test_dlopen.sh. */
#include <stdint.h>
#include <time.h>

uint64_t plugin_work(int ms);
uint64_t plugin_inner(uint64_t n);

/* A CPU loop of n iterations. */
__attribute__((noinline)) uint64_t plugin_inner(uint64_t n)
{
    volatile uint64_t acc = 1;
    for (uint64_t i = 0; i < n; i++)
        acc = acc * 2862933555777941757ULL + 3037000493ULL;
    return acc;
}

/* Burn about ms milliseconds of CPU inside the plugin. */
__attribute__((noinline)) uint64_t plugin_work(int ms)
{
    struct timespec a, b;
    uint64_t acc = 0;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do {
        acc += plugin_inner(200000);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
    return acc;
}
