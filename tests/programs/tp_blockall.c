/* tp_blockall: a server-style program that blocks every signal before starting its workers (so
 * that one thread handles signals with sigwait); the workers cannot be sampled, and rocsys-top
 * must say so instead of showing nothing. Used by tests/e2e/test_exit_status.sh. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "tp_burn.h"

TP_DEFINE_BURN(blocked_work)

/* A worker that burns CPU with every signal blocked. */
static void *worker(void *arg)
{
    (void)arg;
    blocked_work(1500);
    return NULL;
}

int main(void)
{
    sigset_t all;
    pthread_t t;

    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    printf("tp_blockall: done\n");
    return 0;
}
