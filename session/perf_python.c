/* Python frames from outside, at the sample's instant (the perf engine, attached or launched
 * without the collector's sampler). The kernel runs bpf/pyframes.bpf.c at each perf sample: it
 * finds the thread's PyThreadState and copies its frame chain as read (frame, code object,
 * instruction, flags) to a BPF ring buffer, stamped with the thread's user ip and sp and the
 * time. Here each walk is paired with its sample (same thread, the same ip and sp, the first
 * walk at or after the sample's time and within half a period: the program runs right after
 * the kernel prepared the sample), checked with the rules of the in-target reader
 * (collector/python.c: object types, instruction ranges, incomplete frames, entry and shim
 * frames) and turned into the same pseudo-frames; code objects are read from the target with
 * process_vm_readv once each (re-checked after a second: an address may be reused) and
 * announced to the model as the collector's PY_CODE records are. A sample whose walk is not
 * found gets no Python frame (counted), never the frames of another moment. One description of
 * each CPython's layout serves both readers: collector/python_layout.c; the interpreter is found
 * in perf_python_proc.c. */
#define _GNU_SOURCE
#include "session/perf_python.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bpf/pyframes.h"
#include "collector/protocol.h"
#include "collector/python_layout.h"
#include "base/hashmap.h"
#include "model/model.h"
#include "session/perf_python_proc.h"

#ifdef ROCSYS_HAVE_BPF
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/mman.h>

#include "pyframes_bpf_obj.h" /* pyframes_bpf_obj[]: the compiled walker (bpf/embed.cmake) */
#endif

#define CODE_ID_FIRST  0x400000u /* above the collector's ids (a launched program's) */
#define CODE_RECHECK   1000000000ull
#define QUEUE_MAX      8192u /* walks kept per thread (decoding lags sampling: 8 s at 1 kHz) */
#define STR_HEAD_BYTES 64u

/* A code object seen in a walk. */
struct py_code_seen {
    uint32_t pid, id;
    uint64_t addr, sig, size; /* size: code units (3.11+) */
    int32_t first_trace;
    uint64_t checked_ns;
};

/* The walks of one thread not yet paired, oldest first (a ring of cap, a power of two). */
struct tid_queue {
    uint32_t tid, head, count, cap;
    struct pyf_event **ev;
};

struct perf_python {
    struct py_proc *procs;
    size_t nprocs, proccap;
    struct py_code_seen *codes;
    size_t ncodes, codecap;
    struct hashmap code_map; /* mix(pid, address) -> codes index + 1 */
    struct tid_queue *queues;
    size_t nqueues, queuecap;
    struct hashmap queue_map; /* tid -> queues index + 1 */
    uint32_t next_id;
    uint64_t window_ns, period_ns;
    uint64_t paired, orphan, missed;
    int prog_fd, procs_fd;
    int stats_fd;                     /* ROCSYS_BPF_STATS=1: the kernel times the walker */
    uint64_t front_ns, front_samples; /* ... and the front end's share is timed too */
#ifdef ROCSYS_HAVE_BPF
    struct bpf_object *obj;
    unsigned char *rings; /* the walker's per-CPU rings (struct pyf_ring, then ring_bytes) */
    size_t nrings, ring_stride, rings_bytes;
    uint32_t ring_bytes;
    uint64_t *tails; /* per ring: where the next walk to read is */
    uint64_t lost;   /* walks found overwritten when read (never, unless the walker errs) */
#endif
};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int ptr_ok(uint64_t p)
{
    return p >= 4096 && p < 0x800000000000ull && (p & 7) == 0;
}

/* ---- code objects ---- */

/* Where a str's characters are, its kind and length in bytes (capped). -1 if not a str. */
static int str_read(const struct py_proc *p, uint64_t s, char *out, size_t cap)
{
    uint8_t h[STR_HEAD_BYTES], raw[ROCSYS_PY_NAME_MAX];
    uint64_t type, len, data;
    uint32_t state, kind;

    if (!ptr_ok(s) || perf_python_peek(p->pid, s, h, sizeof(h)) != 0)
        return -1;
    memcpy(&type, h + PY_OB_TYPE, 8);
    memcpy(&len, h + PY_STR_LENGTH, 8);
    memcpy(&state, h + PY_STR_STATE, 4);
    kind = (state >> 2) & 7;
    if ((p->unicode_type && type != p->unicode_type) || (kind != 1 && kind != 2 && kind != 4))
        return -1;
    if (state & (1u << 5))
        data = s + ((state & (1u << 6)) ? p->l.str_ascii_size : p->l.str_compact_size);
    else if (p->l.str_compact_size + 8 > sizeof(h) ||
             (memcpy(&data, h + p->l.str_compact_size, 8), !data))
        return -1;
    if (len > ROCSYS_PY_NAME_MAX / kind)
        len = ROCSYS_PY_NAME_MAX / kind;
    if (perf_python_peek(p->pid, data, raw, len * kind) != 0)
        return -1;
    model_py_utf8((int)kind, raw, len * kind, out, cap);
    return 0;
}

/* The header of code object code of p, checked: its identity into *sig, its size and first
 * traceable unit. 0, or -1. */
static int code_head(const struct py_proc *p, uint64_t code, uint64_t *sig, uint64_t *size,
                     int32_t *first_trace, uint64_t *f)
{
    const struct py_layout *l = &p->l;
    uint8_t h[512];
    uint32_t need = l->co_filename, offs[] = {l->co_name, l->co_table, l->co_firstlineno};
    uint64_t type;

    for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++)
        need = offs[i] > need ? offs[i] : need;
    need = (uint32_t)l->co_firsttrace > need && l->co_firsttrace >= 0 ? (uint32_t)l->co_firsttrace
                                                                      : need;
    need += 8;
    if (!ptr_ok(code) || need > sizeof(h) || perf_python_peek(p->pid, code, h, need) != 0)
        return -1;
    memcpy(&type, h + PY_OB_TYPE, 8);
    if (p->code_type && type != p->code_type)
        return -1;
    memcpy(&f[0], h + l->co_filename, 8);
    memcpy(&f[1], h + l->co_name, 8);
    memcpy(&f[2], h + l->co_table, 8);
    f[3] = 0;
    memcpy(&f[3], h + l->co_firstlineno, 4);
    *size = 0;
    if (l->co_adaptive >= 0)
        memcpy(size, h + PY_OB_SIZE, 8);
    *first_trace = 0;
    if (l->co_firsttrace >= 0)
        memcpy(first_trace, h + l->co_firsttrace, 4);
    *sig = hashmap_mix(f[0] ^ hashmap_mix(f[1] ^ hashmap_mix(f[2] ^ (f[3] << 32) ^ *size)));
    return 0;
}

/* Announce code object c (read now) to the model under a new id: 0, or -1. */
static int code_announce(struct perf_python *pp, const struct py_proc *p, struct model *m,
                         struct py_code_seen *c, const uint64_t *f)
{
    static char name[4 * ROCSYS_PY_NAME_MAX + 1], file[4 * ROCSYS_PY_NAME_MAX + 1];
    static uint8_t table[ROCSYS_PY_TABLE_MAX];
    uint8_t th[40];
    uint64_t type, tlen;

    if (str_read(p, f[1], name, sizeof(name)) != 0 || str_read(p, f[0], file, sizeof(file)) != 0 ||
        !ptr_ok(f[2]) || perf_python_peek(p->pid, f[2], th, sizeof(th)) != 0)
        return -1;
    memcpy(&type, th + PY_OB_TYPE, 8);
    memcpy(&tlen, th + PY_OB_SIZE, 8);
    if (p->bytes_type && type != p->bytes_type)
        return -1;
    tlen = tlen > ROCSYS_PY_TABLE_MAX ? ROCSYS_PY_TABLE_MAX : tlen;
    if (perf_python_peek(p->pid, f[2] + PY_BYTES_DATA, table, tlen) != 0)
        return -1;
    if (pp->next_id >= ROCSYS_PY_CODE_UNREADABLE)
        return -1; /* (8 million code objects) */
    c->id = pp->next_id++;
    model_python_code(m, p->pid, c->id, (int)(int32_t)f[3], p->l.table_kind, name, file, table,
                      (size_t)tlen);
    return 0;
}

/* The code object at addr of p (read and announced the first time, re-checked after a
 * second), or NULL when it cannot be trusted. */
static const struct py_code_seen *code_of(struct perf_python *pp, const struct py_proc *p,
                                          struct model *m, uint64_t addr, uint64_t now)
{
    uint32_t *slot = hashmap_slot(&pp->code_map, hashmap_mix(addr ^ ((uint64_t)p->pid << 48)), 1);
    struct py_code_seen *c = *slot ? &pp->codes[*slot - 1] : NULL;
    uint64_t sig, size, f[4];
    int32_t first;

    if (c && c->addr == addr && c->pid == p->pid && now - c->checked_ns < CODE_RECHECK)
        return c;
    if (code_head(p, addr, &sig, &size, &first, f) != 0)
        return NULL;
    if (c && c->addr == addr && c->pid == p->pid && c->sig == sig) {
        c->checked_ns = now;
        return c;
    }
    if (!c) {
        xgrow(&pp->codes, &pp->codecap, pp->ncodes + 1, sizeof(*pp->codes));
        c = &pp->codes[pp->ncodes++];
        *slot = (uint32_t)pp->ncodes;
    }
    c->pid = p->pid;
    c->addr = addr;
    c->sig = sig;
    c->size = size;
    c->first_trace = first;
    c->checked_ns = now;
    if (code_announce(pp, p, m, c, f) != 0) {
        c->addr = 0; /* read again next time */
        return NULL;
    }
    return c;
}

/* ---- a walk into pseudo-frames (the rules of collector/python.c) ---- */

/* A PY_AT word for a group whose entry (shim) frame is at addr on the C stack: the native
 * frame whose range [its SP, its caller's SP) holds it, if any. */
static uint32_t put_at(uint64_t *out, uint32_t n, uint32_t room, uint64_t addr, const uint64_t *sps,
                       uint32_t nnative)
{
    for (uint32_t k = 0; sps && k + 1 < nnative && n < room; k++)
        if (addr >= sps[k] && addr < sps[k + 1]) {
            out[n++] = ROCSYS_PY_AT(k);
            break;
        }
    return n;
}

/* A walk being turned into words. */
struct walk_state {
    struct perf_python *pp;
    const struct py_proc *p;
    struct model *m;
    const struct pyf_event *e;
    const uint64_t *sps;
    uint32_t nnative;
    uint64_t *out, now;
    uint32_t room, n, group;
    int checking; /* 3.11, 3.12: the first entry frame's link is still to be checked */
};

#define NEXT_UNKNOWN 1 /* (not an address: inside a run of equal frames) */

/* Frame f (its next frame at next, or NEXT_UNKNOWN) into the words: 0, or -1 when the chain
 * cannot be trusted from it on. */
static int frame_words(struct walk_state *w, const struct pyf_frame *f, uint64_t next)
{
    const struct py_layout *l = &w->p->l;
    uint64_t addr = PYF_FRAME_ADDR(f->addr), code = f->code & l->code_mask;
    const struct py_code_seen *c = NULL;
    int entry = 0, owner = 0;
    int64_t lasti;

    if (!ptr_ok(addr) || next == addr)
        return -1;
    if (l->lasti_kind != PY_LASTI_POINTER) {
        if (w->p->frame_type && f->flags != w->p->frame_type)
            return -1;
        lasti = (int32_t)(uint32_t)f->lasti;
        lasti = lasti < 0 ? -1 : l->lasti_kind == PY_LASTI_BYTES ? lasti / 2 : lasti;
        entry = 1;
        if (!(c = code_of(w->pp, w->p, w->m, code, w->now)))
            return -1;
    } else {
        owner = (int)((f->flags >> (8 * (uint32_t)(l->fr_owner - l->fr_flags))) & 0xff);
        if (l->fr_is_entry >= 0)
            entry = (int)((f->flags >> (8 * (uint32_t)(l->fr_is_entry - l->fr_flags))) & 0xff) != 0;
        if (owner >= PY_OWNER_SHIM) {
            if (w->checking && (w->checking = 0, next != NEXT_UNKNOWN && next != w->e->expected))
                return -1;
            if (!next && w->group == 0 && w->n > 0)
                return 0; /* 3.15: the thread's base frame */
            w->n = py_end_group(w->out, w->n, w->room, w->group > 0);
            w->n = put_at(w->out, w->n, w->room, addr, w->sps, w->nnative);
            w->group = 0;
            return 0;
        }
        if (!(c = code_of(w->pp, w->p, w->m, code, w->now)))
            return -1;
        lasti = ((int64_t)f->lasti - (int64_t)(code + (uint32_t)l->co_adaptive)) / 2;
        if (lasti < -1 || lasti >= (int64_t)c->size)
            return -1;
        if (entry && w->checking &&
            (w->checking = 0, next != NEXT_UNKNOWN && next != w->e->expected))
            return -1;
        if (owner != PY_OWNER_GENERATOR && lasti < c->first_trace) {
            if (entry) { /* an incomplete frame (being set up): hidden, as CPython does */
                w->n = py_end_group(w->out, w->n, w->room, w->group > 0);
                w->group = 0;
            }
            return 0;
        }
    }
    w->n = py_put_frame(
        w->out, w->n, w->room,
        ROCSYS_PY_FRAME(c->id, lasti < 0 ? ROCSYS_PY_LASTI_UNKNOWN : (uint32_t)lasti, entry));
    w->group = entry ? 0 : w->group + 1;
    return 0;
}

/* Walk e of process p into out: the number of words; *dropped when the chain could not be
 * read safely past some frame. A frame the walker kept once for a run of equal frames (a
 * recursion) is taken as many times (the words run-length code it); the links inside the run
 * were checked by the walker (none points to its own frame), the entry frame's link is not
 * checked where it is inside a run (its next frame's address is not known). */
static uint32_t walk_words(struct perf_python *pp, const struct py_proc *p, struct model *m,
                           const struct pyf_event *e, const uint64_t *sps, uint32_t nnative,
                           uint64_t *out, uint32_t room, int *dropped)
{
    struct walk_state w = {.pp = pp,
                           .p = p,
                           .m = m,
                           .e = e,
                           .sps = sps,
                           .nnative = nnative,
                           .out = out,
                           .now = now_ns(),
                           .room = room,
                           .checking = p->l.cframe_current >= 0 && e->n > 0};

    *dropped = (e->status & (PYF_UNREADABLE | PYF_BAD_FIRST)) != 0;
    for (uint32_t i = 0; i < e->n && i < PYF_MAX_FRAMES; i++) {
        const struct pyf_frame *f = &e->f[i];
        uint32_t more = PYF_FRAME_MORE(f->addr);
        uint64_t next = i + 1 < e->n ? PYF_FRAME_ADDR(e->f[i + 1].addr) : e->last_next;
        for (uint32_t rep = 0; rep <= more; rep++) {
            if (w.n + 3 >= room)
                goto full;
            if (frame_words(&w, f, rep < more ? NEXT_UNKNOWN : next) != 0)
                goto torn;
        }
    }
full:
    if (!*dropped && !(e->status & PYF_CUT))
        return w.n;
torn:
    *dropped = 1;
    if (w.n < room)
        out[w.n++] = ROCSYS_PY_FRAME(ROCSYS_PY_CODE_UNREADABLE, ROCSYS_PY_LASTI_UNKNOWN, 1);
    return w.n;
}

/* ---- pairing walks with samples ---- */

static struct py_proc *proc_of(struct perf_python *pp, uint32_t pid)
{
    for (size_t i = 0; i < pp->nprocs; i++)
        if (pp->procs[i].pid == pid)
            return &pp->procs[i];
    return NULL;
}

int perf_python_covers(const struct perf_python *pp, uint32_t pid)
{
    for (size_t i = 0; pp && i < pp->nprocs; i++)
        if (pp->procs[i].pid == pid)
            return 1;
    return 0;
}

static struct tid_queue *queue_of(struct perf_python *pp, uint32_t tid, int create)
{
    uint32_t *slot = hashmap_slot(&pp->queue_map, hashmap_mix(tid), create);

    if (!slot)
        return NULL;
    if (!*slot) {
        xgrow(&pp->queues, &pp->queuecap, pp->nqueues + 1, sizeof(*pp->queues));
        memset(&pp->queues[pp->nqueues], 0, sizeof(*pp->queues));
        pp->queues[pp->nqueues].tid = tid;
        *slot = (uint32_t)++pp->nqueues;
    }
    return &pp->queues[*slot - 1];
}

static void queue_pop(struct tid_queue *q)
{
    free(q->ev[q->head]);
    q->ev[q->head] = NULL;
    q->head = (q->head + 1) & (q->cap - 1);
    q->count--;
}

#ifdef ROCSYS_HAVE_BPF
/* Room for one more walk in q: the ring doubled when full (the oldest dropped at QUEUE_MAX). */
static void queue_room(struct perf_python *pp, struct tid_queue *q)
{
    if (q->count < q->cap)
        return;
    if (q->cap >= QUEUE_MAX) {
        queue_pop(q);
        pp->orphan++;
        return;
    }
    uint32_t cap = q->cap ? q->cap * 2 : 256;
    struct pyf_event **ev = xcalloc(cap, sizeof(*ev));
    for (uint32_t i = 0; i < q->count; i++)
        ev[i] = q->ev[(q->head + i) & (q->cap - 1)];
    free(q->ev);
    q->ev = ev;
    q->head = 0;
    q->cap = cap;
}

/* A walk from the walker's rings: to its thread's queue. */
static int on_walk(void *ctx, void *data, size_t len)
{
    struct perf_python *pp = ctx;
    const struct pyf_event *e = data;
    struct tid_queue *q;

    if (len < PYF_EVENT_HEAD || e->n > PYF_MAX_FRAMES ||
        len < PYF_EVENT_HEAD + e->n * sizeof(struct pyf_frame))
        return 0;
    q = queue_of(pp, e->tid, 1);
    queue_room(pp, q);
    struct pyf_event *c = xmalloc(len);
    memcpy(c, e, len);
    /* in time order: a thread that moved to another CPU has walks in two rings */
    uint32_t at = q->count++;
    while (at > 0 && q->ev[(q->head + at - 1) & (q->cap - 1)]->time_ns > c->time_ns) {
        q->ev[(q->head + at) & (q->cap - 1)] = q->ev[(q->head + at - 1) & (q->cap - 1)];
        at--;
    }
    q->ev[(q->head + at) & (q->cap - 1)] = c;
    return 0;
}

/* The walks written since the last call, from every CPU's ring to their threads' queues (a
 * walk found overwritten once copied is counted and left, with the rest of that ring). */
static void walks_consume(struct perf_python *pp)
{
    static _Alignas(8) unsigned char buf[sizeof(struct pyf_event)];
    /* the most the walker leaves unread (it writes a walk only where it ends before the tail
     * published, which is never ahead of ours, comes round): more means the walker erred */
    const uint64_t keep = pp->ring_bytes;

    for (size_t c = 0; c < pp->nrings; c++) {
        struct pyf_ring *r = (struct pyf_ring *)(pp->rings + c * pp->ring_stride);
        const unsigned char *data = (const unsigned char *)(r + 1);
        uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), *tail = &pp->tails[c];
        if (head - *tail > keep) { /* lapped: where the walks start is lost */
            pp->lost++;
            *tail = head;
        }
        while (*tail < head) {
            const unsigned char *at = data + (*tail & (pp->ring_bytes - 8));
            const struct pyf_event *e = (const struct pyf_event *)at;
            uint32_t n = e->n;
            size_t len = PYF_EVENT_HEAD + (n <= PYF_MAX_FRAMES ? n : 0) * sizeof(struct pyf_frame);
            memcpy(buf, at, len);
            __atomic_thread_fence(__ATOMIC_ACQUIRE); /* (the copy before the head read again) */
            if (n > PYF_MAX_FRAMES || *tail + len > head ||
                __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - *tail > keep) {
                pp->lost++; /* overwritten while read */
                *tail = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
                break;
            }
            *tail += len;
            on_walk(pp, buf, len);
        }
        /* the room read, for the walker: every 16th of the ring (its line then stays shared) */
        if (*tail - r->tail >= pp->ring_bytes / 16)
            __atomic_store_n(&r->tail, *tail, __ATOMIC_RELEASE);
    }
}

/* Walks the walker dropped for want of room, all CPUs. */
static uint64_t walks_dropped(const struct perf_python *pp)
{
    uint64_t n = 0;
    for (size_t c = 0; pp->rings && c < pp->nrings; c++)
        n += __atomic_load_n(&((const struct pyf_ring *)(pp->rings + c * pp->ring_stride))->dropped,
                             __ATOMIC_RELAXED);
    return n;
}

static char bpf_error[200];

/* libbpf's messages: the last warning kept for the reason line, nothing printed. */
static int bpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
    if (level == LIBBPF_WARN) {
        vsnprintf(bpf_error, sizeof(bpf_error), fmt, ap);
        bpf_error[strcspn(bpf_error, "\n")] = '\0';
    }
    return 0;
}
#endif

struct perf_python *perf_python_new(uint64_t period_ns, char *why, size_t cap)
{
#ifdef ROCSYS_HAVE_BPF
    struct perf_python *pp = xcalloc(1, sizeof(*pp));
    struct bpf_program *prog;
    struct bpf_map *walks, *rodata;
    int e, ncpu = libbpf_num_possible_cpus();

    libbpf_set_print(bpf_quiet);
    pp->stats_fd = -1;
    pp->next_id = CODE_ID_FIRST;
    /* the walk follows its sample within microseconds; the thread's next sample comes a
     * period later at the earliest */
    pp->window_ns = period_ns / 2 < 500000 ? period_ns / 2 : 500000;
    pp->period_ns = period_ns;
    pp->obj = bpf_object__open_mem(pyframes_bpf_obj, sizeof(pyframes_bpf_obj), NULL);
    /* each CPU's ring: PYF_RING_BUDGET over the CPUs, a power of 2 within the bounds */
    pp->ring_bytes = PYF_RING_MAX;
    while (ncpu > 0 && pp->ring_bytes > PYF_RING_MIN &&
           (uint64_t)pp->ring_bytes * (uint64_t)ncpu > PYF_RING_BUDGET)
        pp->ring_bytes /= 2;
    if (!pp->obj || ncpu <= 0 || !(walks = bpf_object__find_map_by_name(pp->obj, "walks")) ||
        !(rodata = bpf_object__find_map_by_name(pp->obj, ".rodata.walks")) ||
        bpf_map__set_initial_value(rodata, &pp->ring_bytes, sizeof(pp->ring_bytes)) != 0 ||
        bpf_map__set_value_size(walks, (uint32_t)PYF_RING_VALUE(pp->ring_bytes)) != 0 ||
        bpf_map__set_max_entries(walks, (uint32_t)ncpu) != 0 || (e = bpf_object__load(pp->obj))) {
        e = errno;
        snprintf(why, cap, "%s",
                 e == EPERM || e == EACCES
                     ? "Python frames from outside need CAP_BPF and CAP_PERFMON (root)"
                 : bpf_error[0] ? bpf_error
                                : "the BPF frame walker could not be loaded");
        perf_python_free(pp);
        errno = e;
        return NULL;
    }
    prog = bpf_object__find_program_by_name(pp->obj, "pyframes");
    pp->prog_fd = prog ? bpf_program__fd(prog) : -1;
    pp->procs_fd = bpf_object__find_map_fd_by_name(pp->obj, "procs");
    pp->nrings = (size_t)ncpu;
    pp->ring_stride = (PYF_RING_VALUE(pp->ring_bytes) + 7) & ~(size_t)7; /* the map's element */
    pp->rings_bytes = pp->nrings * pp->ring_stride;
    pp->rings =
        mmap(NULL, pp->rings_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(walks), 0);
    if (pp->rings == MAP_FAILED)
        pp->rings = NULL;
    pp->tails = xcalloc(pp->nrings, sizeof(*pp->tails));
    if (getenv("ROCSYS_BPF_STATS"))
        pp->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (pp->prog_fd < 0 || pp->procs_fd < 0 || !pp->rings) {
        snprintf(why, cap, "the BPF frame walker could not be set up");
        perf_python_free(pp);
        return NULL;
    }
    return pp;
#else
    (void)period_ns;
    snprintf(why, cap,
             "this rocsys-top was built without BPF (libbpf, clang), which Python "
             "frames from outside need");
    return NULL;
#endif
}

int perf_python_prog_fd(const struct perf_python *pp)
{
    return pp ? pp->prog_fd : -1;
}

#ifdef ROCSYS_HAVE_BPF
/* The walker's description of p's layout into *c: 0, or -1 if the walker cannot read it. */
static int walker_proc(const struct perf_python *pp, const struct py_proc *p, struct pyf_proc *c)
{
    const struct py_layout *l = &p->l;

    memset(c, 0, sizeof(*c));
    c->pid = p->pid;
    c->runtime = p->runtime;
    c->rt_interp_head = (uint32_t)l->rt_interp_head;
    c->interp_next = l->interp_next;
    c->interp_threads = l->interp_threads;
    c->ts_next = l->ts_next;
    c->ts_thread_id = l->ts_thread_id;
    c->ts_frame = l->ts_frame;
    c->ts_datastack = l->ts_datastack;
    c->cframe_current = l->cframe_current;
    c->cframe_previous = l->cframe_previous;
    c->fr_back = l->fr_back;
    c->fr_code = l->fr_code;
    c->fr_lasti = l->fr_lasti;
    c->fr_flags = l->fr_flags >= 0 ? (uint32_t)l->fr_flags : PY_OB_TYPE;
    uint32_t top = c->fr_back, lo = c->ts_thread_id < c->ts_frame ? c->ts_thread_id : c->ts_frame,
             hi = c->ts_thread_id > c->ts_frame ? c->ts_thread_id : c->ts_frame;
    top = c->fr_code > top ? c->fr_code : top;
    top = c->fr_lasti > top ? c->fr_lasti : top;
    top = c->fr_flags > top ? c->fr_flags : top;
    c->frame_read = top + 8;
    if (l->ts_datastack >= 0) { /* datastack_chunk and datastack_top */
        lo = (uint32_t)l->ts_datastack < lo ? (uint32_t)l->ts_datastack : lo;
        hi = (uint32_t)l->ts_datastack + 8 > hi ? (uint32_t)l->ts_datastack + 8 : hi;
    }
    if (l->cframe_current >= 0 && l->ts_root_cframe) /* an outermost eval's previous cframe */
        hi = l->ts_root_cframe + (uint32_t)l->cframe_current > hi
                 ? l->ts_root_cframe + (uint32_t)l->cframe_current
                 : hi;
    c->ts_read_lo = lo;
    c->ts_read_len = hi + 8 - lo;
    if (getenv("ROCSYS_BPF_STATS")) /* 1 = all; 2, 3, 4: stop earlier (python_outside.sh) */
        c->stop = (uint32_t)atoi(getenv("ROCSYS_BPF_STATS")) - 1;
    /* ROCSYS_BPF_TIMED=1: a pause is a thread off its CPU for half a period or more */
    if (getenv("ROCSYS_BPF_TIMED") && atoi(getenv("ROCSYS_BPF_TIMED")) > 0)
        c->timed_gap_ns =
            (uint32_t)(pp->period_ns * 3 / 2 < UINT32_MAX ? pp->period_ns * 3 / 2 : UINT32_MAX);
    return l->rt_interp_head < 0 || c->frame_read > PYF_FRAME_READ ||
                   c->ts_read_len > PYF_TS_READ || ((lo | hi) & 7)
               ? -1
               : 0;
}
#endif

int perf_python_add(struct perf_python *pp, struct model *m, uint32_t pid, char *why, size_t cap)
{
    struct py_proc p, *old;
    size_t slot;

    if (perf_python_find(pid, &p) != 0) {
        snprintf(why, cap, "process %u runs no CPython", pid);
        return -1;
    }
    if (perf_python_layout(&p, why, cap) != 0) {
        model_python_info(m, ROCSYS_PY_UNSUPPORTED, p.version_hex);
        return -1;
    }
    old = proc_of(pp, pid); /* an earlier process of this pid: gone */
    slot = old ? (size_t)(old - pp->procs) : pp->nprocs;
#ifdef ROCSYS_HAVE_BPF
    struct pyf_proc c;
    uint32_t key = (uint32_t)slot;
    int bad = walker_proc(pp, &p, &c) != 0;
    if (bad || slot >= PYF_MAX_PROCS || bpf_map_update_elem(pp->procs_fd, &key, &c, BPF_ANY)) {
        if (bad)
            snprintf(why, cap, "Python %u.%u: its layout is not known to the BPF walker",
                     p.version_hex >> 24, (p.version_hex >> 16) & 0xff);
        else
            snprintf(why, cap, "the BPF frame walker's table is full");
        if (old) { /* the slot stays taken, by no process */
            memset(&c, 0, sizeof(c));
            c.pid = PYF_PID_NONE;
            bpf_map_update_elem(pp->procs_fd, &key, &c, BPF_ANY);
            old->pid = 0;
        }
        return -1;
    }
#endif
    if (!old) {
        xgrow(&pp->procs, &pp->proccap, pp->nprocs + 1, sizeof(*pp->procs));
        pp->nprocs++;
    }
    pp->procs[slot] = p;
    model_python_info(m, ROCSYS_PY_OK, p.version_hex);
    return 0;
}

uint32_t perf_python_frames(struct perf_python *pp, struct model *m,
                            const struct perf_python_sample *s, const uint64_t *sps,
                            uint32_t nnative, uint64_t *out, uint32_t room)
{
    const struct py_proc *p;
    struct tid_queue *q;
    int dropped = 0;

    uint64_t t0 = pp && pp->stats_fd >= 0 ? now_ns() : 0;
    uint32_t n = 0;

    if (!pp || !(p = proc_of(pp, s->pid)))
        return 0;
#ifdef ROCSYS_HAVE_BPF
    walks_consume(pp);
#endif
    q = queue_of(pp, s->tid, 0);
    /* walks older than this sample belong to samples already decoded (or lost) */
    while (q && q->count && q->ev[q->head]->time_ns < s->time_ns) {
        queue_pop(q);
        pp->orphan++;
    }
    if (!q || !q->count || q->ev[q->head]->time_ns - s->time_ns > pp->window_ns ||
        q->ev[q->head]->ip != s->ip || q->ev[q->head]->sp != s->sp) {
        pp->missed++;
        return 0;
    }
    const struct pyf_event *e = q->ev[q->head];
    pp->paired++;
    if (!(e->status & PYF_NO_TSTATE)) {
        n = walk_words(pp, p, m, e, sps, nnative, out, room, &dropped);
        if (dropped)
            model_session(m)->python_unreadable++;
    }
    queue_pop(q);
    if (t0) {
        pp->front_ns += now_ns() - t0;
        pp->front_samples++;
    }
    return n;
}

#ifdef ROCSYS_HAVE_BPF
/* The bin of the q-th quantile of a timing class, in ns (the bin's middle). */
static double timing_quantile(const unsigned long long *bins, unsigned long long count, double q)
{
    unsigned long long seen = 0, want = (unsigned long long)(q * (double)count);
    for (int i = 0; i < PYF_TIME_BINS; i++)
        if ((seen += bins[i]) > want)
            return (i + 0.5) * PYF_TIME_BIN_NS;
    return PYF_TIME_BINS * PYF_TIME_BIN_NS;
}

/* ROCSYS_BPF_STATS=1: the walker's own times per walk (bench/python_outside.sh). */
static void timing_print(struct perf_python *pp)
{
    static struct pyf_timing t;
    uint32_t zero = 0;
    int fd = bpf_object__find_map_fd_by_name(pp->obj, "timing");
    const char *name[2] = {"running", "after a pause"};

    if (fd < 0 || bpf_map_lookup_elem(fd, &zero, &t) != 0)
        return;
    for (int c = 0; c < 2; c++)
        if (t.count[c])
            fprintf(stderr,
                    "rocsys-top: bpf walker timed, %s: %llu walks, median %.0f ns, p90 %.0f ns, "
                    "mean %.0f ns\n",
                    name[c], t.count[c], timing_quantile(t.bins[c], t.count[c], 0.5),
                    timing_quantile(t.bins[c], t.count[c], 0.9),
                    (double)t.sum_ns[c] / (double)t.count[c]);
}
#endif

void perf_python_free(struct perf_python *pp)
{
    if (!pp)
        return;
#ifdef ROCSYS_HAVE_BPF
    if (pp->stats_fd >= 0) { /* for bench/python_outside.sh */
        struct bpf_prog_info info;
        uint32_t len = sizeof(info);
        memset(&info, 0, sizeof(info));
        if (bpf_obj_get_info_by_fd(pp->prog_fd, &info, &len) == 0 && info.run_cnt)
            fprintf(stderr,
                    "rocsys-top: bpf walker: %llu walks, %.0f ns each in the kernel; front end "
                    "%.0f ns per sample; paired %llu, walks unpaired %llu, samples without "
                    "walk %llu, walks dropped (ring full) %llu, overwritten %llu\n",
                    (unsigned long long)info.run_cnt,
                    (double)info.run_time_ns / (double)info.run_cnt,
                    pp->front_samples ? (double)pp->front_ns / (double)pp->front_samples : 0.0,
                    (unsigned long long)pp->paired, (unsigned long long)pp->orphan,
                    (unsigned long long)pp->missed, (unsigned long long)walks_dropped(pp),
                    (unsigned long long)pp->lost);
        close(pp->stats_fd);
        timing_print(pp);
    }
    if (pp->rings)
        munmap((void *)pp->rings, pp->rings_bytes);
    free(pp->tails);
    bpf_object__close(pp->obj);
#endif
    for (size_t i = 0; i < pp->nqueues; i++) {
        while (pp->queues[i].count)
            queue_pop(&pp->queues[i]);
        free(pp->queues[i].ev);
    }
    free(pp->queues);
    hashmap_free(&pp->queue_map);
    free(pp->codes);
    hashmap_free(&pp->code_map);
    free(pp->procs);
    free(pp);
}
