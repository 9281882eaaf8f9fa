/* The Python frame walker run by the kernel at each perf sample of a CPython process (a
 * BPF_PROG_TYPE_PERF_EVENT program set on the perf engine's events with PERF_EVENT_IOC_SET_BPF):
 * finds the sampled thread's PyThreadState in the interpreters' thread lists (by pthread_self,
 * which is the thread's fs base), walks its frame chain innermost first and writes the frames as
 * read (address, code object, instruction, flags) straight into its CPU's walk ring (pyframes.h,
 * struct pyf_ring), with the thread's user ip and sp and the time, for the front end to pair
 * with the sample (session/perf_python.c), which
 * validates them and resolves the code objects. Reads of the target's memory that fail end the
 * walk; nothing is written to the target. Facts: ../shared/notes/python-frames.md (layouts:
 * collector/python_layout.c).
 *
 * Cost: each bpf_probe_read_user costs about as much as copying a kilobyte (docs/performance.md,
 * "Python frames from outside"), so the walk reads as few times as it can: the thread state's
 * fields in one read, and from 3.11, where frames live one after the other in the thread's
 * data-stack chunks, the used part of a chunk below a frame in one read (PYF_WINDOW bytes at
 * most), whose frames are then taken from the copy; 3.11 and 3.12's _PyCFrame with the C stack
 * above it in one read (3.12's shim frame is beside it), the previous cframe's frame of an
 * outermost eval from the thread state's copy (root_cframe); only frames elsewhere (generators'
 * frames, 3.13+'s shim frames, 3.8-3.10's frame objects, save where a recursion's frames lie one
 * below the other: then their page, see heap_window_read) are read one by one. Each call and
 * return in the kernel also costs (a return thunk on this VM's CPU), so the frames in the window
 * are taken 8 per bpf_loop step. The walk is written in place in a per-CPU ring of our own
 * (an mmapable array), not copied into a BPF ring buffer: that one's reservation (a lock, the
 * consumer's position, its pages) cost 250-350 ns a sample here, 0.9-1.4 us after a pause. The
 * loops are bpf_loops whose state lives in the scratch map, not on the stack: the verifier checks
 * each step in a few passes (3.8k instructions processed instead of 55.6k: a launched Python
 * program waits less for the load). Every byte is read at the sample's instant, as before: the
 * copies are the thread's memory of that instant. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "pyframes.h"

typedef unsigned long long u64;
typedef unsigned int u32;

/* The kernel's types, only the fields read (relocated by CO-RE against the running kernel and
 * read directly: the pointers come from BTF-typed helpers). */
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

/* The processes walked, in the first slots (an array, not a hash: its lookups are inlined). */
struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, PYF_MAX_PROCS);
    __type(key, u32);
    __type(value, struct pyf_proc);
} procs SEC(".maps");

/* A thread's state as found last (validated at each use: a slot may hold another thread's, or
 * be written by two CPUs at once), or none found at checked_ns. Slot: the thread id's low
 * bits (a global array: one memory access, where a hash lookup costs several). */
#define SEEN_SLOTS 4096
struct pyf_seen {
    u32 tid, pad;
    u64 tstate, checked_ns;
    u64 last_ns; /* ROCSYS_BPF_TIMED: the thread's last sample */
};
struct pyf_seen seen_slots[SEEN_SLOTS];

/* The slot of process pid in the table, or NULL. */
static __always_inline struct pyf_proc *proc_of(u32 pid)
{
    for (u32 i = 0; i < PYF_MAX_PROCS; i++) {
        u32 k = i;
        struct pyf_proc *p = bpf_map_lookup_elem(&procs, &k);
        if (!p || !p->pid)
            return 0;
        if (p->pid == pid)
            return p;
    }
    return 0;
}

#define CHUNK_MIN 16384 /* DATA_STACK_CHUNK_SIZE: no data-stack chunk is smaller (3.11-3.15) */

/* Where a walk is (in the scratch map, not on the stack: the verifier does not follow the
 * values from step to step, so it checks bpf_loop's step in a few passes). */
struct walk_pos {
    u64 frame;      /* the next frame to read */
    u64 wlo, whi;   /* the window held in sc->win: the target's [wlo, whi) */
    u64 slo, shi;   /* where a window may be read: the used part of the current chunk */
    u64 prev_chunk; /* the chunk before it (its header's first word), once read */
    u64 need;       /* bytes of a frame */
    u64 clo, chi;   /* 3.11, 3.12: the C stack held in sc->cst, around the _PyCFrame */
    u64 last;       /* the frame walked last */
    u64 walked;     /* frames walked (PYF_MAX_WALK at most) */
};

/* Where find_tstate is in the interpreters' thread lists. */
struct find_pos {
    u64 self, interp, ts, found;
    u32 ninterp, nthreads;
};

/* Per CPU: the event being written and the copies of the target's memory it is made from. */
struct pyf_scratch {
    struct walk_pos pos;
    struct find_pos find;
    unsigned char ts[PYF_TS_READ];                       /* the thread state's span */
    unsigned char buf[PYF_FRAME_READ];                   /* one frame read alone */
    unsigned char cst[PYF_CSTACK_READ + PYF_FRAME_READ]; /* the C stack from the _PyCFrame */
    unsigned char win[PYF_WINDOW + PYF_FRAME_READ];      /* a data-stack window (and slack) */
};

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, u32);
    __type(value, struct pyf_scratch);
} scratch SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(max_entries, 1);
    __type(key, u32);
    __type(value, struct pyf_timing);
} timing SEC(".maps");

/* The size of each CPU's ring (a power of 2), set by the front end before the load (a constant
 * to the verifier: the ring's offsets are checked against it). */
const volatile u32 ring_bytes SEC(".rodata.walks") = PYF_RING_MIN;

struct {
    __uint(type, BPF_MAP_TYPE_ARRAY);
    __uint(map_flags, BPF_F_MMAPABLE);
    __uint(max_entries, 1); /* set by the front end: the possible CPUs */
    __uint(key_size, sizeof(u32));
    __uint(value_size, PYF_RING_VALUE(PYF_RING_MIN)); /* set by the front end: ring_bytes' */
} walks SEC(".maps");

/* A walk in progress (bpf_loop's context: the rest is in sc). */
struct walk {
    struct pyf_scratch *sc;
    const struct pyf_proc *pr;
    struct pyf_event *e; /* in this CPU's ring, at its head */
};

/* 8 bytes of the target at addr into *out: 0, or non-zero when it cannot be read. */
static __always_inline long read8(u64 addr, u64 *out)
{
    return bpf_probe_read_user(out, 8, (const void *)addr);
}

/* bpf_loop's step of find_tstate: the next thread state of the lists (or the next interpreter's
 * list); 0 to go on, 1 to stop (found, or the end, or a read failed). */
static long find_step(u32 i, void *ctx)
{
    struct walk *w = ctx;
    const struct pyf_proc *pr = w->pr;
    struct find_pos *f = &w->sc->find;
    u64 v;

    (void)i;
    if (!f->ts) { /* the next interpreter's list (f->interp: the one to look at) */
        if (!f->interp || f->ninterp++ >= PYF_MAX_INTERPS ||
            read8(f->interp + pr->interp_threads, &f->ts))
            return 1;
        f->nthreads = 0;
        if (!f->ts && read8(f->interp + pr->interp_next, &f->interp))
            return 1;
        return 0;
    }
    if (read8(f->ts + pr->ts_thread_id, &v))
        return 1;
    if (v == f->self) {
        f->found = f->ts;
        return 1;
    }
    if (read8(f->ts + pr->ts_next, &f->ts))
        return 1;
    if ((!f->ts || ++f->nthreads >= PYF_MAX_THREADS) &&
        read8(f->interp + pr->interp_next, &f->interp))
        return 1;
    if (f->nthreads >= PYF_MAX_THREADS)
        f->ts = 0;
    return 0;
}

/* The thread state whose thread_id is self in the lists of the interpreters of w's process,
 * or 0 (a bpf_loop: the verifier checks its step once, not every turn of nested loops). */
static __always_inline u64 find_tstate(struct walk *w, u64 self)
{
    struct find_pos *f = &w->sc->find;

    *f = (struct find_pos){.self = self};
    if (read8(w->pr->runtime + w->pr->rt_interp_head, &f->interp))
        return 0;
    bpf_loop(PYF_MAX_INTERPS * (PYF_MAX_THREADS + 1), find_step, w, 0);
    return f->found;
}

/* The word at offset off of a frame's bytes p. */
static __always_inline u64 word_at(const unsigned char *p, u32 off)
{
    return *(const u64 *)(p + (off & (PYF_FRAME_READ - 8)));
}

/* The word at offset off of the thread state (read from ts_read_lo into sc->ts). */
static __always_inline u64 ts_word(const struct pyf_scratch *sc, const struct pyf_proc *pr, u32 off)
{
    return *(const u64 *)(sc->ts + ((off - pr->ts_read_lo) & (PYF_TS_READ - 8)));
}

/* The word at offset off of the C stack's copy (sc->cst). */
static __always_inline u64 cst_word(const struct pyf_scratch *sc, u64 off)
{
    return *(const u64 *)(sc->cst + (off & (PYF_CSTACK_READ - 8)));
}

#define WALK_BATCH 8 /* frames walked per bpf_loop step */

/* Read the window of the data stack that ends with the frame at a into sc->win: 1, or 0 when a
 * is not in a known chunk's used part or the read failed (then the frame is read alone). */
static __always_inline int window_read(struct walk *w, u64 a)
{
    struct walk_pos *q = &w->sc->pos;
    u64 end = a + q->need, lo;

    if (!(a >= q->slo && end <= q->shi)) {
        /* below the current chunk: the one before, whose first CHUNK_MIN bytes are its own */
        if (!q->prev_chunk || a < q->prev_chunk || end - q->prev_chunk > CHUNK_MIN)
            return 0;
        q->slo = q->prev_chunk;
        q->shi = end;
        q->prev_chunk = 0;
    }
    lo = end - q->slo > PYF_WINDOW ? end - PYF_WINDOW : q->slo;
    u64 len = end - lo;
    if (len > PYF_WINDOW || bpf_probe_read_user(w->sc->win, len, (const void *)lo)) {
        q->shi = 0; /* the chunk could not be read: no more windows there */
        return 0;
    }
    q->wlo = lo;
    q->whi = end;
    if (lo == q->slo) /* the chunk's header: _PyStackChunk.previous */
        q->prev_chunk = *(const u64 *)w->sc->win;
    return 1;
}

/* 3.8-3.10, where frames are heap objects: when the frame walked last lies just above frame a
 * (a recursion's frames, one size, one after the other in an allocator's pool), read a's page
 * up to a's end into sc->win, which holds the frames below it too: 1, or 0 (then a is read
 * alone). Only a's page (and its end's): both are mapped. */
static __always_inline int heap_window_read(struct walk *w, u64 a)
{
    struct walk_pos *q = &w->sc->pos;
    u64 end = a + q->need, lo = a & ~4095ull, len = end - lo;

    if (!(q->last > a && q->last - a < 4096) || len > PYF_WINDOW ||
        bpf_probe_read_user(w->sc->win, len, (const void *)lo))
        return 0;
    q->wlo = lo;
    q->whi = end;
    return 1;
}

/* Frame a, whose bytes are at p, into the event (or counted with the frame before, when equal
 * to it): 0 to go on, 1 to stop. */
static __always_inline long keep_frame(struct walk *w, const unsigned char *p, u64 a)
{
    const struct pyf_proc *pr = w->pr;
    struct pyf_event *e = w->e;
    struct walk_pos *q = &w->sc->pos;
    u64 code = word_at(p, pr->fr_code), lasti = word_at(p, pr->fr_lasti),
        flags = word_at(p, pr->fr_flags), back = word_at(p, pr->fr_back);

    if (back == a) { /* a frame being linked at the sample's instant */
        e->status |= PYF_UNREADABLE;
        return 1;
    }
    q->walked++;
    q->last = a;
    u32 k = e->n; /* (in the map, not in w: the verifier does not follow it from step to step) */
    asm volatile("" : "+r"(k)); /* keep the masks: the verifier needs the bound on this register */
    if (k > 0) {
        struct pyf_frame *last = &e->f[(k - 1) & (PYF_MAX_FRAMES - 1)];
        if (last->code == code && last->lasti == lasti && last->flags == flags &&
            PYF_FRAME_MORE(last->addr) < PYF_MORE_MAX) {
            last->addr += 1ull << 48;
            q->frame = back;
            return 0;
        }
    }
    if (k >= PYF_MAX_FRAMES)
        return 1; /* (cut: a is the first frame not kept) */
    u32 slot = k;
    asm volatile("" : "+r"(slot)); /* (the same: the check above would drop the mask) */
    struct pyf_frame *f = &e->f[slot & (PYF_MAX_FRAMES - 1)];
    f->addr = a;
    f->code = code;
    f->lasti = lasti;
    f->flags = flags;
    q->frame = back;
    e->n = k + 1;
    return 0;
}

/* bpf_loop's step: the next frame of the walk (read in a new window or alone when it is not in
 * the window held), then up to WALK_BATCH - 1 more while they are in the window (a call per
 * frame would cost more than the frame: each return goes through the kernel's return thunk);
 * 0 to go on, 1 to stop. */
static long walk_frames(u32 i, void *ctx)
{
    struct walk *w = ctx;
    struct pyf_scratch *sc = w->sc;
    struct walk_pos *q = &sc->pos;
    const unsigned char *p;
    u64 a = q->frame;

    (void)i;
    if (!a || q->walked >= PYF_MAX_WALK)
        return 1;
    if ((a >= q->wlo && a + q->need <= q->whi) ||
        (w->pr->ts_datastack >= 0 ? window_read(w, a) : heap_window_read(w, a))) {
        p = sc->win + ((a - q->wlo) & (PYF_WINDOW - 1));
    } else if (a >= q->clo && a + q->need <= q->chi) { /* 3.12: the shim beside the cframe */
        p = sc->cst + ((a - q->clo) & (PYF_CSTACK_READ - 1));
    } else {
        u64 need = q->need;
        if (need > PYF_FRAME_READ || bpf_probe_read_user(sc->buf, need, (const void *)a)) {
            w->e->status |= PYF_UNREADABLE;
            return 1;
        }
        p = sc->buf;
    }
    if (keep_frame(w, p, a))
        return 1;
    for (int k = 1; k < WALK_BATCH; k++) {
        a = q->frame;
        if (!a || a < q->wlo || a + q->need > q->whi || q->walked >= PYF_MAX_WALK)
            return 0; /* (the next step reads it, or ends the walk) */
        if (keep_frame(w, sc->win + ((a - q->wlo) & (PYF_WINDOW - 1)), a))
            return 1;
    }
    return 0;
}

/* ROCSYS_BPF_TIMED: the time of the walk that started at start_ns into the timing map. */
static __always_inline void time_walk(struct pyf_seen *seen, u32 tid, u64 start_ns, u32 gap_ns)
{
    u32 zero = 0;
    struct pyf_timing *t = bpf_map_lookup_elem(&timing, &zero);
    u64 d = bpf_ktime_get_ns() - start_ns, bin = d / PYF_TIME_BIN_NS;
    u32 cold = seen->tid != tid || start_ns - seen->last_ns > gap_ns;

    seen->last_ns = start_ns;
    if (!t)
        return;
    bin = bin < PYF_TIME_BINS - 1 ? bin : PYF_TIME_BINS - 1;
    __sync_fetch_and_add(&t->bins[cold & 1][bin], 1);
    __sync_fetch_and_add(&t->sum_ns[cold & 1], d);
    __sync_fetch_and_add(&t->count[cold & 1], 1);
}

SEC("perf_event")
int pyframes(struct bpf_perf_event_data *ctx)
{
    u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns(), self, ts = 0, frame = 0;
    u32 pid = (u32)(id >> 32), tid = (u32)id, zero = 0, cpu = bpf_get_smp_processor_id();
    /* (read at once: the verifier refuses a load from a context pointer moved by the compiler) */
    u64 user_cs = ctx->regs.cs, user_ip = ctx->regs.rip, user_sp = ctx->regs.rsp;
    struct pyf_proc *pr = proc_of(pid);
    struct pyf_seen *seen = &seen_slots[tid & (SEEN_SLOTS - 1)];
    struct pyf_scratch *sc;
    struct pyf_ring *ring;
    struct pyf_event *e;
    struct task_struct *task;
    struct pt_regs___k *regs;
    struct walk w;

    if (!pr)
        return 1; /* 1: the sample is written (0 would drop it) */
    sc = bpf_map_lookup_elem(&scratch, &zero);
    ring = bpf_map_lookup_elem(&walks, &cpu);
    if (!sc || !ring)
        return 1;
    /* the walk is written where it will be read: at the head of this CPU's ring (if the front
     * end has read far enough: else dropped, as a full ring buffer would) */
    u64 head = ring->head, rb = ring_bytes;
    if (head - ring->tail > rb - sizeof(struct pyf_event)) {
        ring->dropped++;
        return 1;
    }
    e = (struct pyf_event *)((unsigned char *)(ring + 1) + (head & (rb - 8)));
    w.sc = sc;
    w.pr = pr;
    w.e = e;
    e->pid = pid;
    e->tid = tid;
    e->time_ns = now;
    e->n = 0;
    e->status = 0;
    e->expected = 0;
    e->last_next = 0;
    task = bpf_get_current_task_btf();
    /* the thread's user registers: the interrupted ones when the sample came in user mode
     * (in the program's context: no helper call), else the ones saved at its kernel entry */
    if (user_cs & 3) {
        e->ip = user_ip;
        e->sp = user_sp;
    } else {
        regs = (struct pt_regs___k *)bpf_task_pt_regs(task);
        e->ip = regs->ip;
        e->sp = regs->sp;
    }
    self = task->thread.fsbase; /* = pthread_self() (x86-64 glibc) */

    if (pr->stop == 1)
        goto timed;
    u32 tslen = pr->ts_read_len <= PYF_TS_READ ? pr->ts_read_len : PYF_TS_READ;
    u64 seen_ts = seen->tstate;
    int known = seen->tid == tid;
    if (known && seen_ts &&
        !bpf_probe_read_user(sc->ts, tslen, (const void *)(seen_ts + pr->ts_read_lo)) &&
        ts_word(sc, pr, pr->ts_thread_id) == self)
        ts = seen_ts;
    else if (!known || seen_ts || now - seen->checked_ns > 100000000ull) {
        ts = find_tstate(&w, self); /* a new thread, or one that had none 100 ms ago */
        seen->tid = tid;
        seen->tstate = ts;
        seen->checked_ns = now;
        if (ts && bpf_probe_read_user(sc->ts, tslen, (const void *)(ts + pr->ts_read_lo))) {
            e->tstate = ts;
            e->status = PYF_BAD_FIRST;
            goto out;
        }
    }
    e->tstate = ts;
    if (!ts) {
        e->status = PYF_NO_TSTATE;
        goto out;
    }
    if (pr->stop == 2)
        goto timed;
    frame = ts_word(sc, pr, pr->ts_frame);
    sc->pos = (struct walk_pos){.need = pr->frame_read};
    if (pr->cframe_current >= 0 && frame) { /* 3.11, 3.12: through the _PyCFrame */
        /* one read of the C stack from it: 3.12's shim frame of the same eval is a local just
         * above it (pyenv's 3.12.1: 112 bytes; elsewhere it is read alone as before) */
        u64 cf = frame, prev, lo = cf;
        if (!bpf_probe_read_user(sc->cst, PYF_CSTACK_READ, (const void *)lo))
            sc->pos.chi = lo + PYF_CSTACK_READ;
        else if (!bpf_probe_read_user(sc->cst, 32, (const void *)cf))
            sc->pos.chi = (lo = cf) + 32; /* (the stack's end is near) */
        else {
            e->status = PYF_BAD_FIRST;
            goto out;
        }
        sc->pos.clo = lo;
        frame = cst_word(sc, cf + (u32)pr->cframe_current - lo);
        prev = cst_word(sc, cf + (u32)pr->cframe_previous - lo);
        /* the previous cframe's current frame (for the front end's check of the chain): an
         * outermost eval's is tstate->root_cframe, in the thread state's copy */
        u64 at = prev + (u32)pr->cframe_current, tsb = ts + pr->ts_read_lo;
        if (!prev)
            ;
        else if (at >= tsb && at + 8 <= tsb + tslen)
            e->expected = ts_word(sc, pr, (u32)(at - ts));
        else if (at >= lo && at + 8 <= sc->pos.chi)
            e->expected = cst_word(sc, at - lo);
        else if (read8(at, &e->expected)) {
            e->status = PYF_BAD_FIRST;
            goto out;
        }
    }
    sc->pos.frame = frame;
    if (pr->ts_datastack >= 0) { /* the used part of the thread's current chunk */
        sc->pos.slo = ts_word(sc, pr, (u32)pr->ts_datastack);
        sc->pos.shi = ts_word(sc, pr, (u32)pr->ts_datastack + 8);
    }
    bpf_loop(PYF_MAX_WALK, walk_frames, &w, 0);
    if (sc->pos.frame && !(e->status & PYF_UNREADABLE))
        e->status |= PYF_CUT; /* more frames than kept or walked */
    e->last_next = sc->pos.frame;
out:
    if (pr->stop == 3)
        goto timed;
    u64 len = PYF_EVENT_HEAD + (u64)(e->n & 0xff) * sizeof(struct pyf_frame);
    if (len > sizeof(*e))
        len = sizeof(*e);
    /* published: the walk's stores come before head's (x86 keeps stores in order; the
     * barrier keeps the compiler from moving them); read at each decode, no wakeup */
    asm volatile("" ::: "memory");
    ring->head = head + len;
timed:
    if (pr->timed_gap_ns)
        time_walk(seen, tid, now, pr->timed_gap_ns);
    return 1;
}
