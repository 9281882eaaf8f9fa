/* tp_forkdl [THREADS] [FORKS]: threads walk the loader list (as an unwinder does) while main
 * forks children that exit at once; a child must never hang in fork (a loader lock held by
 * another thread at fork stays held in the child). Exit 3 if a child hung. Used by
 * tests/e2e/test_robustness.sh. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile int stop;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
    (void)i;
    (void)s;
    (*(long *)d)++;
    return 0;
}
static void *spin(void *a)
{
    long n = 0;
    while (!stop)
        dl_iterate_phdr(cb, &n);
    return a;
}
int main(int argc, char **argv)
{
    int nth = argc > 1 ? atoi(argv[1]) : 2, nfork = argc > 2 ? atoi(argv[2]) : 200;
    pthread_t t[64];
    for (int i = 0; i < nth; i++)
        pthread_create(&t[i], 0, spin, 0);
    int hung = 0;
    for (int i = 0; i < nfork; i++) {
        pid_t p = fork();
        if (p == 0)
            _exit(0);
        /* hung: not gone 20 s after its fork (a lock held at fork is held forever; 1 s was
         * too short on a loaded machine, where the bare program counted 3 children that exit
         * at once as hung) */
        int st, done = 0;
        for (int k = 0; k < 2000; k++) {
            if (waitpid(p, &st, WNOHANG) == p) {
                done = 1;
                break;
            }
            usleep(10000);
        }
        if (!done) {
            hung++;
            kill(p, SIGKILL);
            waitpid(p, &st, 0);
            if (hung >= 3)
                break;
        }
    }
    stop = 1;
    for (int i = 0; i < nth; i++)
        pthread_join(t[i], 0);
    printf("forks=%d hung=%d\n", nfork, hung);
    return hung ? 3 : 0;
}
