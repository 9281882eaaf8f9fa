/* tp_dlopen PLUGIN.so [MS]: burns CPU, then dlopens PLUGIN.so and burns MS ms (default 600)
 * in its plugin_work, dlcloses it, burns again in the executable. Used by
 * tests/e2e/test_dlopen.sh: code loaded after start is symbolized. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Burn about ms milliseconds of CPU in the executable itself. */
__attribute__((noinline)) static uint64_t main_work(int ms)
{
    struct timespec a, b;
    volatile uint64_t acc = 1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do {
        for (int i = 0; i < 100000; i++)
            acc = acc * 6364136223846793005ULL + 1;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000 < ms);
    return acc;
}

int main(int argc, char **argv)
{
    int ms = argc > 2 ? atoi(argv[2]) : 600;
    void *h;
    uint64_t (*work)(int);

    if (argc < 2) {
        fprintf(stderr, "usage: tp_dlopen PLUGIN.so [MS]\n");
        return 2;
    }
    main_work(200);
    h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        fprintf(stderr, "tp_dlopen: %s\n", dlerror());
        return 1;
    }
    work = (uint64_t(*)(int))dlsym(h, "plugin_work");
    if (!work) {
        fprintf(stderr, "tp_dlopen: no plugin_work\n");
        return 1;
    }
    printf("tp_dlopen: plugin returned %llu\n", (unsigned long long)work(ms));
    dlclose(h);
    main_work(200);
    return 0;
}
