/* Private header of the injected collector (librocsys-collector.so).
 * Everything here runs inside someone else's process: functions marked "AS-safe" may be called
 * from the sampling signal handler: no allocation, no locks of ours, no stdio, no exit. */
#ifndef ROCSYS_COLLECTOR_COLLECTOR_H
#define ROCSYS_COLLECTOR_COLLECTOR_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "transport.h"

#define COLLECTOR_EXPORT __attribute__((visibility("default")))

/* What raises CPU-mode samples, best first; NONE = POSIX CPU-time timers. */
enum { COLLECTOR_PERF_NONE = 0, COLLECTOR_PERF_TASK_CLOCK = 1, COLLECTOR_PERF_CYCLES = 2 };

/* Per-thread state, in static TLS (initial-exec) so the signal handler can reach it safely. */
struct collector_thread {
    struct transport_ring ring; /* ring.ctl == NULL: this thread has no ring */
    timer_t timer;
    int has_timer;
    int perf_fd; /* task-clock perf event raising the signal (CPU mode), if has_perf */
    int has_perf;
    void *perf_page;              /* its mmap'ed ring (metadata page + one data page) */
    int perf_cycles;              /* the event counts cycles (else task-clock) */
    int perf_user;                /* the event counts user time only (kernel samples refused) */
    volatile sig_atomic_t active; /* sampling enabled for this thread */
    volatile sig_atomic_t busy;   /* a record is being written: the handler must not */
    uint32_t tid;
    uint32_t samples_taken; /* for measuring the cost of every COLLECTOR_COST_STRIDE-th */
    /* inside libunwind (handler or not): dl_iterate_phdr answers from the snapshot, so no holder
     * of libunwind's cache lock ever waits for the loader's lock */
    volatile sig_atomic_t unwinding;
    void *altstack;                     /* our alternate signal stack, if we installed one */
    volatile sig_atomic_t lost_no_ring; /* a sample or record was lost: no ring was free */
    volatile sig_atomic_t capturing;    /* a launch stack is being captured (busy is set) */
    volatile uint64_t wait_frame;       /* inside a wrapped call that waits: its wait leaf
                                           (ROCSYS_WAIT_FRAME), 0: none */
    volatile uint32_t missed_weight;    /* periods of the samples that came meanwhile */
    uint32_t fork_weight;   /* periods of samples held back while another thread forked: the
                               thread's next sample carries them */
    uint64_t timer_grid_ns; /* wall mode: a time its timer expires at (every period from it) */
};

/* Process-wide state, set once at start (and after fork). */
struct collector_global {
    volatile sig_atomic_t enabled; /* 0: dormant (no session, disabled, or shutting down) */
    struct transport transport;
    uint32_t pid;
    uint32_t ppid; /* the process that started this one (the forking one, even once gone) */
    uint32_t instance;
    int wall;               /* 1: wall-clock timers, 0: thread CPU-time timers */
    int no_timer;           /* timer=none: the front end samples from outside (perf events) */
    volatile int perf_kind; /* CPU mode: the perf event kind that works here (COLLECTOR_PERF_*) */
    volatile int perf_user; /* ... counting user time only: kernel samples are refused */
    int follow;             /* profile children */
    int signo;              /* the sampling signal */
    uint64_t period_ns;     /* 1e9 / frequency */
    int log_fd;             /* debug log, -1 if none */
    char exe[ROCSYS_MAX_PATH];
    _Atomic uint64_t module_generation; /* last module-map generation reported */
    volatile uint32_t helper_pid;       /* the process whose module helper thread runs */
    _Atomic int loader_users;           /* threads inside our loader wrappers right now */
    _Atomic int unmapping;              /* threads inside dlclose: samples are skipped */
    _Atomic int unwinders;              /* unwinds of ours in libunwind right now */
    _Atomic int fork_pending;           /* a fork is waiting: the helper stays out of the loader */
    _Atomic int fork_now;               /* ... and is about to happen: no new unwind either */
    volatile uint32_t fork_tid;         /* the thread that forks (its own unwinds go on) */
    int unsafe_at_fork; /* another thread was in the loader or libunwind when we forked */
};

extern struct collector_global collector_g;
extern __thread struct collector_thread collector_tls __attribute__((tls_model("initial-exec")));

/* collector.c */
uint64_t collector_now_ns(void); /* AS-safe, CLOCK_MONOTONIC */
/* Value of KEY in ROCSYS_SESSION copied into out (NUL-terminated); -1 if absent. */
int collector_session_get(const char *key, char *out, size_t cap);
uint32_t collector_gettid(void); /* AS-safe */
void collector_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write a record into the calling thread's ring from normal (non-handler) context; when the
 * ring is full, wait for the front end to make room (bounded as for collector_write_any; then
 * a counted drop). -ENODEV when the thread has no ring. */
int collector_write_normal(const void *rec);
/* Send PROC_START for this process image: pid, parent, exe and argv (normal context). */
void collector_announce_process(uint32_t flags);

/* threads.c */
/* Set up the calling thread: ring, (PROC_START and module map for the first thread of a
 * process image), THREAD_START record, sampling timer. */
void collector_thread_begin(int first_in_process, uint32_t proc_flags);
/* Tear down the calling thread: timer, THREAD_EXIT record, ring release. */
void collector_thread_end(void);
int collector_threads_init(void);
/* Start a thread of the collector's own (not sampled), with the real pthread_create. */
int collector_thread_create_unsampled(pthread_t *thread, const pthread_attr_t *attr,
                                      void *(*fn)(void *), void *arg);
/* A thread that found no free ring at start tries again (from its sampling handler, or at exit,
 * with ts->busy set): claim one and announce the thread. Returns 0 or -EBUSY. AS-safe. */
int collector_thread_claim_late(struct collector_thread *ts);

/* sampler.c */
int collector_sampler_install(void);
/* The program's sigaction of the sampling signal once ours holds it: its handler is kept
 * aside, called for every use of the signal that is not ours, and read back as set; returns 1
 * (done), or 0 for any other signal. AS-safe. */
int collector_sampler_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* Create and arm the calling thread's timer (ts->tid must be set). Returns 0 or -errno. */
int collector_sampler_start_thread(struct collector_thread *ts);
/* Run libunwind once in normal context, so that its per-thread set-up (pthread keys, mmap)
 * never happens inside the handler. */
void collector_sampler_warm(void);
void collector_sampler_stop_thread(struct collector_thread *ts);
/* Enter libunwind on ts: until collector_unwind_end, its dl_iterate_phdr calls get the loader
 * snapshot (modules.c). *prev gets the flag as it was, for collector_unwind_end: an unwind begun
 * inside another one (the handler interrupting a launch stack's) leaves it set. Counted for
 * fork: libunwind's cache and pool locks, held by another thread at fork, would stay held in
 * the child, whose first sample would wait for them for ever; so while a fork is about to
 * happen no other thread begins one (-1: the caller does without) and the fork waits for those
 * under way. The forking thread's own unwinds end before its fork goes on. AS-safe. */
static inline int collector_unwind_begin(struct collector_thread *ts, sig_atomic_t *prev)
{
    atomic_fetch_add(&collector_g.unwinders, 1); /* seq_cst: before_fork sees it, or we see it */
    if (atomic_load(&collector_g.fork_now) && collector_g.fork_tid != ts->tid) {
        atomic_fetch_sub(&collector_g.unwinders, 1);
        return -1;
    }
    *prev = ts->unwinding;
    ts->unwinding = 1;
    return 0;
}
/* Leave libunwind on ts: the flag as collector_unwind_begin found it. AS-safe. */
static inline void collector_unwind_end(struct collector_thread *ts, sig_atomic_t prev)
{
    ts->unwinding = prev;
    atomic_fetch_sub(&collector_g.unwinders, 1);
}

/* modules.c */
/* Report the module map into ts's ring if it changed since the last report (or always, with
 * force). Normal context only: it enters the dynamic loader, which a signal handler must not
 * (the interrupted thread may hold the loader's lock, or be unmapping a library). */
void collector_modules_check(struct collector_thread *ts, int force);
/* Start the helper thread that reports dlopen/dlclose every COLLECTOR_MODULE_CHECK_NS
 * (normal context; once per process). */
void collector_modules_start_helper(void);
int collector_modules_init(void);
/* Take a snapshot of the loaded objects for the handler's unwinding (normal context). */
void collector_modules_snapshot(void);
#define COLLECTOR_MODULE_CHECK_NS 50000000ull
#define COLLECTOR_COST_STRIDE     16

/* regions.c (user regions: rocsys_user_*, ROCTx, rocprofsys_user_* interposed) */
/* The program stopped sampling (for the whole process or this thread): samples are skipped.
 * AS-safe. */
int collector_regions_paused(void);
/* Regions open on the calling thread (0..ROCSYS_REGION_DEPTH_MAX). AS-safe. */
uint32_t collector_regions_depth(void);
/* Append the calling thread's open regions as pseudo-frames (ROCSYS_REGION_FRAME), the
 * innermost first, at most room; returns how many. AS-safe: reads the thread's TLS only. */
uint32_t collector_regions_frames(uint64_t *out, uint32_t room);

/* causal.c (--causal: virtual speedups, progress points; see protocol.h) */
/* Count one progress point of kind ROCSYS_CAUSAL_PP_*. AS-safe. */
void collector_causal_progress(int kind);
/* A dispatch of kernel_object completed: a progress point if it is the --progress kernel's. */
void collector_causal_kernel_done(uint64_t kernel_object);
/* A latency point's arrival (end 0) or departure (end 1): counted and its time summed. */
void collector_causal_latency(int end);
/* A signal of the calling thread's --progress breakpoint: its hits counted; 1 if it was one.
 * AS-safe. */
int collector_causal_signal(const siginfo_t *si);
/* After a sample of weight periods: a pc in the experiment's ranges (or, for an experiment on
 * Python code, py_at: where the sample's innermost Python frame is, ROCSYS_PY_AT_KEY, 0 when
 * it has none) adds its delay; the thread pays what it owes. AS-safe. */
void collector_causal_sample(struct collector_thread *ts, void *ucontext, uint32_t weight,
                             uint64_t entry_ns, uint64_t py_at);
/* The thread ends: its breakpoint goes. */
void collector_causal_thread_end(void);

/* exec.c: find libc's exec functions (at start, before any fork) */
void collector_exec_init(void);

/* python.c (CPython frames) */
/* A code object a sample saw first, to announce after the sample is written. */
struct py_announce {
    uintptr_t code;
    uint32_t id;
};
#define PY_ANNOUNCE_MAX 64
/* A group of Python frames whose native frame is to be found: its PY_AT word at out[pos], its
 * entry frame at addr on the C stack (3.12+). */
struct py_at {
    uint32_t pos;
    uint64_t addr;
};
#define PY_AT_MAX 32
/* the largest SAMPLE record: native and region frames, then Python frames */
#define SAMPLE_MAX_BYTES                                                                           \
    (sizeof(struct rocsys_rec_sample) + 8u * (ROCSYS_MAX_FRAMES + ROCSYS_MAX_PY_FRAMES))
/* Look for CPython in the process (normal context; once it is found or known unsupported,
 * nothing more): layout, the fault guard, a PY_INFO record. */
void collector_python_check(void);
/* Stop reading Python frames if the fault guard is no longer installed for SIGSEGV or SIGBUS
 * (a handler set by a raw system call, bypassing our sigaction). Normal context. */
void collector_python_watch(void);
/* 1 once CPython was found and its frames can be read. AS-safe. */
int collector_python_active(void);
/* The calling thread's Python frames as ROCSYS_PY_FRAME pseudo-frames, innermost first, at
 * most room; or'es ROCSYS_SAMPLE_PYTSTATE / GIL / PY_DROPPED / TRUNCATED into *flags; code
 * objects seen for the first time are listed in ann (PY_ANNOUNCE_MAX); with at (PY_AT_MAX), the
 * groups whose entry frame is on the C stack get a PY_AT word to fill in, listed in at. AS-safe. */
uint32_t collector_python_frames(uint64_t *out, uint32_t room, uint32_t *flags,
                                 struct py_announce *ann, uint32_t *nann, struct py_at *at,
                                 uint32_t *nat);
/* Fill in the PY_AT words of a stack taken outside the sampling handler (a launch stack: native
 * frames, then the Python words py) from the evaluation code ranges the samples learnt; groups
 * it cannot place keep ROCSYS_PY_AT_UNKNOWN (placed by name in the front end). AS-safe. */
void collector_python_place_known(const uint64_t *frames, uint32_t nnative, uint64_t *py,
                                  const struct py_at *at, uint32_t nat);
/* Write PY_CODE records for the listed code objects into ring r (after the sample). AS-safe. */
void collector_python_announce(struct transport_ring *r, const struct py_announce *ann,
                               uint32_t nann);

/* launch_stack.c (the call stacks kernel launches come from) */
/* Find the collector's own code (normal context, at start). */
void collector_launch_init(void);
/* Capture the calling thread's call stack above the collector's frames (native, Python, user
 * regions) for a kernel launch, send it (LAUNCH_STACK) unless this thread sent it before, and
 * return its key; 0 when not captured. Normal context. */
uint64_t collector_launch_stack(void);
/* A sample's native frames (innermost first) taken while the thread waited inside a wrapped
 * call: the frames up to the collector's wrapper become the one wait leaf frame
 * (ROCSYS_WAIT_FRAME). The wrapper is the first frame in a COLLECTOR_WAIT_WRAPPER function, else
 * the first in the collector's code (a runtime may call back into the collector's other wrappers
 * inside the call: dlclose, pthread_create). Returns the new count. AS-safe. */
#define COLLECTOR_WAIT_WRAPPER __attribute__((section("rocsys_wait_wrap"), noinline))
uint32_t collector_wait_frames(uint64_t *frames, uint32_t n, uint64_t frame);
/* The calling thread begins to wait inside wrapped call id of wait kind kind (enum
 * rocsys_wait_kind) at t0: its samples until collector_wait_end are wait leaves (the perf
 * engine's by a GPU_WAIT record). Normal context; errno survives. */
void collector_wait_begin(int kind, int id, uint64_t t0);
/* The wait of the calling thread is over (its call's record follows). */
static inline void collector_wait_end(void)
{
    collector_tls.wait_frame = 0;
}
/* The OpenMP runtime is the object holding code address addr: an OpenMP wait's samples
 * (ROCSYS_WAIT_OMP) are cut at its innermost run of frames. Normal context, once. */
void collector_wait_omp_runtime(const void *addr);

/* write.c (records that must not be lost) */
/* Write a record that must not be lost from normal context on any thread: a thread the
 * collector never set up (one not started through our pthread_create, e.g. a runtime's helper,
 * or one that found every ring taken) claims a ring first, then writes with
 * collector_write_normal: when the ring is full it waits for the front end to make room: at most
 * COLLECTOR_WAIT_MAX_NS without a drain pass, 4 x that in all (then the record is a counted
 * drop). Returns 0 or -errno. */
int collector_write_any(const void *rec);
#define COLLECTOR_WAIT_MAX_NS 500000000ull
/* Write a name record (struct rocsys_rec_name of this type: key -> name, at most
 * ROCSYS_KERNEL_NAME_MAX bytes of it) with collector_write_any. */
void collector_write_name(uint32_t type, uint64_t key, const char *name, size_t len);

/* hip.c (HIP API interposition; the wrappers in hip_*.c) */
/* The correlation id of the HIP launch the calling thread is inside right now, or 0. */
uint64_t collector_hip_current_launch(void);

/* regions.c, for the tool interfaces of runtimes (ompt.c, kokkos.c): the name id of name
 * (interned; 0 when dormant or the table is full); push region id on the calling thread at
 * time_ns (0: now; its name announced first), pop its innermost region at time_ns (0: now); and
 * push / pop by name at the current time. Each returns the nesting level (pop: -1 when none is
 * open). */
uint32_t collector_region_id(const char *name);
int collector_region_push_id(uint32_t id, uint16_t source, uint64_t time_ns);
int collector_region_pop_at(uint16_t source, uint64_t time_ns);
int collector_region_push_name(const char *name, uint16_t source);
int collector_region_pop(uint16_t source);

#endif
