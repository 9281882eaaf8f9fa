/* tp_blockers SECONDS: one thread blocked in each of eight libc calls for SECONDS (then all
 * exit 0), for the names of blocked calls in wall mode (tests/e2e/test_blocked_names.sh; issue
 * 25: glibc 2.41 puts its cancellation wrappers below them). Thread "blk-CALL" runs blk_CALL(),
 * which blocks in: read (a pipe nobody writes), poll and select (likewise), epoll_wait (an empty
 * epoll set), nanosleep, pthread_cond_wait (a condition nobody signals), sem_wait (a semaphore
 * nobody posts) and waitpid (a child that sleeps until the end). Prints "tp_blockers: blocked"
 * once every thread is about to block. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <poll.h>
#include <string.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void *blk_read(void *arg);
void *blk_poll(void *arg);
void *blk_select(void *arg);
void *blk_epoll_wait(void *arg);
void *blk_nanosleep(void *arg);
void *blk_cond_wait(void *arg);
void *blk_sem_wait(void *arg);
void *blk_waitpid(void *arg);

static int quiet_pipe[2]; /* nobody writes */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static sem_t never_posted;
static pid_t child;
static volatile sig_atomic_t stop; /* the end: every wait ends (a signal, a broadcast) */

/* The wake-up signal's handler: nothing, the interrupted call returns EINTR. */
static void on_wake(int sig)
{
    (void)sig;
}

__attribute__((noinline)) void *blk_read(void *arg)
{
    char c;
    (void)arg;
    while (!stop && read(quiet_pipe[0], &c, 1) != 0)
        ;
    return NULL;
}

__attribute__((noinline)) void *blk_poll(void *arg)
{
    struct pollfd p = {.fd = quiet_pipe[0], .events = POLLIN};
    (void)arg;
    while (!stop)
        poll(&p, 1, -1);
    return NULL;
}

__attribute__((noinline)) void *blk_select(void *arg)
{
    (void)arg;
    while (!stop) {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(quiet_pipe[0], &r);
        select(quiet_pipe[0] + 1, &r, NULL, NULL, NULL);
    }
    return NULL;
}

__attribute__((noinline)) void *blk_epoll_wait(void *arg)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev;
    (void)arg;
    while (!stop)
        epoll_wait(ep, &ev, 1, -1);
    return NULL;
}

__attribute__((noinline)) void *blk_nanosleep(void *arg)
{
    struct timespec day = {86400, 0};
    (void)arg;
    while (!stop)
        nanosleep(&day, NULL);
    return NULL;
}

__attribute__((noinline)) void *blk_cond_wait(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!stop)
        pthread_cond_wait(&never, &lock);
    pthread_mutex_unlock(&lock);
    return NULL;
}

__attribute__((noinline)) void *blk_sem_wait(void *arg)
{
    (void)arg;
    while (!stop)
        sem_wait(&never_posted);
    return NULL;
}

__attribute__((noinline)) void *blk_waitpid(void *arg)
{
    (void)arg;
    while (!stop)
        if (waitpid(child, NULL, 0) == child)
            break;
    return NULL;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void *(*fn)(void *);
    } blockers[] = {{"blk-read", blk_read},           {"blk-poll", blk_poll},
                    {"blk-select", blk_select},       {"blk-epoll_wait", blk_epoll_wait},
                    {"blk-nanosleep", blk_nanosleep}, {"blk-cond_wait", blk_cond_wait},
                    {"blk-sem_wait", blk_sem_wait},   {"blk-waitpid", blk_waitpid}};
    double secs = argc > 1 ? atof(argv[1]) : 10.0;
    struct timespec rest = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};

    struct sigaction sa;
    pthread_t threads[sizeof(blockers) / sizeof(blockers[0])];

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_wake; /* no SA_RESTART: a blocked call returns EINTR */
    if (pipe(quiet_pipe) != 0 || sem_init(&never_posted, 0, 0) != 0 ||
        sigaction(SIGUSR1, &sa, NULL) != 0)
        return 1;
    child = fork();
    if (child == 0) {
        pause(); /* until the end: killed by the parent */
        _exit(0);
    }
    for (size_t i = 0; i < sizeof(blockers) / sizeof(blockers[0]); i++) {
        if (pthread_create(&threads[i], NULL, blockers[i].fn, NULL) != 0)
            return 1;
        pthread_setname_np(threads[i], blockers[i].name);
    }
    printf("tp_blockers: blocked\n");
    fflush(stdout);
    while (nanosleep(&rest, &rest) != 0)
        ;
    /* every wait ends while the program is still profiled (a wait that only ends with the
     * process would be accounted at its exit, if at all), then the threads are joined */
    stop = 1;
    kill(child, SIGKILL);
    int left = (int)(sizeof(threads) / sizeof(threads[0]));
    int joined[sizeof(threads) / sizeof(threads[0])] = {0};
    /* again and again: a thread between its check of stop and its call misses one wake-up */
    for (int round = 0; left > 0 && round < 500; round++) {
        pthread_mutex_lock(&lock);
        pthread_cond_broadcast(&never);
        pthread_mutex_unlock(&lock);
        sem_post(&never_posted);
        for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++)
            if (!joined[i])
                pthread_kill(threads[i], SIGUSR1);
        struct timespec tick = {0, 10000000};
        nanosleep(&tick, NULL);
        for (size_t i = 0; i < sizeof(threads) / sizeof(threads[0]); i++)
            if (!joined[i] && pthread_tryjoin_np(threads[i], NULL) == 0) {
                joined[i] = 1;
                left--;
            }
    }
    return 0;
}
