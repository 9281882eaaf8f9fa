/* Call-stack sampling: a per-thread POSIX timer (thread CPU time or wall time) raises a
 * real-time signal in that thread; the handler unwinds with libunwind and writes one SAMPLE
 * record into the thread's ring. Async-signal-safe, no allocation, never blocks. */
#define _GNU_SOURCE
#define UNW_LOCAL_ONLY
#include "collector.h"

#include <errno.h>
#include <libunwind.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#define SAMPLE_SIGNAL_OFFSET 6 /* SIGRTMIN + 6, overridable with ROCSYS_SIGNAL */
#define TIMER_MAGIC          0x726f6373u

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

/* The sampling signal handler. */
static void on_sample(int sig, siginfo_t *si, void *ucontext)
{
    struct collector_thread *ts = &collector_tls;
    int saved_errno = errno;
    union {
        struct rocsys_rec_sample rec;
        uint8_t bytes[sizeof(struct rocsys_rec_sample) + 8 * ROCSYS_MAX_FRAMES];
    } u;
    uint64_t t0, t1;
    int truncated = 0;

    (void)sig;
    if (si->si_code != SI_TIMER || si->si_value.sival_int != (int)TIMER_MAGIC)
        goto out; /* not our timer: somebody else's use of the signal */
    if (!collector_g.enabled || !ts->active || ts->busy)
        goto out;
    ts->busy = 1;
    if (!ts->ring.ctl && collector_thread_claim_late(ts) != 0) {
        /* every ring is taken (the front end is behind): a counted drop */
        atomic_fetch_add_explicit(&collector_g.transport.hdr->dropped_no_ring, 1,
                                  memory_order_relaxed);
        ts->busy = 0;
        goto out;
    }
    t0 = collector_now_ns();
    collector_modules_check(ts, 0, t0);
    u.rec.nframes = (uint16_t)unwind(ucontext, u.rec.frames, ROCSYS_MAX_FRAMES, &truncated);
    u.rec.weight = (uint16_t)(si->si_overrun >= 65534 ? 65535 : 1 + si->si_overrun);
    u.rec.h.type = ROCSYS_REC_SAMPLE;
    u.rec.h.flags = (uint16_t)((collector_g.wall ? ROCSYS_SAMPLE_WALL : 0) |
                               (truncated ? ROCSYS_SAMPLE_TRUNCATED : 0));
    u.rec.h.size = (uint32_t)(sizeof(u.rec) + 8u * u.rec.nframes);
    u.rec.time_ns = t0;
    t1 = collector_now_ns();
    u.rec.cost_ns = (uint32_t)(t1 - t0);
    if (transport_write(&ts->ring, &u.rec) == 0) {
        atomic_fetch_add_explicit(&ts->ring.ctl->written_samples, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&ts->ring.ctl->sample_cost_ns, t1 - t0, memory_order_relaxed);
    } else {
        atomic_fetch_add_explicit(&ts->ring.ctl->dropped_samples, 1, memory_order_relaxed);
    }
    ts->busy = 0;
out:
    errno = saved_errno;
}

int collector_sampler_install(void)
{
    struct sigaction sa;
    const char *env = getenv("ROCSYS_SIGNAL");

    collector_g.signo = SIGRTMIN + SAMPLE_SIGNAL_OFFSET;
    if (env && atoi(env) >= SIGRTMIN && atoi(env) <= SIGRTMAX)
        collector_g.signo = atoi(env);
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(collector_g.signo, &sa, NULL) != 0)
        return -errno;
    return 0;
}

int collector_sampler_start_thread(struct collector_thread *ts)
{
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
    its.it_value.tv_sec = (time_t)(first / 1000000000ull);
    its.it_value.tv_nsec = (long)(first % 1000000000ull);
    its.it_interval.tv_sec = (time_t)(collector_g.period_ns / 1000000000ull);
    its.it_interval.tv_nsec = (long)(collector_g.period_ns % 1000000000ull);
    if (timer_settime(ts->timer, 0, &its, NULL) != 0) {
        int e = errno;
        timer_delete(ts->timer);
        ts->has_timer = 0;
        return -e;
    }
    return 0;
}

void collector_sampler_stop_thread(struct collector_thread *ts)
{
    if (ts->has_timer) {
        timer_delete(ts->timer);
        ts->has_timer = 0;
    }
}
