/* exec* wrappers. A sampling signal raised just before the calling thread replaces the process
 * image stays pending across exec, and the new image has not installed a handler yet: the
 * default action of a real-time signal ends the program ("killed by signal 40", seen with
 * perf-event timers on a shell script that execs, e.g. pyenv's shims). So before exec the
 * thread's timer is stopped and its pending sampling signals are taken; if exec fails,
 * sampling starts again. Other threads' signals are directed at them and go with them.
 * A program that the collector will not be in (its environment was cleared, or it is setuid
 * or static: collector/progcheck.h) is told to the front end first (PROC_EXEC), so that the
 * process is shown with the reason instead of silently missing; posix_spawn is wrapped for
 * the same note about its child. */
#define _GNU_SOURCE
#include "collector.h"

#include "progcheck.h"

#include <dlfcn.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

/* libc's functions, found once when the collector starts: dlsym takes the loader's lock, which
 * a fork child may have inherited held (a fork while another thread was in dlopen) */
static execve_fn real_execve, real_execvpe;
static execv_fn real_execv, real_execvp;
static fexecve_fn real_fexecve;
static spawn_fn real_posix_spawn, real_posix_spawnp;
static char self_name[128]; /* this library's file name, as LD_PRELOAD names it */

void collector_exec_init(void)
{
    Dl_info di;

    if (dladdr((void *)collector_exec_init, &di) && di.dli_fname) {
        const char *slash = strrchr(di.dli_fname, '/');
        snprintf(self_name, sizeof(self_name), "%s", slash ? slash + 1 : di.dli_fname);
    }
    *(void **)&real_posix_spawn = dlsym(RTLD_NEXT, "posix_spawn");
    *(void **)&real_posix_spawnp = dlsym(RTLD_NEXT, "posix_spawnp");
    *(void **)&real_execve = dlsym(RTLD_NEXT, "execve");
    *(void **)&real_execv = dlsym(RTLD_NEXT, "execv");
    *(void **)&real_execvp = dlsym(RTLD_NEXT, "execvp");
    *(void **)&real_execvpe = dlsym(RTLD_NEXT, "execvpe");
    *(void **)&real_fexecve = dlsym(RTLD_NEXT, "fexecve");
}

/* 1 if environment envp starts the collector in a new program: LD_PRELOAD names this library
 * and the session variable is there. */
static int env_has_collector(char *const envp[])
{
    size_t k = strlen(ROCSYS_ENV_SESSION);
    int preload = 0, session = 0;

    for (; envp && *envp; envp++) {
        if (strncmp(*envp, "LD_PRELOAD=", 11) == 0)
            preload = !self_name[0] || strstr(*envp + 11, self_name) != NULL;
        else if (strncmp(*envp, ROCSYS_ENV_SESSION, k) == 0 && (*envp)[k] == '=')
            session = 1;
    }
    return preload && session;
}

/* Why program file (searched through PATH when search) run with envp would be without the
 * collector (enum rocsys_progcheck; 0: it will have it, or we are not following children);
 * its path into path. */
static int exec_reason(const char *file, int search, char *const envp[], char *path, size_t cap)
{
    int reason;

    if (!collector_g.enabled || !collector_g.follow || !file)
        return 0;
    if (search) {
        if (rocsys_progcheck_resolve(file, getenv("PATH"), path, cap) != 0)
            return 0; /* exec will fail */
    } else {
        snprintf(path, cap, "%s", file);
    }
    reason = rocsys_progcheck_inspect(path, NULL, 0);
    if (strncmp(path, "/proc/self/", 11) == 0) { /* the program's own name for the front end */
        char real[ROCSYS_MAX_PATH];
        ssize_t n = readlink(path, real, sizeof(real) - 1);
        if (n > 0) {
            real[n] = '\0';
            snprintf(path, cap, "%s", real);
        }
    }
    if (reason == ROCSYS_PROG_OK && !env_has_collector(envp))
        reason = ROCSYS_PROG_NO_ENV;
    return reason;
}

/* Send PROC_EXEC: process pid (child of ppid) runs path with argv without the collector for
 * reason (0: an exec announced so failed). Normal context, also in a vfork child, whose
 * parent thread (and so this ring) is suspended meanwhile. */
static void send_exec_note(uint32_t pid, uint32_t ppid, int reason, const char *path,
                           char *const argv[])
{
    union {
        struct rocsys_rec_proc_exec rec;
        uint8_t bytes[sizeof(struct rocsys_rec_proc_exec) + ROCSYS_MAX_PATH + 1024 + 8];
    } u;
    size_t path_len = path ? strnlen(path, ROCSYS_MAX_PATH) : 0;
    size_t argv_len = 0, room = 1024;
    uint8_t *p = u.bytes + sizeof(u.rec);

    memset(&u.rec, 0, sizeof(u.rec));
    memcpy(p, path, path_len);
    for (size_t i = 0; argv && argv[i] && argv_len < room; i++) {
        size_t n = strnlen(argv[i], room - argv_len - 1);
        memcpy(p + path_len + argv_len, argv[i], n);
        argv_len += n;
        p[path_len + argv_len++] = '\0';
    }
    u.rec.h.type = ROCSYS_REC_PROC_EXEC;
    u.rec.h.size = rocsys_rec_align((uint32_t)(sizeof(u.rec) + path_len + argv_len));
    u.rec.pid = pid;
    u.rec.ppid = ppid;
    u.rec.reason = (uint32_t)reason;
    u.rec.path_len = (uint32_t)path_len;
    u.rec.argv_len = (uint32_t)argv_len;
    u.rec.time_ns = collector_now_ns();
    collector_write_any(&u.rec);
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
 * this thread's sampling stopped around it, and the front end told first when the program
 * (file, searched through PATH when search, with environment envp) will run without the
 * collector; exec returns only when it failed. */
#define EXEC_WRAPPED(fn, call, file, search, envp, argv)                                           \
    do {                                                                                           \
        int stopped_, reason_;                                                                     \
        char path_[ROCSYS_MAX_PATH];                                                               \
        if (!(fn)) {                                                                               \
            errno = ENOSYS;                                                                        \
            return -1;                                                                             \
        }                                                                                          \
        reason_ = exec_reason((file), (search), (envp), path_, sizeof(path_));                     \
        if (reason_)                                                                               \
            send_exec_note((uint32_t)getpid(), (uint32_t)getppid(), reason_, path_, (argv));       \
        stopped_ = before_exec();                                                                  \
        (call);                                                                                    \
        int e_ = errno;                                                                            \
        if (reason_)                                                                               \
            send_exec_note((uint32_t)getpid(), (uint32_t)getppid(), 0, path_, (argv));             \
        errno = e_;                                                                                \
        after_exec_failed(stopped_);                                                               \
        return -1;                                                                                 \
    } while (0)

COLLECTOR_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    EXEC_WRAPPED(real_execve, real_execve(path, argv, envp), path, 0, envp, argv);
}

COLLECTOR_EXPORT int execv(const char *path, char *const argv[])
{
    EXEC_WRAPPED(real_execv, real_execv(path, argv), path, 0, environ, argv);
}

COLLECTOR_EXPORT int execvp(const char *file, char *const argv[])
{
    EXEC_WRAPPED(real_execvp, real_execvp(file, argv), file, 1, environ, argv);
}

COLLECTOR_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    EXEC_WRAPPED(real_execvpe, real_execvpe(file, argv, envp), file, 1, envp, argv);
}

COLLECTOR_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    char fdpath[32];

    snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", fd);
    EXEC_WRAPPED(real_fexecve, real_fexecve(fd, argv, envp), fdpath, 0, envp, argv);
}

/* posix_spawn and posix_spawnp: libc's, then the note about the child when its program will
 * run without the collector. */
static int spawn_wrapped(spawn_fn fn, int search, pid_t *pid, const char *file,
                         const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                         char *const argv[], char *const envp[])
{
    char path[ROCSYS_MAX_PATH];
    pid_t child = 0;
    int reason, rc;

    if (!fn)
        return ENOSYS;
    reason = exec_reason(file, search, envp, path, sizeof(path));
    rc = fn(&child, file, fa, attr, argv, envp);
    if (rc == 0 && reason)
        send_exec_note((uint32_t)child, (uint32_t)getpid(), reason, path, argv);
    if (rc == 0 && pid)
        *pid = child;
    return rc;
}

COLLECTOR_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                                 const posix_spawnattr_t *attr, char *const argv[],
                                 char *const envp[])
{
    return spawn_wrapped(real_posix_spawn, 0, pid, path, fa, attr, argv, envp);
}

COLLECTOR_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                                  const posix_spawn_file_actions_t *fa,
                                  const posix_spawnattr_t *attr, char *const argv[],
                                  char *const envp[])
{
    return spawn_wrapped(real_posix_spawnp, 1, pid, file, fa, attr, argv, envp);
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
