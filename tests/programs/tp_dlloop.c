/* tp_dlloop [SECONDS]: two threads dlopen/dlclose libraries in a loop (plugin-style). Under
 * the collector this once crashed (a library unmapped under the unwinder) and deadlocked (the
 * loader lock taken in the signal handler). Used by tests/e2e/test_robustness.sh. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
static volatile int stop;
static void *loop(void *a)
{
    (void)a;
    long n = 0;
    while (!stop) {
        void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
        void *h2 = dlopen("libz.so.1", RTLD_NOW);
        if (h2)
            dlclose(h2);
        if (h)
            dlclose(h);
        n++;
    }
    return (void *)n;
}
int main(int argc, char **argv)
{
    int secs = argc > 1 ? atoi(argv[1]) : 2;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], 0, loop, 0);
    sleep(secs);
    stop = 1;
    long tot = 0;
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(t[i], &r);
        tot += (long)r;
    }
    printf("dlopen cycles %ld\n", tot);
    return 0;
}
