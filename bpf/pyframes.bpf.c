/* The Python frame walker run by the kernel at each perf sample of an attached CPython process
 * (a BPF_PROG_TYPE_PERF_EVENT program set on the perf engine's events with
 * PERF_EVENT_IOC_SET_BPF): finds the sampled thread's PyThreadState in the interpreters' thread
 * lists (by pthread_self, which is the thread's fs base), walks its frame chain innermost first
 * and writes the frames as read (address, code object, instruction, flags) to a ring buffer,
 * with the thread's user ip and sp and the time, for the front end to pair with the sample
 * (session/perf_python.c), which validates them and resolves the code objects. Reads of the
 * target's memory that fail end the walk; nothing is written to the target. Facts:
 * ../shared/notes/python-frames.md (layouts: collector/python_layout.c). */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "pyframes.h"

typedef unsigned long long u64;
typedef unsigned int u32;

/* The kernel's types, only the fields read (relocated by CO-RE against the running kernel). */
struct thread_struct {
    unsigned long fsbase;
} __attribute__((preserve_access_index));
struct task_struct {
    struct thread_struct thread;
} __attribute__((preserve_access_index));
struct pt_regs___k {
    unsigned long ip, sp;
} __attribute__((preserve_access_index));

char LICENSE[] SEC("license") = "GPL";

struct {
    __uint(type, BPF_MAP_TYPE_HASH);
    __uint(max_entries, 64);
    __type(key, u32);
    __type(value, struct pyf_proc);
} procs SEC(".maps");

/* A thread's state as found last (validated at each use), or none found at checked_ns. */
struct pyf_seen {
    u64 tstate, checked_ns;
};

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 16384);
    __type(key, u32);
    __type(value, struct pyf_seen);
} tstates SEC(".maps");

struct pyf_scratch {
    struct pyf_event e;
    unsigned char buf[PYF_FRAME_READ];
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, u32);
    __type(value, struct pyf_scratch);
} scratch SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_RINGBUF);
    __uint(max_entries, 8 << 20); /* set by the front end */
} events SEC(".maps");

/* 8 bytes of the target at addr into *out: 0, or non-zero when it cannot be read. */
static __always_inline long read8(u64 addr, u64 *out)
{
    return bpf_probe_read_user(out, 8, (const void *)addr);
}

/* The thread state whose thread_id is self in the lists of pr's interpreters, or 0. */
static __always_inline u64 find_tstate(const struct pyf_proc *pr, u64 self)
{
    u64 interp = 0, ts, v;

    if (read8(pr->runtime + pr->rt_interp_head, &interp))
        return 0;
    for (int i = 0; i < PYF_MAX_INTERPS && interp; i++) {
        if (read8(interp + pr->interp_threads, &ts))
            return 0;
        for (int j = 0; j < PYF_MAX_THREADS && ts; j++) {
            if (read8(ts + pr->ts_thread_id, &v))
                return 0;
            if (v == self)
                return ts;
            if (read8(ts + pr->ts_next, &ts))
                return 0;
        }
        if (read8(interp + pr->interp_next, &interp))
            return 0;
    }
    return 0;
}

/* The word at offset off of a frame read into buf. */
static __always_inline u64 word_at(const unsigned char *buf, u32 off)
{
    return *(const u64 *)(buf + (off & (PYF_FRAME_READ - 8)));
}

SEC("perf_event")
int pyframes(struct bpf_perf_event_data *ctx)
{
    u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), self, ts = 0, frame = 0, v;
    u32 pid = (u32)(id >> 32), tid = (u32)id, zero = 0, i;
    struct pyf_proc *pr = bpf_map_lookup_elem(&procs, &pid);
    struct pyf_scratch *sc;
    struct pyf_event *e;
    struct pyf_seen *seen, fresh;
    struct task_struct *task;
    struct pt_regs___k *regs;

    if (!pr)
        return 1; /* 1: the sample is written (0 would drop it) */
    sc = bpf_map_lookup_elem(&scratch, &zero);
    if (!sc)
        return 1;
    e = &sc->e;
    e->pid = pid;
    e->tid = tid;
    e->time_ns = now;
    e->n = 0;
    e->status = 0;
    e->expected = 0;
    e->last_next = 0;
    task = (struct task_struct *)bpf_get_current_task_btf();
    regs = (struct pt_regs___k *)bpf_task_pt_regs((void *)task);
    e->ip = BPF_CORE_READ(regs, ip);
    e->sp = BPF_CORE_READ(regs, sp);
    self = BPF_CORE_READ(task, thread.fsbase); /* = pthread_self() (x86-64 glibc) */

    if (pr->stop == 1)
        return 1;
    seen = bpf_map_lookup_elem(&tstates, &tid);
    if (seen && seen->tstate && !read8(seen->tstate + pr->ts_thread_id, &v) && v == self)
        ts = seen->tstate;
    else if (!seen || seen->tstate || now - seen->checked_ns > 100000000ull) {
        ts = find_tstate(pr, self); /* a new thread, or one that had none 100 ms ago */
        fresh.tstate = ts;
        fresh.checked_ns = now;
        bpf_map_update_elem(&tstates, &tid, &fresh, BPF_ANY);
    }
    e->tstate = ts;
    if (!ts) {
        e->status = PYF_NO_TSTATE;
        goto out;
    }
    if (pr->stop == 2)
        return 1;
    if (read8(ts + pr->ts_frame, &frame)) {
        e->status = PYF_BAD_FIRST;
        goto out;
    }
    if (pr->cframe_current >= 0 && frame) { /* 3.11, 3.12: through the _PyCFrame */
        u64 cf = frame, prev = 0;
        if (read8(cf + (u32)pr->cframe_current, &frame) ||
            read8(cf + (u32)pr->cframe_previous, &prev) ||
            (prev && read8(prev + (u32)pr->cframe_current, &e->expected))) {
            e->status = PYF_BAD_FIRST;
            goto out;
        }
    }
    u32 size = pr->frame_read;
    if (size > PYF_FRAME_READ)
        size = PYF_FRAME_READ;
    for (i = 0; i < PYF_MAX_FRAMES && frame; i++) {
        if (bpf_probe_read_user(sc->buf, size, (const void *)frame)) {
            e->status |= PYF_UNREADABLE;
            break;
        }
        e->f[i].addr = frame;
        e->f[i].code = word_at(sc->buf, pr->fr_code);
        e->f[i].lasti = word_at(sc->buf, pr->fr_lasti);
        e->f[i].flags = word_at(sc->buf, pr->fr_flags);
        frame = word_at(sc->buf, pr->fr_back);
        e->n = i + 1;
    }
    if (frame && i >= PYF_MAX_FRAMES)
        e->status |= PYF_CUT;
    e->last_next = frame;
out:
    if (pr->stop == 3)
        return 1;
    u64 len = PYF_EVENT_HEAD + (u64)(e->n & 0xff) * sizeof(struct pyf_frame);
    if (len > sizeof(*e))
        len = sizeof(*e);
    bpf_ringbuf_output(&events, e, len, BPF_RB_NO_WAKEUP); /* read at each decode: no poll */
    return 1;
}
