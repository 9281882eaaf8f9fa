/* tp_jmp: the timeout idiom: a SIGALRM handler siglongjmps out of whatever runs, 10 000 times
 * a second, until its main thread has had 2 s of CPU (as many samples on a busy machine as on an
 * idle one, where that is 2 s), while another thread dlopens. The collector must neither be
 * interrupted half-way nor let the target's signals run on its own threads. Used by
 * tests/e2e/test_robustness.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <time.h>
static sigjmp_buf env;
static volatile long jumps;
static void on_alrm(int s)
{
    (void)s;
    jumps++;
    siglongjmp(env, 1);
}
static void *other(void *a)
{
    struct timespec t = {1, 0};
    nanosleep(&t, 0);
    void *h = dlopen("libz.so.1", RTLD_NOW);
    printf("other thread: dlopen %s\n", h ? "ok" : "failed");
    fflush(stdout);
    return a;
}
int main(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_alrm;
    sigaction(SIGALRM, &sa, 0);
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &m, 0);
    pthread_t t;
    pthread_create(&t, 0, other, 0);
    pthread_sigmask(SIG_UNBLOCK, &m, 0);
    struct itimerval it = {{0, 97}, {0, 97}};
    struct timespec t0, now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    /* the jump target is set before the timer runs: an alarm taken first would jump nowhere */
    if (sigsetjmp(env, 1) == 0)
        setitimer(ITIMER_REAL, &it, 0);
    for (;;) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        if (now.tv_sec - t0.tv_sec >= 2)
            break;
    }
    struct itimerval off = {0};
    setitimer(ITIMER_REAL, &off, 0);
    pthread_join(t, 0);
    printf("jumps %ld\n", jumps);
    return 0;
}
