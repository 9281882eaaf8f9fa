/* dlsym_lock.c, built as libtp_dlsym_lock.so: a preloaded library whose dlsym takes a pthread
 * mutex before it looks up, as dlsym does when it reaches an allocator that locks (jemalloc:
 * glibc before 2.34 allocated in dlsym). Preloaded after librocsys-causal.so (test_causal), the
 * wrappers' own lookups then call the pthread_mutex_lock being looked up: a lookup that
 * recurses crashes the program (a stack overflow), one that nests deadlocks it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

typedef void *(*dlsym_fn)(void *, const char *);

static pthread_mutex_t dlsym_lock_mutex = PTHREAD_MUTEX_INITIALIZER;
static long dlsym_lock_calls;

/* libc's dlsym (found with dlvsym, not wrapped here), after a lock and unlock. */
void *dlsym(void *handle, const char *name)
{
    static dlsym_fn real;

    pthread_mutex_lock(&dlsym_lock_mutex);
    dlsym_lock_calls++;
    pthread_mutex_unlock(&dlsym_lock_mutex);
    if (!real)
        real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real) /* glibc before 2.34: libdl's */
        real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return real ? real(handle, name) : NULL;
}
