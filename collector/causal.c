/* Causal profiling inside the target (--causal; Curtsinger and Berger, "Coz: Finding Code that
 * Counts with Causal Profiling", SOSP 2015). The front end runs one experiment at a time
 * (protocol.h, struct rocsys_causal_ctl): code ranges and a virtual speedup. A sample whose pc
 * lies in the ranges adds speedup x (the time the sample stands for) to the sampled thread's own
 * delay count, and the global count becomes the largest of them; every thread whose own count
 * is behind the global one
 * sleeps the difference, at its next sample (in the handler: nanosleep is async-signal-safe)
 * and before it may wake another thread (mutex unlock, condition signal, semaphore post,
 * barrier). A thread that blocks in a wrapped call and is woken by another thread skips the
 * delays inserted meanwhile (the waker paid them); a timed wait that times out does not. The
 * wrappers are in librocsys-causal.so (causal_wrap.c), preloaded with --causal only: a program
 * profiled without it keeps libc's pthread calls untouched.
 * Progress points: the user API's marks and region ends, counted here, its latency points
 * (begin and end: their times summed, for Little's law), and the calls of the
 * --progress function, counted exactly by a hardware breakpoint (a perf event per thread whose
 * every hit raises the sampling signal; its ring holds one record per hit), and the completed
 * dispatches of the --progress kernel (counted by hsa.c's completion handler). */
#define _GNU_SOURCE
#include "collector.h"
#include "causal_api.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define CAUSAL_PAY_MAX_NS 1000000000ull /* one payment sleeps at most this long */
#define BP_PAGE           4096u

/* A thread's part of the experiment, in static TLS for the handler. */
struct causal_thread {
    _Atomic uint64_t local_ns;     /* delays this thread paid or is credited with */
    uint64_t pre_block_ns;         /* the global count when it blocked */
    volatile sig_atomic_t blocked; /* wrapped blocking calls the thread is in (nested: the
                                      unwinder's own locks, inside the sampling handler) */
    int init;                      /* local_ns started from the global count */
    uint64_t last_ns;              /* this thread's previous sample */
    uint64_t slept_ns;             /* delays it slept since */
    int bp_state;                  /* breakpoint: 0 not tried, 1 counting, -1 refused */
    int bp_fd;                     /* the number its signals carry in si_fd */
    void *bp_page;                 /* its ring: one record per hit */
    int sched_fd;                  /* /proc/thread-self/schedstat + 1 (0: not opened yet) */
    uint64_t run_delay_ns;         /* its run delay at its previous sample */
    uint64_t ring_wait_ns;         /* its ring's waited_ns at its previous sample */
    uint64_t wait_t0;              /* own clock: the ring wait its samples fell inside ... */
    uint64_t wait_cut_ns;          /* ... and how much of it they cut already */
};
static __thread struct causal_thread ct __attribute__((tls_model("initial-exec")));

/* The experiment block when causal mode runs in this process, else NULL. AS-safe. */
static struct rocsys_causal_ctl *ctl(void)
{
    struct rocsys_shm_header *h = collector_g.transport.hdr;

    if (!collector_g.enabled || !h || !h->causal.enabled || h->causal.pid != collector_g.pid)
        return NULL;
    return &h->causal;
}

/* Start the thread's own count at the global one (it owes nothing from before). AS-safe. */
static void thread_init(struct rocsys_causal_ctl *c)
{
    if (ct.init)
        return;
    atomic_store(&ct.local_ns, atomic_load(&c->global_delay_ns));
    ct.init = 1;
}

/* A thread whose own count is ahead of the global one (it ran the selected code) raises the
 * global count to its own: the others owe that much more. Two
 * threads running the selected code at once count once, as in Coz (the global count is the
 * largest, not the sum). AS-safe. */
static void push_global(struct rocsys_causal_ctl *c)
{
    uint64_t l = atomic_load(&ct.local_ns), g = atomic_load(&c->global_delay_ns);

    while (l > g && !atomic_compare_exchange_weak(&c->global_delay_ns, &g, l))
        ;
    if (l > g) { /* raised by l - g: the virtual time skips it, with what was in flight */
        uint64_t in =
            atomic_load_explicit(&c->progress[ROCSYS_CAUSAL_PP_BEGIN], memory_order_relaxed) -
            atomic_load_explicit(&c->progress[ROCSYS_CAUSAL_PP_END], memory_order_relaxed);
        if ((int64_t)in > 0)
            atomic_fetch_add_explicit(&c->skipped_area_ns, in * (l - g), memory_order_relaxed);
    }
}

/* Sleep the delays the calling thread owes. Its count is credited before (a sample arriving
 * during a sleep in normal context must not pay them again), and with what it slept beyond
 * that after, against its next delays. (Coz on Linux also raises the global count by such a
 * late wake-up, so that every other thread sleeps it too; on a loaded machine, where wake-ups
 * come milliseconds late, that feeds on itself: threads end up sleeping each other's delays.
 * Coz on macOS does not either.) AS-safe. */
static void pay(struct rocsys_causal_ctl *c)
{
    uint64_t g = atomic_load(&c->global_delay_ns), l = atomic_load(&ct.local_ns);
    struct timespec ts, rem;

    if (l >= g)
        return;
    uint64_t owed = g - l;
    atomic_fetch_add(&ct.local_ns, owed);
    if (owed > CAUSAL_PAY_MAX_NS)
        owed = CAUSAL_PAY_MAX_NS;
    ts.tv_sec = (time_t)(owed / 1000000000ull);
    ts.tv_nsec = (long)(owed % 1000000000ull);
    uint64_t t0 = collector_now_ns();
    /* the system call itself: glibc's nanosleep is a cancellation point */
    while (syscall(SYS_nanosleep, &ts, &rem) != 0 && errno == EINTR)
        ts = rem;
    uint64_t slept = collector_now_ns() - t0;
    if (slept > owed) /* woken late: credited against its next delays */
        atomic_fetch_add(&ct.local_ns, slept - owed);
    ct.slept_ns += slept;
    atomic_fetch_add_explicit(&c->paid_ns, slept, memory_order_relaxed);
}

void collector_causal_progress(int kind)
{
    struct rocsys_causal_ctl *c = ctl();

    if (c && kind >= 0 && kind < ROCSYS_CAUSAL_PP_COUNT)
        atomic_fetch_add_explicit(&c->progress[kind], 1, memory_order_relaxed);
}

void collector_causal_kernel_done(uint64_t kernel_object)
{
    struct rocsys_causal_ctl *c = ctl();

    if (!c)
        return;
    uint32_t n = atomic_load_explicit(&c->nkernels, memory_order_acquire);
    if (n > ROCSYS_CAUSAL_KERNELS)
        n = ROCSYS_CAUSAL_KERNELS;
    for (uint32_t i = 0; i < n; i++)
        if (c->kernel_object[i] == kernel_object) {
            atomic_fetch_add_explicit(&c->progress[ROCSYS_CAUSAL_PP_KERNEL], 1,
                                      memory_order_relaxed);
            return;
        }
}

void collector_causal_latency(int end)
{
    struct rocsys_causal_ctl *c = ctl();

    if (!c)
        return;
    /* the time first, then the count: a reader between the two sees the time without its
     * arrival (an area off by one event's age, once) */
    atomic_fetch_add_explicit(end ? &c->end_sum_ns : &c->begin_sum_ns, collector_now_ns(),
                              memory_order_relaxed);
    atomic_fetch_add_explicit(&c->progress[end ? ROCSYS_CAUSAL_PP_END : ROCSYS_CAUSAL_PP_BEGIN], 1,
                              memory_order_relaxed);
}

/* Arm the --progress breakpoint on the calling thread: a perf event of type breakpoint on the
 * function's first instruction, raising the sampling signal at every hit. AS-safe (system
 * calls only). */
static void arm_breakpoint(struct collector_thread *ts, struct rocsys_causal_ctl *c, uint64_t at)
{
    struct perf_event_attr pe;
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = (pid_t)ts->tid};
    int fd;

    memset(&pe, 0, sizeof(pe));
    pe.size = sizeof(pe);
    pe.type = PERF_TYPE_BREAKPOINT;
    pe.bp_type = HW_BREAKPOINT_X;
    pe.bp_addr = at;
    pe.bp_len = sizeof(long);
    pe.sample_period = 1;
    pe.wakeup_events = 1;
    pe.disabled = 1;
    pe.exclude_kernel = 1;
    pe.exclude_hv = 1;
    ct.bp_state = -1;
    fd = (int)syscall(SYS_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        atomic_store(&c->progress_err, errno ? errno : EINVAL);
        return;
    }
    if (ts->has_perf && fd == ts->perf_fd) { /* the sampler's closed number: tell them apart */
        int other = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
        close(fd);
        if (other < 0)
            return;
        fd = other;
    }
    ct.bp_page = mmap(NULL, 2 * BP_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ct.bp_page == MAP_FAILED || fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETSIG, collector_g.signo) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        atomic_store(&c->progress_err, errno ? errno : EINVAL);
        if (ct.bp_page != MAP_FAILED)
            munmap(ct.bp_page, 2 * BP_PAGE);
        ct.bp_page = NULL;
        close(fd);
        return;
    }
    ct.bp_fd = fd; /* kept open: another event of ours must not get its number */
    ct.bp_state = 1;
}

int collector_causal_signal(const siginfo_t *si)
{
    struct perf_event_mmap_page *mp = ct.bp_page;

    if (ct.bp_state != 1 || si->si_code != POLL_IN || si->si_fd != ct.bp_fd)
        return 0;
    uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
    uint64_t hits = (head - mp->data_tail) / sizeof(struct perf_event_header);
    __atomic_store_n(&mp->data_tail, head, __ATOMIC_RELEASE);
    struct rocsys_causal_ctl *c = ctl();
    if (c && hits)
        atomic_fetch_add_explicit(&c->progress[ROCSYS_CAUSAL_PP_FUNC], hits, memory_order_relaxed);
    return 1;
}

/* The calling thread's run delay (ns it waited for a CPU, the second field of
 * /proc/thread-self/schedstat), or (uint64_t)-1 when it cannot be read. AS-safe (open, pread). */
static uint64_t run_delay(void)
{
    char buf[96];
    uint64_t v = 0;
    ssize_t n;
    int i = 0;

    if (ct.sched_fd == 0) {
        int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        ct.sched_fd = fd < 0 ? -1 : fd + 1;
    }
    if (ct.sched_fd < 0 || (n = pread(ct.sched_fd - 1, buf, sizeof(buf) - 1, 0)) <= 0)
        return (uint64_t)-1;
    buf[n] = 0;
    while (buf[i] && buf[i] != ' ') /* the time on a CPU */
        i++;
    if (buf[i++] != ' ' || buf[i] < '0' || buf[i] > '9')
        return (uint64_t)-1;
    for (; buf[i] >= '0' && buf[i] <= '9'; i++)
        v = v * 10 + (uint64_t)(buf[i] - '0');
    return v;
}

/* With the program's own clock (protocol.h, own_clock): how much of the span since the
 * thread's previous sample it waited for a CPU. AS-safe. */
static uint64_t cpu_wait(void)
{
    uint64_t rd = run_delay(), w;

    if (rd == (uint64_t)-1)
        return 0;
    w = ct.run_delay_ns && rd > ct.run_delay_ns ? rd - ct.run_delay_ns : 0;
    ct.run_delay_ns = rd;
    return w;
}

void collector_causal_sample(struct collector_thread *ts, void *ucontext, uint32_t weight)
{
    struct rocsys_causal_ctl *c = ctl();
    uint64_t now, span, pc, at, prev;
    uint32_t seq, nr, pct;
    int hit = 0;

    if (!c)
        return;
    thread_init(c);
    at = atomic_load_explicit(&c->progress_addr, memory_order_relaxed);
    if (at && ct.bp_state == 0)
        arm_breakpoint(ts, c, at);
    now = collector_now_ns();
    /* the time this sample stands for: since the thread's previous sample (wall time: a thread
     * preempted in the function spends that time there too), but not the delays it slept
     * meanwhile; its first, its periods */
    span = (uint64_t)weight * collector_g.period_ns;
    if (ct.last_ns && now > ct.last_ns)
        span = now - ct.last_ns > ct.slept_ns ? now - ct.last_ns - ct.slept_ns : 0;
    prev = ct.last_ns ? ct.last_ns : now - span;
    ct.last_ns = now;
    ct.slept_ns = 0;
    if (atomic_load_explicit(&c->own_clock, memory_order_relaxed)) {
        /* not the program's time: its waits for a CPU, and its waits for room in the
         * collector's ring (the front end behind: the profiler's, not the program's): the part
         * of a running wait within the span (it began at ring.wait_t0), and the waits that
         * ended since (the ring's waited_ns), less what earlier samples inside them cut */
        uint64_t rw =
            ts->ring.ctl ? atomic_load_explicit(&ts->ring.ctl->waited_ns, memory_order_relaxed) : 0;
        uint64_t in_wait = ts->ring.wait_t0, cut = cpu_wait(), ended = 0;
        if (rw > ct.ring_wait_ns)
            ended = rw - ct.ring_wait_ns;
        ct.ring_wait_ns = rw;
        if (ct.wait_t0 && ct.wait_t0 != in_wait) { /* the wait samples fell inside ended */
            ended = ended > ct.wait_cut_ns ? ended - ct.wait_cut_ns : 0;
            ct.wait_t0 = ct.wait_cut_ns = 0;
        }
        cut += ended;
        if (in_wait && in_wait < now) {
            uint64_t part = now - (in_wait > prev ? in_wait : prev);
            if (ct.wait_t0 != in_wait)
                ct.wait_t0 = in_wait, ct.wait_cut_ns = 0;
            ct.wait_cut_ns += part;
            cut += part;
        }
        span = span > cut ? span - cut : 0;
        atomic_fetch_add_explicit(&c->own_ns, span, memory_order_relaxed);
        uint64_t in =
            atomic_load_explicit(&c->progress[ROCSYS_CAUSAL_PP_BEGIN], memory_order_relaxed) -
            atomic_load_explicit(&c->progress[ROCSYS_CAUSAL_PP_END], memory_order_relaxed);
        if ((int64_t)in > 0)
            atomic_fetch_add_explicit(&c->own_area_ns, in * span, memory_order_relaxed);
    } else {
        ct.run_delay_ns = 0; /* (a wait measured later starts from a fresh reading) */
        ct.ring_wait_ns =
            ts->ring.ctl ? atomic_load_explicit(&ts->ring.ctl->waited_ns, memory_order_relaxed) : 0;
        ct.wait_t0 = ct.wait_cut_ns = 0;
    }
    pc = (uint64_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];
    seq = atomic_load_explicit(&c->seq, memory_order_acquire);
    nr = c->nranges;
    pct = c->speedup_pct;
    for (uint32_t i = 0; i < nr && i < ROCSYS_CAUSAL_RANGES && !(seq & 1); i++)
        if (pc >= c->lo[i] && pc < c->hi[i])
            hit = 1;
    if (hit && atomic_load_explicit(&c->seq, memory_order_acquire) == seq) {
        uint64_t d = span * (pct > 100 ? 100 : pct) / 100;
        atomic_fetch_add(&ct.local_ns, d);
        push_global(c);
        atomic_fetch_add_explicit(&c->selected_samples, 1, memory_order_relaxed);
    }
    if (!ct.blocked)
        pay(c);
}

void collector_causal_thread_end(void)
{
    if (ct.sched_fd > 0) {
        close(ct.sched_fd - 1);
        ct.sched_fd = -1;
    }
    if (ct.bp_state == 1) {
        ct.bp_state = -1;
        munmap(ct.bp_page, 2 * BP_PAGE);
        close(ct.bp_fd);
    }
}

/* ---- blocking calls and wakeups (Coz's rules): called by librocsys-causal.so's wrappers of
 * the pthread and semaphore calls (causal_wrap.c), loaded with --causal only ---- */

/* Pay what is owed (not from inside a blocking call: the sampling handler's unwinder,
 * interrupting one, takes locks of its own). */
COLLECTOR_EXPORT void collector_causal_catch_up(void)
{
    struct rocsys_causal_ctl *c = ctl();
    if (c && !ct.blocked && !collector_tls.unwinding) {
        thread_init(c);
        pay(c);
    }
}

/* Count the thread as blocked; the outermost call notes the global count at its start. */
COLLECTOR_EXPORT int collector_causal_pre_block(void)
{
    struct rocsys_causal_ctl *c = ctl();
    if (!c)
        return 0;
    if (ct.blocked++ == 0) {
        thread_init(c);
        ct.pre_block_ns = atomic_load(&c->global_delay_ns);
    }
    return 1;
}

/* The outermost call ends: when another thread woke it, the delays inserted meanwhile are
 * credited (the block may have gone meanwhile: the count still drops). */
COLLECTOR_EXPORT void collector_causal_post_block(int skip)
{
    struct rocsys_causal_ctl *c = ctl();
    if (ct.blocked > 0 && --ct.blocked == 0 && skip && c)
        atomic_fetch_add(&ct.local_ns, atomic_load(&c->global_delay_ns) - ct.pre_block_ns);
}
