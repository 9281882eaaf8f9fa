/* CPython frames for the sampling handler (CPython 3.8 and later, x86-64, GIL builds).
 *
 * The handler finds the interrupted thread's PyThreadState through the GIL-state TSS key in
 * _PyRuntime (pthread_getspecific: no lock, works whether or not the thread holds the GIL), or
 * where there is none (3.15+) in the interpreters' thread lists (remembered per thread),
 * walks its frame chain innermost first, and writes one pseudo-frame per Python frame: a code
 * object id and the instruction being run. A code object is announced once per process (PY_CODE:
 * qualified name, file, first line, line table, copied raw); names and lines are resolved in
 * the front end. No Python API call, no lock, no allocation.
 *
 * Every read of interpreter memory goes through py_read8 / py_copy, whose one faulting
 * instruction each is known: the SIGSEGV/SIGBUS guard turns a fault there into an error
 * return, so a frame or object torn or freed under the reader costs a dropped stack (counted),
 * never the target. The guard stays first in line: a handler the program installs later for
 * SIGSEGV or SIGBUS is kept by our sigaction and called for every fault that is not ours.
 * Layouts: python_layout.c (by hand to 3.12, from the interpreter's _Py_DebugOffsets from 3.13);
 * tests/e2e/test_python.sh runs every version on the machine. */
#define _GNU_SOURCE
#include "collector.h"
#include "python_layout.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- fault-tolerant reads ---- */

/* int py_read8(uintptr_t addr, uint64_t *out): 0, or -1 when addr cannot be read.
 * int py_copy(void *dst, uintptr_t src, size_t n): the same for n bytes. */
int py_read8(uintptr_t addr, uint64_t *out);
int py_copy(void *dst, uintptr_t src, size_t n);
extern const char py_read8_insn[], py_copy_insn[], py_read_fault[];
__asm__(".text\n"
        ".globl py_read8\n.hidden py_read8\n.type py_read8,@function\n"
        "py_read8:\n"
        ".globl py_read8_insn\n.hidden py_read8_insn\n"
        "py_read8_insn:\n"
        "    movq (%rdi), %rax\n"
        "    movq %rax, (%rsi)\n"
        "    xorl %eax, %eax\n"
        "    ret\n"
        ".size py_read8, .-py_read8\n"
        ".globl py_copy\n.hidden py_copy\n.type py_copy,@function\n"
        "py_copy:\n"
        "    movq %rdx, %rcx\n"
        ".globl py_copy_insn\n.hidden py_copy_insn\n"
        "py_copy_insn:\n"
        "    rep movsb\n"
        "    xorl %eax, %eax\n"
        "    ret\n"
        ".size py_copy, .-py_copy\n"
        ".globl py_read_fault\n.hidden py_read_fault\n.type py_read_fault,@function\n"
        "py_read_fault:\n"
        "    movl $-1, %eax\n"
        "    ret\n"
        ".size py_read_fault, .-py_read_fault\n");

/* ---- code object ids: a lock-free table shared by the process's threads ---- */

#define CODE_SLOTS  32768 /* a power of two; ids are slot + 1 */
#define CODE_PROBES 32
enum { SLOT_EMPTY = 0, SLOT_CLAIMED = 1, SLOT_ANNOUNCED = 2, SLOT_RETRY = 3 };

struct code_slot {
    _Atomic uint64_t code; /* the code object's address (0: empty) */
    _Atomic uint64_t sig;  /* what else identifies it (its strings, its table, the pid) */
    _Atomic uint32_t state;
};

static int (*real_sigaction)(int, const struct sigaction *, struct sigaction *);

static struct {
    volatile int state; /* 0 undecided, 1 reading frames, 2 nothing to do (told the front end) */
    const struct py_layout *l;
    struct py_layout layout;
    uintptr_t runtime, code_type, unicode_type, bytes_type, frame_type;
    uint32_t version_hex;
    struct sigaction app_segv, app_bus; /* the program's own handlers (called for its faults) */
    int guard;                          /* our SIGSEGV/SIGBUS handlers are installed */
    struct code_slot slots[CODE_SLOTS];
} py;

/* Whether p can be a pointer to an 8-byte aligned object in user space. */
static inline int ptr_ok(uint64_t p)
{
    return p >= 4096 && p < 0x800000000000ull && (p & 7) == 0;
}

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Id of a code object (claimed if new: then listed in ann for announcing). AS-safe. */
static uint32_t code_id(uintptr_t code, uint64_t sig, struct py_announce *ann, uint32_t *nann)
{
    uint32_t i = (uint32_t)mix(code ^ sig) & (CODE_SLOTS - 1);

    for (int p = 0; p < CODE_PROBES; p++, i = (i + 1) & (CODE_SLOTS - 1)) {
        struct code_slot *s = &py.slots[i];
        uint64_t c = atomic_load_explicit(&s->code, memory_order_acquire);
        if (c == 0) {
            uint64_t expect = 0;
            if (!atomic_compare_exchange_strong(&s->code, &expect, code)) {
                c = expect;
            } else {
                /* more new code objects than one sample announces: the next sample does */
                int now = *nann < PY_ANNOUNCE_MAX;
                atomic_store_explicit(&s->sig, sig, memory_order_release);
                atomic_store_explicit(&s->state, now ? SLOT_CLAIMED : SLOT_RETRY,
                                      memory_order_release);
                if (now)
                    ann[(*nann)++] = (struct py_announce){code, i + 1};
                return i + 1;
            }
        }
        if (c != code || atomic_load_explicit(&s->sig, memory_order_acquire) != sig)
            continue;
        uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
        if (st == SLOT_RETRY && *nann < PY_ANNOUNCE_MAX) {
            uint32_t e = SLOT_RETRY;
            if (atomic_compare_exchange_strong(&s->state, &e, SLOT_CLAIMED))
                ann[(*nann)++] = (struct py_announce){code, i + 1};
        }
        return i + 1;
    }
    return ROCSYS_PY_CODE_UNKNOWN;
}

/* ---- reading a thread's frames (the handler) ---- */

/* The thread state of the calling thread found last (3.15+: found by a walk). */
static __thread uint64_t py_tstate_seen;

#define WALK_INTERPS 8    /* interpreters looked at */
#define WALK_THREADS 4096 /* thread states looked at, in all */

/* The calling thread's PyThreadState from the interpreters' thread lists (no TSS key, 3.15+):
 * the one found last if it is still this thread's, else a walk of the lists (no lock: a
 * thread state freed under the walk reads as garbage, which the guarded reads, the cap and
 * the thread id check turn into "none"). 0 if none. AS-safe. */
static uint64_t walk_tstate(uint64_t self)
{
    const struct py_layout *l = py.l;
    uint64_t interp, ts, tid;
    uint32_t seen = 0;

    ts = py_tstate_seen;
    if (ts && py_read8(ts + l->ts_thread_id, &tid) == 0 && tid == self)
        return ts;
    if (py_read8(py.runtime + (uint32_t)l->rt_interp_head, &interp) != 0)
        return 0;
    for (int i = 0; i < WALK_INTERPS && ptr_ok(interp); i++) {
        if (py_read8(interp + l->interp_threads, &ts) != 0)
            return 0;
        for (; ptr_ok(ts) && seen < WALK_THREADS; seen++) {
            if (py_read8(ts + l->ts_thread_id, &tid) != 0)
                return 0;
            if (tid == self)
                return py_tstate_seen = ts;
            if (py_read8(ts + l->ts_next, &ts) != 0)
                return 0;
        }
        if (py_read8(interp + l->interp_next, &interp) != 0)
            return 0;
    }
    return 0;
}

/* The calling thread's PyThreadState, or 0. AS-safe. */
static uintptr_t this_tstate(void)
{
    uint64_t init, ts, tid;

    if (py.l->tss < 0)
        return (uintptr_t)walk_tstate((uint64_t)pthread_self());
    if (py_read8(py.runtime + (uint32_t)py.l->tss, &init) != 0 || (uint32_t)init != 1)
        return 0;
    ts = (uint64_t)(uintptr_t)pthread_getspecific((pthread_key_t)(init >> 32));
    if (!ptr_ok(ts) || py_read8(ts + py.l->ts_thread_id, &tid) != 0 ||
        tid != (uint64_t)pthread_self())
        return 0; /* not this thread's (torn at thread exit, or a sub-interpreter's) */
    return (uintptr_t)ts;
}

/* Whether tstate ts holds the GIL. AS-safe. */
static int holds_gil(uintptr_t ts)
{
    uint64_t v, interp, gil, last, locked;

    if (py.l->tstate_current >= 0)
        return py_read8(py.runtime + (uint32_t)py.l->tstate_current, &v) == 0 && v == ts;
    if (py_read8(ts + py.l->ts_interp, &interp) != 0 || !ptr_ok(interp) ||
        py_read8(interp + (uint32_t)py.l->interp_gil, &gil) != 0 || !ptr_ok(gil) ||
        py_read8(gil + (uint32_t)py.l->gil_last_holder, &last) != 0 ||
        py_read8(gil + (uint32_t)py.l->gil_locked, &locked) != 0)
        return 0;
    return (uint32_t)locked != 0 && last == ts;
}

/* Identity (*sig) and length in code units (*size_out, 3.11+) of a frame's code object: 0, or -1
 * when it cannot be trusted. */
static int frame_code(uintptr_t code, uint64_t *sig, uint64_t *size_out)
{
    const struct py_layout *l = py.l;
    uint64_t type, file, name, table, first, size = 0;

    if (!ptr_ok(code) || py_read8(code + PY_OB_TYPE, &type) != 0 || type != py.code_type ||
        py_read8(code + l->co_filename, &file) != 0 || py_read8(code + l->co_name, &name) != 0 ||
        py_read8(code + l->co_table, &table) != 0 ||
        py_read8(code + l->co_firstlineno, &first) != 0 ||
        (l->co_adaptive >= 0 && py_read8(code + PY_OB_SIZE, &size) != 0))
        return -1;
    /* a code object freed and another made at its address (exec of generated code) differs in
     * one of these, or has the same name, file, first line and length */
    *sig = mix(file ^ mix(name ^ mix(table ^ mix((uint32_t)first ^ (size << 32) ^
                                                 ((uint64_t)collector_g.pid << 20)))));
    *size_out = size;
    return 0;
}

/* What one sample learnt of a code object (a code object of a live frame cannot go away
 * while the sample is taken, so within one sample its address identifies it). */
struct code_memo {
    uint64_t code;
    uint32_t id;
    int32_t first_trace; /* _co_firsttraceable (3.11+) */
    uint64_t size;       /* code units (3.11+) */
};
#define MEMO_SLOTS 16

/* Id, size and first traceable unit of code (validated): from the sample's memo, else read.
 * 0, or -1 when the code object cannot be trusted. */
static int code_facts(uint64_t code, struct code_memo *memo, struct py_announce *ann,
                      uint32_t *nann, struct code_memo **out)
{
    const struct py_layout *l = py.l;
    struct code_memo *e = &memo[(code >> 4) & (MEMO_SLOTS - 1)];
    uint64_t sig, size = 0, first = 0;

    if (e->code == code) {
        *out = e;
        return 0;
    }
    if (frame_code((uintptr_t)code, &sig, &size) != 0 ||
        (l->co_firsttrace >= 0 && py_read8(code + (uint32_t)l->co_firsttrace, &first) != 0))
        return -1;
    e->code = code;
    e->size = size;
    e->first_trace = (int32_t)(uint32_t)first;
    e->id = code_id((uintptr_t)code, sig, ann, nann);
    *out = e;
    return 0;
}

int collector_python_active(void)
{
    return py.state == 1;
}

/* Write a group's PY_AT word (its native frame still unknown) and note where the group's entry
 * frame is on the C stack, so that the sampler can fill it in (at most PY_AT_MAX groups). */
static uint32_t put_at(uint64_t *out, uint32_t n, uint32_t room, uint64_t entry_addr,
                       struct py_at *at, uint32_t *nat)
{
    if (!at || *nat >= PY_AT_MAX || n >= room)
        return n;
    at[*nat].pos = n;
    at[*nat].addr = entry_addr;
    (*nat)++;
    out[n] = ROCSYS_PY_AT(ROCSYS_PY_AT_UNKNOWN);
    return n + 1;
}

uint32_t collector_python_frames(uint64_t *out, uint32_t room, uint32_t *flags,
                                 struct py_announce *ann, uint32_t *nann, struct py_at *at,
                                 uint32_t *nat)
{
    const struct py_layout *l = py.l;
    struct code_memo memo[MEMO_SLOTS], *cm;
    uint64_t frame, next, code, w, expected = 0;
    int checking = 0; /* the first group's end is still to be checked against expected */
    uintptr_t ts;
    uint32_t n = 0, group = 0; /* frames written in the current group */
    int64_t lasti;

    if (nat)
        *nat = 0;
    if (py.state != 1 || room == 0)
        return 0;
    for (int i = 0; i < MEMO_SLOTS; i++)
        memo[i].code = 0;
    ts = this_tstate();
    if (!ts)
        return 0;
    *flags |= ROCSYS_SAMPLE_PYTSTATE | (holds_gil(ts) ? ROCSYS_SAMPLE_GIL : 0);
    if (py_read8(ts + l->ts_frame, &frame) != 0)
        goto torn;
    if (l->cframe_current >= 0 && frame) {
        /* 3.11, 3.12: an evaluation call links its _PyCFrame into the thread state before it
         * sets the frame the cframe names (uninitialized stack until then): the first group
         * must end where the previous cframe's frame is, else it is not this call's yet */
        uint64_t cf = frame, prev;
        if (!ptr_ok(cf) || py_read8(cf + (uint32_t)l->cframe_current, &frame) != 0 ||
            py_read8(cf + (uint32_t)l->cframe_previous, &prev) != 0 ||
            (prev && (!ptr_ok(prev) || py_read8(prev + (uint32_t)l->cframe_current, &expected))))
            goto torn;
        checking = 1;
    }
walk:
    for (uint32_t depth = 0; frame; depth++) {
        int owner = 0, entry = 0;
        if (!ptr_ok(frame))
            goto torn;
        if (n + 3 >= room || depth >= ROCSYS_MAX_PY_DEPTH) {
            *flags |= ROCSYS_SAMPLE_TRUNCATED;
            break;
        }
        if (py_read8(frame + l->fr_back, &next) != 0 || next == frame ||
            py_read8(frame + l->fr_code, &code) != 0 || py_read8(frame + l->fr_lasti, &w) != 0)
            goto torn;
        code &= l->code_mask; /* 3.14+: a _PyStackRef, tagged in its low bits */
        if (l->lasti_kind != PY_LASTI_POINTER) {
            uint64_t type;
            if (py_read8(frame + PY_OB_TYPE, &type) != 0 || type != py.frame_type)
                goto torn;
            lasti = (int32_t)(uint32_t)w;
            lasti = lasti < 0 ? -1 : l->lasti_kind == PY_LASTI_BYTES ? lasti / 2 : lasti;
            entry = 1; /* one frame per evaluation call */
        } else {
            uint64_t ow;
            if (py_read8(frame + (uint32_t)l->fr_flags, &ow) != 0)
                goto torn;
            owner = (int)((ow >> (8 * (uint32_t)(l->fr_owner - l->fr_flags))) & 0xff);
            if (l->fr_is_entry >= 0)
                entry = (int)((ow >> (8 * (uint32_t)(l->fr_is_entry - l->fr_flags))) & 0xff) != 0;
            if (owner >= PY_OWNER_SHIM) { /* the shim below an evaluation call's first frame */
                if (checking && (checking = 0, next != expected))
                    goto unlinked;
                if (!next && group == 0 && n > 0) { /* 3.15: the thread's base frame, not on */
                    frame = next;                   /* the C stack, no evaluation call's */
                    continue;
                }
                n = py_end_group(out, n, room, group > 0);
                n = put_at(out, n, room, frame, at, nat); /* the shim is on the C stack */
                group = 0;
                frame = next;
                continue;
            }
            if (code_facts(code, memo, ann, nann, &cm) != 0)
                goto torn;
            lasti = ((int64_t)w - (int64_t)(code + (uint32_t)l->co_adaptive)) / 2;
            if (lasti < -1 || lasti >= (int64_t)cm->size)
                goto torn;
            /* an incomplete frame (being set up: CPython hides it too) */
            if (entry && checking && (checking = 0, next != expected))
                goto unlinked;
            if (owner != PY_OWNER_GENERATOR && lasti < cm->first_trace) {
                if (entry) {
                    n = py_end_group(out, n, room, group > 0);
                    group = 0;
                }
                frame = next;
                continue;
            }
        }
        if (l->lasti_kind != PY_LASTI_POINTER && code_facts(code, memo, ann, nann, &cm) != 0)
            goto torn;
        n = py_put_frame(
            out, n, room,
            ROCSYS_PY_FRAME(cm->id, lasti < 0 ? ROCSYS_PY_LASTI_UNKNOWN : (uint32_t)lasti, entry));
        group = entry ? 0 : group + 1;
        frame = next;
    }
    if (checking && expected != 0 && frame == 0)
        goto unlinked; /* the cframe's frame was still NULL: not linked yet */
    return n;
unlinked:
    /* the evaluation call just entered has not linked its first frame: an empty group for it,
     * then its caller's frames */
    checking = 0;
    group = 0;
    if (nat)
        *nat = 0; /* the words written are dropped (this group is not placed: by name) */
    n = py_end_group(out, 0, room, 0);
    frame = expected;
    goto walk;
torn:
    if (checking)
        goto unlinked; /* what failed was the not yet linked frame's garbage */
    /* the frames read so far were checked; the rest of the chain is not shown */
    *flags |= ROCSYS_SAMPLE_PY_DROPPED;
    if (n < room)
        out[n++] = ROCSYS_PY_FRAME(ROCSYS_PY_CODE_UNREADABLE, ROCSYS_PY_LASTI_UNKNOWN, 1);
    return n;
}

/* Where a str's characters are, its kind and length in bytes (capped). -1 if not a str. */
static int str_data(uint64_t s, uintptr_t *data, uint32_t *kind, uint32_t *bytes)
{
    uint64_t type, len, state, p;

    if (!ptr_ok(s) || py_read8(s + PY_OB_TYPE, &type) != 0 || type != py.unicode_type ||
        py_read8(s + PY_STR_LENGTH, &len) != 0 || py_read8(s + PY_STR_STATE, &state) != 0)
        return -1;
    *kind = (uint32_t)(state >> 2) & 7;
    if (*kind != 1 && *kind != 2 && *kind != 4)
        return -1;
    if (state & (1u << 5)) /* compact: the characters follow the object */
        p = s + ((state & (1u << 6)) ? py.l->str_ascii_size : py.l->str_compact_size);
    else if (py_read8(s + py.l->str_compact_size, &p) != 0 || !p)
        return -1;
    if (len > ROCSYS_PY_NAME_MAX / *kind)
        len = ROCSYS_PY_NAME_MAX / *kind;
    *data = (uintptr_t)p;
    *bytes = (uint32_t)len * *kind;
    return 0;
}

/* Write a PY_CODE record for one code object into ring r. 0, or -1 (retry later). AS-safe. */
static int announce(struct transport_ring *r, const struct py_announce *a)
{
    const struct py_layout *l = py.l;
    struct rocsys_rec_py_code *rec;
    uint64_t name, file, table, type, tlen, first;
    uintptr_t nd, fd;
    uint32_t nk, fk, nb, fb, tb, size;
    uint8_t cut = 0;

    if (py_read8(a->code + l->co_name, &name) != 0 || py_read8(a->code + l->co_filename, &file) ||
        py_read8(a->code + l->co_table, &table) != 0 ||
        py_read8(a->code + l->co_firstlineno, &first) != 0 || str_data(name, &nd, &nk, &nb) ||
        str_data(file, &fd, &fk, &fb) || !ptr_ok(table) ||
        py_read8(table + PY_OB_TYPE, &type) != 0 || type != py.bytes_type ||
        py_read8(table + PY_OB_SIZE, &tlen) != 0)
        return -1;
    tb = tlen > ROCSYS_PY_TABLE_MAX ? ROCSYS_PY_TABLE_MAX : (uint32_t)tlen;
    cut = tlen > ROCSYS_PY_TABLE_MAX ? ROCSYS_PY_CODE_CUT_TABLE : 0;
    size = rocsys_rec_align((uint32_t)sizeof(*rec) + nb + fb + tb);
    /* a description leaves room for two samples; a code object is often seen in
     * one sample only (a module's body runs once at import), so it is described at once
     * whenever it fits, and later samples retry what did not */
    if (transport_room(r) < size + 2 * SAMPLE_MAX_BYTES)
        return -1;
    rec = transport_reserve(r, size);
    if (!rec)
        return -1;
    memset(rec, 0, sizeof(*rec));
    rec->h.type = ROCSYS_REC_PY_CODE;
    rec->h.size = size;
    rec->pid = collector_g.pid;
    rec->id = a->id;
    rec->first_line = (int32_t)(uint32_t)first;
    rec->name_kind = (uint8_t)nk;
    rec->file_kind = (uint8_t)fk;
    rec->table_kind = (uint8_t)l->table_kind;
    rec->flags = cut;
    rec->name_len = nb;
    rec->file_len = fb;
    rec->table_len = tb;
    uint8_t *p = (uint8_t *)(rec + 1);
    if (py_copy(p, nd, nb) != 0 || py_copy(p + nb, fd, fb) != 0 ||
        py_copy(p + nb + fb, table + PY_BYTES_DATA, tb) != 0)
        return -1; /* nothing committed */
    transport_commit(r, size);
    return 0;
}

void collector_python_announce(struct transport_ring *r, const struct py_announce *ann,
                               uint32_t nann)
{
    for (uint32_t i = 0; i < nann; i++) {
        struct code_slot *s = &py.slots[ann[i].id - 1];
        int ok = announce(r, &ann[i]) == 0;
        atomic_store_explicit(&s->state, ok ? SLOT_ANNOUNCED : SLOT_RETRY, memory_order_release);
    }
}

/* ---- the fault guard ---- */

/* Deliver a fault or signal that is not ours to the program's disposition app, as the kernel
 * would have: ignored (a sent signal), the default action (restored, then the fault happens
 * again on return, or a sent signal is sent again), or its handler, with its sa_mask (and the
 * signal itself unless SA_NODEFER) blocked and SA_RESETHAND honoured. */
static void pass_on(int sig, siginfo_t *si, void *uc, struct sigaction *app)
{
    struct sigaction a = *app, dfl;
    sigset_t mask, old;

    if (a.sa_handler == SIG_IGN && si->si_code <= 0)
        return; /* a sent signal the program ignores (a fault cannot be ignored) */
    if (a.sa_handler == SIG_DFL || a.sa_handler == SIG_IGN) {
        memset(&dfl, 0, sizeof(dfl));
        dfl.sa_handler = SIG_DFL;
        real_sigaction(sig, &dfl, NULL);
        py.guard = 0;
        if (si->si_code <= 0)
            syscall(SYS_tgkill, getpid(), collector_gettid(), sig);
        return;
    }
    if (a.sa_flags & SA_RESETHAND) {
        memset(app, 0, sizeof(*app));
        app->sa_handler = SIG_DFL;
    }
    mask = a.sa_mask;
    if (!(a.sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    pthread_sigmask(SIG_BLOCK, &mask, &old);
    if (a.sa_flags & SA_SIGINFO)
        a.sa_sigaction(sig, si, uc);
    else
        a.sa_handler(sig);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* SIGSEGV / SIGBUS: a fault in py_read8 or py_copy returns -1 from it; others go on. */
static void on_fault(int sig, siginfo_t *si, void *ucontext)
{
    ucontext_t *uc = ucontext;
    uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];

    if (si->si_code > 0 && (pc == (uintptr_t)py_read8_insn || pc == (uintptr_t)py_copy_insn)) {
        uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(uintptr_t)py_read_fault;
        return;
    }
    pass_on(sig, si, ucontext, sig == SIGSEGV ? &py.app_segv : &py.app_bus);
}

/* Install the guard for SIGSEGV and SIGBUS, keeping the handlers there were. */
static int guard_install(void)
{
    struct sigaction sa;
    *(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
    if (!real_sigaction)
        return -1;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    if (real_sigaction(SIGSEGV, &sa, &py.app_segv) != 0)
        return -1;
    if (real_sigaction(SIGBUS, &sa, &py.app_bus) != 0) {
        real_sigaction(SIGSEGV, &py.app_segv, NULL);
        return -1;
    }
    py.guard = 1;
    return 0;
}

/* sigaction, interposed: while the guard is installed, the program's SIGSEGV and SIGBUS
 * handlers are kept here (and called for its faults) instead of replacing the guard, and the
 * program's handler of the sampling signal is kept by the sampler (a program that took the
 * signal over would stop the sampling without a word); what it reads back is what it set.
 * Every other call goes to libc unchanged. */
COLLECTOR_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    struct sigaction *app;

    if (!real_sigaction)
        *(void **)&real_sigaction = dlsym(RTLD_NEXT, "sigaction");
    if (collector_sampler_sigaction(sig, act, old))
        return 0; /* the sampling signal: kept aside by the sampler */
    if (!py.guard || (sig != SIGSEGV && sig != SIGBUS))
        return real_sigaction ? real_sigaction(sig, act, old) : (errno = ENOSYS, -1);
    app = sig == SIGSEGV ? &py.app_segv : &py.app_bus;
    struct sigaction next = act ? *act : *app; /* act and old may be the same */
    if (old)
        *old = *app;
    *app = next;
    return 0;
}

/* signal, interposed for the same reason (glibc's signal does not call sigaction through the
 * PLT): BSD semantics, as glibc's. */
COLLECTOR_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;

    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, sig);
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

static void send_info(uint32_t status);

void collector_python_watch(void)
{
    struct sigaction cur;

    if (py.state != 1 || !py.guard)
        return;
    for (int sig = SIGSEGV; sig; sig = sig == SIGSEGV ? SIGBUS : 0)
        if (real_sigaction(sig, NULL, &cur) == 0 &&
            (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_fault)) {
            py.state = 2; /* a read could fault unguarded: no more Python frames */
            send_info(ROCSYS_PY_GUARD_LOST);
            collector_log("python: the fault guard for signal %d was replaced: Python frames off",
                          sig);
        }
}

/* ---- detection (normal context) ---- */

/* Tell the front end what we found. */
static void send_info(uint32_t status)
{
    struct rocsys_rec_py_info rec;
    memset(&rec, 0, sizeof(rec));
    rec.h.type = ROCSYS_REC_PY_INFO;
    rec.h.size = sizeof(rec);
    rec.pid = collector_g.pid;
    rec.status = status;
    rec.version_hex = py.version_hex;
    collector_write_normal(&rec);
}

/* PY_VERSION_HEX of the interpreter in the process, or 0. */
static uint32_t version_hex(void)
{
    const unsigned long *pv = dlsym(RTLD_DEFAULT, "Py_Version");
    const char *(*gv)(void);
    const char *v;
    unsigned a = 0, b = 0, c = 0;

    if (pv)
        return (uint32_t)*pv;
    *(void **)&gv = dlsym(RTLD_DEFAULT, "Py_GetVersion");
    if (!gv || !(v = gv()))
        return 0;
    a = (unsigned)strtoul(v, (char **)&v, 10);
    if (*v == '.')
        b = (unsigned)strtoul(v + 1, (char **)&v, 10);
    if (*v == '.')
        c = (unsigned)strtoul(v + 1, (char **)&v, 10);
    return (a << 24) | (b << 16) | (c << 8);
}

void collector_python_check(void)
{
    static uint8_t dbg[PY_DEBUG_OFFSETS_MAX];
    const char *why = "";
    char opt[8];
    uint32_t status = ROCSYS_PY_UNSUPPORTED;
    int rc;

    if (py.state != 0 || !collector_g.enabled)
        return;
    py.runtime = (uintptr_t)dlsym(RTLD_DEFAULT, "_PyRuntime");
    py.version_hex = py.runtime || dlsym(RTLD_DEFAULT, "Py_GetVersion") ? version_hex() : 0;
    if (!py.version_hex)
        return; /* no Python here (yet: an embedding program may load it later) */
    if (collector_session_get("python", opt, sizeof(opt)) == 0 && strcmp(opt, "0") == 0) {
        py.state = 2; /* --no-python */
        return;
    }
    py.code_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyCode_Type");
    py.unicode_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    py.bytes_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyBytes_Type");
    py.frame_type = (uintptr_t)dlsym(RTLD_DEFAULT, "PyFrame_Type");
    if (!py.runtime)
        goto out;
    /* 3.13+ start _PyRuntime (static data, hundreds of KiB) with _Py_DebugOffsets */
    if ((py.version_hex >> 16) >= 0x30d)
        memcpy(dbg, (const void *)py.runtime, sizeof(dbg));
    rc = py_layout_for(py.version_hex, (py.version_hex >> 16) >= 0x30d ? dbg : NULL, sizeof(dbg),
                       &py.layout, &why);
    status = rc == PY_LAYOUT_OK            ? ROCSYS_PY_OK
             : rc == PY_LAYOUT_FREE_THREAD ? ROCSYS_PY_FREE_THREAD
             : rc == PY_LAYOUT_BAD_OFFSETS ? ROCSYS_PY_MISMATCH
                                           : ROCSYS_PY_UNSUPPORTED;
    if (status != ROCSYS_PY_OK)
        goto out;
    py.l = &py.layout;
    status = ROCSYS_PY_MISMATCH;
    why = "a type symbol is missing";
    if (!py.code_type || !py.unicode_type || !py.bytes_type || !py.frame_type)
        goto out;
    why = "the fault guard could not be installed";
    if (guard_install() != 0)
        goto out;
    why = "";
    status = ROCSYS_PY_OK;
out:
    py.state = status == ROCSYS_PY_OK ? 1 : 2;
    send_info(status);
    collector_log("python %x: %s%s%s", py.version_hex,
                  status == ROCSYS_PY_OK ? "frames" : "no frames", *why ? ": " : "", why);
}
