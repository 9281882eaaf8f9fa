/* What the kernel lets this user sample, probed with the very events each engine opens (the
 * perf engine's rings on this process, the in-target timer's task-clock event), and the words
 * that say what a fallback loses and the one command that would allow more. A plain user at
 * kernel.perf_event_paranoid 2 (the kernel's default) may sample its own programs in user mode
 * only; at 3 Debian's kernels refuse every perf event to users, upstream kernels treat 3 as 2;
 * a container's seccomp profile may refuse the system call whatever the sysctl says. */
#define _GNU_SOURCE
#include "session/session.h"

#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* kernel.perf_event_paranoid, or SESSION_PERF_NO_SYSCTL when this kernel has no perf events. */
static int read_paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "re");
    int v = SESSION_PERF_NO_SYSCTL;

    if (!f)
        return v;
    if (fscanf(f, "%d", &v) != 1)
        v = 2;
    fclose(f);
    return v;
}

/* Whether a seccomp filter is on this process (a container's profile, systemd's, a sandbox). */
static int read_seccomp(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[128];
    int mode = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "Seccomp: %d", &mode) == 1)
            break;
    fclose(f);
    return mode == 2;
}

/* The in-target timer's event on this thread (as collector/sampler.c opens it: task-clock, no
 * sample data, kernel time counted unless user_only). 0 or -errno. */
static int probe_timer(int user_only, uint64_t period_ns)
{
    struct perf_event_attr a;
    int fd;

    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.disabled = 1;
    a.wakeup_events = 1;
    a.exclude_kernel = (unsigned)user_only;
    a.exclude_hv = (unsigned)user_only;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -errno;
    close(fd);
    return 0;
}

/* What session_perf_breakpoints_fire's breakpoint is on: a function of this process. */
__attribute__((noinline)) static void bp_target(void)
{
    __asm__ volatile("" ::: "memory");
}

int session_perf_breakpoints_fire(void)
{
    void (*volatile call)(void) = bp_target;
    struct perf_event_attr a;
    uint64_t count = 0;
    int fd;

    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_BREAKPOINT;
    a.bp_type = HW_BREAKPOINT_X;
    a.bp_addr = (uint64_t)(uintptr_t)bp_target;
    a.bp_len = sizeof(long);
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -errno;
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
    for (int i = 0; i < 3; i++)
        call();
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
        count = 0;
    close(fd);
    return count > 0;
}

void session_perf_grant_sysctl(struct session_perf_grant *g)
{
    memset(g, 0, sizeof(*g));
    g->paranoid = read_paranoid();
    g->seccomp = read_seccomp();
}

void session_perf_grant_probe(struct session_perf_grant *g, uint64_t period_ns)
{
    char why[256];
    struct session_perf *p;
    int rc;

    session_perf_grant_sysctl(g);
    /* the perf engine: its own events and rings, on this process (same user as the target) */
    p = session_perf_open(getpid(), 0, period_ns, 1, why, sizeof(why));
    if (p) {
        g->cpu = session_perf_kernel(p) ? SESSION_PERF_FULL : SESSION_PERF_USER;
        session_perf_close(p);
        p = session_perf_open(getpid(), 1, period_ns, 1, why, sizeof(why));
        if (p)
            g->wall_ok = 1;
        else
            g->err = errno;
        session_perf_close(p);
    } else {
        g->err = errno;
    }
    /* the collector's timer */
    rc = probe_timer(0, period_ns);
    if (rc == -EACCES || rc == -EPERM)
        rc = probe_timer(1, period_ns) == 0 ? 1 : rc;
    g->timer = rc == 0 ? SESSION_PERF_FULL : rc == 1 ? SESSION_PERF_USER : SESSION_PERF_DENIED;
    if (!g->err && rc < 0)
        g->err = -rc;
}

void session_perf_refusal(const struct session_perf_grant *g, int e, char *buf, size_t cap)
{
    if (g->paranoid == SESSION_PERF_NO_SYSCTL)
        snprintf(buf, cap, "this kernel has no perf events");
    else if (e != EACCES && e != EPERM)
        snprintf(buf, cap, "perf_event_open: %s", strerror(e));
    else if (g->seccomp && g->paranoid <= 2)
        snprintf(buf, cap,
                 "perf_event_open refused by a seccomp filter (kernel.perf_event_paranoid=%d "
                 "would allow it)",
                 g->paranoid);
    else if (g->paranoid >= 3)
        snprintf(buf, cap,
                 "kernel.perf_event_paranoid=%d: this kernel refuses perf events to users",
                 g->paranoid);
    else
        snprintf(buf, cap, "perf events not permitted (kernel.perf_event_paranoid=%d)",
                 g->paranoid);
}

void session_perf_allow_cmd(const struct session_perf_grant *g, int want, char *buf, size_t cap)
{
    if (g->paranoid == SESSION_PERF_NO_SYSCTL)
        snprintf(buf, cap, "a kernel built with CONFIG_PERF_EVENTS");
    else if (g->seccomp && g->paranoid <= 2 && g->cpu == SESSION_PERF_DENIED)
        /* the filter refuses what the sysctl allows: no sysctl helps, wall mode neither */
        snprintf(buf, cap, "a container started with --cap-add PERFMON");
    else
        snprintf(buf, cap, "sudo sysctl kernel.perf_event_paranoid=%d",
                 want == SESSION_PERF_FULL ? 1 : 2);
}

void session_perf_why_not(const struct session_perf_grant *g, int wall, char *buf, size_t cap)
{
    if (g->cpu != SESSION_PERF_DENIED && wall)
        snprintf(buf, cap,
                 "wall mode from outside needs kernel samples, which "
                 "kernel.perf_event_paranoid=%d refuses",
                 g->paranoid);
    else
        session_perf_refusal(g, g->err, buf, cap);
}

void session_perf_why_not_line(const struct session_perf_grant *g, int wall, char *buf, size_t cap)
{
    char reason[200], cmd[96];

    session_perf_why_not(g, wall, reason, sizeof(reason));
    session_perf_allow_cmd(g, wall ? SESSION_PERF_FULL : SESSION_PERF_USER, cmd, sizeof(cmd));
    snprintf(buf, cap, "%s; to allow it: %s", reason, cmd);
}
