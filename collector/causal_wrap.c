/* librocsys-causal.so: the wrappers of the pthread and semaphore calls that causal profiling
 * needs (Coz's rules: a thread pays its delays before it wakes another; one woken while blocked
 * skips the delays inserted meanwhile). The launcher preloads it after the collector with
 * --causal only, so a program profiled without --causal keeps libc's calls untouched. The
 * delay logic is the collector's (causal.c, through causal_api.h); here only the forwarding. */
#define _GNU_SOURCE
#include "causal_api.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>

#define WRAP_EXPORT __attribute__((visibility("default")))

/* The collector's side: weak, bound by the loader (-z now) to the collector preloaded before
 * this library; NULL without it (the wrappers then only forward). */
#pragma weak collector_causal_catch_up
#pragma weak collector_causal_pre_block
#pragma weak collector_causal_post_block

/* libc's own aliases of the mutex calls (exported for old binaries; GLIBC_2.2.5 is x86-64's
 * base version), bound by the loader, not by dlsym: a mutex call that arrives while its real
 * function is not known yet runs these (see wrap_resolve). */
extern int wrap_libc_mutex_lock(pthread_mutex_t *) __attribute__((weak));
extern int wrap_libc_mutex_unlock(pthread_mutex_t *) __attribute__((weak));
__asm__(".symver wrap_libc_mutex_lock, __pthread_mutex_lock@GLIBC_2.2.5");
__asm__(".symver wrap_libc_mutex_unlock, __pthread_mutex_unlock@GLIBC_2.2.5");

enum {
    W_LOCK, /* the mutex calls first: the allocator dlsym may call takes mutexes */
    W_UNLOCK,
    W_COND_WAIT,
    W_COND_TIMEDWAIT,
    W_COND_SIGNAL,
    W_COND_BROADCAST,
    W_JOIN,
    W_SEM_WAIT,
    W_SEM_POST,
    W_BARRIER,
    W_COUNT
};
static const struct {
    const char *name, *version; /* version: the one programs link against (NULL: the default) */
} wrap_names[W_COUNT] = {
    {"pthread_mutex_lock", NULL},
    {"pthread_mutex_unlock", NULL},
    {"pthread_cond_wait", "GLIBC_2.3.2"},
    {"pthread_cond_timedwait", "GLIBC_2.3.2"},
    {"pthread_cond_signal", "GLIBC_2.3.2"},
    {"pthread_cond_broadcast", "GLIBC_2.3.2"},
    {"pthread_join", NULL},
    {"sem_wait", NULL},
    {"sem_post", NULL},
    {"pthread_barrier_wait", NULL},
};
static void *_Atomic wrap_real[W_COUNT]; /* the next definitions (libc's) */
/* This thread is in a lookup (see wrap_resolve). */
static __thread int wrap_resolving __attribute__((tls_model("initial-exec")));

/* The next definition of function i, looked up once. All are looked up in the constructor,
 * while the process is single-threaded (before main; a thread started by an earlier
 * library's constructor may get here first, and looks its function up itself). dlsym may call
 * malloc, and an allocator that takes pthread mutexes (jemalloc, tcmalloc) then calls our
 * pthread_mutex_lock, whose own lookup would call dlsym again, without end. So a thread marks
 * that it is in a lookup, and any wrapped call reaching us meanwhile whose function is not
 * known yet gets NULL, without a nested lookup (one of pthread_mutex_unlock, say, would call
 * dlsym and so malloc while the allocator holds its lock: a deadlock). The mutex wrappers then
 * run libc's __pthread_mutex_lock/unlock aliases, bound by the loader: correct locking in
 * every thread, not a no-op that would break the allocator's state should another thread run.
 * The other functions, which no allocator calls, fail with ENOSYS rather than recurse. The
 * mutex functions are looked up first, so that the later lookups find them known. */
static void *wrap_resolve(int i)
{
    void *f = atomic_load_explicit(&wrap_real[i], memory_order_acquire);

    if (f || wrap_resolving)
        return f;
    wrap_resolving = 1;
    if (wrap_names[i].version)
        f = dlvsym(RTLD_NEXT, wrap_names[i].name, wrap_names[i].version);
    if (!f)
        f = dlsym(RTLD_NEXT, wrap_names[i].name);
    wrap_resolving = 0;
    if (f)
        atomic_store_explicit(&wrap_real[i], f, memory_order_release);
    return f;
}

/* Library constructor: every real function looked up eagerly (see wrap_resolve). */
__attribute__((constructor)) static void wrap_init(void)
{
    for (int i = 0; i < W_COUNT; i++)
        wrap_resolve(i);
}

/* The real function i, or NULL while this thread is looking it up. */
static inline void *real_fn(int i)
{
    void *f = atomic_load_explicit(&wrap_real[i], memory_order_acquire);
    return f ? f : wrap_resolve(i);
}

/* Before a call that may block: 1 if the collector counts the thread as blocked. */
static inline int pre_block(void)
{
    return collector_causal_pre_block && collector_causal_pre_block();
}

/* Before a call that may wake another thread. */
static inline void catch_up(void)
{
    if (collector_causal_catch_up)
        collector_causal_catch_up();
}

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*cond_fn)(pthread_cond_t *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timed_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*join_fn)(pthread_t, void **);
typedef int (*sem_fn)(sem_t *);
typedef int (*barrier_fn)(pthread_barrier_t *);

WRAP_EXPORT int pthread_mutex_lock(pthread_mutex_t *m)
{
    mutex_fn real = (mutex_fn)real_fn(W_LOCK);
    if (!real && !(real = wrap_libc_mutex_lock))
        return ENOSYS;
    int counted = pre_block();
    int rc = real(m);
    if (counted)
        collector_causal_post_block(1);
    return rc;
}

WRAP_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m)
{
    mutex_fn real = (mutex_fn)real_fn(W_UNLOCK);
    if (!real && !(real = wrap_libc_mutex_unlock))
        return ENOSYS;
    catch_up();
    return real(m);
}

WRAP_EXPORT int pthread_cond_wait(pthread_cond_t *cv, pthread_mutex_t *m)
{
    cond_wait_fn real = (cond_wait_fn)real_fn(W_COND_WAIT);
    if (!real)
        return ENOSYS;
    int counted = pre_block();
    int rc = real(cv, m);
    if (counted)
        collector_causal_post_block(1);
    return rc;
}

WRAP_EXPORT int pthread_cond_timedwait(pthread_cond_t *cv, pthread_mutex_t *m,
                                       const struct timespec *abstime)
{
    cond_timed_fn real = (cond_timed_fn)real_fn(W_COND_TIMEDWAIT);
    if (!real)
        return ENOSYS;
    int counted = pre_block();
    int rc = real(cv, m, abstime);
    if (counted) /* timed out: nobody woke it, the delays are owed */
        collector_causal_post_block(rc == 0);
    return rc;
}

WRAP_EXPORT int pthread_cond_signal(pthread_cond_t *cv)
{
    cond_fn real = (cond_fn)real_fn(W_COND_SIGNAL);
    if (!real)
        return ENOSYS;
    catch_up();
    return real(cv);
}

WRAP_EXPORT int pthread_cond_broadcast(pthread_cond_t *cv)
{
    cond_fn real = (cond_fn)real_fn(W_COND_BROADCAST);
    if (!real)
        return ENOSYS;
    catch_up();
    return real(cv);
}

WRAP_EXPORT int pthread_join(pthread_t t, void **ret)
{
    join_fn real = (join_fn)real_fn(W_JOIN);
    if (!real)
        return ENOSYS;
    int counted = pre_block();
    int rc = real(t, ret);
    if (counted)
        collector_causal_post_block(1);
    return rc;
}

WRAP_EXPORT int sem_wait(sem_t *s)
{
    sem_fn real = (sem_fn)real_fn(W_SEM_WAIT);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    int counted = pre_block();
    int rc = real(s);
    if (counted)
        collector_causal_post_block(1);
    return rc;
}

WRAP_EXPORT int sem_post(sem_t *s)
{
    sem_fn real = (sem_fn)real_fn(W_SEM_POST);
    if (!real) {
        errno = ENOSYS;
        return -1;
    }
    catch_up();
    return real(s);
}

WRAP_EXPORT int pthread_barrier_wait(pthread_barrier_t *b)
{
    barrier_fn real = (barrier_fn)real_fn(W_BARRIER);
    if (!real)
        return ENOSYS;
    catch_up();
    int counted = pre_block();
    int rc = real(b);
    if (counted)
        collector_causal_post_block(1);
    return rc;
}
