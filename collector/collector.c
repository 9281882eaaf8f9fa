/* Collector start-up and shutdown: read the session settings from the environment, attach to
 * the session's shared memory, announce the process, and handle fork. Never prints to the
 * target's stdout/stderr, never exits or aborts: on any problem it stays dormant. */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct collector_global collector_g = {.log_fd = -1};

uint64_t collector_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint32_t collector_gettid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* Append one line to the debug log (ROCSYS_COLLECTOR_LOG), if one was asked for. */
void collector_log(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    int n, saved = errno;

    if (collector_g.log_fd < 0)
        return;
    n = snprintf(buf, sizeof(buf), "[rocsys-collector %u] ", (unsigned)getpid());
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof(buf) - 2)
        n = (int)sizeof(buf) - 2;
    buf[n++] = '\n';
    if (write(collector_g.log_fd, buf, (size_t)n) < 0) {
        /* nowhere to report it */
    }
    errno = saved;
}

int collector_write_normal(const void *rec)
{
    struct collector_thread *ts = &collector_tls;
    int rc;

    if (!ts->ring.ctl)
        return -ENODEV;
    ts->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    rc = transport_write(&ts->ring, rec); /* the common case, without the waiting machinery */
    if (rc == -ENOSPC)
        rc = transport_write_wait(&ts->ring, rec, COLLECTOR_WAIT_MAX_NS);
    if (rc != 0)
        atomic_fetch_add_explicit(&ts->ring.ctl->dropped_records, 1, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
    ts->busy = 0;
    return rc;
}

/* Read a whole small file (e.g. /proc/self/cmdline) into buf; returns bytes read. */
static size_t read_small_file(const char *path, char *buf, size_t cap)
{
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return 0;
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    return n;
}

void collector_announce_process(uint32_t flags)
{
    /* static: only ever called from normal context, one thread at a time (start, fork child) */
    static union {
        struct rocsys_rec_proc_start rec;
        uint8_t bytes[sizeof(struct rocsys_rec_proc_start) + ROCSYS_MAX_PATH + 8192 + 8];
    } u;
    size_t exe_len = strnlen(collector_g.exe, ROCSYS_MAX_PATH);
    size_t room = sizeof(u.bytes) - sizeof(u.rec) - exe_len - 8;
    size_t cmd_len;

    memset(&u.rec, 0, sizeof(u.rec));
    memcpy(u.bytes + sizeof(u.rec), collector_g.exe, exe_len);
    cmd_len = read_small_file("/proc/self/cmdline", (char *)u.bytes + sizeof(u.rec) + exe_len,
                              room > 8192 ? 8192 : room);
    u.rec.h.type = ROCSYS_REC_PROC_START;
    u.rec.h.size = rocsys_rec_align((uint32_t)(sizeof(u.rec) + exe_len + cmd_len));
    u.rec.pid = collector_g.pid;
    u.rec.ppid = collector_g.ppid;
    u.rec.instance = collector_g.instance;
    u.rec.flags = flags;
    u.rec.time_ns = collector_now_ns();
    u.rec.exe_len = (uint32_t)exe_len;
    u.rec.cmdline_len = (uint32_t)cmd_len;
    collector_write_normal(&u.rec);
}

/* Wait (up to 1 s, in 50 us naps) for *count to reach 0. */
static void wait_for_zero(_Atomic int *count)
{
    struct timespec pause = {0, 50000};
    uint64_t deadline = collector_now_ns() + 1000000000ull;

    while (atomic_load(count) > 0 && collector_now_ns() < deadline)
        nanosleep(&pause, NULL);
}

/* Before fork(): keep the helper's loader scans from starting and wait (up to 1 s) for every
 * thread to leave the loader; then keep new unwinds from starting and wait (as long again) for
 * those under way. Note whether a thread is still inside either (a lock it holds would stay held
 * in the child, where nobody can release it: libunwind's cache lock so hung a sampled fork
 * child). Other threads' samples in the second wait and the fork itself are held back (their
 * next samples carry their weight), so the profile loses nothing. A thread
 * spends microseconds in there, so a fork normally does not wait at all; the bound is for a
 * thread that was descheduled inside on a loaded machine (20 ms was not always enough under a
 * sanitizer on 2 busy CPUs, and the child then ran unprofiled). */
static void before_fork(void)
{
    atomic_store(&collector_g.fork_pending, 1);
    wait_for_zero(&collector_g.loader_users);
    collector_g.fork_tid = collector_tls.tid ? collector_tls.tid : collector_gettid();
    atomic_store(&collector_g.fork_now, 1);
    wait_for_zero(&collector_g.unwinders);
    collector_g.unsafe_at_fork =
        atomic_load(&collector_g.loader_users) > 0 || atomic_load(&collector_g.unwinders) > 0;
}

/* After fork(), in the parent: unwinds and the helper's scans may go on. */
static void after_fork_parent(void)
{
    atomic_store(&collector_g.fork_now, 0);
    atomic_store(&collector_g.fork_pending, 0);
}

/* In the child of a fork(): the calling thread is the only one; its ring is the parent's. */
static void after_fork_child(void)
{
    struct collector_thread *ts = &collector_tls;

    /* the parent's ring, timer and perf event are not ours: forget them */
    ts->ring.ctl = NULL;
    ts->has_timer = 0;
    ts->has_perf = 0; /* its fd was closed at set-up; its ring mapping is not copied by fork */
    ts->perf_page = NULL;
    ts->active = 0;
    ts->busy = 0;
    ts->lost_no_ring = 0;
    ts->fork_weight = 0;
    atomic_store(&collector_g.fork_now, 0);
    atomic_store(&collector_g.fork_pending, 0);
    if (!collector_g.enabled)
        return;
    if (!collector_g.follow || collector_g.unsafe_at_fork) {
        /* not followed; or the loader's or libunwind's lock may be stuck held in this child,
         * and a sample would wait for it: this child runs unsampled rather than risk a hang */
        if (collector_g.follow)
            collector_log("pid %d: forked while a thread was in the loader or the unwinder: "
                          "unsampled",
                          (int)getpid());
        collector_g.enabled = 0;
        return;
    }
    atomic_store(&collector_g.loader_users, 0);
    atomic_store(&collector_g.unwinders, 0);
    /* the forking process, not getppid(): a daemon's middle process may be gone already */
    collector_g.ppid = collector_g.pid;
    collector_g.pid = (uint32_t)getpid();
    collector_g.instance = atomic_fetch_add(&collector_g.transport.hdr->next_instance, 1);
    atomic_fetch_add(&collector_g.transport.hdr->collectors_alive, 1);
    atomic_store(&collector_g.module_generation, 0);
    collector_thread_begin(1, ROCSYS_PROC_FORKED);
}

int collector_session_get(const char *key, char *out, size_t cap)
{
    const char *v = getenv(ROCSYS_ENV_SESSION);
    size_t klen = strlen(key);
    int rc = -1;

    if (!v || cap == 0)
        goto out;
    while (*v) {
        const char *end = strchr(v, ',');
        int is_shm = strncmp(v, "shm=", 4) == 0; /* the path is the rest of the value */
        if (is_shm || !end)
            end = v + strlen(v);
        if (strncmp(v, key, klen) == 0 && v[klen] == '=') {
            size_t n = (size_t)(end - (v + klen + 1));
            if (n >= cap)
                goto out;
            memcpy(out, v + klen + 1, n);
            out[n] = '\0';
            rc = 0;
            goto out;
        }
        v = *end ? end + 1 : end;
    }
out:
    return rc;
}

/* Library constructor: runs before the target's main(). */
__attribute__((constructor)) static void collector_start(void)
{
    static char shm[ROCSYS_MAX_PATH];
    char proto[16], freq[16], mode[16], follow[8], root[24];
    const char *log = getenv(ROCSYS_ENV_LOG);
    long hz;
    ssize_t n;
    int rc;

    collector_exec_init(); /* the wrappers work in dormant collectors too */
    collector_launch_init();
    if (log && *log)
        collector_g.log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (collector_session_get("shm", shm, sizeof(shm)) != 0 || !*shm)
        goto dormant; /* loaded outside a rocsys-top session */
    if (collector_session_get("protocol", proto, sizeof(proto)) != 0 ||
        atoi(proto) != ROCSYS_PROTOCOL_VERSION) {
        collector_log("protocol mismatch: front end %s, collector %d", getenv(ROCSYS_ENV_SESSION),
                      ROCSYS_PROTOCOL_VERSION);
        goto dormant;
    }
    collector_g.pid = (uint32_t)getpid();
    collector_g.ppid = (uint32_t)getppid();
    collector_g.follow =
        collector_session_get("follow", follow, sizeof(follow)) == 0 && strcmp(follow, "1") == 0;
    if (!collector_g.follow && collector_session_get("root", root, sizeof(root)) == 0 &&
        (uint32_t)atol(root) != collector_g.pid)
        goto dormant; /* --no-follow and this is not the launched target */
    hz = collector_session_get("hz", freq, sizeof(freq)) == 0 ? atol(freq) : 1000;
    if (hz < 1 || hz > 10000)
        hz = 1000;
    collector_g.period_ns = 1000000000ull / (uint64_t)hz;
    collector_g.wall =
        collector_session_get("mode", mode, sizeof(mode)) == 0 && strcmp(mode, "wall") == 0;
    n = readlink("/proc/self/exe", collector_g.exe, sizeof(collector_g.exe) - 1);
    collector_g.exe[n > 0 ? n : 0] = '\0';
    rc = transport_attach(&collector_g.transport, shm);
    if (rc != 0) {
        collector_log("cannot attach to %s: %s", shm, strerror(-rc));
        goto dormant;
    }
    collector_g.instance = atomic_fetch_add(&collector_g.transport.hdr->next_instance, 1);
    atomic_fetch_add(&collector_g.transport.hdr->collectors_alive, 1);
    if (collector_sampler_install() != 0 || collector_threads_init() != 0 ||
        collector_modules_init() != 0) {
        collector_log("cannot install the sampler");
        goto dormant;
    }
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
    collector_g.enabled = 1;
    collector_thread_begin(1, 0);
    collector_log("started: pid %u instance %u, %ld Hz %s", collector_g.pid, collector_g.instance,
                  hz, collector_g.wall ? "wall" : "cpu");
    return;
dormant:
    collector_g.enabled = 0;
}

/* Library destructor: runs at exit(); other threads may still be running. */
__attribute__((destructor)) static void collector_stop(void)
{
    struct rocsys_rec_proc_exit rec;

    if (!collector_g.enabled)
        return;
    memset(&rec, 0, sizeof(rec));
    rec.h.type = ROCSYS_REC_PROC_EXIT;
    rec.h.size = sizeof(rec);
    rec.pid = collector_g.pid;
    rec.instance = collector_g.instance;
    rec.time_ns = collector_now_ns();
    collector_write_normal(&rec);
    collector_g.enabled = 0;
    collector_thread_end();
    atomic_fetch_sub(&collector_g.transport.hdr->collectors_alive, 1);
}
