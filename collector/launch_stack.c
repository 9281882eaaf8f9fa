/* The call stacks kernel launches come from. Each launch wrapper (hip.c) asks for the calling
 * thread's stack above the collector's own frames: native frames by libunwind's fast trace (as
 * the sampler's), then Python frames and open user regions, as a sample carries them. A stack
 * is keyed by a hash of its frames; a thread sends a stack (LAUNCH_STACK) the first time it
 * launches from it, and each launch carries only the key, so a loop that launches from one
 * place sends its stack once per thread (a 64-slot cache per thread: a thread launching from
 * more places than that sends a stack again when it was pushed out).
 *
 * While a stack is captured the thread is busy, so that a sampling signal does not run the
 * unwinder again inside the unwinder; such a sample is not lost: its weight is kept and it is
 * written afterwards with the stack just captured, which is where the thread was.
 *
 * Also the wait leaves of every kind (protocol.h, ROCSYS_WAIT_FRAME): collector_wait_begin marks
 * the calling thread as waiting in a wrapped call, collector_wait_frames cuts a sample taken
 * meanwhile at the wrapper (found as for launch stacks: the first frame in our own code), or an
 * OpenMP wait's at the runtime's frames. */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#define SEEN_SLOTS  64 /* per thread, direct-mapped by key */
#define STACK_WORDS (ROCSYS_LAUNCH_NATIVE_MAX + ROCSYS_LAUNCH_PY_MAX + ROCSYS_REGION_DEPTH_MAX)

/* The keys this thread sent, for process pid (a forked child starts again). */
struct launch_seen {
    uint32_t pid;
    uint64_t key[SEEN_SLOTS];
};
static __thread struct launch_seen seen __attribute__((tls_model("initial-exec")));

/* The records are built in the thread's own buffers, not on its stack: the perf engine copies
 * 8 KiB of a sampled thread's stack, and a sample taken during a capture must still reach the
 * program's frames above it. (A thread captures one stack at a time: ts->busy.) */
union launch_rec {
    struct rocsys_rec_launch_stack stack;
    struct rocsys_rec_sample sample;
    uint8_t bytes[sizeof(struct rocsys_rec_launch_stack) + 8 * (STACK_WORDS + 2)];
};
static __thread union launch_rec stack_buf, sample_buf __attribute__((tls_model("initial-exec")));

static uintptr_t self_lo, self_hi; /* the collector's executable segments */
static uintptr_t omp_lo, omp_hi;   /* the OpenMP runtime's (collector_wait_omp_runtime) */
static int capture_off;            /* --launch-stacks off */

/* An address and the executable range of the object holding it (dl_iterate_phdr's search). */
struct code_range {
    uintptr_t addr, lo, hi;
};

/* dl_iterate_phdr callback: the executable range of the object holding range->addr. */
static int find_range(struct dl_phdr_info *info, size_t size, void *data)
{
    struct code_range *range = data;
    uintptr_t addr = range->addr, lo = UINTPTR_MAX, hi = 0;

    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
    }
    if (addr < lo || addr >= hi)
        return 0;
    range->lo = lo;
    range->hi = hi;
    return 1;
}

void collector_launch_init(void)
{
    char opt[8];
    struct code_range r = {(uintptr_t)collector_launch_init, 0, 0};

    capture_off = collector_session_get("lstacks", opt, sizeof(opt)) == 0 && strcmp(opt, "0") == 0;
    dl_iterate_phdr(find_range, &r);
    self_lo = r.lo;
    self_hi = r.hi;
}

void collector_wait_omp_runtime(const void *addr)
{
    struct code_range r = {(uintptr_t)addr, 0, 0};

    dl_iterate_phdr(find_range, &r);
    omp_hi = 0; /* the sampler reads them unlocked: never a range ending before it begins */
    omp_lo = r.lo;
    omp_hi = r.hi;
}

/* 1 if pc is in the collector's code. */
static inline int in_self(uintptr_t pc)
{
    return pc >= self_lo && pc < self_hi;
}

/* FNV-1a over the frames and flags, never 0. */
static uint64_t stack_key(const uint64_t *frames, uint32_t n, uint32_t flags)
{
    uint64_t h = 1469598103934665603ull ^ flags;

    for (uint32_t i = 0; i < n; i++)
        h = (h ^ frames[i]) * 1099511628211ull;
    return h ? h : 1;
}

/* Write a sample that came during the capture: frames (the wrapper's own frame first) and the
 * periods it stands for. */
static void write_missed(const uint64_t *frames, uint32_t n, uint32_t flags, uint32_t weight)
{
    struct rocsys_rec_sample *rec = &sample_buf.sample;

    memset(rec, 0, sizeof(*rec));
    memcpy(rec->frames, frames, 8u * n);
    rec->h.type = ROCSYS_REC_SAMPLE;
    rec->h.flags = (uint16_t)(flags | (collector_g.wall ? ROCSYS_SAMPLE_WALL : 0));
    rec->h.size = (uint32_t)(sizeof(*rec) + 8u * n);
    rec->nframes = (uint16_t)n;
    rec->weight = (uint16_t)(weight > 65535 ? 65535 : weight);
    rec->time_ns = collector_now_ns();
    collector_write_normal(rec);
}

uint64_t collector_launch_stack(void)
{
    struct collector_thread *ts = &collector_tls;
    uint64_t *frames = stack_buf.stack.frames + 1; /* [-1]: the wrapper's, for a missed sample */
    void *raw[ROCSYS_LAUNCH_NATIVE_MAX + 8];
    struct py_announce ann[PY_ANNOUNCE_MAX];
    uint32_t n = 0, flags = 0, nann = 0, missed;
    uint64_t key, wrapper = 0;
    int nraw, k = 0;
    sig_atomic_t prev_unwinding;

    if (!collector_g.enabled || ts->busy || !self_hi || capture_off)
        return 0;
    ts->missed_weight = 0;
    ts->capturing = 1;
    ts->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    /* the loader snapshot, as in the handler; no native frames while another thread forks */
    nraw = 0;
    if (collector_unwind_begin(ts, &prev_unwinding) == 0) {
        nraw = unw_backtrace(raw, ROCSYS_LAUNCH_NATIVE_MAX + 8);
        collector_unwind_end(ts, prev_unwinding);
    }
    while (k < nraw && in_self((uintptr_t)raw[k]))
        wrapper = (uint64_t)(uintptr_t)raw[k++];
    for (; k < nraw && n < ROCSYS_LAUNCH_NATIVE_MAX; k++)
        frames[n++] = (uint64_t)(uintptr_t)raw[k];
    if (k < nraw || nraw == ROCSYS_LAUNCH_NATIVE_MAX + 8)
        flags |= ROCSYS_SAMPLE_TRUNCATED;
    if (n)
        frames[0] -= 1; /* a return address: point inside the call */
    if (collector_python_active()) {
        sigset_t cur; /* Python memory is read under the fault guard: not if faults are blocked */
        pthread_sigmask(SIG_BLOCK, NULL, &cur);
        if (!sigismember(&cur, SIGSEGV) && !sigismember(&cur, SIGBUS)) {
            struct py_at at[PY_AT_MAX];
            uint32_t nat = 0;
            uint32_t npy = collector_python_frames(frames + n, ROCSYS_LAUNCH_PY_MAX, &flags, ann,
                                                   &nann, at, &nat);
            collector_python_place_known(frames, n, frames + n, at, nat);
            n += npy;
            flags |= npy ? ROCSYS_SAMPLE_PYTHON : 0;
        }
    }
    uint32_t nreg = collector_regions_frames(frames + n, ROCSYS_REGION_DEPTH_MAX);
    n += nreg;
    flags |= nreg ? ROCSYS_SAMPLE_REGIONS : 0;
    atomic_signal_fence(memory_order_seq_cst);
    ts->busy = 0;
    ts->capturing = 0;
    missed = ts->missed_weight;
    if (n == 0)
        return 0;
    key = stack_key(frames, n, flags);
    if (seen.pid != collector_g.pid) {
        memset(&seen, 0, sizeof(seen));
        seen.pid = collector_g.pid;
    }
    if (nann && ts->ring.ctl) { /* the code objects first: the stack names them */
        ts->busy = 1;
        atomic_signal_fence(memory_order_seq_cst);
        collector_python_announce(&ts->ring, ann, nann);
        atomic_signal_fence(memory_order_seq_cst);
        ts->busy = 0;
        nann = 0;
    }
    if (seen.key[key % SEEN_SLOTS] != key) {
        struct rocsys_rec_launch_stack *r = (void *)((uint8_t *)frames - sizeof(*r));
        memset(r, 0, sizeof(*r)); /* over frames[-1]: the record starts one word later */
        r->h.type = ROCSYS_REC_LAUNCH_STACK;
        r->h.flags = (uint16_t)flags;
        r->h.size = (uint32_t)(sizeof(*r) + 8u * n);
        r->pid = collector_g.pid;
        r->nframes = n;
        r->key = key;
        if (collector_write_any(r) == 0)
            seen.key[key % SEEN_SLOTS] = key;
    }
    if (missed && wrapper) { /* the sample that came meanwhile, where the thread was */
        frames[-1] = wrapper;
        write_missed(frames - 1, n + 1, flags, missed);
    }
    if (nann && ts->ring.ctl)
        collector_python_announce(&ts->ring, ann, nann);
    return key;
}

/* The code of the COLLECTOR_WAIT_WRAPPER functions (the linker's bounds of their section). */
extern const char __start_rocsys_wait_wrap[] __attribute__((weak, visibility("hidden")));
extern const char __stop_rocsys_wait_wrap[] __attribute__((weak, visibility("hidden")));

/* An OpenMP wait's sample (no wrapper frame: the wait is seen through OMPT's callbacks): cut at
 * the last frame of the innermost run of the runtime's frames (the barrier's, above the code
 * that reached it); left as it is when no frame is the runtime's. */
static uint32_t omp_wait_frames(uint64_t *frames, uint32_t n, uint64_t frame)
{
    uintptr_t lo = omp_lo, hi = omp_hi;
    uint32_t k = 0;

    while (k < n && !(frames[k] >= lo && frames[k] < hi))
        k++;
    if (k >= n)
        return n;
    while (k + 1 < n && frames[k + 1] >= lo && frames[k + 1] < hi)
        k++;
    return rocsys_wait_cut(frames, n, k, frame);
}

uint32_t collector_wait_frames(uint64_t *frames, uint32_t n, uint64_t frame)
{
    uintptr_t lo = (uintptr_t)__start_rocsys_wait_wrap, hi = (uintptr_t)__stop_rocsys_wait_wrap;
    uint32_t k = 0;

    if (ROCSYS_WAIT_FRAME_KIND(frame) == ROCSYS_WAIT_OMP)
        return omp_wait_frames(frames, n, frame);
    while (k < n && !(frames[k] >= lo && frames[k] < hi))
        k++;
    if (k < n)
        return rocsys_wait_cut(frames, n, k, frame);
    k = 0;
    while (k < n && !in_self((uintptr_t)frames[k]))
        k++;
    return rocsys_wait_cut(frames, n, k, frame);
}

void collector_wait_begin(int kind, int id, uint64_t t0)
{
    int saved = errno;

    collector_tls.wait_frame = ROCSYS_WAIT_FRAME(kind, id);
    if (collector_g.no_timer) { /* the perf engine pairs its samples with this by time */
        struct rocsys_rec_gpu_wait r = {.h = {.type = ROCSYS_REC_GPU_WAIT, .size = sizeof(r)},
                                        .api = (uint32_t)id,
                                        .kind = (uint32_t)kind,
                                        .time_ns = t0};
        collector_write_any(&r);
    }
    errno = saved;
}
