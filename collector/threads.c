/* Thread tracking: every thread the target creates gets a ring and a sampling timer at start,
 * and gives them back at exit (pthread key destructor). Names set later are reported. */
#define _GNU_SOURCE
#include "collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

__thread struct collector_thread collector_tls __attribute__((tls_model("initial-exec")));

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*pthread_setname_fn)(pthread_t, const char *);

static pthread_create_fn real_pthread_create;
static pthread_setname_fn real_pthread_setname_np;
static pthread_key_t exit_key;
static int exit_key_ok;

struct start_args {
    void *(*fn)(void *);
    void *arg;
};

/* Fill a THREAD_* record for the calling thread (AS-safe). */
static void thread_record(struct rocsys_rec_thread *rec, uint16_t type)
{
    memset(rec, 0, sizeof(*rec));
    rec->h.type = type;
    rec->h.size = sizeof(*rec);
    rec->pid = collector_g.pid;
    rec->tid = collector_tls.tid;
    rec->time_ns = collector_now_ns();
    prctl(PR_GET_NAME, rec->name, 0, 0, 0);
}

/* Write a THREAD_START / THREAD_NAME / THREAD_EXIT record for the calling thread. */
static void send_thread_record(uint16_t type)
{
    struct rocsys_rec_thread rec;

    thread_record(&rec, type);
    collector_write_normal(&rec);
}

int collector_thread_claim_late(struct collector_thread *ts)
{
    struct rocsys_rec_thread rec;

    if (transport_claim(&collector_g.transport, collector_g.pid, ts->tid, collector_g.instance,
                        &ts->ring) != 0) {
        ts->ring.ctl = NULL;
        return -EBUSY;
    }
    thread_record(&rec, ROCSYS_REC_THREAD_START);
    transport_write(&ts->ring, &rec);
    return 0;
}

#define ALTSTACK_BYTES (64 * 1024)

/* Give the thread an alternate signal stack for the handler (unless it has one): the handler
 * needs a few KiB, which a small fiber or thread stack may not have. */
static void setup_altstack(struct collector_thread *ts)
{
    stack_t cur, mine;

    if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
        return;
    void *p =
        mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return;
    mine.ss_sp = p;
    mine.ss_size = ALTSTACK_BYTES;
    mine.ss_flags = 0;
    if (sigaltstack(&mine, NULL) != 0) {
        munmap(p, ALTSTACK_BYTES);
        return;
    }
    ts->altstack = p;
}

/* Remove our alternate stack (if it is still the thread's) and free it. */
static void release_altstack(struct collector_thread *ts)
{
    stack_t cur, off = {.ss_flags = SS_DISABLE};

    if (!ts->altstack)
        return;
    if (sigaltstack(NULL, &cur) == 0 && cur.ss_sp == ts->altstack) {
        if (cur.ss_flags & SS_ONSTACK)
            return; /* running on it: leave it mapped */
        sigaltstack(&off, NULL);
    }
    munmap(ts->altstack, ALTSTACK_BYTES);
    ts->altstack = NULL;
}

/* Key destructor: runs when a thread returns or calls pthread_exit. */
static void on_thread_exit(void *unused)
{
    (void)unused;
    collector_thread_end();
}

int collector_threads_init(void)
{
    real_pthread_create = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
    real_pthread_setname_np = (pthread_setname_fn)dlsym(RTLD_NEXT, "pthread_setname_np");
    if (pthread_key_create(&exit_key, on_thread_exit) == 0)
        exit_key_ok = 1;
    return real_pthread_create ? 0 : -ENOSYS;
}

void collector_thread_begin(int first_in_process, uint32_t proc_flags)
{
    struct collector_thread *ts = &collector_tls;

    if (!collector_g.enabled)
        return;
    ts->tid = collector_gettid();
    if (transport_claim(&collector_g.transport, collector_g.pid, ts->tid, collector_g.instance,
                        &ts->ring) != 0)
        ts->ring.ctl = NULL; /* samples of this thread are counted as dropped */
    else                     /* fault the ring's pages in now, not inside the sampling handler */
        madvise(ts->ring.data, (size_t)ts->ring.mask + 1, MADV_POPULATE_WRITE);
    if (first_in_process) {
        collector_announce_process(proc_flags);
        /* a fork child has its parent's map (the front end copies it): no scan here, the
         * loader's write lock may be held by a parent thread that does not exist here */
        if (!(proc_flags & ROCSYS_PROC_FORKED)) {
            collector_modules_check(ts, 1); /* takes the first snapshot too */
            collector_modules_start_helper();
        }
    }
    setup_altstack(ts);
    if (!(proc_flags & ROCSYS_PROC_FORKED) && !collector_g.no_timer) /* a fork child is warm */
        collector_sampler_warm();
    send_thread_record(ROCSYS_REC_THREAD_START);
    if (exit_key_ok)
        pthread_setspecific(exit_key, ts); /* non-NULL so that the destructor runs */
    if (collector_sampler_start_thread(ts) == 0)
        ts->active = 1;
}

void collector_thread_end(void)
{
    struct collector_thread *ts = &collector_tls;

    ts->active = 0;
    collector_sampler_stop_thread(ts);
    release_altstack(ts);
    if (!ts->ring.ctl && collector_g.enabled && ts->tid) {
        ts->busy = 1;
        if (collector_thread_claim_late(ts) != 0)
            atomic_fetch_add(&collector_g.transport.hdr->threads_no_ring, 1);
        else if (ts->lost_no_ring) /* it got one late: what came before is lost */
            atomic_fetch_add(&collector_g.transport.hdr->threads_no_ring, 1);
        ts->busy = 0;
    } else if (ts->lost_no_ring && collector_g.enabled) {
        atomic_fetch_add(&collector_g.transport.hdr->threads_no_ring, 1);
    }
    if (ts->ring.ctl) {
        send_thread_record(ROCSYS_REC_THREAD_EXIT);
        ts->busy = 1;
        transport_release(&ts->ring);
        ts->busy = 0;
    }
}

int collector_thread_create_unsampled(pthread_t *thread, const pthread_attr_t *attr,
                                      void *(*fn)(void *), void *arg)
{
    return real_pthread_create ? real_pthread_create(thread, attr, fn, arg) : ENOSYS;
}

/* Runs first in every new thread: set it up, then call the application's start routine. */
static void *thread_trampoline(void *p)
{
    struct start_args a = *(struct start_args *)p;

    free(p);
    collector_thread_begin(0, 0);
    return a.fn(a.arg);
}

/* Interposed: threads the target creates are sampled from their first instruction. */
COLLECTOR_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                    void *(*start_routine)(void *), void *arg)
{
    struct start_args *a;

    if (!real_pthread_create) {
        real_pthread_create = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!real_pthread_create)
            return EAGAIN;
    }
    if (!collector_g.enabled)
        return real_pthread_create(thread, attr, start_routine, arg);
    collector_modules_start_helper(); /* (once per process) a fork child going multi-threaded */
    a = malloc(sizeof(*a));
    if (!a) /* no room for our wrapper: the thread still starts, just unsampled */
        return real_pthread_create(thread, attr, start_routine, arg);
    a->fn = start_routine;
    a->arg = arg;
    int rc = real_pthread_create(thread, attr, thread_trampoline, a);
    if (rc != 0)
        free(a);
    return rc;
}

/* Interposed: a thread naming itself is reported at once (others are read from /proc). */
COLLECTOR_EXPORT int pthread_setname_np(pthread_t thread, const char *name)
{
    int rc;

    if (!real_pthread_setname_np) {
        real_pthread_setname_np = (pthread_setname_fn)dlsym(RTLD_NEXT, "pthread_setname_np");
        if (!real_pthread_setname_np)
            return ENOSYS;
    }
    rc = real_pthread_setname_np(thread, name);
    if (rc == 0 && collector_g.enabled && pthread_equal(thread, pthread_self()) &&
        collector_tls.ring.ctl)
        send_thread_record(ROCSYS_REC_THREAD_NAME);
    return rc;
}
