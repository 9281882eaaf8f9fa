/* tp_waits: blocking system calls that must behave under rocsys-top exactly as they do bare,
 * for the "no EINTR, no early return" test (tests/e2e/test_no_eintr.sh, issue 12).
 *
 * Three waiter threads ("waits-0".."waits-2") each run ROUNDS rounds of timed waits, in a
 * different order per thread: nanosleep, poll, epoll_wait and select on a pipe nobody writes,
 * a raw FUTEX_WAIT on a word nobody changes, pthread_cond_timedwait on a condition nobody
 * signals (all WAIT_MS), and a blocking read() of a pipe that the waiter's own writer thread
 * ("waits-wr-N") writes one byte to WAIT_MS after the read starts. Waiter 0 first calls
 * sleep(1) once. Each wait follows 1 ms of CPU (waits_run_up), so that CPU sampling ticks fall
 * on the waiters as they enter their waits. A fifth thread ("waits-burn") spins in waits_burn()
 * until the waiters are done, so that CPU sampling has something to sample.
 *
 * No measured call is retried: each one is made once and its outcome counted, per kind:
 *   calls   calls made (fixed: the same under any profiler)
 *   eintr   returned -1/EINTR (for sleep(): left errno EINTR)
 *   early   returned less than the requested time minus 1 ms after the call began (CLOCK_
 *           MONOTONIC), or, for the pipe read, without the writer's byte
 *   errors  any other unexpected outcome (an error, a ready descriptor, a changed futex word)
 * Output, one line per kind and a last line:
 *   waits KIND calls=N eintr=N early=N errors=N
 *   waits done
 * Always exits 0: the counters are the result. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tp_burn.h"

#define WAIT_MS   20
#define ROUNDS    12
#define N_WAITERS 3
#define SLACK_NS  1000000ULL /* "early": more than 1 ms before the requested time */
#define N_STEPS   7          /* timed waits per round (sleep(1) is extra) */
#define RUN_UP_MS 1          /* CPU a waiter spends before each wait */

TP_DEFINE_BURN(waits_burn)
TP_DEFINE_BURN(waits_run_up)

enum kind { K_NANOSLEEP, K_SLEEP, K_POLL, K_EPOLL, K_SELECT, K_READ, K_FUTEX, K_COND, K_COUNT };

static const char *const kind_name[K_COUNT] = {
    "nanosleep", "sleep", "poll", "epoll_wait", "select", "pipe_read", "futex", "cond_timedwait",
};

/* Outcome counters of one kind of call, summed over the threads. */
struct counters {
    atomic_long calls, eintr, early, errors;
};

static struct counters counts[K_COUNT];
static atomic_int waiters_done;

/* One waiter's resources: an idle pipe (both ends open, never written), an epoll set holding
 * its read end, a data pipe its writer writes to, and the writer's go signal. */
struct waiter {
    int index;
    int idle[2];
    int epfd;
    int data[2];
    sem_t go;
    atomic_int stop;
    uint32_t futex_word; /* always 0 */
    pthread_mutex_t mutex;
    pthread_cond_t cond; /* never signalled */
    pthread_t thread, writer;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Counts one call of kind k that began at t0 and asked for want_ns. */
static void record(enum kind k, uint64_t t0, uint64_t want_ns, int eintr, int error)
{
    uint64_t took = now_ns() - t0;
    atomic_fetch_add(&counts[k].calls, 1);
    if (eintr)
        atomic_fetch_add(&counts[k].eintr, 1);
    if (error)
        atomic_fetch_add(&counts[k].errors, 1);
    if (took + SLACK_NS < want_ns)
        atomic_fetch_add(&counts[k].early, 1);
}

static const uint64_t wait_ns = WAIT_MS * 1000000ULL;

/* nanosleep(WAIT_MS), once. */
static void do_nanosleep(void)
{
    struct timespec ts = {0, WAIT_MS * 1000000L};
    uint64_t t0 = now_ns();
    int rc = nanosleep(&ts, NULL);
    int e = errno;
    record(K_NANOSLEEP, t0, wait_ns, rc != 0 && e == EINTR, rc != 0 && e != EINTR);
}

/* sleep(1), once. glibc's sleep() may return 0 when cut short (it rounds the remainder), so
 * errno, cleared before and left alone by a full sleep, is what tells EINTR. */
static void do_sleep(void)
{
    uint64_t t0 = now_ns();
    errno = 0;
    unsigned left = sleep(1);
    int e = errno;
    record(K_SLEEP, t0, 1000000000ULL, e == EINTR, left != 0 && e != EINTR);
}

/* poll on the idle pipe, WAIT_MS: anything but 0 (timeout) is wrong. */
static void do_poll(struct waiter *w)
{
    struct pollfd p = {.fd = w->idle[0], .events = POLLIN};
    uint64_t t0 = now_ns();
    int rc = poll(&p, 1, WAIT_MS);
    int e = errno;
    record(K_POLL, t0, wait_ns, rc < 0 && e == EINTR, rc > 0 || (rc < 0 && e != EINTR));
}

/* epoll_wait on the idle pipe's set, WAIT_MS. */
static void do_epoll(struct waiter *w)
{
    struct epoll_event ev;
    uint64_t t0 = now_ns();
    int rc = epoll_wait(w->epfd, &ev, 1, WAIT_MS);
    int e = errno;
    record(K_EPOLL, t0, wait_ns, rc < 0 && e == EINTR, rc > 0 || (rc < 0 && e != EINTR));
}

/* select on the idle pipe, WAIT_MS. */
static void do_select(struct waiter *w)
{
    fd_set rd;
    FD_ZERO(&rd);
    FD_SET(w->idle[0], &rd);
    struct timeval tv = {0, WAIT_MS * 1000L};
    uint64_t t0 = now_ns();
    int rc = select(w->idle[0] + 1, &rd, NULL, NULL, &tv);
    int e = errno;
    record(K_SELECT, t0, wait_ns, rc < 0 && e == EINTR, rc > 0 || (rc < 0 && e != EINTR));
}

/* FUTEX_WAIT on a word that stays 0, WAIT_MS: ETIMEDOUT is the only right end; a 0 return
 * (a wake nobody sent) shows as early. */
static void do_futex(struct waiter *w)
{
    struct timespec ts = {0, WAIT_MS * 1000000L};
    uint64_t t0 = now_ns();
    long rc = syscall(SYS_futex, &w->futex_word, FUTEX_WAIT_PRIVATE, 0, &ts, NULL, 0);
    int e = errno;
    record(K_FUTEX, t0, wait_ns, rc < 0 && e == EINTR, rc < 0 && e != EINTR && e != ETIMEDOUT);
}

/* pthread_cond_timedwait (CLOCK_MONOTONIC) on a condition nobody signals, WAIT_MS. */
static void do_cond(struct waiter *w)
{
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    uint64_t t0 = now_ns();
    dl.tv_nsec += WAIT_MS * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mutex);
    int rc = pthread_cond_timedwait(&w->cond, &w->mutex, &dl);
    pthread_mutex_unlock(&w->mutex);
    record(K_COND, t0, wait_ns, rc == EINTR, rc != 0 && rc != ETIMEDOUT && rc != EINTR);
}

/* A blocking read() of the data pipe; the writer writes one byte WAIT_MS after the go signal,
 * so the read must return that byte, no sooner. */
static void do_read(struct waiter *w)
{
    char c;
    uint64_t t0 = now_ns();
    sem_post(&w->go);
    ssize_t n = read(w->data[0], &c, 1);
    int e = errno;
    record(K_READ, t0, wait_ns, n < 0 && e == EINTR, n < 0 && e != EINTR);
    if (n == 0) /* no byte, no error: returned before the writer wrote */
        atomic_fetch_add(&counts[K_READ].early, 1);
    /* Not a retry of the measured call: take the writer's byte (unmeasured) so that it does
     * not satisfy the next measured read at once. */
    while (n != 1 && (n = read(w->data[0], &c, 1)) < 0 && errno == EINTR)
        ;
}

/* The writer of one waiter's data pipe: per go signal, wait WAIT_MS, write one byte. Its own
 * waits are not measured, so they retry on EINTR (an early write would otherwise show as the
 * reader's early return). */
static void *writer_main(void *arg)
{
    struct waiter *w = arg;
    char name[16];
    snprintf(name, sizeof name, "waits-wr-%d", w->index);
    pthread_setname_np(pthread_self(), name);
    for (;;) {
        while (sem_wait(&w->go) != 0 && errno == EINTR)
            ;
        if (atomic_load(&w->stop))
            return NULL;
        struct timespec dl;
        clock_gettime(CLOCK_MONOTONIC, &dl);
        dl.tv_nsec += WAIT_MS * 1000000L;
        if (dl.tv_nsec >= 1000000000L) {
            dl.tv_sec++;
            dl.tv_nsec -= 1000000000L;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &dl, NULL) == EINTR)
            ;
        char c = 'x';
        while (write(w->data[1], &c, 1) < 0 && errno == EINTR)
            ;
    }
}

/* One waiter thread: sleep(1) first on waiter 0, then ROUNDS rounds of the timed waits,
 * starting each round at a different step per thread. Each wait follows RUN_UP_MS of CPU, so
 * that CPU-time sampling ticks fall on the thread as it enters its waits. */
static void *waiter_main(void *arg)
{
    struct waiter *w = arg;
    char name[16];
    snprintf(name, sizeof name, "waits-%d", w->index);
    pthread_setname_np(pthread_self(), name);
    if (w->index == 0)
        do_sleep();
    for (int r = 0; r < ROUNDS; r++) {
        for (int s = 0; s < N_STEPS; s++) {
            waits_run_up(RUN_UP_MS);
            switch ((s + 2 * w->index) % N_STEPS) {
            case 0:
                do_nanosleep();
                break;
            case 1:
                do_poll(w);
                break;
            case 2:
                do_epoll(w);
                break;
            case 3:
                do_select(w);
                break;
            case 4:
                do_read(w);
                break;
            case 5:
                do_futex(w);
                break;
            default:
                do_cond(w);
                break;
            }
        }
    }
    atomic_fetch_add(&waiters_done, 1);
    return NULL;
}

/* The CPU burner: spins in waits_burn until every waiter is done. */
static void *burn_main(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "waits-burn");
    while (atomic_load(&waiters_done) < N_WAITERS)
        waits_burn(5);
    return NULL;
}

/* Sets up one waiter's pipes, epoll set and condition; exits on failure. */
static void waiter_init(struct waiter *w, int index)
{
    w->index = index;
    w->futex_word = 0;
    atomic_init(&w->stop, 0);
    struct epoll_event ev = {.events = EPOLLIN};
    pthread_condattr_t ca;
    if (pipe(w->idle) != 0 || pipe(w->data) != 0 || (w->epfd = epoll_create1(0)) < 0 ||
        sem_init(&w->go, 0, 0) != 0) {
        perror("tp_waits: setup");
        exit(2);
    }
    ev.data.fd = w->idle[0];
    if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, w->idle[0], &ev) != 0) {
        perror("tp_waits: epoll_ctl");
        exit(2);
    }
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&w->mutex, NULL);
}

int main(void)
{
    static struct waiter ws[N_WAITERS];
    pthread_t burner;

    for (int i = 0; i < N_WAITERS; i++)
        waiter_init(&ws[i], i);
    if (pthread_create(&burner, NULL, burn_main, NULL) != 0) {
        fprintf(stderr, "tp_waits: pthread_create failed\n");
        return 2;
    }
    for (int i = 0; i < N_WAITERS; i++) {
        if (pthread_create(&ws[i].writer, NULL, writer_main, &ws[i]) != 0 ||
            pthread_create(&ws[i].thread, NULL, waiter_main, &ws[i]) != 0) {
            fprintf(stderr, "tp_waits: pthread_create failed\n");
            return 2;
        }
    }
    for (int i = 0; i < N_WAITERS; i++) {
        pthread_join(ws[i].thread, NULL);
        atomic_store(&ws[i].stop, 1);
        sem_post(&ws[i].go);
        pthread_join(ws[i].writer, NULL);
    }
    pthread_join(burner, NULL);
    for (int k = 0; k < K_COUNT; k++)
        printf("waits %s calls=%ld eintr=%ld early=%ld errors=%ld\n", kind_name[k],
               atomic_load(&counts[k].calls), atomic_load(&counts[k].eintr),
               atomic_load(&counts[k].early), atomic_load(&counts[k].errors));
    printf("waits done\n");
    return 0;
}
