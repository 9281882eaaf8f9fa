/* Causal profiling inside the target (--causal; Curtsinger and Berger, "Coz: Finding Code that
 * Counts with Causal Profiling", SOSP 2015). The front end runs one experiment at a time
 * (protocol.h, struct rocsys_causal_ctl): code ranges and a virtual speedup. A sample whose pc
 * lies in the ranges (an experiment on Python code: whose innermost Python frame runs there,
 * ROCSYS_PY_AT_KEY) adds speedup x (the time the sample stands for) to the sampled thread's own
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

#define CAUSAL_PAY_MAX_NS  1000000000ull /* one payment sleeps at most this long */
#define BP_PAGE            4096u
#define CAUSAL_LATE_DIV    16 /* own clock: a signal this part of a period late came late */
#define CAUSAL_DECAY_SHIFT 8  /* own clock: the mean CPU time per sample on time, over ~256 */

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
    uint64_t cpu_ns;               /* its time on a CPU at its previous sample */
    uint64_t acc_run_ns;           /* own clock: its time on a CPU, decayed (own_attribution) */
    uint64_t acc_on_time;          /* ... and its samples on time, decayed, x 65536 */
    _Atomic uint64_t area_last_ns; /* own clock: the latency area is summed up to here */
    uint64_t rng;                  /* own clock: the next expiry's random draws (jitter_timer) */
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

static int sched_read(uint64_t *cpu_ns, uint64_t *delay_ns);

/* Own clock: the calling thread's own time at now, its run delay then being run_delay_ns: its
 * wall time less its waits for a CPU and for room in the collector's ring, as the samples'
 * spans. AS-safe. */
static uint64_t own_at(const struct collector_thread *ts, uint64_t now, uint64_t run_delay_ns)
{
    uint64_t rw =
        ts->ring.ctl ? atomic_load_explicit(&ts->ring.ctl->waited_ns, memory_order_relaxed) : 0;

    return now - run_delay_ns - rw;
}

/* Own clock: the calling thread's own time now, 0 when unknown. AS-safe. */
static uint64_t own_now_ns(const struct collector_thread *ts)
{
    uint64_t cpu, rd, now = collector_now_ns(); /* (first: as collector_causal_sample) */

    return sched_read(&cpu, &rd) == 0 ? own_at(ts, now, rd) : 0;
}

/* Own clock: the latency points' area (the count in flight x own time) up to own_now, exact:
 * at every begin and end, and at the samples (for the front end's reads between). A sampling
 * handler that runs inside moves the mark on: the compare-and-swap leaves its part to it.
 * AS-safe. */
static void area_accrue(struct rocsys_causal_ctl *c, uint64_t own_now)
{
    uint64_t last = atomic_load(&ct.area_last_ns);

    while (own_now > last && !atomic_compare_exchange_weak(&ct.area_last_ns, &last, own_now))
        ;
    if (own_now <= last || !last)
        return;
    uint64_t in = atomic_load_explicit(&c->progress[ROCSYS_CAUSAL_PP_BEGIN], memory_order_relaxed) -
                  atomic_load_explicit(&c->progress[ROCSYS_CAUSAL_PP_END], memory_order_relaxed);
    if ((int64_t)in > 0)
        atomic_fetch_add_explicit(&c->own_area_ns, in * (own_now - last), memory_order_relaxed);
}

void collector_causal_latency(int end)
{
    struct rocsys_causal_ctl *c = ctl();

    if (!c)
        return;
    /* an end with no begin counted (a stray one): counted, it would leave the count in flight
     * one low, and so every area, for the rest of the run */
    if (end && (int64_t)(atomic_load(&c->progress[ROCSYS_CAUSAL_PP_BEGIN]) -
                         atomic_load(&c->progress[ROCSYS_CAUSAL_PP_END])) <= 0)
        return;
    if (atomic_load_explicit(&c->own_clock, memory_order_relaxed)) {
        uint64_t own = own_now_ns(&collector_tls);
        if (own)
            area_accrue(c, own);
    }
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

/* Parse the decimal number at *p in buf, moving *p past it and one space; -1 if none. */
static uint64_t parse_u64(const char *buf, int *p)
{
    uint64_t v = 0;
    int i = *p;

    if (buf[i] < '0' || buf[i] > '9')
        return (uint64_t)-1;
    for (; buf[i] >= '0' && buf[i] <= '9'; i++)
        v = v * 10 + (uint64_t)(buf[i] - '0');
    *p = buf[i] == ' ' ? i + 1 : i;
    return v;
}

/* The calling thread's time on a CPU and its run delay (ns it waited for one): the first two
 * fields of /proc/thread-self/schedstat; 0, or -1 when they cannot be read. AS-safe (open,
 * pread). */
static int sched_read(uint64_t *cpu_ns, uint64_t *delay_ns)
{
    char buf[96];
    ssize_t n;
    int i = 0;

    if (ct.sched_fd == 0) {
        int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
        ct.sched_fd = fd < 0 ? -1 : fd + 1;
    }
    if (ct.sched_fd < 0 || (n = pread(ct.sched_fd - 1, buf, sizeof(buf) - 1, 0)) <= 0)
        return -1;
    buf[n] = 0;
    *cpu_ns = parse_u64(buf, &i);
    *delay_ns = parse_u64(buf, &i);
    return *cpu_ns == (uint64_t)-1 || *delay_ns == (uint64_t)-1 ? -1 : 0;
}

/* With the program's own clock (protocol.h, own_clock): how long, since the thread's previous
 * sample, it waited for a CPU (*wait_ns) and ran on one (*run_ns; -1: unknown). AS-safe. */
static void sched_since(uint64_t *wait_ns, uint64_t *run_ns)
{
    uint64_t cpu, rd;

    *wait_ns = 0;
    *run_ns = (uint64_t)-1;
    if (sched_read(&cpu, &rd) != 0)
        return;
    if (ct.run_delay_ns && rd > ct.run_delay_ns)
        *wait_ns = rd - ct.run_delay_ns;
    if (ct.cpu_ns && cpu >= ct.cpu_ns)
        *run_ns = cpu - ct.cpu_ns;
    ct.run_delay_ns = rd;
    ct.cpu_ns = cpu;
}

/* Own clock: whether the sampling signal came on time (the thread was on a CPU when its wall
 * timer expired, so it stopped at a point of its own run: a fair sample of where it spends its
 * time), and not late, after a wait for a CPU (then it stopped where it was preempted: far
 * more often at a system call than elsewhere, as reading a thread's CPU clock can end its time
 * slice). The timer expires every period from ts->timer_grid_ns. */
static int on_time(const struct collector_thread *ts, uint64_t entry_ns, uint32_t weight)
{
    uint64_t period = collector_g.period_ns;

    if (!collector_g.wall || !ts->timer_grid_ns || entry_ns < ts->timer_grid_ns || !period)
        return 1;
    return weight == 1 && (entry_ns - ts->timer_grid_ns) % period < period / CAUSAL_LATE_DIV;
}

/* Own clock: the part of the thread's own time since its previous sample (run_ns on a CPU,
 * blocked_ns off one without waiting for one) that the sample's pc stands for. A late sample's
 * pc says where the thread was preempted, not where it ran (on_time): the time it ran is counted
 * at the samples that came on time instead, each standing for the mean CPU time per such sample
 * (recent decayed sums, before this sample). The time a late sample's thread was blocked stays
 * with its pc: it was blocked there (a timer that expires in a blocking call interrupts it
 * there). AS-safe. */
static uint64_t own_attribution(uint64_t run_ns, uint64_t blocked_ns, int fair)
{
    uint64_t q = run_ns;

    if (ct.acc_on_time)
        q = (ct.acc_run_ns << 16) / ct.acc_on_time;
    ct.acc_run_ns += run_ns - (ct.acc_run_ns >> CAUSAL_DECAY_SHIFT);
    ct.acc_on_time += (fair ? 1u << 16 : 0) - (ct.acc_on_time >> CAUSAL_DECAY_SHIFT);
    return blocked_ns + (fair ? q : 0);
}

/* Own clock: set the thread's wall timer to expire next at a random time after its previous
 * expiry (0.5 to 1.5 periods: the mean period stays), whatever the thread did meanwhile. A
 * periodic timer keeps one phase against the scheduler's tick, at which a preempted thread gets
 * its CPU back: the thread's runs then hold expiries at the same offsets from their starts,
 * which are where it was preempted (a system call, after one function more often than after
 * another), and the samples on time favour the code that follows those points. Expiries drawn
 * from the previous expiry, not from the sample (which a wait may have delayed), do not depend
 * on when the thread runs: those that find it on a CPU fall anywhere in its runs (on_time).
 * Expiries already past (the thread was waiting) are skipped. AS-safe. */
static void jitter_timer(struct collector_thread *ts, uint64_t now)
{
    uint64_t period = collector_g.period_ns, next = ts->timer_grid_ns;
    struct itimerspec its;

    if (!collector_g.wall || !ts->has_timer || !period || !next)
        return;
    if (!ct.rng)
        ct.rng = (now ^ ((uint64_t)ts->tid << 32)) | 1;
    do {
        ct.rng ^= ct.rng >> 12; /* xorshift64* */
        ct.rng ^= ct.rng << 25;
        ct.rng ^= ct.rng >> 27;
        next += period / 2 + ((ct.rng * 0x2545f4914f6cdd1dull) >> 11) % period;
    } while (next <= now + period / 16);
    its.it_value.tv_sec = (time_t)(next / 1000000000ull);
    its.it_value.tv_nsec = (long)(next % 1000000000ull);
    its.it_interval.tv_sec = (time_t)(period / 1000000000ull);
    its.it_interval.tv_nsec = (long)(period % 1000000000ull);
    if (timer_settime(ts->timer, TIMER_ABSTIME, &its, NULL) == 0)
        ts->timer_grid_ns = next;
}

void collector_causal_sample(struct collector_thread *ts, void *ucontext, uint32_t weight,
                             uint64_t entry_ns, uint64_t py_at)
{
    struct rocsys_causal_ctl *c = ctl();
    uint64_t now, span, pc, at, prev, wait_ns = 0, run_ns = (uint64_t)-1;
    uint32_t seq, nr, pct, python;
    int hit = 0;

    if (!c)
        return;
    thread_init(c);
    at = atomic_load_explicit(&c->progress_addr, memory_order_relaxed);
    if (at && ct.bp_state == 0)
        arm_breakpoint(ts, c, at);
    int own = atomic_load_explicit(&c->own_clock, memory_order_relaxed) != 0;
    now = collector_now_ns();
    if (own) /* after the clock: reading schedstat can end the time slice, and the wait for a
              * CPU that follows is then in the next span and the next reading, both */
        sched_since(&wait_ns, &run_ns);
    /* the time this sample stands for: since the thread's previous sample (wall time: a thread
     * preempted in the function spends that time there too), but not the delays it slept
     * meanwhile; its first, its periods */
    span = (uint64_t)weight * collector_g.period_ns;
    if (ct.last_ns && now > ct.last_ns)
        span = now - ct.last_ns > ct.slept_ns ? now - ct.last_ns - ct.slept_ns : 0;
    prev = ct.last_ns ? ct.last_ns : now - span;
    ct.last_ns = now;
    ct.slept_ns = 0;
    if (own) {
        /* not the program's time: its waits for a CPU, and its waits for room in the
         * collector's ring (the front end behind: the profiler's, not the program's): the part
         * of a running wait within the span (it began at ring.wait_t0), and the waits that
         * ended since (the ring's waited_ns), less what earlier samples inside them cut */
        uint64_t rw =
            ts->ring.ctl ? atomic_load_explicit(&ts->ring.ctl->waited_ns, memory_order_relaxed) : 0;
        uint64_t in_wait = ts->ring.wait_t0, cut = wait_ns, ended = 0;
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
        if (run_ns != (uint64_t)-1) {
            /* the time it ran, and the time a late sample's thread was blocked (on_time): the
             * span less the time it ran, which on a sample on time is only the noise of
             * reading two clocks one after the other (a CPU-bound program measured itself
             * 12 % more own time than CPU time, summing those differences cut at 0) */
            int fair = on_time(ts, entry_ns, weight);
            uint64_t blocked = !fair && span > run_ns ? span - run_ns : 0;
            atomic_fetch_add_explicit(&c->own_ns, run_ns + blocked, memory_order_relaxed);
            span = own_attribution(run_ns, blocked, fair);
        } else {
            atomic_fetch_add_explicit(&c->own_ns, span, memory_order_relaxed);
        }
        if (run_ns != (uint64_t)-1) /* the latency points' area: exact, on that clock */
            area_accrue(c, own_at(ts, now, ct.run_delay_ns));
    } else {
        uint64_t waited = 0, ran = (uint64_t)-1;
        if (collector_g.wall)
            sched_since(&waited, &ran);
        else
            ct.run_delay_ns = ct.cpu_ns = 0; /* (a wait measured later: from a fresh reading) */
        atomic_store(&ct.area_last_ns, 0);
        ct.ring_wait_ns =
            ts->ring.ctl ? atomic_load_explicit(&ts->ring.ctl->waited_ns, memory_order_relaxed) : 0;
        ct.wait_t0 = ct.wait_cut_ns = 0;
        if (ran != (uint64_t)-1) {
            /* several threads, wall time: the span stays wall time (its waits for a CPU too),
             * but a late sample's pc is where the thread was preempted, not where it ran (as
             * on the own clock): the time it was runnable is counted at the samples on time
             * (each the mean runnable time per such sample), a late one keeps only the time
             * it was blocked. (Counted at the late samples' pcs, under load stage_a_rest got
             * more of stage A's samples than stage_a_main, for 40 % of its work against 60.) */
            int fair = on_time(ts, entry_ns, weight);
            uint64_t runnable = ran + waited;
            uint64_t blocked = !fair && span > runnable ? span - runnable : 0;
            span = own_attribution(runnable, blocked, fair);
        }
    }
    pc = (uint64_t)((ucontext_t *)ucontext)->uc_mcontext.gregs[REG_RIP];
    seq = atomic_load_explicit(&c->seq, memory_order_acquire);
    nr = c->nranges;
    pct = c->speedup_pct;
    python = c->python;
    if (python) /* Python code: where the sample's innermost Python frame is */
        pc = py_at ? py_at : UINT64_MAX;
    for (uint32_t i = 0; i < nr && i < ROCSYS_CAUSAL_RANGES && !(seq & 1); i++)
        if (pc >= c->lo[i] && pc < c->hi[i])
            hit = 1;
    if (hit && atomic_load_explicit(&c->seq, memory_order_acquire) == seq) {
        uint64_t d = span * (pct > 100 ? 100 : pct) / 100;
        atomic_fetch_add(&ct.local_ns, d);
        push_global(c);
        atomic_fetch_add_explicit(&c->selected_samples, 1, memory_order_relaxed);
    }
    jitter_timer(ts, collector_now_ns()); /* (wall time only) */
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
