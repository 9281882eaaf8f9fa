/* HSA tools library: the ROCr runtime dlopens every library listed in HSA_TOOLS_LIB (rocsys-top
 * appends the collector) and calls its OnLoad with the live API table. OnLoad takes the table's
 * layout from its version and size fields (hsa_layout.c: ROCm 5.2 to 6.4), and declines a table
 * it does not know, patching nothing and telling the front end (an HSA_TABLE record: a notice);
 * otherwise it patches on top of whatever earlier tools installed, keeping their pointers as
 * the originals:
 *   hsa_queue_create       -> the queue is made with queue_intercept_create, with profiling on,
 *                             and our packet handler registered on it;
 *   hsa_executable_freeze  -> kernel objects of the executable -> names (HSA_SYMBOL records);
 *   hsa_amd_memory_async_copy -> timed through a proxy completion signal (HSA_COPY records).
 * The packet handler runs inside the application's doorbell write: for each kernel dispatch it
 * swaps in a pooled proxy completion signal and registers an async handler on it; the handler
 * (on ROCr's async-events thread) reads the dispatch's GPU start/end, writes an HSA_DISPATCH
 * record, forwards the completion to the original signal (a decrement by one, what the packet
 * processor would have done) and recycles the proxy. Records go straight into the rings (the
 * async thread's own GPU ring, 1 MiB), so nothing depends on OnUnload (which many programs
 * never reach). Nothing is dropped while the front end keeps up: the submitting thread holds
 * back while that ring is past 3/4 full, and the async thread waits for room when it is full;
 * both waits are bounded (see transport.h and docs/architecture.md, Transport).
 *
 * Verified only against the headers of each release and the in-tree harness
 * (tests/programs/tp_hsa_harness.c) that plays the runtime's part with a table in each known
 * layout: no machine here has an AMD GPU. */
#define _GNU_SOURCE
#include "collector.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsa_abi.h"
#include "hsa_layout.h"

typedef rocsys_hsa_agent_t agent_t;
typedef rocsys_hsa_signal_t signal_t;
typedef rocsys_hsa_status_t status_t;
typedef struct rocsys_hsa_queue queue_t;
typedef void (*queue_cb_t)(status_t, queue_t *, void *);
typedef status_t (*symbol_cb_t)(rocsys_hsa_executable_t, rocsys_hsa_symbol_t, void *);

/* The pointers we call: what the table held when OnLoad ran (the runtime's, or earlier tools'). */
static struct {
    status_t (*system_get_info)(int, void *);
    status_t (*queue_create)(agent_t, uint32_t, uint32_t, queue_cb_t, void *, uint32_t, uint32_t,
                             queue_t **);
    status_t (*signal_create)(int64_t, uint32_t, const agent_t *, signal_t *);
    void (*signal_store_relaxed)(signal_t, int64_t);
    void (*signal_subtract_screlease)(signal_t, int64_t);
    status_t (*executable_freeze)(rocsys_hsa_executable_t, const char *);
    status_t (*symbol_get_info)(rocsys_hsa_symbol_t, int, void *);
    status_t (*iterate_symbols)(rocsys_hsa_executable_t, symbol_cb_t, void *);
    status_t (*profiler_enable)(queue_t *, int);
    status_t (*async_copy_enable)(_Bool);
    status_t (*get_dispatch_time)(agent_t, signal_t, struct rocsys_hsa_time *);
    status_t (*get_async_copy_time)(signal_t, struct rocsys_hsa_time *);
    status_t (*async_handler)(signal_t, int, int64_t, rocsys_hsa_async_cb, void *);
    status_t (*memory_async_copy)(void *, agent_t, const void *, agent_t, size_t, uint32_t,
                                  const signal_t *, signal_t);
    status_t (*intercept_create)(agent_t, uint32_t, uint32_t, queue_cb_t, void *, uint32_t,
                                 uint32_t, queue_t **);
    status_t (*intercept_register)(queue_t *, rocsys_hsa_intercept_handler, void *);
} real;

static _Atomic int hsa_loaded;
static int64_t boot_minus_mono_ns; /* CLOCK_BOOTTIME - CLOCK_MONOTONIC at OnLoad */
static uint64_t tick_hz = 1000000000ull;

/* A queue we intercept. Never freed (queues are few; a late completion may still read it). */
struct hsa_queue_ctx {
    agent_t agent;
    uint32_t agent_ordinal;
    uint64_t queue_id;
};

/* One timed operation in flight, with its pooled proxy signal. */
struct pending {
    struct pending *next;
    signal_t proxy;
    int64_t level; /* the proxy's value now: a completion takes it to level - 1 (no reset) */
    signal_t orig;
    const struct hsa_queue_ctx *q; /* dispatches */
    uint64_t kernel_object;
    uint64_t correlation;
    uint32_t submit_tid;
    uint32_t grid[3];
    uint16_t block[3];
    int is_copy;
    int cancelled; /* the copy was refused: recycle without forwarding or recording */
    uint64_t bytes;
    agent_t src, dst;
};

/* The calling thread's GPU ring (ROCr's async-events thread's: dispatch and copy records),
 * claimed at its first record: larger than a thread ring, so bursts fit. */
static __thread struct transport_ring hsa_ring;
/* The GPU ring records went into last: submitting threads hold back while it is past three
 * quarters full, so that the async-events thread seldom has to wait for room itself. */
static _Atomic(const struct rocsys_ring_ctl *) gpu_ring;
static _Atomic uint64_t gpu_ring_high; /* bytes: three quarters of that ring */

static struct pending *pool;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

#define MAX_AGENTS 64
static uint64_t agents[MAX_AGENTS];
static uint32_t nagents;
static pthread_mutex_t agents_lock = PTHREAD_MUTEX_INITIALIZER;

/* Read the pointer in a table's slot at byte offset off. */
static void *slot_get(void *table, uint32_t off)
{
    void *p;

    memcpy(&p, (char *)table + off, sizeof(p));
    return p;
}

/* Store p into a table's slot at byte offset off. */
static void slot_set(void *table, uint32_t off, void *p)
{
    memcpy((char *)table + off, &p, sizeof(p));
}

/* HSA system ticks (CLOCK_BOOTTIME based) -> CLOCK_MONOTONIC ns. */
static uint64_t ticks_to_mono_ns(uint64_t ticks)
{
    uint64_t ns = tick_hz == 1000000000ull
                      ? ticks
                      : (uint64_t)((unsigned __int128)ticks * 1000000000ull / tick_hz);
    return (int64_t)ns > boot_minus_mono_ns ? (uint64_t)((int64_t)ns - boot_minus_mono_ns) : 0;
}

/* Measure CLOCK_BOOTTIME - CLOCK_MONOTONIC (best of a few tries). */
static void measure_clock_offset(void)
{
    int64_t best_span = INT64_MAX;

    for (int i = 0; i < 5; i++) {
        struct timespec a, b, c;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_BOOTTIME, &b);
        clock_gettime(CLOCK_MONOTONIC, &c);
        int64_t ma = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec;
        int64_t mc = (int64_t)c.tv_sec * 1000000000 + c.tv_nsec;
        int64_t bt = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
        if (mc - ma < best_span) {
            best_span = mc - ma;
            boot_minus_mono_ns = bt - (ma + (mc - ma) / 2);
        }
    }
}

/* GPU ordinal of an agent: agents are numbered in the order their first queue was made. */
static uint32_t agent_ordinal(agent_t a)
{
    uint32_t i;

    pthread_mutex_lock(&agents_lock);
    for (i = 0; i < nagents; i++)
        if (agents[i] == a.handle)
            break;
    if (i == nagents && nagents < MAX_AGENTS)
        agents[nagents++] = a.handle;
    pthread_mutex_unlock(&agents_lock);
    return i;
}

/* A pending entry with a proxy signal (from the pool, or new); NULL if none can be made. */
static struct pending *pool_get(void)
{
    struct pending *p;

    pthread_mutex_lock(&pool_lock);
    p = pool;
    if (p)
        pool = p->next;
    pthread_mutex_unlock(&pool_lock);
    if (p)
        return p;
    p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->level = 1;
    if (real.signal_create(1, 0, NULL, &p->proxy) != ROCSYS_HSA_STATUS_SUCCESS) {
        free(p);
        return NULL;
    }
    return p;
}

/* Give a pending entry (and its proxy signal) back to the pool. */
static void pool_put(struct pending *p)
{
    pthread_mutex_lock(&pool_lock);
    p->next = pool;
    pool = p;
    pthread_mutex_unlock(&pool_lock);
}

/* Write a dispatch or copy record (normal context, the async-events thread) into the thread's
 * GPU ring, waiting for room when it is full (bounded); without a GPU ring (none free) into the
 * thread's own ring. */
static void hsa_write(const void *rec)
{
    if (!collector_g.enabled)
        return;
    if (!hsa_ring.ctl) {
        uint32_t tid = collector_tls.tid ? collector_tls.tid : collector_gettid();
        if (transport_claim_gpu(&collector_g.transport, collector_g.pid, tid, collector_g.instance,
                                &hsa_ring) != 0) {
            collector_write_any(rec);
            return;
        }
        atomic_store_explicit(&gpu_ring_high, ((uint64_t)hsa_ring.mask + 1) / 4 * 3,
                              memory_order_relaxed);
    }
    if (transport_write_wait(&hsa_ring, rec, COLLECTOR_WAIT_MAX_NS) != 0)
        atomic_fetch_add_explicit(&hsa_ring.ctl->dropped_records, 1, memory_order_relaxed);
    if (atomic_load_explicit(&gpu_ring, memory_order_relaxed) != hsa_ring.ctl)
        atomic_store_explicit(&gpu_ring, hsa_ring.ctl, memory_order_release);
}

/* A forked child starts with no GPU ring: the parent's stays the parent's. */
static void hsa_after_fork_child(void)
{
    memset(&hsa_ring, 0, sizeof(hsa_ring));
    atomic_store(&gpu_ring, NULL);
}

/* Async handler of a dispatch's proxy signal (ROCr's async-events thread): time, record,
 * forward, recycle. Returns false: one shot. */
static _Bool on_dispatch_done(int64_t value, void *arg)
{
    struct pending *p = arg;
    struct rocsys_hsa_time t = {0, 0};
    struct rocsys_rec_hsa_dispatch r;
    int saved = errno;

    (void)value;
    memset(&r, 0, sizeof(r));
    r.h.type = ROCSYS_REC_HSA_DISPATCH;
    r.h.size = sizeof(r);
    if (real.get_dispatch_time(p->q->agent, p->proxy, &t) != ROCSYS_HSA_STATUS_SUCCESS ||
        t.start == 0 || t.end < t.start)
        r.h.flags = ROCSYS_DISPATCH_BAD_TIME;
    else {
        r.start_ns = ticks_to_mono_ns(t.start);
        r.end_ns = ticks_to_mono_ns(t.end);
    }
    r.pid = collector_g.pid;
    r.agent = p->q->agent_ordinal;
    r.queue_id = p->q->queue_id;
    r.kernel_object = p->kernel_object;
    r.correlation = p->correlation;
    r.submit_tid = p->submit_tid;
    memcpy(r.grid, p->grid, sizeof(r.grid));
    memcpy(r.block, p->block, sizeof(r.block));
    hsa_write(&r);
    collector_causal_kernel_done(p->kernel_object); /* --progress kernel:NAME */
    if (p->orig.handle)
        real.signal_subtract_screlease(p->orig, 1);
    p->level--;
    pool_put(p);
    errno = saved;
    return 0;
}

/* Swap a proxy completion signal into one kernel-dispatch packet (in our copy of it). */
static void track_dispatch(const struct hsa_queue_ctx *q, struct rocsys_hsa_dispatch_packet *pkt)
{
    struct pending *p = pool_get();

    if (!p)
        return; /* untimed, but delivered untouched */
    p->orig = pkt->completion_signal;
    p->q = q;
    p->is_copy = 0;
    p->kernel_object = pkt->kernel_object;
    p->correlation = collector_hip_current_launch();
    p->submit_tid = collector_tls.tid ? collector_tls.tid : collector_gettid();
    memcpy(p->grid, pkt->grid_size, sizeof(p->grid));
    memcpy(p->block, pkt->workgroup_size, sizeof(p->block));
    if (real.async_handler(p->proxy, ROCSYS_HSA_SIGNAL_CONDITION_LT, p->level, on_dispatch_done,
                           p) != ROCSYS_HSA_STATUS_SUCCESS) {
        pool_put(p);
        return;
    }
    pkt->completion_signal = p->proxy;
}

#define PACKET_CHUNK 32

/* Back-pressure on the submitting thread (normal context, the application's own thread): while
 * the ring of the dispatch records is past 3/4 full (the front end is behind), wake the front
 * end and wait for it to drain, at most COLLECTOR_WAIT_MAX_NS. Waiting here, not on the
 * runtime's async-events thread (which every signal handler of the process shares), slows the
 * submitter down to what the front end can take; the async thread waits only for dispatches
 * already in flight that do not fit. */
static void hold_back_if_behind(void)
{
    const struct rocsys_ring_ctl *g = atomic_load_explicit(&gpu_ring, memory_order_acquire);
    struct collector_thread *ts = &collector_tls;
    uint64_t high = atomic_load_explicit(&gpu_ring_high, memory_order_relaxed);

    if (!g || atomic_load_explicit(&g->head, memory_order_relaxed) -
                      atomic_load_explicit(&g->tail, memory_order_relaxed) <=
                  high)
        return;
    if (!ts->ring.ctl || hsa_ring.ctl == g || ts->busy)
        return; /* nowhere to count the wait; or we are the async thread ourselves */
    ts->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    transport_wait_room(&ts->ring, g, high, COLLECTOR_WAIT_MAX_NS);
    atomic_signal_fence(memory_order_seq_cst);
    ts->busy = 0;
}

/* Intercept handler: runs in the application's doorbell write, under the queue's lock. Every
 * packet is passed on through writer (else it would be lost), kernel dispatches with a proxy. */
static void on_packets(const void *pkts, uint64_t count, uint64_t user_index, void *data,
                       rocsys_hsa_packet_writer writer)
{
    const struct hsa_queue_ctx *q = data;
    const struct rocsys_hsa_dispatch_packet *in = pkts;
    struct rocsys_hsa_dispatch_packet buf[PACKET_CHUNK];
    int saved = errno;

    (void)user_index;
    if (!collector_g.enabled) {
        writer(pkts, count);
        return;
    }
    hold_back_if_behind();
    for (uint64_t done = 0; done < count;) {
        uint64_t n = count - done < PACKET_CHUNK ? count - done : PACKET_CHUNK;
        memcpy(buf, in + done, n * sizeof(buf[0]));
        for (uint64_t i = 0; i < n; i++)
            if ((buf[i].header & 0xff) == ROCSYS_HSA_PACKET_TYPE_KERNEL_DISPATCH)
                track_dispatch(q, &buf[i]);
        writer(buf, n);
        done += n;
    }
    errno = saved;
}

/* Patched hsa_queue_create: an intercepted queue with profiling on, same arguments. */
static status_t queue_create_wrap(agent_t agent, uint32_t size, uint32_t type, queue_cb_t cb,
                                  void *data, uint32_t private_size, uint32_t group_size,
                                  queue_t **queue)
{
    struct hsa_queue_ctx *q;
    status_t rc;

    if (!collector_g.enabled)
        return real.queue_create(agent, size, type, cb, data, private_size, group_size, queue);
    rc = real.intercept_create(agent, size, type, cb, data, private_size, group_size, queue);
    if (rc != ROCSYS_HSA_STATUS_SUCCESS || !queue || !*queue) {
        collector_log("hsa: intercept queue creation failed (%d): a plain queue, untimed", rc);
        return real.queue_create(agent, size, type, cb, data, private_size, group_size, queue);
    }
    q = calloc(1, sizeof(*q));
    if (!q)
        return rc; /* a working queue, untimed */
    q->agent = agent;
    q->agent_ordinal = agent_ordinal(agent);
    q->queue_id = (*queue)->id;
    if (real.profiler_enable(*queue, 1) != ROCSYS_HSA_STATUS_SUCCESS)
        collector_log("hsa: profiling could not be enabled on queue %llu",
                      (unsigned long long)q->queue_id);
    if (real.intercept_register(*queue, on_packets, q) != ROCSYS_HSA_STATUS_SUCCESS) {
        collector_log("hsa: intercept_register failed on queue %llu",
                      (unsigned long long)q->queue_id);
        free(q);
    }
    return rc;
}

/* Send an HSA_SYMBOL record: kernel object -> name (".kd" stripped). */
static void send_symbol(uint64_t kernel_object, const char *name, size_t len)
{
    if (len >= 3 && memcmp(name + len - 3, ".kd", 3) == 0)
        len -= 3;
    collector_write_name(ROCSYS_REC_HSA_SYMBOL, kernel_object, name, len);
}

/* iterate_symbols callback: report each kernel symbol. */
static status_t on_symbol(rocsys_hsa_executable_t exe, rocsys_hsa_symbol_t sym, void *data)
{
    uint32_t kind = 0, len = 0;
    uint64_t kobj = 0;
    char *name = NULL;

    (void)exe;
    (void)data;
    if (real.symbol_get_info(sym, ROCSYS_HSA_SYMBOL_INFO_TYPE, &kind) != 0 ||
        kind != ROCSYS_HSA_SYMBOL_KIND_KERNEL)
        goto out;
    if (real.symbol_get_info(sym, ROCSYS_HSA_SYMBOL_INFO_KERNEL_OBJECT, &kobj) != 0 ||
        real.symbol_get_info(sym, ROCSYS_HSA_SYMBOL_INFO_NAME_LENGTH, &len) != 0 || len == 0 ||
        len > 65536)
        goto out;
    name = calloc(1, (size_t)len + 1);
    if (!name || real.symbol_get_info(sym, ROCSYS_HSA_SYMBOL_INFO_NAME, name) != 0)
        goto out;
    send_symbol(kobj, name, strnlen(name, len));
out:
    free(name);
    return ROCSYS_HSA_STATUS_SUCCESS;
}

/* Patched hsa_executable_freeze: freeze, then name the executable's kernel objects. */
static status_t freeze_wrap(rocsys_hsa_executable_t exe, const char *options)
{
    status_t rc = real.executable_freeze(exe, options);
    int saved = errno;

    if (rc == ROCSYS_HSA_STATUS_SUCCESS && collector_g.enabled)
        real.iterate_symbols(exe, on_symbol, NULL);
    errno = saved;
    return rc;
}

/* Async handler of a copy's proxy signal: time, record, forward, recycle. */
static _Bool on_copy_done(int64_t value, void *arg)
{
    struct pending *p = arg;
    struct rocsys_hsa_time t = {0, 0};
    struct rocsys_rec_hsa_copy r;
    int saved = errno;

    (void)value;
    if (p->cancelled)
        goto recycle;
    memset(&r, 0, sizeof(r));
    r.h.type = ROCSYS_REC_HSA_COPY;
    r.h.size = sizeof(r);
    if (real.get_async_copy_time(p->proxy, &t) != ROCSYS_HSA_STATUS_SUCCESS || t.start == 0 ||
        t.end < t.start)
        r.h.flags = ROCSYS_DISPATCH_BAD_TIME;
    else {
        r.start_ns = ticks_to_mono_ns(t.start);
        r.end_ns = ticks_to_mono_ns(t.end);
    }
    r.pid = collector_g.pid;
    r.submit_tid = p->submit_tid;
    r.bytes = p->bytes;
    r.src_agent = p->src.handle;
    r.dst_agent = p->dst.handle;
    hsa_write(&r);
    if (p->orig.handle)
        real.signal_subtract_screlease(p->orig, 1);
recycle:
    p->level--;
    pool_put(p);
    errno = saved;
    return 0;
}

/* Patched hsa_amd_memory_async_copy: the same copy, completing on a proxy we time. */
static status_t async_copy_wrap(void *dst, agent_t dst_agent, const void *src, agent_t src_agent,
                                size_t size, uint32_t ndeps, const signal_t *deps,
                                signal_t completion)
{
    struct pending *p = collector_g.enabled ? pool_get() : NULL;
    status_t rc;

    if (!p)
        return real.memory_async_copy(dst, dst_agent, src, src_agent, size, ndeps, deps,
                                      completion);
    p->orig = completion;
    p->is_copy = 1;
    p->cancelled = 0;
    p->bytes = size;
    p->src = src_agent;
    p->dst = dst_agent;
    p->submit_tid = collector_tls.tid ? collector_tls.tid : collector_gettid();
    if (real.async_handler(p->proxy, ROCSYS_HSA_SIGNAL_CONDITION_LT, p->level, on_copy_done, p) !=
        ROCSYS_HSA_STATUS_SUCCESS) {
        pool_put(p);
        return real.memory_async_copy(dst, dst_agent, src, src_agent, size, ndeps, deps,
                                      completion);
    }
    rc = real.memory_async_copy(dst, dst_agent, src, src_agent, size, ndeps, deps, p->proxy);
    if (rc != ROCSYS_HSA_STATUS_SUCCESS) {
        p->cancelled = 1; /* the handler fires once we complete the proxy ourselves */
        real.signal_store_relaxed(p->proxy, p->level - 1);
    }
    return rc;
}

COLLECTOR_EXPORT _Bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
                              const char *const *failed_tool_names);
COLLECTOR_EXPORT void OnUnload(void);

/* Tell the front end what OnLoad made of the table (an HSA_TABLE record; a refusal becomes a
 * notice), and the debug log. */
static void report_table(enum rocsys_hsa_pick pick, const struct rocsys_hsa_layout *l,
                         const struct rocsys_hsa_seen *seen, const char *why)
{
    struct rocsys_rec_hsa_table r;
    const struct rocsys_hsa_table_id *ids[3] = {&seen->root, &seen->core, &seen->amd};
    uint32_t *out[3] = {r.root, r.core, r.amd};

    memset(&r, 0, sizeof(r));
    r.h.type = ROCSYS_REC_HSA_TABLE;
    r.h.size = sizeof(r);
    r.pid = collector_g.pid;
    r.status = (uint32_t)pick;
    for (int i = 0; i < 3; i++) {
        out[i][0] = ids[i]->major;
        out[i][1] = ids[i]->step;
        out[i][2] = ids[i]->bytes;
    }
    if (l)
        snprintf(r.release, sizeof(r.release), "%s", l->release);
    snprintf(r.why, sizeof(r.why), "%s", why);
    collector_write_any(&r);
    collector_log("hsa: API table %u.%u/%u bytes, core %u.%u/%u, AMD ext %u.%u/%u: %s%s%s%s",
                  seen->root.major, seen->root.step, seen->root.bytes, seen->core.major,
                  seen->core.step, seen->core.bytes, seen->amd.major, seen->amd.step,
                  seen->amd.bytes,
                  pick == ROCSYS_HSA_PICK_EXACT        ? "the layout of ROCm "
                  : pick == ROCSYS_HSA_PICK_COMPATIBLE ? "read as ROCm "
                                                       : "declined",
                  l ? l->release : "", why[0] ? ": " : "", why);
}

/* Copy the pointer in slot off of table into *dst. */
static void slot_load(void *dst, const void *table, uint32_t off)
{
    memcpy(dst, (const char *)table + off, sizeof(void *));
}

/* Take the pointers we call from the tables, as laid out by l. */
static void load_real(const struct rocsys_hsa_layout *l, const void *core, const void *amd)
{
    const uint16_t *c = l->core_off, *a = l->amd_off;

    slot_load(&real.system_get_info, core, c[ROCSYS_HSA_CORE_SYSTEM_GET_INFO]);
    slot_load(&real.queue_create, core, c[ROCSYS_HSA_CORE_QUEUE_CREATE]);
    slot_load(&real.signal_create, core, c[ROCSYS_HSA_CORE_SIGNAL_CREATE]);
    slot_load(&real.signal_store_relaxed, core, c[ROCSYS_HSA_CORE_SIGNAL_STORE_RELAXED]);
    slot_load(&real.signal_subtract_screlease, core, c[ROCSYS_HSA_CORE_SIGNAL_SUB_SCRELEASE]);
    slot_load(&real.executable_freeze, core, c[ROCSYS_HSA_CORE_EXECUTABLE_FREEZE]);
    slot_load(&real.symbol_get_info, core, c[ROCSYS_HSA_CORE_SYMBOL_GET_INFO]);
    slot_load(&real.iterate_symbols, core, c[ROCSYS_HSA_CORE_ITERATE_SYMBOLS]);
    slot_load(&real.profiler_enable, amd, a[ROCSYS_HSA_AMD_PROFILER_ENABLE]);
    slot_load(&real.async_copy_enable, amd, a[ROCSYS_HSA_AMD_ASYNC_COPY_ENABLE]);
    slot_load(&real.get_dispatch_time, amd, a[ROCSYS_HSA_AMD_GET_DISPATCH_TIME]);
    slot_load(&real.get_async_copy_time, amd, a[ROCSYS_HSA_AMD_GET_ASYNC_COPY_TIME]);
    slot_load(&real.async_handler, amd, a[ROCSYS_HSA_AMD_SIGNAL_ASYNC_HANDLER]);
    slot_load(&real.memory_async_copy, amd, a[ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY]);
    slot_load(&real.intercept_create, amd, a[ROCSYS_HSA_AMD_INTERCEPT_CREATE]);
    slot_load(&real.intercept_register, amd, a[ROCSYS_HSA_AMD_INTERCEPT_REGISTER]);
}

/* Every pointer we call (system_get_info and async_copy_enable are optional) is set. */
static int real_complete(void)
{
    return real.queue_create && real.signal_create && real.signal_store_relaxed &&
           real.signal_subtract_screlease && real.executable_freeze && real.symbol_get_info &&
           real.iterate_symbols && real.profiler_enable && real.get_dispatch_time &&
           real.get_async_copy_time && real.async_handler && real.memory_async_copy &&
           real.intercept_create && real.intercept_register;
}

/* The tools interface's entry point (the same signature in ROCm 5.2 to 6.4; 6.x passes the root
 * table's major as runtime_version). Returns true once the table is patched; false (with the
 * table untouched) when it is not a table this collector knows, or no session is running. */
COLLECTOR_EXPORT _Bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
                              const char *const *failed_tool_names)
{
    const struct rocsys_hsa_layout *l;
    struct rocsys_hsa_seen seen;
    enum rocsys_hsa_pick pick;
    char why[112];
    void *core, *amd;
    uint64_t freq = 0;

    (void)failed_tool_names;
    if (!collector_g.enabled) {
        collector_log("hsa: OnLoad without a session: declined");
        return 0;
    }
    collector_log("hsa: OnLoad runtime %llu, %llu failed tools before us",
                  (unsigned long long)runtime_version, (unsigned long long)failed_tool_count);
    pick = rocsys_hsa_layout_pick(table, &l, &seen, why, sizeof(why));
    if (!l) {
        report_table(pick, NULL, &seen, why);
        return 0;
    }
    if (atomic_exchange(&hsa_loaded, 1)) {
        collector_log("hsa: OnLoad again (listed twice?): already patched");
        return 1;
    }
    core = slot_get(table, l->root_core);
    amd = slot_get(table, l->root_amd);
    load_real(l, core, amd);
    if (!real_complete()) {
        report_table(ROCSYS_HSA_PICK_UNUSABLE, NULL, &seen, "an entry the collector uses is empty");
        memset(&real, 0, sizeof(real));
        atomic_store(&hsa_loaded, 0);
        return 0;
    }
    report_table(pick, l, &seen, why);
    {
        Dl_info a, b;
        if (dladdr(slot_get(core, l->core_off[ROCSYS_HSA_CORE_QUEUE_CREATE]), &a) &&
            dladdr(slot_get(amd, l->amd_off[ROCSYS_HSA_AMD_INTERCEPT_CREATE]), &b) &&
            a.dli_fbase != b.dli_fbase)
            collector_log("hsa: hsa_queue_create was patched by an earlier tool (%s): our queues "
                          "are made with queue_intercept_create, which bypasses its hook",
                          a.dli_fname ? a.dli_fname : "?");
    }
    measure_clock_offset();
    pthread_atfork(NULL, NULL, hsa_after_fork_child);
    if (real.system_get_info &&
        real.system_get_info(ROCSYS_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &freq) ==
            ROCSYS_HSA_STATUS_SUCCESS &&
        freq > 0)
        tick_hz = freq;
    if (real.async_copy_enable && real.async_copy_enable(1) != ROCSYS_HSA_STATUS_SUCCESS)
        collector_log("hsa: async copy profiling could not be enabled");
    /* from here on the table is ours to keep patched: never return false below */
    slot_set(core, l->core_off[ROCSYS_HSA_CORE_QUEUE_CREATE], (void *)queue_create_wrap);
    slot_set(core, l->core_off[ROCSYS_HSA_CORE_EXECUTABLE_FREEZE], (void *)freeze_wrap);
    slot_set(amd, l->amd_off[ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY], (void *)async_copy_wrap);
    collector_log("hsa: table patched (ticks %llu Hz, boottime-monotonic %lld ns)",
                  (unsigned long long)tick_hz, (long long)boot_minus_mono_ns);
    return 1;
}

/* Called only from the final hsa_shut_down: records are already in the rings. */
COLLECTOR_EXPORT void OnUnload(void)
{
    collector_log("hsa: OnUnload");
}
