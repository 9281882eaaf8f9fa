/* Process and thread metrics from /proc: CPU %, RSS and peak, faults, context switches,
 * thread states and names. Parsers are separate from file reading so they can be tested. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/protocol.h"
#include "model_internal.h"

struct model_procfs {
    uint64_t last_ns; /* time of the previous refresh */
};

/* Read a small /proc file into buf (NUL-terminated); returns bytes read or -1. */
static ssize_t read_file(const char *path, char *buf, size_t cap)
{
    ssize_t n, total = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -1;
    while ((size_t)total < cap - 1 && (n = read(fd, buf + total, cap - 1 - (size_t)total)) > 0)
        total += n;
    close(fd);
    buf[total] = '\0';
    return total;
}

int model_procfs_parse_stat(const char *buf, struct model_procfs_stat *out)
{
    /* "pid (comm) state ppid ..." where comm may contain spaces and parentheses */
    const char *p = strrchr(buf, ')');
    const char *open_paren = strchr(buf, '(');
    unsigned long long v[50];
    int n = 0;
    char *end;

    memset(out, 0, sizeof(*out));
    if (!p || !open_paren || open_paren > p || p[1] != ' ' || !p[2])
        return -1;
    snprintf(out->comm, sizeof(out->comm), "%.*s", (int)(p - open_paren - 1), open_paren + 1);
    out->state = p[2];
    p += 3;
    /* fields from 4 (ppid) on, numbered as in proc(5) */
    while (*p && n < 50) {
        while (*p == ' ' || *p == '\n')
            p++;
        if (!*p)
            break;
        v[n++] = strtoull(p, &end, 10);
        if (end == p)
            return -1;
        p = end;
    }
    if (n < 17)
        return -1;
    /* field k of proc(5) is v[k - 4] */
    out->minflt = v[10 - 4];
    out->majflt = v[12 - 4];
    out->utime_ticks = v[14 - 4];
    out->stime_ticks = v[15 - 4];
    out->num_threads = (uint32_t)v[20 - 4];
    return 0;
}

int model_procfs_parse_status(const char *buf, struct model_procfs_status *out)
{
    memset(out, 0, sizeof(*out));
    for (const char *line = buf; line && *line;
         line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        unsigned long long x;
        if (sscanf(line, "VmRSS: %llu kB", &x) == 1)
            out->rss_bytes = x * 1024;
        else if (sscanf(line, "SigBlk: %llx", &x) == 1)
            out->sig_blocked = x;
        else if (sscanf(line, "VmHWM: %llu kB", &x) == 1)
            out->peak_rss_bytes = x * 1024;
        else if (sscanf(line, "voluntary_ctxt_switches: %llu", &x) == 1)
            out->vol_ctx = x;
        else if (sscanf(line, "nonvoluntary_ctxt_switches: %llu", &x) == 1)
            out->invol_ctx = x;
    }
    return 0;
}

void model_procfs_thread_name(uint32_t pid, uint32_t tid, char *buf, size_t cap)
{
    char path[64];
    ssize_t n;

    snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
    n = read_file(path, buf, cap);
    if (n <= 0) {
        buf[0] = '\0';
        return;
    }
    if (buf[n - 1] == '\n')
        buf[n - 1] = '\0';
}

/* Refresh one thread's state, CPU % and name from /proc/PID/task/TID; add its context
 * switches to its process's (/proc/PID/status counts the main thread's only). */
static void refresh_thread(struct model *m, struct model_thread *t, double dt_s, double tick_ns)
{
    char path[64], buf[2048];
    struct model_procfs_stat st;

    snprintf(path, sizeof(path), "/proc/%u/task/%u/stat", t->pid, t->tid);
    if (read_file(path, buf, sizeof(buf)) <= 0 || model_procfs_parse_stat(buf, &st) != 0)
        return;
    uint64_t cpu = (uint64_t)((double)(st.utime_ticks + st.stime_ticks) * tick_ns);
    if (dt_s > 0 && cpu >= t->cpu_time_ns && t->cpu_time_ns)
        t->cpu_pct = (double)(cpu - t->cpu_time_ns) / 1e9 / dt_s * 100.0;
    t->cpu_time_ns = cpu;
    t->state = st.state;
    if (st.comm[0]) /* the name is in stat too: no separate read of comm */
        snprintf(t->name, sizeof(t->name), "%s", st.comm);
    struct model_procfs_status ss;
    struct model_process *p = model_process_mut(m, t->pid);
    snprintf(path, sizeof(path), "/proc/%u/task/%u/status", t->pid, t->tid);
    if (read_file(path, buf, sizeof(buf)) <= 0 || model_procfs_parse_status(buf, &ss) != 0)
        return;
    if (p && p->metrics.valid && p->state == MODEL_PROC_RUNNING) {
        p->metrics.vol_ctx_switches += ss.vol_ctx;
        p->metrics.invol_ctx_switches += ss.invol_ctx;
    }
    /* a thread that blocks the sampling signal is never sampled (the collector's own helper
     * thread blocks everything on purpose) */
    int sig = m->session.sample_signal;
    t->blocks_sampling = sig > 0 && sig <= 64 && (ss.sig_blocked >> (sig - 1) & 1) &&
                         strcmp(t->name, ROCSYS_HELPER_THREAD) != 0;
}

/* Refresh one process's metrics, and discover threads the collector did not report. */
static void refresh_process(struct model *m, struct model_process *p, double dt_s, double tick_ns,
                            uint64_t now_ns)
{
    char path[64], buf[4096];
    struct model_procfs_stat st;
    struct model_procfs_status ss;
    DIR *d;
    struct dirent *de;

    snprintf(path, sizeof(path), "/proc/%u/stat", p->pid);
    if (read_file(path, buf, sizeof(buf)) <= 0 || model_procfs_parse_stat(buf, &st) != 0) {
        if (!p->is_root) /* gone; the root's status comes from waitpid */
            model_proc_end(m, p->pid, MODEL_PROC_EXITED, -1, now_ns);
        return;
    }
    if (st.state == 'Z' || st.state == 'X')
        return; /* ended; waitpid or the collector says how */
    uint64_t cpu = (uint64_t)((double)(st.utime_ticks + st.stime_ticks) * tick_ns);
    if (dt_s > 0 && p->metrics.valid && cpu >= p->metrics.cpu_time_ns) {
        p->metrics.cpu_pct = (double)(cpu - p->metrics.cpu_time_ns) / 1e9 / dt_s * 100.0;
        p->metrics.cpu_pct_measured = 1;
    }
    p->metrics.cpu_time_ns = cpu;
    p->metrics.minor_faults = st.minflt;
    p->metrics.major_faults = st.majflt;
    p->metrics.threads = st.num_threads;
    snprintf(path, sizeof(path), "/proc/%u/status", p->pid);
    if (read_file(path, buf, sizeof(buf)) > 0 && model_procfs_parse_status(buf, &ss) == 0) {
        p->metrics.rss_bytes = ss.rss_bytes;
        if (ss.peak_rss_bytes > p->metrics.peak_rss_bytes)
            p->metrics.peak_rss_bytes = ss.peak_rss_bytes;
        p->metrics.vol_ctx_switches = 0; /* summed over the threads below */
        p->metrics.invol_ctx_switches = 0;
    }
    p->metrics.valid = 1;
    snprintf(path, sizeof(path), "/proc/%u/task", p->pid);
    d = opendir(path);
    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        uint32_t tid = (uint32_t)strtoul(de->d_name, NULL, 10);
        if (tid)
            model_thread_discover(m, p->pid, tid, now_ns);
    }
    closedir(d);
}

void model_refresh_procfs(struct model *m, uint64_t now_ns)
{
    double tick_ns = 1e9 / (double)sysconf(_SC_CLK_TCK);
    double dt_s;

    if (!m->procfs)
        m->procfs = xcalloc(1, sizeof(*m->procfs));
    dt_s = m->procfs->last_ns ? (double)(now_ns - m->procfs->last_ns) / 1e9 : 0;
    m->procfs->last_ns = now_ns;
    for (int i = 0; i < m->nproc; i++)
        if (m->procs[i].state == MODEL_PROC_RUNNING)
            refresh_process(m, &m->procs[i], dt_s, tick_ns, now_ns);
    int blocking = 0;
    for (int i = 0; i < m->nthreads; i++) {
        struct model_thread *t = &m->threads[i];
        if (t->alive) {
            refresh_thread(m, t, dt_s, tick_ns);
            blocking += t->blocks_sampling;
        }
    }
    m->session.threads_blocking = (uint32_t)blocking;
}

void model_procfs_free(struct model *m)
{
    free(m->procfs);
    m->procfs = NULL;
}
