/* The out-of-process sampler: perf events opened by the front end on the target's threads. The
 * kernel copies each sample's user registers and the top of its user stack into a ring the
 * front end maps; no signal ever reaches the target. The spool thread copies the rings out, the
 * main loop unwinds the copies with libdwfl (symbols/unwind.c). Wall mode adds a context-switch
 * event: the stack where a thread stops running, and how long it stays off the CPU, measured
 * exactly from the switch-out and switch-in records. */
#define _GNU_SOURCE
#include "session/session.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "session/perf_python.h"
#include "session/perf_stacks.h"

/* The user stack the kernel copies per sample at most (it copies only the used part, but a
 * record reserves the whole size in the ring): the kernel's limit, so that deep stacks (C++,
 * interpreters) reach their thread's start (docs/performance.md, "Whole stacks") */
#define PERF_STACK_BYTES 65528u
#define PERF_STACK_MIN   8192u       /* perf's default; where locked memory is short */
#define PERF_REGS_MASK   0xff0fffull /* AX..SS, R8..R15: not DS, ES, FS, GS */
#define PERF_NREGS       20
#define RING_PAGES       512u        /* data pages per ring per 8 KiB of stack: 240 samples */
#define RING_PAGES_MIN   16u         /* when locked memory is short (unprivileged users) */
#define RING_BUDGET      (64u << 20) /* all CPUs' rings, beyond 512 pages each */
#define RING_RECORDS_MIN 8u          /* a smaller stack rather than a ring of fewer samples */
#define MAX_UNWIND       SESSION_PERF_MAX_FRAMES
#define MAX_FRAMES       (MAX_UNWIND + 1 + ROCSYS_MAX_PY_FRAMES) /* + [truncated], Python */
#define MAX_RECORD       65536u

/* One perf ring: a clock (CPU samples) or switch (wall mode) event of one CPU. */
struct perf_ring {
    int fd;
    int kind; /* SESSION_PERF_CLOCK or _SWITCH */
    struct perf_event_mmap_page *page;
    uint8_t *data;
    uint64_t size; /* bytes of data, a power of two */
};

/* Wall mode: a thread off the CPU since its switch-out. */
struct perf_offcpu {
    uint32_t pid, tid;
    uint64_t out_ns; /* its switch-out, or the time up to which its blocked time is accounted */
    int have_out, have_stack, preempted;
    uint64_t carry_ns; /* blocked time not yet turned into whole sampling periods */
    int ours;          /* 1: the collector's own helper thread (not the program's), -1 unknown */
    uint64_t first_look_ns, next_look_ns; /* own_thread's first look at its name, and its next */
    uint32_t n;
    uint64_t frames[MAX_FRAMES]; /* (+ the [truncated] root, + Python frames) */
};

struct session_perf {
    int wall, kernel;
    uint32_t stack_bytes, ring_pages; /* the stack asked for per sample; data pages per ring */
    struct perf_stacks *stacks;       /* threads' last whole stacks, cut stacks' roots */
    int *fds; /* attached: every thread's events, their records sent to the CPU's ring */
    size_t nfds, fdcap;
    uint64_t period_ns;
    struct perf_ring *rings;
    int nrings;
    uint64_t lost, samples, unwound;
    uint64_t unwind_ns, unwinds; /* the front end's time spent unwinding, and how many */
    struct perf_offcpu *off;
    size_t noff, offcap;
    struct perf_python *py;       /* Python frames walked by BPF at each sample, or NULL */
    uint64_t py_from_ns;          /* ... at samples from this time on (set on every event) */
    session_perf_maps_fn maps_fn; /* whether a sample's process's maps are to be read first */
    void *maps_ctx;
    uint64_t maps_read_ns; /* when they were last */
};

/* A process's maps are read before a sample's unwinding at most this often. */
#define MAPS_READ_INTERVAL_NS 100000000ull

/* perf_event_open(2) */
static int perf_open(struct perf_event_attr *a, pid_t pid, int cpu, int group)
{
    return (int)syscall(SYS_perf_event_open, a, pid, cpu, group, PERF_FLAG_FD_CLOEXEC);
}

/* The stack to ask the kernel for: ROCSYS_PERF_STACK=BYTES (8192 to 65528, for measurements:
 * bench/perf_stacks.sh), else PERF_STACK_BYTES. */
static uint32_t stack_bytes_wanted(void)
{
    const char *e = getenv("ROCSYS_PERF_STACK");
    long v = e && *e ? strtol(e, NULL, 10) : 0;

    if (v < (long)PERF_STACK_MIN || v > (long)PERF_STACK_BYTES)
        return PERF_STACK_BYTES;
    return (uint32_t)v & ~7u; /* the kernel wants a multiple of 8 */
}

/* Data pages per ring for the stack size (240 samples, within RING_BUDGET for every CPU, and
 * at least RING_PAGES): a power of two. */
static uint32_t ring_pages_for(uint32_t stack_bytes)
{
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    uint64_t want = (uint64_t)RING_PAGES * stack_bytes / PERF_STACK_MIN;
    uint64_t cap = RING_BUDGET / 4096u / (uint64_t)(ncpu > 0 ? ncpu : 1);
    uint32_t pages = RING_PAGES;

    while (pages * 2ull <= want && pages * 2ull <= cap)
        pages *= 2;
    return pages;
}

/* A new perf engine state: what the kernel is asked for, and how cut stacks are handled. */
static struct session_perf *perf_new(int wall, uint64_t period_ns, int kernel, uint32_t stack)
{
    struct session_perf *p = xcalloc(1, sizeof(*p));
    const char *join = getenv("ROCSYS_PERF_JOIN");

    p->wall = wall;
    p->period_ns = period_ns;
    p->kernel = kernel;
    p->stack_bytes = stack;
    p->ring_pages = ring_pages_for(stack);
    p->stacks = perf_stacks_new(!(join && join[0] == '0'));
    return p;
}

/* The attributes of the clock (kind CLOCK) or context-switch (SWITCH) event. */
static void attr_init(struct perf_event_attr *a, const struct session_perf *p, int kind,
                      int inherit)
{
    uint64_t period_ns = p->period_ns;
    int kernel = p->kernel;

    memset(a, 0, sizeof(*a));
    a->size = sizeof(*a);
    a->type = PERF_TYPE_SOFTWARE;
    if (kind == SESSION_PERF_CLOCK) {
        a->config = PERF_COUNT_SW_TASK_CLOCK;
        a->sample_period = period_ns;
    } else {
        a->config = PERF_COUNT_SW_CONTEXT_SWITCHES;
        a->sample_period = 1;
        a->context_switch = 1; /* SWITCH records: out (voluntary or preempted) and in */
    }
    a->sample_type =
        PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a->sample_regs_user = PERF_REGS_MASK;
    a->sample_stack_user = p->stack_bytes;
    a->sample_id_all = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC; /* the collector's clock */
    a->exclude_kernel = !kernel;  /* with kernel: time in system calls is sampled too, at the
                                     user registers saved on entry */
    a->exclude_hv = 1;
    a->exclude_callchain_kernel = 1;
    a->inherit = (unsigned)inherit;
    a->disabled = 1;
    a->watermark = 1;
    /* the spool thread polls the rings: woken when one is a quarter full */
    a->wakeup_watermark = p->ring_pages * 4096u / 4u;
}

/* Map fd's ring of p->ring_pages data pages (fewer when locked memory is short, but room for
 * RING_RECORDS_MIN samples: else -ENOBUFS, and a smaller stack is asked for). */
static int ring_map(const struct session_perf *sp, struct perf_ring *r, int fd, int kind)
{
    long pg = sysconf(_SC_PAGESIZE);
    uint64_t least = sp->stack_bytes > PERF_STACK_MIN
                         ? (uint64_t)RING_RECORDS_MIN * (sp->stack_bytes + 512u)
                         : (uint64_t)RING_PAGES_MIN * (uint64_t)pg;

    for (uint32_t pages = sp->ring_pages; pages >= RING_PAGES_MIN; pages /= 2) {
        if ((uint64_t)pages * (uint64_t)pg < least)
            return -ENOBUFS;
        void *p =
            mmap(NULL, (size_t)(pages + 1) * (size_t)pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED)
            continue;
        r->fd = fd;
        r->kind = kind;
        r->page = p;
        r->data = (uint8_t *)p + pg;
        r->size = (uint64_t)pages * (uint64_t)pg;
        return 0;
    }
    return -errno;
}

/* One reason in why for the errno of a failed open, with what would allow it. */
static void explain(int e, int wall, char *why, size_t cap)
{
    struct session_perf_grant g;
    char reason[160], cmd[96];

    session_perf_grant_sysctl(&g);
    session_perf_refusal(&g, e, reason, sizeof(reason));
    session_perf_allow_cmd(&g, wall ? SESSION_PERF_FULL : SESSION_PERF_USER, cmd, sizeof(cmd));
    snprintf(why, cap, "%s%s; to allow: %s", reason,
             wall && g.paranoid >= 2 ? " (wall mode from outside needs kernel samples)" : "", cmd);
}

/* Open the events of kind on task pid (every CPU, inherited by its threads and children), each
 * CPU's into the ring of out[cpu] when out is given, else into a new ring. */
static int open_kind(struct session_perf *p, int kind, pid_t pid, int enable_on_exec,
                     const int *out_fds, int *fds)
{
    int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
    struct perf_event_attr a;

    attr_init(&a, p, kind, 1);
    a.enable_on_exec = (unsigned)enable_on_exec;
    for (int cpu = 0; cpu < ncpu; cpu++) {
        int fd = perf_open(&a, pid, cpu, -1);
        if (fd < 0) {
            if (errno == ENODEV || errno == EINVAL) /* an offline CPU */
                continue;
            return -errno;
        }
        if (out_fds) {
            if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, out_fds[cpu]) != 0) {
                int e = errno;
                close(fd);
                return -e;
            }
            close(fd); /* the ring holds the event; the kernel keeps it while mapped */
            continue;
        }
        p->rings = xrealloc(p->rings, (size_t)(p->nrings + 1) * sizeof(*p->rings));
        int rc = ring_map(p, &p->rings[p->nrings], fd, kind);
        if (rc != 0) {
            close(fd);
            return rc;
        }
        if (fds)
            fds[cpu] = fd;
        p->nrings++;
    }
    return 0;
}

struct session_perf *session_perf_open(pid_t pid, int wall, uint64_t period_ns, int on_exec,
                                       char *why, size_t cap)
{
    struct session_perf *p = NULL;
    uint32_t stack = stack_bytes_wanted();
    int rc = 0;

    /* kernel-mode samples (syscall time at its call site) where permitted, else user only */
    for (int kernel = 1; kernel >= 0; kernel--) {
        p = perf_new(wall, period_ns, kernel, stack);
        rc = open_kind(p, SESSION_PERF_CLOCK, pid, on_exec, NULL, NULL);
        if (rc == 0 && wall)
            rc = open_kind(p, SESSION_PERF_SWITCH, pid, on_exec, NULL, NULL);
        if (rc == 0)
            break;
        session_perf_close(p);
        p = NULL;
        if (rc == -ENOBUFS && stack > PERF_STACK_MIN) { /* locked memory is short */
            stack = stack / 2 < PERF_STACK_MIN ? PERF_STACK_MIN : (stack / 2) & ~7u;
            kernel++;
            continue;
        }
        if (wall || (rc != -EACCES && rc != -EPERM))
            break; /* wall mode needs the switch samples, which are kernel-mode samples */
    }
    if (!p) {
        explain(-rc, wall, why, cap);
        errno = -rc;
        return NULL;
    }
    if (!on_exec)
        session_perf_enable(p);
    return p;
}

void session_perf_on_unknown_code(struct session_perf *p, session_perf_maps_fn fn, void *ctx)
{
    p->maps_fn = fn;
    p->maps_ctx = ctx;
}

void session_perf_enable(struct session_perf *p)
{
    for (int i = 0; p && i < p->nrings; i++)
        ioctl(p->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

int session_perf_kernel(const struct session_perf *p)
{
    return p && p->kernel;
}

void session_perf_counts(const struct session_perf *p, uint64_t *samples, uint64_t *lost,
                         double *unwind_us)
{
    *samples = p ? p->samples : 0;
    *lost = p ? p->lost : 0;
    *unwind_us = p && p->unwinds ? (double)p->unwind_ns / (double)p->unwinds / 1e3 : 0;
}

void session_perf_stack_counts(const struct session_perf *p, uint32_t *stack_bytes, uint64_t *whole,
                               uint64_t *joined, uint64_t *cut)
{
    *stack_bytes = p ? p->stack_bytes : 0;
    perf_stacks_counts(p ? p->stacks : NULL, whole, joined, cut);
}

int session_perf_python(struct session_perf *p, struct perf_python *py)
{
    int fd = perf_python_prog_fd(py), failed = 0;

    for (int i = 0; p && i < p->nrings; i++)
        failed |= ioctl(p->rings[i].fd, PERF_EVENT_IOC_SET_BPF, fd) != 0;
    for (size_t i = 0; p && i < p->nfds; i++)
        failed |= ioctl(p->fds[i], PERF_EVENT_IOC_SET_BPF, fd) != 0;
    if (failed)
        return -1;
    p->py = py;
    p->py_from_ns = model_clock_ns(CLOCK_MONOTONIC);
    return 0;
}

struct perf_python *session_perf_walker(const struct session_perf *p)
{
    return p ? p->py : NULL;
}

void session_perf_close(struct session_perf *p)
{
    long pg = sysconf(_SC_PAGESIZE);

    if (!p)
        return;
    for (size_t i = 0; i < p->nfds; i++) {
        ioctl(p->fds[i], PERF_EVENT_IOC_DISABLE, 0);
        close(p->fds[i]);
    }
    free(p->fds);
    for (int i = 0; i < p->nrings; i++) {
        ioctl(p->rings[i].fd, PERF_EVENT_IOC_DISABLE, 0);
        munmap(p->rings[i].page, (size_t)p->rings[i].size + (size_t)pg);
        close(p->rings[i].fd);
    }
    free(p->rings);
    free(p->off);
    perf_python_free(p->py);
    perf_stacks_free(p->stacks);
    free(p);
}

/* Copy n bytes at offset off (any, wrapping) of ring r's data into dst. */
static void ring_read(const struct perf_ring *r, uint64_t off, void *dst, uint64_t n)
{
    uint64_t at = off & (r->size - 1);
    uint64_t first = r->size - at < n ? r->size - at : n;

    memcpy(dst, r->data + at, first);
    memcpy((uint8_t *)dst + first, r->data, n - first);
}

/* Copy the record of header h at ring offset off into rec; a SAMPLE's stack copy only as far
 * as the kernel filled it (dyn_size, rounded up to 8): a record reserves the whole size asked
 * for (up to 64 KiB), a thread whose stack is shallower leaves the rest empty, and only what is
 * kept costs copying here and memory in the spool. Returns the copy's length. */
static uint32_t record_copy(const struct perf_ring *r, uint64_t off,
                            const struct perf_event_header *h, uint8_t *rec)
{
    uint32_t at = sizeof(*h) + 24 + 8 * PERF_NREGS; /* TID, TIME, REGS_USER abi + registers */
    uint64_t abi, size, dyn, keep;

    if (h->type != PERF_RECORD_SAMPLE || at + 8u > h->size) {
        ring_read(r, off, rec, h->size);
        return h->size;
    }
    ring_read(r, off, rec, at + 8u);
    memcpy(&abi, rec + sizeof(*h) + 16, 8);
    memcpy(&size, rec + at, 8);
    if (abi == PERF_SAMPLE_REGS_ABI_NONE || size == 0 || at + 8u + size + 8u > h->size) {
        ring_read(r, off, rec, h->size);
        return h->size;
    }
    ring_read(r, off + at + 8u + size, &dyn, 8);
    keep = (dyn + 7) & ~(uint64_t)7;
    keep = keep < size ? keep : size;
    uint32_t tail = (uint32_t)(h->size - (at + 8u + size + 8u)); /* (none for our samples) */
    ring_read(r, off + at + 8u, rec + at + 8u, keep);
    memcpy(rec + at, &keep, 8);
    memcpy(rec + at + 8u + keep, &dyn, 8);
    ring_read(r, off + at + 8u + size + 8u, rec + at + 8u + keep + 8u, tail);
    struct perf_event_header nh = *h;
    nh.size = (uint16_t)(at + 8u + keep + 8u + tail);
    memcpy(rec, &nh, sizeof(nh));
    return nh.size;
}

void session_perf_pass(struct session_perf *p, session_perf_record_fn fn, void *ctx)
{
    static uint8_t rec[MAX_RECORD];

    for (int i = 0; p && i < p->nrings; i++) {
        struct perf_ring *r = &p->rings[i];
        uint64_t head = __atomic_load_n(&r->page->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = r->page->data_tail;
        while (tail < head) {
            struct perf_event_header h;
            ring_read(r, tail, &h, sizeof(h));
            if (h.size < sizeof(h) || h.size > head - tail)
                break;
            fn(ctx, r->kind, rec, record_copy(r, tail, &h, rec));
            tail += h.size;
        }
        __atomic_store_n(&r->page->data_tail, tail, __ATOMIC_RELEASE);
    }
}

/* A decoded sample record. */
struct perf_sample {
    uint32_t pid, tid;
    uint64_t time_ns;
    struct symbolizer_stack st;
};

/* Parse a SAMPLE record of our sample_type; 0 or -1 when it has no user registers. */
static int parse_sample(const uint8_t *rec, uint32_t len, struct perf_sample *s)
{
    const uint8_t *p = rec + sizeof(struct perf_event_header), *end = rec + len;
    uint64_t abi, size, dyn;

    if (p + 24 > end)
        return -1;
    memcpy(&s->pid, p, 4);
    memcpy(&s->tid, p + 4, 4);
    memcpy(&s->time_ns, p + 8, 8);
    memcpy(&abi, p + 16, 8);
    p += 24;
    if (abi == PERF_SAMPLE_REGS_ABI_NONE || p + 8 * PERF_NREGS + 8 > end)
        return -1;
    memcpy(s->st.regs, p, 8 * PERF_NREGS);
    p += 8 * PERF_NREGS;
    memcpy(&size, p, 8);
    p += 8;
    if (size > (uint64_t)(end - p) || (size && p + size + 8 > end))
        return -1;
    dyn = 0;
    if (size)
        memcpy(&dyn, p + size, 8);
    s->st.pid = s->pid;
    s->st.tid = s->tid;
    s->st.stack = p;
    s->st.stack_len = dyn < size ? dyn : size;
    return 0;
}

/* The wall-mode state of tid (created on first use). */
static struct perf_offcpu *offcpu(struct session_perf *p, uint32_t pid, uint32_t tid)
{
    for (size_t i = 0; i < p->noff; i++)
        if (p->off[i].tid == tid && p->off[i].pid == pid)
            return &p->off[i];
    xgrow(&p->off, &p->offcap, p->noff + 1, sizeof(*p->off));
    struct perf_offcpu *o = &p->off[p->noff++];
    memset(o, 0, sizeof(*o));
    o->pid = pid;
    o->tid = tid;
    o->ours = -1;
    return o;
}

/* How long a thread's name is looked at again (a thread may name itself after it starts, the
 * helper too), and how often meanwhile. */
#define OWN_THREAD_LOOK_NS     1000000000ull
#define OWN_THREAD_INTERVAL_NS 10000000ull

/* Whether tid is the collector's helper thread ("rocsys-modmap", by its whole name: a program's
 * own thread may be named rocsys-something, as the demo's main thread is), at time now_ns: not
 * part of the program. */
static int own_thread(struct perf_offcpu *o, uint64_t now_ns)
{
    char path[64], name[32] = "";
    FILE *f;

    if (o->ours >= 0)
        return o->ours;
    if (o->first_look_ns && now_ns < o->next_look_ns)
        return 0;
    snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", o->pid, o->tid);
    f = fopen(path, "re");
    if (!f)
        return 0; /* gone: decide again if it shows up later */
    if (!fgets(name, sizeof(name), f))
        name[0] = '\0';
    fclose(f);
    if (strcmp(name, ROCSYS_HELPER_THREAD "\n") == 0)
        return o->ours = 1;
    if (!o->first_look_ns)
        o->first_look_ns = now_ns ? now_ns : 1;
    if (now_ns >= o->first_look_ns + OWN_THREAD_LOOK_NS)
        return o->ours = 0; /* named for good */
    o->next_look_ns = now_ns + OWN_THREAD_INTERVAL_NS;
    return 0;
}

/* Wall mode: thread o's time off the CPU from its switch-out (or the last advance) to until_ns,
 * as whole sampling periods below "[blocked] CALL" or "[preempted]" (the rest carried). While
 * it is still off (still_off), not before the call can be named. */
static void offcpu_account(struct session_perf *p, struct model *m, struct perf_offcpu *o,
                           uint64_t until_ns, int still_off, session_perf_sample_fn fn, void *ctx)
{
    uint64_t frames[MAX_FRAMES + 1];

    if (until_ns <= o->out_ns)
        return;
    if (still_off && !o->preempted && model_blocked_frame_pending(m, o->pid, o->frames, (int)o->n))
        return;
    if (o->have_stack && !own_thread(o, until_ns)) {
        uint64_t ns = until_ns - o->out_ns + o->carry_ns;
        uint64_t periods = ns / p->period_ns;
        o->carry_ns = ns % p->period_ns;
        if (periods > 0) {
            frames[0] = model_blocked_frame(m, o->pid, o->frames, (int)o->n, o->preempted);
            memcpy(frames + 1, o->frames, o->n * sizeof(*frames));
            fn(ctx, o->pid, o->tid, o->out_ns, frames, o->n + 1,
               (uint32_t)(periods > UINT32_MAX ? UINT32_MAX : periods));
        }
    }
    o->out_ns = until_ns;
}

void session_perf_advance(struct session_perf *p, struct model *m, uint64_t until_ns,
                          session_perf_sample_fn fn, void *ctx)
{
    uint64_t now_ns = model_clock_ns(CLOCK_MONOTONIC);

    if (until_ns > now_ns) /* never time that has not passed (a switch-in's time has) */
        until_ns = now_ns;
    for (size_t i = 0; p && p->wall && i < p->noff; i++)
        if (p->off[i].have_out && p->off[i].have_stack)
            offcpu_account(p, m, &p->off[i], until_ns, 1, fn, ctx);
}

void session_perf_decode(struct session_perf *p, struct model *m, int kind, const uint8_t *rec,
                         uint32_t len, session_perf_sample_fn fn, void *ctx)
{
    const struct perf_event_header *h = (const void *)rec;
    struct perf_sample s;
    uint64_t frames[MAX_FRAMES], sps[MAX_UNWIND + 1];
    int end;

    if (!p || len < sizeof(*h))
        return;
    if (h->type == PERF_RECORD_LOST && len >= sizeof(*h) + 16) {
        uint64_t n;
        memcpy(&n, rec + sizeof(*h) + 8, 8);
        p->lost += n;
        return;
    }
    if (h->type == PERF_RECORD_SWITCH && len >= sizeof(*h) + 16) {
        uint32_t pid, tid;
        uint64_t t;
        memcpy(&pid, rec + sizeof(*h), 4);
        memcpy(&tid, rec + sizeof(*h) + 4, 4);
        memcpy(&t, rec + sizeof(*h) + 8, 8);
        struct perf_offcpu *o = offcpu(p, pid, tid);
        if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
            if (!o->have_out || !o->have_stack)
                o->out_ns = t; /* (else its sample came first, at the same moment) */
            o->have_out = 1;
            o->preempted = (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
        } else if (o->have_out) { /* back on the CPU (records come in time order) */
            offcpu_account(p, m, o, t, 0, fn, ctx);
            o->have_out = o->have_stack = 0;
        }
        return;
    }
    if (h->type != PERF_RECORD_SAMPLE || parse_sample(rec, len, &s) != 0)
        return;
    if (p->py && s.time_ns < p->py_from_ns && perf_python_covers(p->py, s.pid))
        return; /* a Python sample before the walker was set: its frames were not read */
    uint64_t t0 = model_clock_ns(CLOCK_MONOTONIC);
    /* code nobody has announced (the session says which): its process's maps first, else the
     * sample would be its pc alone */
    if (p->maps_fn && t0 - p->maps_read_ns >= MAPS_READ_INTERVAL_NS &&
        p->maps_fn(p->maps_ctx, s.pid, s.st.regs[8])) {
        symbolizer_load_maps(model_symbolizer(m), s.pid);
        p->maps_read_ns = t0;
    }
    uint32_t n = symbolizer_unwind(model_symbolizer(m), &s.st, frames, sps, MAX_UNWIND, &end);
    /* whole, joined to the thread's last whole stack, or under a [truncated] root */
    n = perf_stacks_finish(p->stacks, m, s.pid, s.tid, frames, sps, n, MAX_UNWIND, end);
    p->unwind_ns += model_clock_ns(CLOCK_MONOTONIC) - t0;
    p->unwinds++;
    p->unwound += n;
    if (p->py) { /* the Python frames walked at this sample's instant, after the native ones */
        struct perf_python_sample ps = {s.pid, s.tid, s.time_ns, s.st.regs[8], s.st.regs[7]};
        n += perf_python_frames(p->py, m, &ps, sps, n, frames + n, MAX_FRAMES - n);
    }
    if (kind == SESSION_PERF_SWITCH) {
        /* the stack where the thread leaves the CPU: kept until it comes back */
        struct perf_offcpu *o = offcpu(p, s.pid, s.tid);
        memcpy(o->frames, frames, n * sizeof(*frames));
        o->n = n;
        o->have_stack = 1;
        if (!o->have_out) { /* the switch-out record may come after its sample */
            o->out_ns = s.time_ns;
            o->have_out = 1;
        }
        return;
    }
    if (own_thread(offcpu(p, s.pid, s.tid), s.time_ns))
        return;
    p->samples++;
    fn(ctx, s.pid, s.tid, s.time_ns, frames, n, 1);
}

int session_perf_time(const uint8_t *rec, uint32_t len, uint64_t *time_ns)
{
    const struct perf_event_header *h = (const void *)rec;

    /* SAMPLE starts with pid, tid, time; SWITCH's sample_id (TID|TIME) too */
    if (len < sizeof(*h) + 16 || (h->type != PERF_RECORD_SAMPLE && h->type != PERF_RECORD_SWITCH))
        return -1;
    memcpy(time_ns, rec + sizeof(*h) + 8, 8);
    return 0;
}

/* Open kind's events on thread tid, every CPU: into a new ring per CPU the first time (ring_fd
 * holds them), else into that CPU's ring. 0, or -errno. */
static int attach_thread(struct session_perf *p, int kind, pid_t tid, int *ring_fd, int ncpu)
{
    struct perf_event_attr a;

    attr_init(&a, p, kind, 1);
    a.disabled = 0;
    for (int cpu = 0; cpu < ncpu; cpu++) {
        int fd = perf_open(&a, tid, cpu, -1);
        if (fd < 0) {
            if (errno == ENODEV || (errno == EINVAL && cpu > 0))
                continue; /* an offline CPU */
            return -errno;
        }
        if (ring_fd[cpu] < 0) {
            p->rings = xrealloc(p->rings, (size_t)(p->nrings + 1) * sizeof(*p->rings));
            int rc = ring_map(p, &p->rings[p->nrings], fd, kind);
            if (rc != 0) {
                close(fd);
                return rc;
            }
            p->nrings++;
            ring_fd[cpu] = fd;
            continue;
        }
        if (ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, ring_fd[cpu]) != 0) {
            int e = errno;
            close(fd);
            return -e;
        }
        xgrow(&p->fds, &p->fdcap, p->nfds + 1, sizeof(*p->fds));
        p->fds[p->nfds++] = fd; /* kept open: closing it would end the event */
    }
    return 0;
}

/* Attach kind's events to every thread of pid (threads it creates later inherit them). */
static int attach_process(struct session_perf *p, int kind, pid_t pid, int *ring_fd, int ncpu)
{
    char path[64];
    struct dirent *d;
    int rc = 0, opened = 0;
    DIR *dir;

    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    dir = opendir(path);
    if (!dir)
        return -ESRCH;
    while ((d = readdir(dir)) != NULL) {
        pid_t tid = (pid_t)atoi(d->d_name);
        if (tid <= 0)
            continue;
        rc = attach_thread(p, kind, tid, ring_fd, ncpu);
        if (rc == -ESRCH) { /* the thread ended meanwhile */
            rc = 0;
            continue;
        }
        if (rc != 0)
            break;
        opened++;
    }
    closedir(dir);
    return rc != 0 ? rc : opened ? 0 : -ESRCH;
}

struct session_perf *session_perf_attach(const pid_t *pids, int npids, int wall, uint64_t period_ns,
                                         char *why, size_t cap)
{
    int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), rc = 0, bad = 0;
    int *ring_fd = xcalloc((size_t)ncpu * 2, sizeof(int));
    struct session_perf *p = NULL;
    uint32_t stack = stack_bytes_wanted();

    for (int kernel = 1; kernel >= 0; kernel--) {
        p = perf_new(wall, period_ns, kernel, stack);
        for (int i = 0; i < ncpu * 2; i++)
            ring_fd[i] = -1;
        for (bad = 0; bad < npids && rc == 0; bad++) {
            rc = attach_process(p, SESSION_PERF_CLOCK, pids[bad], ring_fd, ncpu);
            if (rc == 0 && wall)
                rc = attach_process(p, SESSION_PERF_SWITCH, pids[bad], ring_fd + ncpu, ncpu);
        }
        if (rc == 0)
            break;
        session_perf_close(p);
        p = NULL;
        if (rc == -ENOBUFS && stack > PERF_STACK_MIN) { /* locked memory is short */
            stack = stack / 2 < PERF_STACK_MIN ? PERF_STACK_MIN : (stack / 2) & ~7u;
            kernel++;
            rc = 0;
            continue;
        }
        if (wall || kernel == 0 || (rc != -EACCES && rc != -EPERM))
            break; /* (user-only events were refused too: rc says why) */
        rc = 0;
    }
    free(ring_fd);
    if (!p) {
        if (rc == -ESRCH)
            snprintf(why, cap, "no process %d", (int)pids[bad - 1]);
        else if (rc == -EACCES || rc == -EPERM)
            snprintf(why, cap,
                     "not permitted to profile process %d (another user's, or not dumpable; "
                     "perf events need the same user, root or CAP_PERFMON%s)",
                     (int)pids[bad - 1], wall ? "; wall mode: perf_event_paranoid <= 1" : "");
        else
            explain(-rc, wall, why, cap);
    }
    return p;
}

int session_perf_pollfds(const struct session_perf *p, struct pollfd *out, int max)
{
    int n = 0;

    for (int i = 0; p && i < p->nrings && n < max; i++)
        out[n++] = (struct pollfd){.fd = p->rings[i].fd, .events = POLLIN};
    return n;
}
