/* exec* wrappers. A sampling signal raised just before the calling thread replaces the process
 * image stays pending across exec, and the new image has not installed a handler yet: the
 * default action of a real-time signal ends the program ("killed by signal 40", seen with
 * perf-event timers on a shell script that execs, e.g. pyenv's shims). So before exec the
 * thread's timer is stopped and its pending sampling signals are taken; if exec fails,
 * sampling starts again. Other threads' signals are directed at them and go with them. */
#define _GNU_SOURCE
#include "collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <unistd.h>

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

/* libc's functions, found once when the collector starts: dlsym takes the loader's lock, which
 * a fork child may have inherited held (a fork while another thread was in dlopen) */
static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;

void collector_exec_init(void)
{
    *(void **)&real_execve = dlsym(RTLD_NEXT, "execve");
    *(void **)&real_execv = dlsym(RTLD_NEXT, "execv");
    *(void **)&real_execvp = dlsym(RTLD_NEXT, "execvp");
    *(void **)&real_execvpe = dlsym(RTLD_NEXT, "execvpe");
    *(void **)&real_fexecve = dlsym(RTLD_NEXT, "fexecve");
}

/* Stop sampling this thread and take its pending sampling signals. Returns 1 if it did (so
 * after_exec_failed must restart it), 0 when there was nothing to do. */
static int before_exec(void)
{
    struct collector_thread *ts = &collector_tls;
    struct timespec zero = {0, 0};
    sigset_t one, old;

    /* a vfork child shares our memory (and this TLS) but is another process: hands off */
    if (!collector_g.enabled || (uint32_t)getpid() != collector_g.pid || !ts->active)
        return 0;
    sigemptyset(&one);
    sigaddset(&one, collector_g.signo);
    pthread_sigmask(SIG_BLOCK, &one, &old);
    ts->active = 0;
    collector_sampler_stop_thread(ts);
    while (sigtimedwait(&one, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 1;
}

/* exec failed: sample this thread again. */
static void after_exec_failed(int stopped)
{
    struct collector_thread *ts = &collector_tls;
    int e = errno;

    if (stopped && collector_sampler_start_thread(ts) == 0)
        ts->active = 1;
    errno = e;
}

/* The body of every exec wrapper: libc's fn (ENOSYS if it was not found) called as call, with
 * this thread's sampling stopped around it; exec returns only when it failed. */
#define EXEC_WRAPPED(fn, call)                                                                     \
    do {                                                                                           \
        int stopped_;                                                                              \
        if (!(fn)) {                                                                               \
            errno = ENOSYS;                                                                        \
            return -1;                                                                             \
        }                                                                                          \
        stopped_ = before_exec();                                                                  \
        (call);                                                                                    \
        after_exec_failed(stopped_);                                                               \
        return -1;                                                                                 \
    } while (0)

COLLECTOR_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    EXEC_WRAPPED(real_execve, real_execve(path, argv, envp));
}

COLLECTOR_EXPORT int execv(const char *path, char *const argv[])
{
    EXEC_WRAPPED(real_execv, real_execv(path, argv));
}

COLLECTOR_EXPORT int execvp(const char *file, char *const argv[])
{
    EXEC_WRAPPED(real_execvp, real_execvp(file, argv));
}

COLLECTOR_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    EXEC_WRAPPED(real_execvpe, real_execvpe(file, argv, envp));
}

COLLECTOR_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    EXEC_WRAPPED(real_fexecve, real_fexecve(fd, argv, envp));
}

/* The execl family: the variadic arguments as an argv array (and envp after the NULL for
 * execle), then the v form above. */
#define ARGV_FROM_VA(arg0, ap, argv)                                                               \
    size_t argc_ = 1;                                                                              \
    va_start(ap, arg0);                                                                            \
    while (va_arg(ap, char *))                                                                     \
        argc_++;                                                                                   \
    va_end(ap);                                                                                    \
    char *argv[argc_ + 1];                                                                         \
    argv[0] = (char *)(arg0);                                                                      \
    va_start(ap, arg0);                                                                            \
    for (size_t i_ = 1; i_ <= argc_; i_++)                                                         \
        argv[i_] = va_arg(ap, char *);

COLLECTOR_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    ARGV_FROM_VA(arg, ap, argv)
    va_end(ap);
    return execv(path, argv);
}

COLLECTOR_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    ARGV_FROM_VA(arg, ap, argv)
    va_end(ap);
    return execvp(file, argv);
}

COLLECTOR_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    ARGV_FROM_VA(arg, ap, argv)
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
