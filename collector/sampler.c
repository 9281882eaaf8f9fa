/* Call-stack sampling: a per-thread timer raises a real-time signal in that thread; the handler
 * unwinds with libunwind and writes one SAMPLE record into the thread's ring. Async-signal-safe,
 * no allocation, never blocks.
 *
 * Timers (--cpu-timer):
 *  - wall mode: a POSIX CLOCK_MONOTONIC timer per thread (an hrtimer).
 *  - CPU mode, perf: a cycles perf event per thread in frequency mode (PMU overflow interrupts,
 *    as perf record does), else a task-clock perf event (an hrtimer on the thread's CPU time:
 *    exact, but each interrupt costs more, much more in a virtual machine). Both raise the
 *    signal through F_SETSIG / F_SETOWN_EX; the kernel signals every overflow because each one
 *    writes a tiny record into a one-page ring whose tail the handler advances, so there is no
 *    system call per sample.
 *  - CPU mode, posix (and the fallback where perf events are not allowed): POSIX
 *    CLOCK_THREAD_CPUTIME_ID timers. The kernel checks them at the scheduler tick only, so
 *    samples fall on tick boundaries, which biases the profile of work that is periodic with
 *    the tick or competes for cores; a sample carries the timer's overrun as its weight. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <libunwind.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define SAMPLE_SIGNAL_OFFSET 6 /* SIGRTMIN + 6, overridable with ROCSYS_SIGNAL */
#define TIMER_MAGIC          0x726f6373u
#define PERF_PAGE            4096u /* the perf ring: this much metadata, this much data */

/* Fill frames[] with the interrupted pc and the return addresses above it. libunwind's fast
 * trace (unw_backtrace: cached frame shapes, no per-frame DWARF interpretation) starts in this
 * handler; the frames up to the interrupted pc (handler, signal trampoline) are dropped. The
 * slower DWARF cursor is the fallback when the fast trace does not find the interrupted pc. */
static uint32_t unwind(void *ucontext, uint64_t *frames, uint32_t max, int *truncated)
{
    ucontext_t *uc = ucontext;
    uint64_t pc = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    void *raw[ROCSYS_MAX_FRAMES + 8];
    int n = unw_backtrace(raw, ROCSYS_MAX_FRAMES + 8);
    unw_cursor_t cursor;
    uint32_t out = 0;
    int step = 1;

    for (int i = 0; i < n && i < 8; i++) {
        if ((uint64_t)(uintptr_t)raw[i] != pc)
            continue;
        for (int k = i; k < n && out < max; k++)
            frames[out++] = (uint64_t)(uintptr_t)raw[k];
        *truncated = (n == ROCSYS_MAX_FRAMES + 8) || (n - i > (int)max);
        return out;
    }
    if (unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    while (out < max) {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || ip == 0)
            break;
        frames[out++] = (uint64_t)ip;
        step = unw_step(&cursor);
        if (step <= 0)
            break;
    }
    *truncated = (out == max && step > 0);
    return out;
}

/* Code ranges (libunwind's procedure bounds) learnt to run groups of Python frames: the
 * evaluation loop, named or not. A slot is claimed with lo = ~0 (matches nothing), then hi,
 * then lo are set. */
#define EVAL_RANGES 8
static _Atomic uint64_t eval_lo[EVAL_RANGES], eval_hi[EVAL_RANGES];

/* Whether pc lies in a learnt evaluation range. AS-safe. */
static int in_eval(uint64_t pc)
{
    for (int i = 0; i < EVAL_RANGES; i++) {
        uint64_t lo = atomic_load_explicit(&eval_lo[i], memory_order_acquire);
        if (!lo)
            break;
        if (pc >= lo && pc < atomic_load_explicit(&eval_hi[i], memory_order_relaxed))
            return 1;
    }
    return 0;
}

/* Remember the procedure holding pc (a frame that ran a group) as an evaluation range. AS-safe. */
static void learn_eval(uint64_t pc)
{
    unw_proc_info_t pi;

    if (in_eval(pc) ||
        unw_get_proc_info_by_ip(unw_local_addr_space, (unw_word_t)pc, &pi, NULL) < 0 ||
        pi.start_ip == 0 || pi.end_ip <= pi.start_ip)
        return;
    for (int i = 0; i < EVAL_RANGES; i++) {
        uint64_t zero = 0;
        if (atomic_compare_exchange_strong(&eval_lo[i], &zero, ~0ull)) {
            atomic_store_explicit(&eval_hi[i], (uint64_t)pi.end_ip, memory_order_relaxed);
            atomic_store_explicit(&eval_lo[i], (uint64_t)pi.start_ip, memory_order_release);
            return;
        }
        if (zero == (uint64_t)pi.start_ip)
            return; /* another thread learnt it */
    }
}

/* The cheap placement: when the sample has exactly as many native frames in learnt evaluation
 * ranges as there are groups, group j runs in the j-th of them (each evaluation call runs one
 * group; a call entering or leaving, without its entry frame linked, makes the counts differ).
 * 1 when placed. AS-safe. */
static int place_known(const uint64_t *frames, uint32_t nnative, uint64_t *py,
                       const struct py_at *at, uint32_t nat)
{
    uint32_t idx[PY_AT_MAX], m = 0;

    for (uint32_t k = 0; k < nnative; k++)
        if (in_eval(k ? frames[k] - 1 : frames[k])) { /* a return address: the call's pc */
            if (m == nat)
                return 0;
            idx[m++] = k;
        }
    if (m != nat)
        return 0;
    for (uint32_t j = 0; j < nat; j++)
        py[at[j].pos] = ROCSYS_PY_AT(idx[j]);
    return 1;
}

void collector_python_place_known(const uint64_t *frames, uint32_t nnative, uint64_t *py,
                                  const struct py_at *at, uint32_t nat)
{
    if (nat)
        (void)place_known(frames, nnative, py, at, nat);
}

/* Fill in the PY_AT words of the Python groups listed in at (innermost first, so at rising
 * addresses): the native frame whose stack range [its SP, its caller's SP) holds a group's entry
 * frame runs that group. From learnt code ranges when they account for every group, else from
 * the stack pointers of libunwind's DWARF cursor (the fast trace keeps none), whose frame k is
 * the sample's native frame k - cut (cut: frames a GPU wait took out above), checked by
 * address; the procedures found there are learnt. Groups left unplaced keep
 * ROCSYS_PY_AT_UNKNOWN. AS-safe. */
static __attribute__((noinline)) void place_groups(void *ucontext, const uint64_t *frames,
                                                   uint32_t nnative, uint32_t cut, uint64_t *py,
                                                   const struct py_at *at, uint32_t nat)
{
    unw_cursor_t cursor;
    unw_word_t ip = 0, sp = 0, caller_sp = 0;
    uint32_t j = 0;

    if (place_known(frames, nnative, py, at, nat))
        return;
    if (unw_init_local2(&cursor, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) < 0 ||
        unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0 || unw_get_reg(&cursor, UNW_REG_SP, &sp) < 0)
        return;
    for (uint32_t k = 0; j < nat && k < cut + nnative; k++) {
        unw_word_t next_ip = 0;
        if (unw_step(&cursor) <= 0 || unw_get_reg(&cursor, UNW_REG_SP, &caller_sp) < 0 ||
            unw_get_reg(&cursor, UNW_REG_IP, &next_ip) < 0 || caller_sp <= sp)
            return;
        for (; j < nat && at[j].addr < caller_sp; j++) {
            uint32_t i = k - cut; /* the sample's index of cursor frame k */
            if (at[j].addr >= sp && (cut == 0 || k > cut) && frames[i] == (uint64_t)ip) {
                py[at[j].pos] = ROCSYS_PY_AT(i);
                learn_eval(k ? (uint64_t)ip - 1 : (uint64_t)ip);
            }
        }
        ip = next_ip;
        sp = caller_sp;
    }
}

static struct sigaction previous; /* the signal's handler before ours, or the program's since */
static int sampling_installed;    /* our handler holds the sampling signal */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;

/* libc's sigaction (python.c's interposed one stands in front of it). */
static int libc_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (!real_sigaction)
        real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (!real_sigaction) {
        errno = ENOSYS;
        return -1;
    }
    return real_sigaction(sig, act, old);
}

int collector_sampler_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    sigset_t one, saved;

    if (!sampling_installed || sig != collector_g.signo)
        return 0;
    sigemptyset(&one);
    sigaddset(&one, sig);
    pthread_sigmask(SIG_BLOCK, &one, &saved);      /* the handler reads previous */
    struct sigaction next = act ? *act : previous; /* act and old may be the same */
    if (old)
        *old = previous;
    previous = next;
    pthread_sigmask(SIG_SETMASK, &saved, NULL);
    return 1;
}

/* Pass a signal that is not ours to the handler that was installed before ours. */
static void chain(int sig, siginfo_t *si, void *ucontext)
{
    if (previous.sa_handler == SIG_DFL || previous.sa_handler == SIG_IGN)
        return; /* (the union's other member: test it before SA_SIGINFO) */
    if (previous.sa_flags & SA_SIGINFO)
        previous.sa_sigaction(sig, si, ucontext);
    else
        previous.sa_handler(sig);
}

/* Take the sampling signals already pending for this thread (the handler blocks them): they
 * would interrupt the very context this sample describes, so they count as its weight (the
 * periods they stand for) instead of running the handler again on the same stack. Someone
 * else's use of the signal is passed on now. Returns the periods taken. AS-safe. */
static uint32_t absorb_pending(struct collector_thread *ts, void *ucontext)
{
    struct timespec zero = {0, 0};
    sigset_t one;
    siginfo_t si;
    uint32_t periods = 0;

    sigemptyset(&one);
    sigaddset(&one, collector_g.signo);
    /* the system call itself: glibc's sigtimedwait is a cancellation point */
    while (periods < 65535 && syscall(SYS_rt_sigtimedwait, &one, &si, &zero, (size_t)(_NSIG / 8)) ==
                                  collector_g.signo) {
        if (ts->has_perf && si.si_fd == ts->perf_fd && si.si_code == POLL_IN) {
            struct perf_event_mmap_page *mp = ts->perf_page;
            uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
            __atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
            periods++;
        } else if (si.si_code == SI_TIMER && si.si_value.sival_int == (int)TIMER_MAGIC) {
            periods += si.si_overrun >= 65534 ? 65535 : 1 + (uint32_t)si.si_overrun;
        } else {
            chain(collector_g.signo, &si, ucontext);
        }
    }
    return periods;
}

/* The sampling signal handler. */
static void on_sample(int sig, siginfo_t *si, void *ucontext)
{
    struct collector_thread *ts = &collector_tls;
    int saved_errno = errno;
    struct rocsys_rec_sample *rec;
    struct py_announce ann[PY_ANNOUNCE_MAX];
    uint64_t t0 = collector_now_ns(), c0 = 0, c1;
    uint32_t weight = 1, flags = collector_g.wall ? ROCSYS_SAMPLE_WALL : 0;
    int truncated = 0, measure, ours = 1;
    sig_atomic_t prev_unwinding;
    uint32_t nregions, nframes, unwound, npy, nann = 0, nat = 0;
    uint64_t py_at = 0;
    struct py_at at[PY_AT_MAX];

    if (collector_causal_signal(si)) { /* a hit of the --progress breakpoint (causal.c) */
        errno = saved_errno;
        return;
    }
    if (ts->has_perf && si->si_fd == ts->perf_fd && si->si_code == POLL_IN) {
        /* consume the kernel's records so that the ring never fills (a full ring would stop
         * the wakeups, and so the signals) */
        struct perf_event_mmap_page *mp = ts->perf_page;
        uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
        __atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
        if (ts->perf_cycles)
            flags |= ROCSYS_SAMPLE_CYCLES;
        if (ts->perf_user)
            flags |= ROCSYS_SAMPLE_USER_ONLY;
    } else if (si->si_code == SI_TIMER && si->si_value.sival_int == (int)TIMER_MAGIC) {
        weight = si->si_overrun >= 65534 ? 65535 : 1 + (uint32_t)si->si_overrun;
        if (!collector_g.wall)
            flags |= ROCSYS_SAMPLE_TICK;
    } else {
        chain(sig, si, ucontext); /* not our timer: somebody else's use of the signal */
        ours = 0;
        goto out;
    }
    if (ts->busy && ts->capturing && collector_g.enabled && ts->active &&
        !collector_regions_paused()) { /* a launch stack is being captured: written after it */
        ts->missed_weight += weight;
        goto out;
    }
    if (!collector_g.enabled || !ts->active || ts->busy || collector_regions_paused())
        goto out;
    if (atomic_load_explicit(&collector_g.unmapping, memory_order_acquire)) {
        /* a library is being unmapped: the unwinder's snapshot may still list it */
        if (ts->ring.ctl)
            atomic_fetch_add_explicit(&ts->ring.ctl->dropped_samples, 1, memory_order_relaxed);
        goto out;
    }
    ts->busy = 1;
    measure = (ts->samples_taken++ % COLLECTOR_COST_STRIDE) == 0;
    if (measure)
        c0 = collector_now_ns();
    if (!ts->ring.ctl && collector_thread_claim_late(ts) != 0) {
        /* every ring is taken (the front end is behind): a counted drop */
        ts->lost_no_ring = 1;
        atomic_fetch_add_explicit(&collector_g.transport.hdr->dropped_no_ring, 1,
                                  memory_order_relaxed);
        ts->busy = 0;
        goto out;
    }
    /* the record is written in place: native frames, Python frames, the open user regions
     * (room is kept for them above the outermost native frame) */
    rec = transport_reserve(&ts->ring, SAMPLE_MAX_BYTES);
    if (!rec) {
        atomic_fetch_add_explicit(&ts->ring.ctl->dropped_samples, 1, memory_order_relaxed);
        ts->busy = 0;
        goto out;
    }
    nregions = collector_regions_depth();
    if (collector_unwind_begin(ts, &prev_unwinding) != 0) {
        /* another thread is about to fork: the thread's next sample carries this one's weight
         * (a short while: the fork waits for no one but unwinds under way) */
        ts->fork_weight += weight;
        ts->busy = 0;
        goto out;
    }
    if (ts->fork_weight) {
        weight = weight + ts->fork_weight > 65535 ? 65535 : weight + ts->fork_weight;
        ts->fork_weight = 0;
    }
    nframes = unwind(ucontext, rec->frames, ROCSYS_MAX_FRAMES - nregions, &truncated);
    collector_unwind_end(ts, prev_unwinding);
    unwound = nframes;
    if (ts->wait_frame) /* inside a wrapped call that waits (the device, other ranks) */
        nframes = collector_wait_frames(rec->frames, nframes, ts->wait_frame);
    /* Python memory is read under the fault guard: not while the program blocks the faults */
    if (!sigismember(&((ucontext_t *)ucontext)->uc_sigmask, SIGSEGV) &&
        !sigismember(&((ucontext_t *)ucontext)->uc_sigmask, SIGBUS))
        npy = collector_python_frames(rec->frames + nframes, ROCSYS_MAX_PY_FRAMES, &flags, ann,
                                      &nann, at, &nat);
    else
        npy = 0;
    /* --causal: where the innermost Python frame is (0: none, or its code is not known) */
    uint32_t in = rocsys_py_innermost(rec->frames + nframes, npy);
    if (in < npy && rocsys_py_code_known(rec->frames[nframes + in]))
        py_at = ROCSYS_PY_AT_KEY(rec->frames[nframes + in]);
    /* the native frames that run the groups (the cursor too reads the snapshot) */
    if (nat && collector_unwind_begin(ts, &prev_unwinding) == 0) {
        place_groups(ucontext, rec->frames, nframes, unwound - nframes, rec->frames + nframes, at,
                     nat);
        collector_unwind_end(ts, prev_unwinding);
    }
    nframes += npy;
    flags |= npy ? ROCSYS_SAMPLE_PYTHON : 0;
    if (nregions) {
        nregions = collector_regions_frames(rec->frames + nframes, nregions);
        nframes += nregions;
        flags |= nregions ? ROCSYS_SAMPLE_REGIONS : 0;
    }
    /* a handler that took a good part of the period (a deep stack, a slow or loaded machine):
     * its own CPU time counts towards the period, so the next signal may be pending already.
     * Delivered, it would run the handler again at once on the same stack; a handler that
     * costs more than the period would so be re-entered for ever (the thread makes no
     * progress, and a SIGTERM to the process waits behind its private signals). Those
     * signals are this sample's weight instead. */
    if (collector_now_ns() - t0 >= collector_g.period_ns / 4) {
        weight += absorb_pending(ts, ucontext);
        if (weight > 65535)
            weight = 65535;
    }
    rec->nframes = (uint16_t)nframes;
    rec->weight = (uint16_t)weight;
    rec->h.type = ROCSYS_REC_SAMPLE;
    rec->h.flags = (uint16_t)(flags | (truncated ? ROCSYS_SAMPLE_TRUNCATED : 0));
    rec->h.size = (uint32_t)(sizeof(*rec) + 8u * nframes);
    rec->time_ns = t0;
    /* measured on CLOCK_MONOTONIC (vDSO, ~20 ns a read): the thread's CPU clock is a system
     * call whose own cost (~0.6 us for a pair in a VM) would dwarf what it measures; a rare
     * preemption inside the handler shows in the p99, not in the median */
    c1 = measure ? collector_now_ns() : c0;
    rec->cost_ns = measure ? (uint32_t)(c1 > c0 ? c1 - c0 : 1) : 0;
    transport_commit(&ts->ring, rec->h.size);
    if (measure) {
        atomic_fetch_add_explicit(&ts->ring.ctl->sample_cost_ns, rec->cost_ns,
                                  memory_order_relaxed);
        atomic_fetch_add_explicit(&ts->ring.ctl->cost_measured, 1, memory_order_relaxed);
    }
    /* code objects seen for the first time: described after the sample (they stay alive: this
     * thread's frames hold them, and the thread is here) */
    if (nann)
        collector_python_announce(&ts->ring, ann, nann);
    ts->busy = 0;
out:
    if (ours) /* --causal: the sample's delay, what the thread owes (causal.c), kept or not */
        collector_causal_sample(ts, ucontext, weight, t0, py_at);
    errno = saved_errno;
}

/* Make the thread's trace cache now, in normal context. The unwind reads the loader snapshot
 * as the handler's do: libunwind holds its cache lock while it looks for unwind tables, and a
 * thread whose handler waits for that lock may hold the loader's (interrupted inside
 * dl_iterate_phdr): MPICH's UCX, scanning objects while its progress thread started, hung so. */
void collector_sampler_warm(void)
{
    struct collector_thread *ts = &collector_tls;
    sig_atomic_t prev;
    void *frames[4];

    if (collector_unwind_begin(ts, &prev) != 0)
        return; /* another thread forks: the first sample makes the cache instead */
    unw_backtrace(frames, 4);
    collector_unwind_end(ts, prev);
}

int collector_sampler_install(void)
{
    struct sigaction sa;
    const char *env = getenv("ROCSYS_SIGNAL");

    collector_g.signo = SIGRTMIN + SAMPLE_SIGNAL_OFFSET;
    if (env && atoi(env) >= SIGRTMIN && atoi(env) <= SIGRTMAX)
        collector_g.signo = atoi(env);
    /* a cache shared by all threads: its lock is only ever taken inside libunwind with all
     * signals blocked, and no holder waits for the loader (every unwind of ours reads the
     * snapshot: `unwinding`), so no cycle can form; without a cache, the fast trace is off and
     * a sample costs ~40 us (a program's own libunwind calls are outside this rule) */
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_GLOBAL);
    /* what the front end chose (--cpu-timer); POSIX timers when it said nothing */
    char pk[16];
    collector_g.perf_kind = COLLECTOR_PERF_NONE;
    collector_g.perf_user = 0;
    if (collector_session_get("timer", pk, sizeof(pk)) == 0 && strcmp(pk, "perf") == 0)
        collector_g.perf_kind = COLLECTOR_PERF_CYCLES;
    collector_g.no_timer =
        collector_session_get("timer", pk, sizeof(pk)) == 0 && strcmp(pk, "none") == 0;
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
    /* nothing may interrupt the handler (a target's SIGALRM handler that siglongjmps would
     * leave it half done), but for the synchronous faults: a fault in a guarded read of Python
     * memory must reach the guard (a fault whose signal is blocked kills the process) */
    sigfillset(&sa.sa_mask);
    sigdelset(&sa.sa_mask, SIGSEGV);
    sigdelset(&sa.sa_mask, SIGBUS);
    sigdelset(&sa.sa_mask, SIGILL);
    sigdelset(&sa.sa_mask, SIGFPE);
    sigdelset(&sa.sa_mask, SIGTRAP);
    if (libc_sigaction(collector_g.signo, &sa, &previous) != 0)
        return -errno;
    sampling_installed = 1;
    return 0;
}

/* CPU mode: a perf event on the calling thread that raises the sampling signal in it at the
 * sampling rate of its CPU time: kind COLLECTOR_PERF_CYCLES (the cycle counter in frequency
 * mode: overflow interrupts of the PMU, cheapest where there is one) or COLLECTOR_PERF_TASK_CLOCK
 * (an hrtimer on the thread's CPU time); user_only where kernel samples are refused
 * (perf_event_paranoid >= 2 without CAP_PERFMON). Returns 0 or -errno. */
static int start_perf(struct collector_thread *ts, int kind, int user_only)
{
    struct perf_event_attr pe;
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = (pid_t)ts->tid};
    int fd, e;

    memset(&pe, 0, sizeof(pe));
    pe.size = sizeof(pe);
    if (kind == COLLECTOR_PERF_CYCLES) {
        pe.type = PERF_TYPE_HARDWARE;
        pe.config = PERF_COUNT_HW_CPU_CYCLES;
        pe.freq = 1; /* the kernel adapts the period to hit sample_freq per second of CPU */
        pe.sample_freq = 1000000000ull / collector_g.period_ns;
    } else {
        pe.type = PERF_TYPE_SOFTWARE;
        pe.config = PERF_COUNT_SW_TASK_CLOCK;
        pe.sample_period = collector_g.period_ns;
    }
    pe.disabled = 1;
    pe.wakeup_events = 1; /* a wakeup, so a signal, at every overflow */
    pe.sample_type = 0;   /* the records carry nothing: they only trigger the wakeups */
    /* kernel time counts too (as with CPU-time timers): a thread in a syscall is sampled at
     * its user-space stack when it returns; user_only: a sample due in the kernel is skipped */
    pe.exclude_kernel = (unsigned)user_only;
    pe.exclude_hv = (unsigned)user_only;
    fd = (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return -errno;
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETSIG, collector_g.signo) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        ioctl(fd, PERF_EVENT_IOC_RESET, 0) != 0) {
        e = errno;
        close(fd);
        return -e;
    }
    ts->perf_page = mmap(NULL, 2 * PERF_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ts->perf_page == MAP_FAILED) {
        e = errno; /* e.g. over kernel.perf_event_mlock_kb for an unprivileged user */
        close(fd);
        return -e;
    }
    if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        e = errno;
        munmap(ts->perf_page, 2 * PERF_PAGE);
        close(fd);
        return -e;
    }
    /* the mapping keeps the event (and its signal settings) alive: the fd goes, so that the
     * target's file-descriptor table holds nothing of ours (daemons close all fds; limits) */
    close(fd);
    ts->perf_fd = fd; /* the number signals still carry in si_fd */
    ts->has_perf = 1;
    ts->perf_cycles = (kind == COLLECTOR_PERF_CYCLES);
    ts->perf_user = user_only;
    return 0;
}

int collector_sampler_start_thread(struct collector_thread *ts)
{
    if (collector_g.no_timer)
        return -ENOTSUP; /* sampled from outside: no timer, no signal in this thread */
    /* CPU mode: the first kind that works here is used from then on */
    while (!collector_g.wall && collector_g.perf_kind != COLLECTOR_PERF_NONE) {
        int rc = start_perf(ts, collector_g.perf_kind, collector_g.perf_user);
        if (rc == 0)
            return 0;
        if ((rc == -EACCES || rc == -EPERM) && !collector_g.perf_user) {
            collector_g.perf_user = 1; /* kernel samples refused: the same kind, user time */
            continue;
        }
        collector_g.perf_kind = collector_g.perf_kind == COLLECTOR_PERF_CYCLES
                                    ? COLLECTOR_PERF_TASK_CLOCK
                                    : COLLECTOR_PERF_NONE;
    }
    struct sigevent sev;
    struct itimerspec its;
    uint64_t first;

    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = collector_g.signo;
    sev.sigev_value.sival_int = (int)TIMER_MAGIC;
    sev._sigev_un._tid = (pid_t)ts->tid;
    if (timer_create(collector_g.wall ? CLOCK_MONOTONIC : CLOCK_THREAD_CPUTIME_ID, &sev,
                     &ts->timer) != 0)
        return -errno;
    ts->has_timer = 1;
    /* spread first expiries so that threads are not sampled in lock-step */
    first = collector_g.period_ns / 2 + (ts->tid * 7919ull) % collector_g.period_ns;
    ts->timer_grid_ns = collector_now_ns() + first; /* (the kernel reads its clock just after) */
    its.it_value.tv_sec = (time_t)(first / 1000000000ull);
    its.it_value.tv_nsec = (long)(first % 1000000000ull);
    its.it_interval.tv_sec = (time_t)(collector_g.period_ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(collector_g.period_ns % 1000000000ull);
    if (timer_settime(ts->timer, 0, &its, NULL) != 0) {
        int e = errno;
        ts->timer_grid_ns = 0;
        timer_delete(ts->timer);
        ts->has_timer = 0;
        return -e;
    }
    return 0;
}

void collector_sampler_stop_thread(struct collector_thread *ts)
{
    collector_causal_thread_end();
    if (ts->has_perf) {
        ts->has_perf = 0;
        munmap(ts->perf_page, 2 * PERF_PAGE); /* the last reference: the event goes */
    }
    if (ts->has_timer) {
        timer_delete(ts->timer);
        ts->has_timer = 0;
    }
}
