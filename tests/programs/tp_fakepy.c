/* A stand-in for a CPython 3.12 interpreter whose thread state points at memory that is not
 * mapped (its _PyCFrame's previous cframe): the collector's guarded reads fault in every
 * sample. The program must run as it does
 * without rocsys-top (prints "survived", exit 0), and the samples count as unreadable.
 * Arguments: SECONDS (default 2); "segv" then dies of a genuine SIGSEGV with its own SA_RESETHAND
 * handler, which must run exactly once (as without rocsys-top). Built with -rdynamic, so that
 * the collector finds the symbols a CPython exports. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

char _PyRuntime[4096] __attribute__((aligned(64)));
const unsigned long Py_Version = 0x030c01f0; /* 3.12.1 */
char PyCode_Type[512], PyUnicode_Type[512], PyBytes_Type[512], PyFrame_Type[512];

static uint64_t tstate[128] __attribute__((aligned(64)));
static uint64_t cframe[4];
static volatile sig_atomic_t handled;

/* The program's own SIGSEGV handler: counts, then returns (SA_RESETHAND: the fault again kills). */
static void on_segv(int sig)
{
    (void)sig;
    handled++;
    char msg[] = "own handler\n";
    write(2, msg, sizeof(msg) - 1);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    pthread_key_t key;
    struct timespec t0, t;
    volatile uint64_t x = 0;

    /* 3.12's layout: the GIL-state key at _PyRuntime+1544, tstate->thread_id at +136,
     * tstate->cframe at +56, cframe->current_frame at +0, cframe->previous at +8 */
    pthread_key_create(&key, NULL);
    *(int *)(_PyRuntime + 1544) = 1;
    *(unsigned *)(_PyRuntime + 1548) = key;
    tstate[136 / 8] = (uint64_t)pthread_self();
    void *gone = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(gone, 4096);
    cframe[0] = 0;
    cframe[1] = (uint64_t)(uintptr_t)gone; /* the previous cframe: an unmapped page */
    tstate[56 / 8] = (uint64_t)(uintptr_t)cframe;
    pthread_setspecific(key, tstate);
    if (argc > 2 && strcmp(argv[2], "segv") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof(sa));
        sa.sa_handler = on_segv;
        sa.sa_flags = SA_RESETHAND;
        sigaction(SIGSEGV, &sa, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        for (int i = 0; i < 1000000; i++)
            x += (uint64_t)i;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
    printf("survived\n");
    fflush(stdout);
    if (argc > 2 && strcmp(argv[2], "segv") == 0)
        *(volatile int *)gone = 1; /* a genuine fault: the own handler once, then the default */
    return 0;
}
