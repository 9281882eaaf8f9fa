/* Plays the ROCr runtime's part of the HSA tools interface, for testing the collector's HSA
 * side on machines without a GPU: it builds an API table in the layout of a known release
 * (version headers, sizes and slot offsets of collector/hsa_layout.c, each row checked against
 * its release's headers by test_hsa_layout; TP_HSA_LAYOUT=5.2 (default), 6.1 or 6.4), or of a
 * later release of the newest ABI (newer: larger tables), or of an ABI no release has
 * (unknown), with fake core and AMD-extension functions, loads the libraries listed in
 * HSA_TOOLS_LIB as ROCr does (dlopen, dlsym OnLoad, call it with the live table), then acts as
 * the application: creates a queue and an executable through the (patched) table, submits AQL
 * kernel-dispatch packets for known kernel objects (some through hipLaunchKernel of a stand-in
 * HIP library, on the same thread), "executes" them with known GPU timestamps, and waits for
 * every original completion signal. The async-events thread is started with libc's own
 * pthread_create, as a thread the collector never saw.
 *
 * Usage: [TP_HSA_LAYOUT=L] tp_hsa_harness [normal|badversion|badsize] [ROUNDS]
 *        tp_hsa_harness rate N [THREADS] [hip]
 *        tp_hsa_harness causal SECONDS [UNIT_US]  (a GPU pipeline: hsa_harness_causal.c)
 * Per round: vector_add x1 (via hipLaunchKernel: from harness_setup_launch every 4th round, from
 * harness_step_launch in the others), reduce_sum<256, float> x2, saxpy_c x3, and
 * one 1 MiB async copy. GPU times: 2000, 7000, 1000 ns per dispatch, copies 3000 ns; each
 * dispatch starts 5000 ns after the previous one ended. Prints a summary; exit 0 when every
 * completion signal got its value.
 * rate: N dispatches of saxpy_c (1000 ns each) submitted as fast as possible, split over
 * THREADS threads (default 1), each with its own queue and one completion signal that every
 * dispatch of the thread decrements; with "hip" each goes through hipLaunchKernel of the
 * stand-in HIP library (vector_add, 2000 ns). Prints the submission and completion rates;
 * exit 0 when every dispatch completed exactly once. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/hsa_abi.h"
#include "hsa_harness_causal.h"
#include "hsa_harness_tables.h"

#define DISPATCH_GAP_NS  5000
#define COPY_NS          3000
#define MAX_TOOLS        8
#define MAX_RATE_THREADS 64

/* A signal in the layout of amd_signal_t as far as the tools see it. */
struct fsignal {
    _Atomic int64_t value;
    uint64_t pad[3];
    uint64_t start_ts; /* byte 32 */
    uint64_t end_ts;   /* byte 40 */
    uint64_t pad2[2];
};

struct fqueue {
    struct rocsys_hsa_queue q;
    _Atomic uint64_t index; /* packets written */
    int intercept;
    int profiling;
    rocsys_hsa_intercept_handler handler;
    void *handler_data;
};

struct fsymbol {
    uint32_t kind;
    const char *name;
    uint64_t kernel_object;
    uint64_t gpu_ns;
};

static const struct fsymbol symbols[] = {
    {ROCSYS_HSA_SYMBOL_KIND_KERNEL, "_Z10vector_addPfPKfS1_i.kd", 0x10000, 2000},
    {ROCSYS_HSA_SYMBOL_KIND_KERNEL, "_Z10reduce_sumILi256EfEvPKT0_PS0_i.kd", 0x20000, 7000},
    {ROCSYS_HSA_SYMBOL_KIND_KERNEL, "saxpy_c.kd", 0x30000, 1000},
    {0 /* variable */, "some_global", 0x40000, 0},
};
#define NSYMBOLS (sizeof(symbols) / sizeof(symbols[0]))

struct handler {
    struct fsignal *sig;
    int cond;
    int64_t value;
    rocsys_hsa_async_cb cb;
    void *arg;
};

static struct handler *handlers; /* registered, not fired yet (grows: ROCr's list has no cap) */
static int nhandlers, handlers_cap;
static pthread_mutex_t handlers_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t handlers_cond = PTHREAD_COND_INITIALIZER;
static int stopping;

static _Atomic int plain_queues, intercept_queues, freezes, signals_created, copies_enabled;
static uint64_t gpu_clock_ns; /* the fake GPU's timeline (BOOTTIME ns) */
static pthread_mutex_t gpu_lock = PTHREAD_MUTEX_INITIALIZER;
static __thread struct fqueue *writing_queue; /* the queue whose handler is writing */

static struct harness_tables tables; /* what the tools patch, in the layout played */

/* Host stubs of the HIP kernels (their addresses identify them). */
static void stub_vector_add(void) {}

struct fakehip_dim3 {
    uint32_t x, y, z;
};
extern void (*fakehip_launch_hook)(const void *, struct fakehip_dim3, struct fakehip_dim3);
int hipLaunchKernel(const void *f, struct fakehip_dim3 grid, struct fakehip_dim3 block, void **args,
                    size_t shmem, void *stream);
void __hipRegisterFunction(void **modules, const void *host_function, char *device_function,
                           const char *device_name, unsigned int thread_limit, void *tid, void *bid,
                           void *block_dim, void *grid_dim, int *wsize);

/* The two call paths vector_add is launched from (noinline: frames of their own). */
__attribute__((noinline)) static int harness_setup_launch(void)
{
    struct fakehip_dim3 grid = {4096, 1, 1}, block = {256, 1, 1};
    int e = hipLaunchKernel((const void *)stub_vector_add, grid, block, NULL, 0, NULL);
    __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
    return e;
}

__attribute__((noinline)) static int harness_step_launch(void)
{
    struct fakehip_dim3 grid = {4096, 1, 1}, block = {256, 1, 1};
    int e = hipLaunchKernel((const void *)stub_vector_add, grid, block, NULL, 0, NULL);
    __asm__ volatile("" ::: "memory");
    return e;
}

static uint64_t boot_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static struct fsignal *sig_of(rocsys_hsa_signal_t s)
{
    return (struct fsignal *)(uintptr_t)s.handle;
}

/* Wake the async-events thread. */
static void poke(void)
{
    pthread_mutex_lock(&handlers_lock);
    pthread_cond_broadcast(&handlers_cond);
    pthread_mutex_unlock(&handlers_lock);
}

/* ---- fake core functions ---- */

static rocsys_hsa_status_t f_system_get_info(int attr, void *value)
{
    if (attr != ROCSYS_HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY)
        return ROCSYS_HSA_STATUS_ERROR;
    *(uint64_t *)value = 1000000000ull;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

/* A queue: plain or intercept. */
static rocsys_hsa_status_t make_queue(int intercept, void **out)
{
    static _Atomic uint64_t next_id = 1;
    struct fqueue *q = calloc(1, sizeof(*q));

    if (!q)
        return ROCSYS_HSA_STATUS_ERROR;
    q->q.id = next_id++;
    q->q.size = 1024;
    q->intercept = intercept;
    if (intercept)
        intercept_queues++;
    else
        plain_queues++;
    *out = q;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_queue_create(rocsys_hsa_agent_t agent, uint32_t size, uint32_t type,
                                          void *cb, void *data, uint32_t p, uint32_t g,
                                          void **queue)
{
    (void)agent, (void)size, (void)type, (void)cb, (void)data, (void)p, (void)g;
    return make_queue(0, queue);
}

static rocsys_hsa_status_t f_signal_create(int64_t initial, uint32_t n, const void *consumers,
                                           rocsys_hsa_signal_t *out)
{
    struct fsignal *s = aligned_alloc(64, sizeof(*s));

    (void)n, (void)consumers;
    if (!s)
        return ROCSYS_HSA_STATUS_ERROR;
    memset(s, 0, sizeof(*s));
    atomic_store(&s->value, initial);
    out->handle = (uint64_t)(uintptr_t)s;
    signals_created++;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_signal_destroy(rocsys_hsa_signal_t s)
{
    free(sig_of(s));
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static int64_t f_signal_load(rocsys_hsa_signal_t s)
{
    return atomic_load(&sig_of(s)->value);
}

static void f_signal_store(rocsys_hsa_signal_t s, int64_t v)
{
    atomic_store(&sig_of(s)->value, v);
    poke();
}

static void f_signal_subtract(rocsys_hsa_signal_t s, int64_t v)
{
    atomic_fetch_sub(&sig_of(s)->value, v);
    poke();
}

static rocsys_hsa_status_t f_freeze(rocsys_hsa_executable_t exe, const char *options)
{
    (void)exe, (void)options;
    freezes++;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

typedef rocsys_hsa_status_t (*symbol_cb)(rocsys_hsa_executable_t, rocsys_hsa_symbol_t, void *);

static rocsys_hsa_status_t f_iterate_symbols(rocsys_hsa_executable_t exe, symbol_cb cb, void *data)
{
    for (size_t i = 0; i < NSYMBOLS; i++) {
        rocsys_hsa_symbol_t s = {i + 1};
        rocsys_hsa_status_t rc = cb(exe, s, data);
        if (rc != ROCSYS_HSA_STATUS_SUCCESS)
            return rc;
    }
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_symbol_get_info(rocsys_hsa_symbol_t s, int attr, void *value)
{
    const struct fsymbol *sym;

    if (s.handle == 0 || s.handle > NSYMBOLS)
        return ROCSYS_HSA_STATUS_ERROR;
    sym = &symbols[s.handle - 1];
    switch (attr) {
    case ROCSYS_HSA_SYMBOL_INFO_TYPE:
        *(uint32_t *)value = sym->kind;
        return ROCSYS_HSA_STATUS_SUCCESS;
    case ROCSYS_HSA_SYMBOL_INFO_NAME_LENGTH:
        *(uint32_t *)value = (uint32_t)strlen(sym->name);
        return ROCSYS_HSA_STATUS_SUCCESS;
    case ROCSYS_HSA_SYMBOL_INFO_NAME:
        memcpy(value, sym->name, strlen(sym->name)); /* not NUL-terminated, as ROCr */
        return ROCSYS_HSA_STATUS_SUCCESS;
    case ROCSYS_HSA_SYMBOL_INFO_KERNEL_OBJECT:
        if (sym->kind != ROCSYS_HSA_SYMBOL_KIND_KERNEL)
            return ROCSYS_HSA_STATUS_ERROR;
        *(uint64_t *)value = sym->kernel_object;
        return ROCSYS_HSA_STATUS_SUCCESS;
    default:
        return ROCSYS_HSA_STATUS_ERROR;
    }
}

/* ---- fake AMD extension functions ---- */

static rocsys_hsa_status_t f_profiler_enable(void *queue, int enable)
{
    ((struct fqueue *)queue)->profiling = enable;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_async_copy_enable(_Bool enable)
{
    copies_enabled = enable;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_get_time(rocsys_hsa_agent_t agent, rocsys_hsa_signal_t s,
                                      struct rocsys_hsa_time *t)
{
    (void)agent;
    t->start = sig_of(s)->start_ts;
    t->end = sig_of(s)->end_ts;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_get_copy_time(rocsys_hsa_signal_t s, struct rocsys_hsa_time *t)
{
    t->start = sig_of(s)->start_ts;
    t->end = sig_of(s)->end_ts;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

/* Append a handler (handlers_lock held); 0 or -1 when out of memory. */
static int handler_add(struct handler h)
{
    if (nhandlers == handlers_cap) {
        int cap = handlers_cap ? handlers_cap * 2 : 4096;
        struct handler *n = realloc(handlers, (size_t)cap * sizeof(*n));
        if (!n)
            return -1;
        handlers = n;
        handlers_cap = cap;
    }
    handlers[nhandlers++] = h;
    return 0;
}

static rocsys_hsa_status_t f_async_handler(rocsys_hsa_signal_t s, int cond, int64_t value,
                                           rocsys_hsa_async_cb cb, void *arg)
{
    rocsys_hsa_status_t rc = ROCSYS_HSA_STATUS_SUCCESS;

    pthread_mutex_lock(&handlers_lock);
    if (handler_add((struct handler){sig_of(s), cond, value, cb, arg}) != 0)
        rc = ROCSYS_HSA_STATUS_ERROR;
    pthread_cond_broadcast(&handlers_cond);
    pthread_mutex_unlock(&handlers_lock);
    return rc;
}

/* The GPU's next interval of gpu_ns. */
static void gpu_interval(uint64_t gpu_ns, uint64_t *start, uint64_t *end)
{
    pthread_mutex_lock(&gpu_lock);
    *start = gpu_clock_ns + DISPATCH_GAP_NS;
    *end = *start + gpu_ns;
    gpu_clock_ns = *end;
    pthread_mutex_unlock(&gpu_lock);
}

static rocsys_hsa_status_t f_memory_async_copy(void *dst, rocsys_hsa_agent_t da, const void *src,
                                               rocsys_hsa_agent_t sa, size_t size, uint32_t ndeps,
                                               const rocsys_hsa_signal_t *deps,
                                               rocsys_hsa_signal_t completion)
{
    struct fsignal *c = sig_of(completion);

    (void)da, (void)sa, (void)ndeps, (void)deps;
    memcpy(dst, src, size);
    if (c) {
        gpu_interval(COPY_NS, &c->start_ts, &c->end_ts);
        atomic_fetch_sub(&c->value, 1);
        poke();
    }
    return ROCSYS_HSA_STATUS_SUCCESS;
}

static rocsys_hsa_status_t f_intercept_create(rocsys_hsa_agent_t agent, uint32_t size,
                                              uint32_t type, void *cb, void *data, uint32_t p,
                                              uint32_t g, void **queue)
{
    (void)agent, (void)size, (void)type, (void)cb, (void)data, (void)p, (void)g;
    return make_queue(1, queue);
}

static rocsys_hsa_status_t f_intercept_register(void *queue, rocsys_hsa_intercept_handler h,
                                                void *data)
{
    struct fqueue *q = queue;

    if (!q->intercept)
        return ROCSYS_HSA_STATUS_ERROR;
    q->handler = h;
    q->handler_data = data;
    return ROCSYS_HSA_STATUS_SUCCESS;
}

/* ---- the "hardware": packets written to a queue run at once ---- */

/* Execute one packet: a kernel dispatch gets its GPU interval and completes its signal. */
static void execute(const struct rocsys_hsa_dispatch_packet *pkt)
{
    uint64_t gpu_ns = 1000;
    struct fsignal *c = sig_of(pkt->completion_signal);

    if ((pkt->header & 0xff) != ROCSYS_HSA_PACKET_TYPE_KERNEL_DISPATCH)
        return;
    for (size_t i = 0; i < NSYMBOLS; i++)
        if (symbols[i].kernel_object == pkt->kernel_object)
            gpu_ns = symbols[i].gpu_ns;
    if (c) {
        gpu_interval(gpu_ns, &c->start_ts, &c->end_ts);
        atomic_fetch_sub(&c->value, 1);
        poke();
    }
}

/* The packet writer handed to intercept handlers. */
static void writer(const void *pkts, uint64_t count)
{
    const struct rocsys_hsa_dispatch_packet *p = pkts;

    (void)writing_queue;
    for (uint64_t i = 0; i < count; i++)
        execute(&p[i]);
}

/* The application's doorbell write: through the interceptor if there is one. */
static void submit(struct fqueue *q, const struct rocsys_hsa_dispatch_packet *pkt)
{
    if (q->handler) {
        writing_queue = q;
        q->handler(pkt, 1, atomic_fetch_add(&q->index, 1), q->handler_data, writer);
        writing_queue = NULL;
    } else {
        execute(pkt);
    }
}

/* Whether handler h's condition holds for value v. */
static int handler_ready(const struct handler *h, int64_t v)
{
    return h->cond == 0   ? v == h->value
           : h->cond == 1 ? v != h->value
           : h->cond == 2 ? v < h->value
                          : v >= h->value;
}

/* The async-events thread: runs handlers whose condition holds, one at a time, in the order a
 * pass over the list finds them (every ready one per pass: a long backlog costs one scan). */
static void *async_thread(void *unused)
{
    struct handler *batch = NULL;
    int batch_cap = 0;

    (void)unused;
    pthread_mutex_lock(&handlers_lock);
    while (!stopping || nhandlers > 0) {
        int nready = 0;
        for (int i = 0; i < nhandlers;) {
            if (!handler_ready(&handlers[i], atomic_load(&handlers[i].sig->value))) {
                i++;
                continue;
            }
            if (nready == batch_cap) {
                int cap = batch_cap ? batch_cap * 2 : 256;
                struct handler *n = realloc(batch, (size_t)cap * sizeof(*n));
                if (!n)
                    break;
                batch = n;
                batch_cap = cap;
            }
            batch[nready++] = handlers[i];
            handlers[i] = handlers[--nhandlers];
        }
        if (nready > 0) {
            pthread_mutex_unlock(&handlers_lock);
            for (int i = 0; i < nready; i++) {
                struct handler h = batch[i];
                _Bool keep = h.cb(atomic_load(&h.sig->value), h.arg);
                if (keep) {
                    pthread_mutex_lock(&handlers_lock);
                    handler_add(h);
                    pthread_mutex_unlock(&handlers_lock);
                }
            }
            pthread_mutex_lock(&handlers_lock);
            continue;
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 10000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        if (stopping && nhandlers > 0)
            break; /* handlers that never fire: leave them */
        pthread_cond_timedwait(&handlers_cond, &handlers_lock, &until);
    }
    pthread_mutex_unlock(&handlers_lock);
    free(batch);
    return NULL;
}

/* Build the tables in the layout named by TP_HSA_LAYOUT (default 5.2); mode may break their
 * version or size. 0, or -1 (unknown layout name). */
static int build_tables(const char *mode, const char *layout)
{
    void *const core_fns[ROCSYS_HSA_CORE_NSLOTS] = {
        [ROCSYS_HSA_CORE_SYSTEM_GET_INFO] = (void *)f_system_get_info,
        [ROCSYS_HSA_CORE_QUEUE_CREATE] = (void *)f_queue_create,
        [ROCSYS_HSA_CORE_QUEUE_DESTROY] = NULL, /* never called */
        [ROCSYS_HSA_CORE_SIGNAL_CREATE] = (void *)f_signal_create,
        [ROCSYS_HSA_CORE_SIGNAL_DESTROY] = (void *)f_signal_destroy,
        [ROCSYS_HSA_CORE_SIGNAL_LOAD_RELAXED] = (void *)f_signal_load,
        [ROCSYS_HSA_CORE_SIGNAL_STORE_RELAXED] = (void *)f_signal_store,
        [ROCSYS_HSA_CORE_SIGNAL_STORE_SCRELEASE] = (void *)f_signal_store,
        [ROCSYS_HSA_CORE_SIGNAL_SUB_SCRELEASE] = (void *)f_signal_subtract,
        [ROCSYS_HSA_CORE_EXECUTABLE_FREEZE] = (void *)f_freeze,
        [ROCSYS_HSA_CORE_SYMBOL_GET_INFO] = (void *)f_symbol_get_info,
        [ROCSYS_HSA_CORE_ITERATE_SYMBOLS] = (void *)f_iterate_symbols,
    };
    void *const amd_fns[ROCSYS_HSA_AMD_NSLOTS] = {
        [ROCSYS_HSA_AMD_PROFILER_ENABLE] = (void *)f_profiler_enable,
        [ROCSYS_HSA_AMD_ASYNC_COPY_ENABLE] = (void *)f_async_copy_enable,
        [ROCSYS_HSA_AMD_GET_DISPATCH_TIME] = (void *)f_get_time,
        [ROCSYS_HSA_AMD_GET_ASYNC_COPY_TIME] = (void *)f_get_copy_time,
        [ROCSYS_HSA_AMD_SIGNAL_ASYNC_HANDLER] = (void *)f_async_handler,
        [ROCSYS_HSA_AMD_MEMORY_ASYNC_COPY] = (void *)f_memory_async_copy,
        [ROCSYS_HSA_AMD_INTERCEPT_CREATE] = (void *)f_intercept_create,
        [ROCSYS_HSA_AMD_INTERCEPT_REGISTER] = (void *)f_intercept_register,
    };
    char line[256];

    if (harness_tables_build(&tables, layout, mode, core_fns, amd_fns) != 0)
        return -1;
    harness_tables_describe(&tables, layout, line, sizeof(line));
    printf("harness: %s\n", line);
    return 0;
}

/* The function in a core / AMD extension slot of the tables, as type T. */
#define CORE(T, slot) ((T)harness_core_fn(&tables, ROCSYS_HSA_CORE_##slot))
#define AMD(T, slot)  ((T)harness_amd_fn(&tables, ROCSYS_HSA_AMD_##slot))

typedef rocsys_hsa_status_t (*queue_create_t)(rocsys_hsa_agent_t, uint32_t, uint32_t, void *,
                                              void *, uint32_t, uint32_t, void **);
typedef rocsys_hsa_status_t (*signal_create_t)(int64_t, uint32_t, const void *,
                                               rocsys_hsa_signal_t *);
typedef rocsys_hsa_status_t (*freeze_t)(rocsys_hsa_executable_t, const char *);
typedef rocsys_hsa_status_t (*copy_t)(void *, rocsys_hsa_agent_t, const void *, rocsys_hsa_agent_t,
                                      size_t, uint32_t, const rocsys_hsa_signal_t *,
                                      rocsys_hsa_signal_t);

static struct fqueue *app_queue;
static rocsys_hsa_signal_t *app_signals;
static int napp;

/* Write one kernel-dispatch packet of kernel_object to queue q, completing signal sig. */
static void dispatch_to(struct fqueue *q, rocsys_hsa_signal_t sig, uint64_t kernel_object,
                        uint32_t grid, uint16_t block)
{
    struct rocsys_hsa_dispatch_packet pkt;

    memset(&pkt, 0, sizeof(pkt));
    pkt.header = ROCSYS_HSA_PACKET_TYPE_KERNEL_DISPATCH;
    pkt.workgroup_size[0] = block;
    pkt.workgroup_size[1] = pkt.workgroup_size[2] = 1;
    pkt.grid_size[0] = grid;
    pkt.grid_size[1] = pkt.grid_size[2] = 1;
    pkt.kernel_object = kernel_object;
    pkt.completion_signal = sig;
    submit(q, &pkt);
}

/* Submit one dispatch of kernel_object with a fresh completion signal of the application. */
static void dispatch(uint64_t kernel_object, uint32_t grid, uint16_t block)
{
    CORE(signal_create_t, SIGNAL_CREATE)
    (1, 0, NULL, &app_signals[napp]);
    dispatch_to(app_queue, app_signals[napp++], kernel_object, grid, block);
}

/* causal mode: every dispatch of saxpy_c decrements one signal of the application. */
#define CAUSAL_SIGNAL_START (1ll << 40)
static rocsys_hsa_signal_t causal_signal;

static void causal_dispatch(void *ctx)
{
    (void)ctx;
    dispatch_to(app_queue, causal_signal, 0x30000, 65536, 64);
}

static long causal_completed(void *ctx)
{
    (void)ctx;
    return (long)(CAUSAL_SIGNAL_START - f_signal_load(causal_signal));
}

/* rate mode: the calling thread's queue and completion signal (NULL: not a rate thread). */
static __thread struct fqueue *rate_queue;
static __thread rocsys_hsa_signal_t rate_signal;

/* hipLaunchKernel of the stand-in HIP library lands here, on the launching thread. */
static void launch_hook(const void *f, struct fakehip_dim3 grid, struct fakehip_dim3 block)
{
    if (f != (const void *)stub_vector_add)
        return;
    if (rate_queue)
        dispatch_to(rate_queue, rate_signal, 0x10000, grid.x * block.x, (uint16_t)block.x);
    else
        dispatch(0x10000, grid.x * block.x, (uint16_t)block.x);
}

/* One submitting thread of rate mode. */
struct rate_thread {
    pthread_t thread;
    long count;              /* dispatches to submit */
    int hip;                 /* through hipLaunchKernel */
    struct fqueue *q;        /* its own queue */
    rocsys_hsa_signal_t sig; /* starts at count, every dispatch takes one off */
    int ready;               /* queue and signal made */
    uint64_t start_ns;       /* CLOCK_MONOTONIC when it started submitting */
    uint64_t end_ns;         /* ... and when the last dispatch was submitted */
};

static pthread_barrier_t rate_start;

/* CLOCK_MONOTONIC in ns. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Rate mode thread: make a queue and a signal, wait for the start, submit as fast as it can. */
static void *rate_main(void *arg)
{
    struct rate_thread *t = arg;
    rocsys_hsa_agent_t gpu = {0x1234};

    t->ready = CORE(queue_create_t, QUEUE_CREATE)(gpu, 1024, 0, NULL, NULL, 0, 0, (void **)&t->q) ==
                   ROCSYS_HSA_STATUS_SUCCESS &&
               CORE(signal_create_t, SIGNAL_CREATE)(t->count, 0, NULL, &t->sig) ==
                   ROCSYS_HSA_STATUS_SUCCESS;
    pthread_barrier_wait(&rate_start);
    if (!t->ready)
        return NULL;
    rate_queue = t->q;
    rate_signal = t->sig;
    t->start_ns = mono_ns();
    for (long i = 0; i < t->count; i++) {
        if (t->hip) {
            struct fakehip_dim3 grid = {16, 1, 1}, block = {64, 1, 1};
            hipLaunchKernel((const void *)stub_vector_add, grid, block, NULL, 0, NULL);
        } else {
            dispatch_to(t->q, t->sig, 0x30000, 65536, 64);
        }
    }
    t->end_ns = mono_ns();
    rate_queue = NULL;
    return NULL;
}

/* Rate mode: n dispatches from nthreads threads as fast as possible; waits until every one
 * completed (or nothing moved for 30 s). Returns 0 when each completed exactly once. */
static int run_rate(long n, int nthreads, int hip)
{
    static struct rate_thread t[MAX_RATE_THREADS];
    uint64_t t0, t_sub = 0, t_done, last_change;
    long done = 0, prev = -1, overshoot = 0;

    if (nthreads < 1 || nthreads > MAX_RATE_THREADS || n < 1)
        return 2;
    pthread_barrier_init(&rate_start, NULL, (unsigned)nthreads + 1);
    for (int i = 0; i < nthreads; i++) {
        t[i].count = n / nthreads + (i < n % nthreads ? 1 : 0);
        t[i].hip = hip;
        if (pthread_create(&t[i].thread, NULL, rate_main, &t[i]) != 0) {
            fprintf(stderr, "harness: cannot start thread %d\n", i);
            return 2;
        }
    }
    pthread_barrier_wait(&rate_start);
    t0 = mono_ns();
    for (int i = 0; i < nthreads; i++) {
        pthread_join(t[i].thread, NULL);
        if (t[i].ready && t[i].start_ns < t0)
            t0 = t[i].start_ns; /* a thread may start before this one runs again */
        if (t[i].end_ns > t_sub)
            t_sub = t[i].end_ns;
    }
    last_change = mono_ns();
    for (;;) {
        done = overshoot = 0;
        for (int i = 0; i < nthreads; i++) {
            int64_t v = t[i].ready ? f_signal_load(t[i].sig) : t[i].count;
            done += t[i].count - (v > 0 ? v : 0);
            overshoot += v < 0 ? -v : 0;
        }
        t_done = mono_ns();
        if (done == n || t_done - last_change > 30000000000ull)
            break;
        if (done != prev)
            last_change = t_done;
        prev = done;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    printf("harness: rate dispatches %ld threads %d hip %d: submitted in %.1f ms (%.0f "
           "dispatches/s), completed %ld/%ld in %.1f ms (%.0f dispatches/s), overshoot %ld\n",
           n, nthreads, hip, (double)(t_sub - t0) / 1e6, (double)n * 1e9 / (double)(t_sub - t0),
           done, n, (double)(t_done - t0) / 1e6, (double)done * 1e9 / (double)(t_done - t0),
           overshoot);
    return done == n && overshoot == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "normal";
    int rate = strcmp(mode, "rate") == 0, causal = strcmp(mode, "causal") == 0;
    int rounds = argc > 2 && !rate && !causal ? atoi(argv[2]) : 10;
    const char *tools = getenv("HSA_TOOLS_LIB");
    void *handles[MAX_TOOLS];
    int ntools = 0, loaded = 0, declined = 0;
    static struct harness_tables before; /* to tell whether a declining tool left them alone */
    const char *layout = getenv("TP_HSA_LAYOUT") ? getenv("TP_HSA_LAYOUT") : "5.2";
    int (*real_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    pthread_t async;
    int ok = 0, copies = 0, rc = 1;
    static uint8_t copy_src[1 << 20], copy_dst[1 << 20];

    if (build_tables(mode, layout) != 0) {
        fprintf(stderr, "harness: unknown layout %s (5.2, 6.1, 6.4, newer, unknown)\n", layout);
        return 2;
    }
    before = tables;
    gpu_clock_ns = boot_ns();
    /* libc's pthread_create, not an interposed one: a thread no tool saw being created */
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    real_create = libc ? (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *),
                                  void *))dlsym(libc, "pthread_create")
                       : NULL;
    if (!real_create || real_create(&async, NULL, async_thread, NULL) != 0) {
        fprintf(stderr, "harness: cannot start the async thread\n");
        return 2;
    }

    /* load the tools as ROCr does: in order, each patching the live table */
    char list[4096];
    snprintf(list, sizeof(list), "%s", tools ? tools : "");
    for (char *save = NULL, *name = strtok_r(list, " ", &save); name && ntools < MAX_TOOLS;
         name = strtok_r(NULL, " ", &save)) {
        void *h = dlopen(name, RTLD_LAZY);
        _Bool (*on_load)(void *, uint64_t, uint64_t, const char *const *) =
            h ? (_Bool(*)(void *, uint64_t, uint64_t, const char *const *))dlsym(h, "OnLoad")
              : NULL;
        if (!on_load) {
            printf("harness: tool %s: no OnLoad\n", name);
            continue;
        }
        /* ROCm 6.x passes the root table's major as runtime_version */
        uint32_t root_major;
        memcpy(&root_major, tables.root, sizeof(root_major));
        _Bool r = on_load(tables.root, root_major, 0, NULL);
        printf("harness: tool %s: OnLoad -> %d\n",
               strrchr(name, '/') ? strrchr(name, '/') + 1 : name, (int)r);
        if (r) {
            loaded++;
            handles[ntools++] = h;
        } else {
            declined++;
        }
    }
    if (declined && !loaded)
        printf("harness: declined, table %s\n",
               memcmp(&before, &tables, sizeof(tables)) == 0 ? "unchanged" : "CHANGED");

    /* the application */
    rocsys_hsa_agent_t gpu = {0x1234};
    CORE(queue_create_t, QUEUE_CREATE)
    (gpu, 1024, 0, NULL, NULL, 0, 0, (void **)&app_queue);
    rocsys_hsa_executable_t exe = {1};
    CORE(freeze_t, EXECUTABLE_FREEZE)(exe, "");
    __hipRegisterFunction(NULL, (const void *)stub_vector_add, "_Z10vector_addPfPKfS1_i",
                          "_Z10vector_addPfPKfS1_i", 0, NULL, NULL, NULL, NULL, NULL);
    fakehip_launch_hook = launch_hook;
    if (causal) {
        struct harness_causal_gpu g = {causal_dispatch, causal_completed, NULL};
        CORE(signal_create_t, SIGNAL_CREATE)(CAUSAL_SIGNAL_START, 0, NULL, &causal_signal);
        rc = harness_causal_run(argc > 2 ? atof(argv[2]) : 10, argc > 3 ? atol(argv[3]) : 100, &g);
    }
    if (rate || causal) {
        if (rate)
            rc = run_rate(argc > 2 ? atol(argv[2]) : 100000, argc > 3 ? atoi(argv[3]) : 1,
                          argc > 4 && strcmp(argv[4], "hip") == 0);
        pthread_mutex_lock(&handlers_lock);
        stopping = 1;
        pthread_cond_broadcast(&handlers_cond);
        pthread_mutex_unlock(&handlers_lock);
        pthread_join(async, NULL);
        printf("harness: mode %s tools %d declined %d intercept_queues %d plain_queues %d\n", mode,
               loaded, declined, intercept_queues, plain_queues);
        return rc;
    }
    app_signals = calloc((size_t)rounds * 8 + 8, sizeof(*app_signals));
    rocsys_hsa_signal_t *copy_signals = calloc((size_t)rounds + 1, sizeof(*copy_signals));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < rounds; r++) {
        /* from two call paths: every 4th round's launch from harness_setup_launch, the
         * others' from harness_step_launch (launch paths and their GPU time) */
        int e = r % 4 == 0 ? harness_setup_launch() : harness_step_launch();
        if (e != 0)
            printf("harness: hipLaunchKernel returned %d\n", e);
        for (int i = 0; i < 2; i++)
            dispatch(0x20000, 65536, 256);
        for (int i = 0; i < 3; i++)
            dispatch(0x30000, 65536, 64);
        CORE(signal_create_t, SIGNAL_CREATE)
        (1, 0, NULL, &copy_signals[copies]);
        AMD(copy_t, MEMORY_ASYNC_COPY)
        (copy_dst, gpu, copy_src, gpu, sizeof(copy_src), 0, NULL, copy_signals[copies]);
        copies++;
    }

    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* every original completion signal must reach 0 */
    for (int tries = 0; tries < 2000; tries++) {
        ok = 0;
        for (int i = 0; i < napp; i++)
            ok += f_signal_load(app_signals[i]) == 0;
        for (int i = 0; i < copies; i++)
            ok += f_signal_load(copy_signals[i]) == 0;
        if (ok == napp + copies)
            break;
        struct timespec ms = {0, 5000000};
        nanosleep(&ms, NULL);
    }
    pthread_mutex_lock(&handlers_lock);
    stopping = 1;
    pthread_cond_broadcast(&handlers_cond);
    pthread_mutex_unlock(&handlers_lock);
    pthread_join(async, NULL);
    printf("harness: mode %s tools %d declined %d dispatches %d copies %d completed %d/%d "
           "intercept_queues %d plain_queues %d profiling %d copy_profiling %d freezes %d\n",
           mode, loaded, declined, napp, copies, ok, napp + copies, intercept_queues, plain_queues,
           app_queue ? app_queue->profiling : -1, copies_enabled, freezes);
    printf("harness: submit loop %.0f ns per round\n",
           ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / rounds);
    for (int i = 0; i < ntools; i++) {
        void (*report)(void) = (void (*)(void))dlsym(handles[i], "tool2_report");
        if (report)
            report();
    }
    rc = ok == napp + copies ? 0 : 1;
    free(app_signals);
    free(copy_signals);
    return rc;
}
