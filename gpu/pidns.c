/* Process ids across PID namespaces (containers). KFD names its processes by their ids in the
 * initial namespace (the host's); rocsys-top shows the ids its own namespace uses. The NSpid
 * line of /proc/PID/status lists a process's ids from the namespace of that /proc mount down
 * to its own; rocsys-top's own line says how deep its namespace is below the mount's. So:
 * A process at our depth may still be in a sibling namespace (another container at the same
 * level): its id at our depth is checked by a pidfd of that id in our namespace, whose fdinfo
 * gives its id in /proc's (the host's).
 *   - /proc of the initial namespace (rocsys-top there, or below it without its own /proc):
 *     the KFD id is the /proc entry; its id at rocsys-top's depth is ours, and a process above
 *     or beside rocsys-top's namespace has none (shown with its host id, marked);
 *   - rocsys-top in a namespace with its own /proc (unshare --mount-proc, a container): host
 *     ids cannot be read from here; every KFD id is a host id (shown as such, marked), and never
 *     taken for the local process that happens to have the same number. */
#define _GNU_SOURCE
#include "gpu/gpu.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PID_NS_INIT_INO 4026531836u /* the initial PID namespace's inode (PROC_PID_INIT_INO) */

int gpu_pidns_parse(const char *status, uint32_t *ids, int max)
{
    const char *p = status;
    int n = 0;

    while (p && *p) {
        if (strncmp(p, "NSpid:", 6) == 0) {
            p += 6;
            while (n < max) {
                char *end;
                while (*p == ' ' || *p == '\t')
                    p++;
                unsigned long v = strtoul(p, &end, 10);
                if (end == p || v == 0 || v > 0xffffffffu)
                    break;
                ids[n++] = (uint32_t)v;
                p = end;
            }
            return n;
        }
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

int gpu_pidns_resolve(int self_depth, const uint32_t *ids, int n, uint32_t *ours, uint32_t *inner)
{
    *ours = 0;
    *inner = 0;
    if (self_depth < 1 || n < self_depth)
        return GPU_PIDNS_OUTSIDE; /* above or beside our namespace: no id here */
    *ours = ids[self_depth - 1];
    if (n == self_depth)
        return GPU_PIDNS_SAME;
    *inner = ids[n - 1]; /* in a namespace below ours (a container we see into) */
    return GPU_PIDNS_CHILD;
}

/* Whether pid ours (in our namespace) is the process /proc calls host_pid: a pidfd of ours,
 * its fdinfo's Pid: line (Linux 5.3+); 1 when that cannot be told (no pidfd_open). */
static int same_process(uint32_t ours, uint32_t host_pid)
{
#ifdef SYS_pidfd_open
    char path[64], buf[1024];
    int fd = (int)syscall(SYS_pidfd_open, (pid_t)ours, 0);
    if (fd < 0)
        return errno == ENOSYS ? 1 : 0; /* ESRCH: no such process in our namespace */
    snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
    FILE *f = fopen(path, "re");
    size_t len = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
    if (f)
        fclose(f);
    close(fd);
    buf[len] = '\0';
    const char *p = strstr(buf, "\nPid:");
    return p ? strtoul(p + 6, NULL, 10) == host_pid : 1;
#else
    (void)ours;
    (void)host_pid;
    return 1;
#endif
}

/* NSpid of /proc/<pid>/status (pid 0: self) into ids; their number (0: unreadable). */
static int read_nspid(uint32_t pid, uint32_t *ids, int max)
{
    char path[64], buf[4096];
    FILE *f;
    size_t len;

    if (pid)
        snprintf(path, sizeof(path), "/proc/%u/status", (unsigned)pid);
    else
        snprintf(path, sizeof(path), "/proc/self/status");
    f = fopen(path, "re");
    if (!f)
        return 0;
    len = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[len] = '\0';
    return gpu_pidns_parse(buf, ids, max);
}

int gpu_pidns_self(void)
{
    uint32_t ids[32];
    char link[64] = "";
    unsigned long ino = 0;
    int depth = read_nspid(0, ids, 32);
    ssize_t l = readlink("/proc/self/ns/pid", link, sizeof(link) - 1);

    if (l > 0)
        link[l] = '\0';
    if (depth == 0) /* a kernel without NSpid (before 4.1): one namespace as far as we know */
        return 1;
    if (depth == 1 && sscanf(link, "pid:[%lu]", &ino) == 1 && ino != PID_NS_INIT_INO)
        return 0; /* our own /proc in a namespace below the host's: host ids are not here */
    return depth;
}

void gpu_pidns_map(int self_depth, struct gpu_proc *procs, int n)
{
    for (int i = 0; i < n; i++) {
        struct gpu_proc *p = &procs[i];
        uint32_t ids[32], ours, inner;
        int k;

        p->host_pid = p->pid;
        if (self_depth == 0) {
            p->pidns = GPU_PIDNS_OUTSIDE;
            continue;
        }
        k = read_nspid(p->pid, ids, 32);
        if (k == 0) { /* gone, or no NSpid: taken as it is */
            p->pidns = GPU_PIDNS_SAME;
            continue;
        }
        p->pidns = gpu_pidns_resolve(self_depth, ids, k, &ours, &inner);
        if (p->pidns != GPU_PIDNS_OUTSIDE && self_depth > 1 && !same_process(ours, p->host_pid))
            p->pidns = GPU_PIDNS_OUTSIDE; /* a sibling namespace's: the same depth, not ours */
        if (p->pidns != GPU_PIDNS_OUTSIDE)
            p->pid = ours;
        p->inner_pid = inner;
    }
}
