/* HIP API tracing by interposition: the collector (LD_PRELOAD) defines the HIP entry points it
 * traces; each definition finds the next one (the real libamdhip64, by the symbol version the
 * library exports it with) on first use, calls it with the same arguments, and returns its
 * result unchanged (errno too). Every completed call becomes a HIP_API record in the calling
 * thread's ring: api id, start/end, result; launches add the kernel name id, grid, block,
 * stream and a correlation id that the HSA side (hsa.c) attaches to the dispatch the launch
 * makes on the same thread; copies add bytes and direction.
 *
 * Kernel names: __hipRegisterFunction (called at program start by hipcc-built code, even without
 * a GPU) gives host stub -> mangled device name; hipModuleGetFunction gives function handle ->
 * name. Names are interned once per process (HIP_NAME record) and looked up lock-free. A
 * program that never calls HIP costs nothing: nothing is resolved before the first call. */
#define _GNU_SOURCE
#include "collector.h"
#include "hip_abi.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* The entry points below are the HIP runtime's: their prototypes live in HIP's C++-flavoured
 * headers, which the collector does not include. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

/* hipError_t values we need: what a missing runtime looks like to the caller. */
#define HIP_ERROR_NOT_INITIALIZED 3

enum {
#define HIP_API_ENUM(id, name, launch) HIP_API_##name = id,
    ROCSYS_HIP_API_LIST(HIP_API_ENUM)
#undef HIP_API_ENUM
};

/* The next definition of one entry point, resolved on first use. */
struct hip_real {
    _Atomic(void *) fn;
    const char *name;
    const char *version; /* the version libamdhip64 exports it with */
};

#define HIP_FN_SLOTS   8192 /* host stubs / module functions with a name, at most */
#define HIP_NAME_SLOTS 4096 /* distinct kernel names per process, at most */

/* host function pointer -> name id, open addressing, insert-only, lock-free lookups */
static _Atomic uintptr_t fn_keys[HIP_FN_SLOTS];
static _Atomic uint32_t fn_ids[HIP_FN_SLOTS];

/* interned names (normal context, under names_lock) */
struct hip_name {
    uint64_t hash;
    char *name;
    uint32_t id;
};
static struct hip_name names[HIP_NAME_SLOTS];
static uint32_t names_used;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic uint64_t next_correlation = 1;
static __thread uint64_t tls_launch; /* correlation id of the launch in progress, or 0 */

uint64_t collector_hip_current_launch(void)
{
    return tls_launch;
}

int collector_write_any(const void *rec)
{
    struct collector_thread *ts = &collector_tls;
    int rc;

    if (!collector_g.enabled)
        return -ENODEV;
    if (!ts->ring.ctl) {
        if (!ts->tid)
            ts->tid = collector_gettid();
        ts->busy = 1;
        rc = collector_thread_claim_late(ts);
        ts->busy = 0;
        if (rc != 0) { /* counted: the thread is reported as one without a ring */
            ts->lost_no_ring = 1;
            atomic_fetch_add_explicit(&collector_g.transport.hdr->dropped_no_ring, 1,
                                      memory_order_relaxed);
            atomic_fetch_add_explicit(&collector_g.transport.hdr->records_no_ring, 1,
                                      memory_order_relaxed);
            return rc;
        }
    }
    return collector_write_normal(rec);
}

/* The next definition of r (versioned first, then any version), cached. */
static void *hip_resolve(struct hip_real *r)
{
    void *f = atomic_load_explicit(&r->fn, memory_order_acquire);
    int saved = errno;

    if (f)
        return f;
    f = dlvsym(RTLD_NEXT, r->name, r->version);
    if (!f)
        f = dlsym(RTLD_NEXT, r->name);
    if (f)
        atomic_store_explicit(&r->fn, f, memory_order_release);
    else
        collector_log("hip: %s@%s not found", r->name, r->version);
    errno = saved;
    return f;
}

/* FNV-1a of a string, never 0. */
static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h ? h : 1;
}

/* Slot of a pointer key in fn_keys. */
static uint32_t fn_slot(uintptr_t key)
{
    return (uint32_t)((key >> 4) * 2654435761u) & (HIP_FN_SLOTS - 1);
}

/* The name id of host function / function handle f, 0 if unknown. Lock-free. */
static uint32_t fn_lookup(const void *f)
{
    uintptr_t key = (uintptr_t)f;
    uint32_t i = fn_slot(key);

    if (!key)
        return 0;
    for (uint32_t n = 0; n < HIP_FN_SLOTS; n++, i = (i + 1) & (HIP_FN_SLOTS - 1)) {
        uintptr_t k = atomic_load_explicit(&fn_keys[i], memory_order_acquire);
        if (k == key)
            return atomic_load_explicit(&fn_ids[i], memory_order_acquire);
        if (k == 0)
            return 0;
    }
    return 0;
}

/* Map f to name id (a later mapping of the same f wins). */
static void fn_insert(const void *f, uint32_t id)
{
    uintptr_t key = (uintptr_t)f;
    uint32_t i = fn_slot(key);

    for (uint32_t n = 0; key && n < HIP_FN_SLOTS; n++, i = (i + 1) & (HIP_FN_SLOTS - 1)) {
        uintptr_t expect = 0;
        if (atomic_compare_exchange_strong(&fn_keys[i], &expect, key) || expect == key) {
            atomic_store_explicit(&fn_ids[i], id, memory_order_release);
            return;
        }
    }
}

/* Write a HIP_NAME record for id (normal context). */
void collector_write_name(uint32_t type, uint64_t key, const char *name, size_t len)
{
    union {
        struct rocsys_rec_name rec;
        uint8_t bytes[sizeof(struct rocsys_rec_name) + ROCSYS_KERNEL_NAME_MAX + 8];
    } u;

    if (len > ROCSYS_KERNEL_NAME_MAX)
        len = ROCSYS_KERNEL_NAME_MAX;
    memset(&u.rec, 0, sizeof(u.rec));
    u.rec.h.type = type;
    u.rec.h.size = rocsys_rec_align((uint32_t)(sizeof(u.rec) + len));
    u.rec.pid = collector_g.pid;
    u.rec.name_len = (uint32_t)len;
    u.rec.key = key;
    memcpy(u.bytes + sizeof(u.rec), name, len);
    collector_write_any(&u.rec);
}

/* The id of name, interned (and announced) on first sight; 0 when the table is full. */
static uint32_t intern_name(const char *name)
{
    uint64_t h = name_hash(name);
    uint32_t i = (uint32_t)h & (HIP_NAME_SLOTS - 1), id = 0;

    pthread_mutex_lock(&names_lock);
    for (uint32_t n = 0; n < HIP_NAME_SLOTS; n++, i = (i + 1) & (HIP_NAME_SLOTS - 1)) {
        struct hip_name *e = &names[i];
        if (e->name && e->hash == h && strcmp(e->name, name) == 0) {
            id = e->id;
            break;
        }
        if (!e->name) {
            if (names_used + 1 >= HIP_NAME_SLOTS * 3 / 4)
                break; /* full enough: unnamed from here on */
            e->name = strdup(name);
            if (!e->name)
                break;
            e->hash = h;
            e->id = ++names_used;
            id = e->id;
            collector_write_name(ROCSYS_REC_HIP_NAME, id, name,
                                 strnlen(name, ROCSYS_KERNEL_NAME_MAX));
            break;
        }
    }
    pthread_mutex_unlock(&names_lock);
    return id;
}

/* Start of a traced call: its start time, or 0 when not tracing. */
static inline uint64_t hip_begin(void)
{
    return collector_g.enabled ? collector_now_ns() : 0;
}

/* Fill the common part of a HIP_API record at the end of a call. */
static void hip_fill(struct rocsys_rec_hip_api *r, uint16_t api, uint64_t start_ns, int result)
{
    memset(r, 0, sizeof(*r));
    r->end_ns = collector_now_ns();
    r->h.type = ROCSYS_REC_HIP_API;
    r->h.size = sizeof(*r);
    r->api = api;
    r->result = result;
    r->start_ns = start_ns;
}

/* Send a filled record; the caller's errno survives. */
static void hip_send(const struct rocsys_rec_hip_api *r)
{
    int saved = errno;

    collector_write_any(r);
    errno = saved;
}

/* Fill launch fields. */
static void fill_launch(struct rocsys_rec_hip_api *r, const void *f, struct hip_dim3 g,
                        struct hip_dim3 b, void *stream, uint64_t corr)
{
    r->name_id = fn_lookup(f);
    r->grid[0] = g.x;
    r->grid[1] = g.y;
    r->grid[2] = g.z;
    r->block[0] = b.x;
    r->block[1] = b.y;
    r->block[2] = b.z;
    r->stream = (uint64_t)(uintptr_t)stream;
    r->correlation = corr;
    r->stack = corr ? collector_launch_stack() : 0; /* a launch (not a pushed configuration) */
}

/* The calling thread's CPU time (ns). */
static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread begins to wait for the device in HIP call api: its samples until the
 * call returns are "[gpu wait]" leaves (the signal engine's handler reads the flag; the perf
 * engine's samples are matched by time with a GPU_WAIT record). Returns the thread's CPU time,
 * for the CPU time the wait burns. */
static uint64_t wait_begin(int api, uint64_t t0)
{
    int saved = errno;
    uint64_t cpu = thread_cpu_ns();

    collector_tls.gpu_wait = api;
    if (collector_g.no_timer) {
        struct rocsys_rec_gpu_wait r = {.h = {.type = ROCSYS_REC_GPU_WAIT, .size = sizeof(r)},
                                        .api = (uint32_t)api,
                                        .time_ns = t0};
        collector_write_any(&r);
    }
    errno = saved;
    return cpu;
}

/* Begin a launch: a correlation id for the dispatch it makes on this thread. */
static uint64_t launch_begin(uint64_t t0)
{
    uint64_t c = t0 ? atomic_fetch_add_explicit(&next_correlation, 1, memory_order_relaxed) : 0;
    tls_launch = c;
    return c;
}

/* One wrapper body: resolve, time, call, record (fill runs with r_ and rc_ in scope). */
#define HIP_BODY(api, ver, ftype, call_args, pre, fill)                                            \
    HIP_BODY_SYM(api, #api, ver, ftype, call_args, pre, fill)
/* The same for a wrapper whose library symbol is not its API name (C++-mangled entry points). */
#define HIP_BODY_SYM(api, sym, ver, ftype, call_args, pre, fill)                                   \
    static struct hip_real real_ = {NULL, sym, ver};                                               \
    __typeof__(ftype) fn_ = (__typeof__(ftype))hip_resolve(&real_);                                \
    struct rocsys_rec_hip_api r_;                                                                  \
    uint64_t t0_, corr_ = 0, cpu0_ = 0;                                                            \
    int rc_;                                                                                       \
    (void)corr_;                                                                                   \
    if (!fn_)                                                                                      \
        return HIP_ERROR_NOT_INITIALIZED;                                                          \
    t0_ = hip_begin();                                                                             \
    pre;                                                                                           \
    if (rocsys_hip_api_waits(HIP_API_##api) && t0_) /* samples meanwhile: [gpu wait] leaves */     \
        cpu0_ = wait_begin(HIP_API_##api, t0_);                                                    \
    rc_ = fn_ call_args;                                                                           \
    if (rocsys_hip_api_waits(HIP_API_##api))                                                       \
        collector_tls.gpu_wait = 0;                                                                \
    if (t0_) {                                                                                     \
        int saved_ = errno;                                                                        \
        tls_launch = 0;                                                                            \
        hip_fill(&r_, HIP_API_##api, t0_, rc_);                                                    \
        if (rocsys_hip_api_waits(HIP_API_##api))                                                   \
            r_.wait_cpu_ns = thread_cpu_ns() - cpu0_;                                              \
        fill;                                                                                      \
        hip_send(&r_);                                                                             \
        errno = saved_;                                                                            \
    }                                                                                              \
    return rc_

#define NOTHING ((void)0)
#define LAUNCH  corr_ = launch_begin(t0_)

/* ---- registration ---- */

/* Interposed: host stub -> device kernel name (called at program start by hipcc code). */
COLLECTOR_EXPORT void __hipRegisterFunction(void **modules, const void *host_function,
                                            char *device_function, const char *device_name,
                                            unsigned int thread_limit, void *tid, void *bid,
                                            void *block_dim, void *grid_dim, int *wsize)
{
    typedef void (*fn_t)(void **, const void *, char *, const char *, unsigned int, void *, void *,
                         void *, void *, int *);
    static struct hip_real real = {NULL, "__hipRegisterFunction", "hip_4.2"};
    fn_t fn = (fn_t)hip_resolve(&real);
    int saved;

    if (fn)
        fn(modules, host_function, device_function, device_name, thread_limit, tid, bid, block_dim,
           grid_dim, wsize);
    saved = errno;
    if (collector_g.enabled && host_function && (device_name || device_function)) {
        uint32_t id = intern_name(device_name ? device_name : device_function);
        if (id)
            fn_insert(host_function, id);
    }
    errno = saved;
}

COLLECTOR_EXPORT int hipModuleGetFunction(void **function, void *module, const char *name)
{
    HIP_BODY(hipModuleGetFunction, "hip_4.2", int (*)(void **, void *, const char *),
             (function, module, name), NOTHING, {
                 if (rc_ == 0 && function && *function && name) {
                     uint32_t id = intern_name(name);
                     if (id)
                         fn_insert(*function, id);
                     r_.name_id = id;
                 }
             });
}

/* ---- launches ---- */

COLLECTOR_EXPORT int hipLaunchKernel(const void *f, struct hip_dim3 grid, struct hip_dim3 block,
                                     void **args, size_t shmem, void *stream)
{
    HIP_BODY(hipLaunchKernel, "hip_4.2",
             int (*)(const void *, struct hip_dim3, struct hip_dim3, void **, size_t, void *),
             (f, grid, block, args, shmem, stream), LAUNCH,
             fill_launch(&r_, f, grid, block, stream, corr_));
}

COLLECTOR_EXPORT int hipLaunchKernel_spt(const void *f, struct hip_dim3 grid, struct hip_dim3 block,
                                         void **args, size_t shmem, void *stream)
{
    HIP_BODY(hipLaunchKernel_spt, "hip_5.2",
             int (*)(const void *, struct hip_dim3, struct hip_dim3, void **, size_t, void *),
             (f, grid, block, args, shmem, stream), LAUNCH,
             fill_launch(&r_, f, grid, block, stream, corr_));
}

COLLECTOR_EXPORT int hipExtLaunchKernel(const void *f, struct hip_dim3 grid, struct hip_dim3 block,
                                        void **args, size_t shmem, void *stream, void *start_event,
                                        void *stop_event, int flags)
{
    HIP_BODY(hipExtLaunchKernel, "hip_4.2",
             int (*)(const void *, struct hip_dim3, struct hip_dim3, void **, size_t, void *,
                     void *, void *, int),
             (f, grid, block, args, shmem, stream, start_event, stop_event, flags), LAUNCH,
             fill_launch(&r_, f, grid, block, stream, corr_));
}

COLLECTOR_EXPORT int hipLaunchCooperativeKernel(const void *f, struct hip_dim3 grid,
                                                struct hip_dim3 block, void **args,
                                                unsigned int shmem, void *stream)
{
    HIP_BODY(hipLaunchCooperativeKernel, "hip_4.2",
             int (*)(const void *, struct hip_dim3, struct hip_dim3, void **, unsigned int, void *),
             (f, grid, block, args, shmem, stream), LAUNCH,
             fill_launch(&r_, f, grid, block, stream, corr_));
}

COLLECTOR_EXPORT int hipModuleLaunchKernel(void *f, unsigned int gx, unsigned int gy,
                                           unsigned int gz, unsigned int bx, unsigned int by,
                                           unsigned int bz, unsigned int shmem, void *stream,
                                           void **params, void **extra)
{
    struct hip_dim3 g = {gx, gy, gz};
    struct hip_dim3 b = {bx, by, bz};

    HIP_BODY(hipModuleLaunchKernel, "hip_4.2",
             int (*)(void *, unsigned int, unsigned int, unsigned int, unsigned int, unsigned int,
                     unsigned int, unsigned int, void *, void **, void **),
             (f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra), LAUNCH,
             fill_launch(&r_, f, g, b, stream, corr_));
}

COLLECTOR_EXPORT int hipLaunchCooperativeKernel_spt(const void *f, struct hip_dim3 grid,
                                                    struct hip_dim3 block, void **args,
                                                    uint32_t shmem, void *stream)
{
    HIP_BODY(hipLaunchCooperativeKernel_spt, "hip_5.2",
             int (*)(const void *, struct hip_dim3, struct hip_dim3, void **, uint32_t, void *),
             (f, grid, block, args, shmem, stream), LAUNCH,
             fill_launch(&r_, f, grid, block, stream, corr_));
}

#define MULTI_LAUNCH_MAX 64 /* entries of a multi-device launch list the collector reads */

/* Copy up to n entries of an application's launch list without ever faulting: the runtime
 * checks n against the device count before it reads the list, so a failed call may come with
 * a list shorter than n, or none. After a successful call the runtime has read all n entries;
 * otherwise process_vm_readv copies what is readable, entry by entry. Returns entries copied. */
static int copy_launch_list(struct rocsys_hip_launch_params *out, const void *list, int n, int rc)
{
    struct iovec local = {out, (size_t)n * sizeof(*out)};
    struct iovec remote[MULTI_LAUNCH_MAX];
    ssize_t got;

    if (rc == 0) {
        memcpy(out, list, (size_t)n * sizeof(*out));
        return n;
    }
    for (int i = 0; i < n; i++) {
        remote[i].iov_base = (char *)(uintptr_t)list + (size_t)i * sizeof(*out);
        remote[i].iov_len = sizeof(*out);
    }
    got = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)n, 0);
    return got > 0 ? (int)((size_t)got / sizeof(*out)) : 0;
}

/* Launch fields of a multi-device launch: grid, block and stream of the first entry; the kernel
 * name only when every one of the n entries could be read and launches the same kernel (the
 * entries of hipExtLaunchMultiKernelMultiDevice may differ: then the call is recorded without
 * a name). */
static void fill_multi_launch(struct rocsys_rec_hip_api *r, const void *list, int n, int rc,
                              uint64_t corr)
{
    struct rocsys_hip_launch_params p[MULTI_LAUNCH_MAX];
    int got;

    r->correlation = corr;
    if (!list || n <= 0)
        return;
    got = copy_launch_list(p, list, n < MULTI_LAUNCH_MAX ? n : MULTI_LAUNCH_MAX, rc);
    if (got == 0)
        return;
    fill_launch(r, p[0].func, p[0].grid, p[0].block, p[0].stream, corr);
    if (got < n) { /* entries unread (or more than we read): the kernels are not known */
        r->name_id = 0;
        return;
    }
    for (int i = 1; i < got; i++) {
        if (p[i].func != p[0].func) {
            r->name_id = 0;
            break;
        }
    }
}

/* One call launches a kernel on each of n devices (one correlation id for all its dispatches). */
COLLECTOR_EXPORT int hipLaunchCooperativeKernelMultiDevice(void *list, int n, unsigned int flags)
{
    HIP_BODY(hipLaunchCooperativeKernelMultiDevice, "hip_4.2", int (*)(void *, int, unsigned int),
             (list, n, flags), LAUNCH, fill_multi_launch(&r_, list, n, rc_, corr_));
}

COLLECTOR_EXPORT int hipExtLaunchMultiKernelMultiDevice(void *list, int n, unsigned int flags)
{
    HIP_BODY(hipExtLaunchMultiKernelMultiDevice, "hip_4.2", int (*)(void *, int, unsigned int),
             (list, n, flags), LAUNCH, fill_multi_launch(&r_, list, n, rc_, corr_));
}

/* hipExtModuleLaunchKernel / hipHccModuleLaunchKernel are C++ functions in libamdhip64 (only
 * their mangled names are exported): the sizes are global work sizes in work-items, the grid
 * recorded is in blocks like the other launches. */
#define HIP_EXT_MODULE_SYM                                                                         \
    "_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_"   \
    "tS6_j"
#define HIP_HCC_MODULE_SYM                                                                         \
    "_Z24hipHccModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_"   \
    "tS6_"
COLLECTOR_EXPORT int hip_ext_module_launch_kernel(void *f, uint32_t gx, uint32_t gy, uint32_t gz,
                                                  uint32_t bx, uint32_t by, uint32_t bz,
                                                  size_t shmem, void *stream, void **params,
                                                  void **extra, void *start, void *stop,
                                                  uint32_t flags) __asm__(HIP_EXT_MODULE_SYM);
COLLECTOR_EXPORT int hip_hcc_module_launch_kernel(void *f, uint32_t gx, uint32_t gy, uint32_t gz,
                                                  uint32_t bx, uint32_t by, uint32_t bz,
                                                  size_t shmem, void *stream, void **params,
                                                  void **extra, void *start,
                                                  void *stop) __asm__(HIP_HCC_MODULE_SYM);

/* Grid in blocks from global work size and block size. */
static struct hip_dim3 blocks_of(uint32_t gx, uint32_t gy, uint32_t gz, struct hip_dim3 b)
{
    struct hip_dim3 g = {b.x ? gx / b.x : gx, b.y ? gy / b.y : gy, b.z ? gz / b.z : gz};
    return g;
}

COLLECTOR_EXPORT int hip_ext_module_launch_kernel(void *f, uint32_t gx, uint32_t gy, uint32_t gz,
                                                  uint32_t bx, uint32_t by, uint32_t bz,
                                                  size_t shmem, void *stream, void **params,
                                                  void **extra, void *start, void *stop,
                                                  uint32_t flags)
{
    struct hip_dim3 b = {bx, by, bz};
    struct hip_dim3 g = blocks_of(gx, gy, gz, b);

    HIP_BODY_SYM(hipExtModuleLaunchKernel, HIP_EXT_MODULE_SYM, "hip_4.2",
                 int (*)(void *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, size_t,
                         void *, void **, void **, void *, void *, uint32_t),
                 (f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra, start, stop, flags),
                 LAUNCH, fill_launch(&r_, f, g, b, stream, corr_));
}

COLLECTOR_EXPORT int hip_hcc_module_launch_kernel(void *f, uint32_t gx, uint32_t gy, uint32_t gz,
                                                  uint32_t bx, uint32_t by, uint32_t bz,
                                                  size_t shmem, void *stream, void **params,
                                                  void **extra, void *start, void *stop)
{
    struct hip_dim3 b = {bx, by, bz};
    struct hip_dim3 g = blocks_of(gx, gy, gz, b);

    HIP_BODY_SYM(hipHccModuleLaunchKernel, HIP_HCC_MODULE_SYM, "hip_4.2",
                 int (*)(void *, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, size_t,
                         void *, void **, void **, void *, void *),
                 (f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra, start, stop), LAUNCH,
                 fill_launch(&r_, f, g, b, stream, corr_));
}

/* A graph launch: its kernels are dispatched by the runtime (the HSA side times them). */
COLLECTOR_EXPORT int hipGraphLaunch(void *exec, void *stream)
{
    HIP_BODY(hipGraphLaunch, "hip_4.3", int (*)(void *, void *), (exec, stream), LAUNCH,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int __hipPushCallConfiguration(struct hip_dim3 grid, struct hip_dim3 block,
                                                size_t shmem, void *stream)
{
    HIP_BODY(__hipPushCallConfiguration, "hip_4.2",
             int (*)(struct hip_dim3, struct hip_dim3, size_t, void *),
             (grid, block, shmem, stream), NOTHING, fill_launch(&r_, NULL, grid, block, stream, 0));
}

COLLECTOR_EXPORT int __hipPopCallConfiguration(struct hip_dim3 *grid, struct hip_dim3 *block,
                                               size_t *shmem, void **stream)
{
    HIP_BODY(__hipPopCallConfiguration, "hip_4.2",
             int (*)(struct hip_dim3 *, struct hip_dim3 *, size_t *, void **),
             (grid, block, shmem, stream), NOTHING, NOTHING);
}

/* The launch of the old launch API: hipConfigureCall (or __hipPushCallConfiguration) pushes grid,
 * block, shared memory and stream on the runtime's per-thread stack, hipSetupArgument adds the
 * arguments, and hipLaunchByPtr pops that configuration and launches the host stub's kernel. No
 * argument carries the configuration, and the collector cannot mirror that stack (it does not
 * interpose hipConfigureCall): the launch is recorded with the kernel name of the host stub and a
 * correlation id, without grid, block or stream. */
COLLECTOR_EXPORT int hipLaunchByPtr(const void *f)
{
    HIP_BODY(hipLaunchByPtr, "hip_4.2", int (*)(const void *), (f), LAUNCH, {
        r_.name_id = fn_lookup(f);
        r_.correlation = corr_;
        r_.stack = collector_launch_stack();
    });
}

/* ---- memory ---- */

COLLECTOR_EXPORT int hipMalloc(void **ptr, size_t bytes)
{
    HIP_BODY(hipMalloc, "hip_4.2", int (*)(void **, size_t), (ptr, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMallocManaged(void **ptr, size_t bytes, unsigned int flags)
{
    HIP_BODY(hipMallocManaged, "hip_4.2", int (*)(void **, size_t, unsigned int),
             (ptr, bytes, flags), NOTHING, r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipHostMalloc(void **ptr, size_t bytes, unsigned int flags)
{
    HIP_BODY(hipHostMalloc, "hip_4.2", int (*)(void **, size_t, unsigned int), (ptr, bytes, flags),
             NOTHING, r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMallocAsync(void **ptr, size_t bytes, void *stream)
{
    HIP_BODY(hipMallocAsync, "hip_5.1", int (*)(void **, size_t, void *), (ptr, bytes, stream),
             NOTHING, {
                 r_.bytes = bytes;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipFree(void *ptr)
{
    HIP_BODY(hipFree, "hip_4.2", int (*)(void *), (ptr), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipHostFree(void *ptr)
{
    HIP_BODY(hipHostFree, "hip_4.2", int (*)(void *), (ptr), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipFreeAsync(void *ptr, void *stream)
{
    HIP_BODY(hipFreeAsync, "hip_5.1", int (*)(void *, void *), (ptr, stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

/* hipMemcpyKind values (as hip_runtime_api.h numbers them). */
enum { KIND_HTOH = 0, KIND_HTOD = 1, KIND_DTOH = 2, KIND_DTOD = 3, KIND_DEFAULT = 4 };

COLLECTOR_EXPORT int hipMemcpy(void *dst, const void *src, size_t bytes, int kind)
{
    HIP_BODY(hipMemcpy, "hip_4.2", int (*)(void *, const void *, size_t, int),
             (dst, src, bytes, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyAsync(void *dst, const void *src, size_t bytes, int kind,
                                    void *stream)
{
    HIP_BODY(hipMemcpyAsync, "hip_4.2", int (*)(void *, const void *, size_t, int, void *),
             (dst, src, bytes, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* The directional copies (hipDeviceptr_t is a void *). */
#define HIP_COPY_SYNC(api, k)                                                                      \
    COLLECTOR_EXPORT int api(void *dst, void *src, size_t bytes)                                   \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, void *, size_t), (dst, src, bytes), NOTHING, {    \
            r_.bytes = bytes;                                                                      \
            r_.copy_kind = k;                                                                      \
        });                                                                                        \
    }
#define HIP_COPY_ASYNC(api, k)                                                                     \
    COLLECTOR_EXPORT int api(void *dst, void *src, size_t bytes, void *stream)                     \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, void *, size_t, void *),                          \
                 (dst, src, bytes, stream), NOTHING, {                                             \
                     r_.bytes = bytes;                                                             \
                     r_.copy_kind = k;                                                             \
                     r_.stream = (uint64_t)(uintptr_t)stream;                                      \
                 });                                                                               \
    }

HIP_COPY_SYNC(hipMemcpyHtoD, KIND_HTOD)
HIP_COPY_SYNC(hipMemcpyDtoH, KIND_DTOH)
HIP_COPY_SYNC(hipMemcpyDtoD, KIND_DTOD)
HIP_COPY_ASYNC(hipMemcpyHtoDAsync, KIND_HTOD)
HIP_COPY_ASYNC(hipMemcpyDtoHAsync, KIND_DTOH)
HIP_COPY_ASYNC(hipMemcpyDtoDAsync, KIND_DTOD)

COLLECTOR_EXPORT int hipMemset(void *dst, int value, size_t bytes)
{
    HIP_BODY(hipMemset, "hip_4.2", int (*)(void *, int, size_t), (dst, value, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMemsetAsync(void *dst, int value, size_t bytes, void *stream)
{
    HIP_BODY(hipMemsetAsync, "hip_4.2", int (*)(void *, int, size_t, void *),
             (dst, value, bytes, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy, hipMemcpyAsync and hipMemset on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy_spt(void *dst, const void *src, size_t bytes, int kind)
{
    HIP_BODY(hipMemcpy_spt, "hip_5.2", int (*)(void *, const void *, size_t, int),
             (dst, src, bytes, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyAsync_spt(void *dst, const void *src, size_t bytes, int kind,
                                        void *stream)
{
    HIP_BODY(hipMemcpyAsync_spt, "hip_5.2", int (*)(void *, const void *, size_t, int, void *),
             (dst, src, bytes, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMemset_spt(void *dst, int value, size_t bytes)
{
    HIP_BODY(hipMemset_spt, "hip_5.2", int (*)(void *, int, size_t), (dst, value, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMemcpyWithStream(void *dst, const void *src, size_t bytes, int kind,
                                         void *stream)
{
    HIP_BODY(hipMemcpyWithStream, "hip_4.2", int (*)(void *, const void *, size_t, int, void *),
             (dst, src, bytes, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMemcpyPeer(void *dst, int dst_dev, const void *src, int src_dev,
                                   size_t bytes)
{
    HIP_BODY(hipMemcpyPeer, "hip_4.2", int (*)(void *, int, const void *, int, size_t),
             (dst, dst_dev, src, src_dev, bytes), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = KIND_DTOD;
             });
}

COLLECTOR_EXPORT int hipMemcpyPeerAsync(void *dst, int dst_dev, const void *src, int src_dev,
                                        size_t bytes, void *stream)
{
    HIP_BODY(hipMemcpyPeerAsync, "hip_4.2", int (*)(void *, int, const void *, int, size_t, void *),
             (dst, dst_dev, src, src_dev, bytes, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = KIND_DTOD;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                 size_t width, size_t height, int kind)
{
    HIP_BODY(hipMemcpy2D, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, int),
             (dst, dpitch, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, int kind, void *stream)
{
    HIP_BODY(hipMemcpy2DAsync, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, int, void *),
             (dst, dpitch, src, spitch, width, height, kind, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy2D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy2D_spt(void *dst, size_t dpitch, const void *src, size_t spitch,
                                     size_t width, size_t height, int kind)
{
    HIP_BODY(hipMemcpy2D_spt, "hip_5.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, int),
             (dst, dpitch, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyToSymbol(const void *symbol, const void *src, size_t bytes,
                                       size_t offset, int kind)
{
    HIP_BODY(hipMemcpyToSymbol, "hip_4.2", int (*)(const void *, const void *, size_t, size_t, int),
             (symbol, src, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyToSymbolAsync(const void *symbol, const void *src, size_t bytes,
                                            size_t offset, int kind, void *stream)
{
    HIP_BODY(hipMemcpyToSymbolAsync, "hip_4.2",
             int (*)(const void *, const void *, size_t, size_t, int, void *),
             (symbol, src, bytes, offset, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpyToSymbol on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpyToSymbol_spt(const void *symbol, const void *src, size_t bytes,
                                           size_t offset, int kind)
{
    HIP_BODY(hipMemcpyToSymbol_spt, "hip_5.2",
             int (*)(const void *, const void *, size_t, size_t, int),
             (symbol, src, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyFromSymbol(void *dst, const void *symbol, size_t bytes, size_t offset,
                                         int kind)
{
    HIP_BODY(hipMemcpyFromSymbol, "hip_4.2", int (*)(void *, const void *, size_t, size_t, int),
             (dst, symbol, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t bytes,
                                              size_t offset, int kind, void *stream)
{
    HIP_BODY(hipMemcpyFromSymbolAsync, "hip_4.2",
             int (*)(void *, const void *, size_t, size_t, int, void *),
             (dst, symbol, bytes, offset, kind, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpyFromSymbol on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpyFromSymbol_spt(void *dst, const void *symbol, size_t bytes,
                                             size_t offset, int kind)
{
    HIP_BODY(hipMemcpyFromSymbol_spt, "hip_5.2", int (*)(void *, const void *, size_t, size_t, int),
             (dst, symbol, bytes, offset, kind), NOTHING, {
                 r_.bytes = bytes;
                 r_.copy_kind = (uint32_t)kind;
             });
}

/* Bytes and direction of a hipMemcpy3D copy, read from its parameter block: the direction
 * is its kind; the bytes are width x height x depth when neither side is an array (the width
 * is in bytes then; for an array it counts elements of a format the runtime knows: 0 bytes).
 * No block: 0 bytes, direction default. */
static void fill_param3d(struct rocsys_rec_hip_api *r, const void *parms)
{
    const struct rocsys_hip_memcpy3d_parms *p = parms;

    r->copy_kind = KIND_DEFAULT;
    if (!p)
        return;
    r->copy_kind = (uint32_t)p->kind;
    if (!p->src_array && !p->dst_array)
        r->bytes = p->extent.width * p->extent.height * p->extent.depth;
}

COLLECTOR_EXPORT int hipMemcpy3D(const void *parms)
{
    HIP_BODY(hipMemcpy3D, "hip_4.2", int (*)(const void *), (parms), NOTHING,
             fill_param3d(&r_, parms));
}

COLLECTOR_EXPORT int hipMemcpy3DAsync(const void *parms, void *stream)
{
    HIP_BODY(hipMemcpy3DAsync, "hip_4.2", int (*)(const void *, void *), (parms, stream), NOTHING, {
        fill_param3d(&r_, parms);
        r_.stream = (uint64_t)(uintptr_t)stream;
    });
}

/* hipMemcpy3D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy3D_spt(const void *parms)
{
    HIP_BODY(hipMemcpy3D_spt, "hip_5.2", int (*)(const void *), (parms), NOTHING,
             fill_param3d(&r_, parms));
}

/* The side a hipMemoryType is on: 0 host, 1 device (arrays are device memory), -1 unknown. */
static int memory_side(int type)
{
    switch (type) {
    case ROCSYS_HIP_MEMORY_HOST:
        return 0;
    case ROCSYS_HIP_MEMORY_DEVICE:
    case ROCSYS_HIP_MEMORY_ARRAY:
        return 1;
    default: /* unified (unused by HIP) or invalid: the runtime decides */
        return -1;
    }
}

/* Bytes and direction of a hipMemcpyParam2D copy, read from its parameter block (none: 0 bytes,
 * direction default). */
static void fill_param2d(struct rocsys_rec_hip_api *r, const void *copy)
{
    const struct rocsys_hip_memcpy2d *p = copy;
    int src, dst;

    r->copy_kind = KIND_DEFAULT;
    if (!p)
        return;
    r->bytes = p->width_bytes * p->height;
    src = memory_side(p->src_memory_type);
    dst = memory_side(p->dst_memory_type);
    if (src >= 0 && dst >= 0)
        r->copy_kind = src ? (dst ? KIND_DTOD : KIND_DTOH) : (dst ? KIND_HTOD : KIND_HTOH);
}

COLLECTOR_EXPORT int hipMemcpyParam2D(const void *copy)
{
    HIP_BODY(hipMemcpyParam2D, "hip_4.2", int (*)(const void *), (copy), NOTHING,
             fill_param2d(&r_, copy));
}

COLLECTOR_EXPORT int hipMemcpyParam2DAsync(const void *copy, void *stream)
{
    HIP_BODY(hipMemcpyParam2DAsync, "hip_4.2", int (*)(const void *, void *), (copy, stream),
             NOTHING, {
                 fill_param2d(&r_, copy);
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* Copies to and from arrays (hipArray * is opaque here); width is in bytes. */
COLLECTOR_EXPORT int hipMemcpy2DToArray(void *dst, size_t w_offset, size_t h_offset,
                                        const void *src, size_t spitch, size_t width, size_t height,
                                        int kind)
{
    HIP_BODY(hipMemcpy2DToArray, "hip_4.2",
             int (*)(void *, size_t, size_t, const void *, size_t, size_t, size_t, int),
             (dst, w_offset, h_offset, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DToArrayAsync(void *dst, size_t w_offset, size_t h_offset,
                                             const void *src, size_t spitch, size_t width,
                                             size_t height, int kind, void *stream)
{
    HIP_BODY(hipMemcpy2DToArrayAsync, "hip_4.3",
             int (*)(void *, size_t, size_t, const void *, size_t, size_t, size_t, int, void *),
             (dst, w_offset, h_offset, src, spitch, width, height, kind, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy2DToArray on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy2DToArray_spt(void *dst, size_t w_offset, size_t h_offset,
                                            const void *src, size_t spitch, size_t width,
                                            size_t height, int kind)
{
    HIP_BODY(hipMemcpy2DToArray_spt, "hip_5.2",
             int (*)(void *, size_t, size_t, const void *, size_t, size_t, size_t, int),
             (dst, w_offset, h_offset, src, spitch, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DFromArray(void *dst, size_t dpitch, const void *src,
                                          size_t w_offset, size_t h_offset, size_t width,
                                          size_t height, int kind)
{
    HIP_BODY(hipMemcpy2DFromArray, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, size_t, int),
             (dst, dpitch, src, w_offset, h_offset, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpy2DFromArrayAsync(void *dst, size_t dpitch, const void *src,
                                               size_t w_offset, size_t h_offset, size_t width,
                                               size_t height, int kind, void *stream)
{
    HIP_BODY(hipMemcpy2DFromArrayAsync, "hip_4.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, size_t, int, void *),
             (dst, dpitch, src, w_offset, h_offset, width, height, kind, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemcpy2DFromArray on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemcpy2DFromArray_spt(void *dst, size_t dpitch, const void *src,
                                              size_t w_offset, size_t h_offset, size_t width,
                                              size_t height, int kind)
{
    HIP_BODY(hipMemcpy2DFromArray_spt, "hip_5.2",
             int (*)(void *, size_t, const void *, size_t, size_t, size_t, size_t, int),
             (dst, dpitch, src, w_offset, h_offset, width, height, kind), NOTHING, {
                 r_.bytes = width * height;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyToArray(void *dst, size_t w_offset, size_t h_offset, const void *src,
                                      size_t count, int kind)
{
    HIP_BODY(hipMemcpyToArray, "hip_4.2",
             int (*)(void *, size_t, size_t, const void *, size_t, int),
             (dst, w_offset, h_offset, src, count, kind), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = (uint32_t)kind;
             });
}

COLLECTOR_EXPORT int hipMemcpyFromArray(void *dst, const void *src, size_t w_offset,
                                        size_t h_offset, size_t count, int kind)
{
    HIP_BODY(hipMemcpyFromArray, "hip_4.2",
             int (*)(void *, const void *, size_t, size_t, size_t, int),
             (dst, src, w_offset, h_offset, count, kind), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = (uint32_t)kind;
             });
}

/* Array to host and host to array: the direction is in the name. */
COLLECTOR_EXPORT int hipMemcpyAtoH(void *dst, void *src, size_t src_offset, size_t count)
{
    HIP_BODY(hipMemcpyAtoH, "hip_4.2", int (*)(void *, void *, size_t, size_t),
             (dst, src, src_offset, count), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = KIND_DTOH;
             });
}

COLLECTOR_EXPORT int hipMemcpyHtoA(void *dst, size_t dst_offset, const void *src, size_t count)
{
    HIP_BODY(hipMemcpyHtoA, "hip_4.2", int (*)(void *, size_t, const void *, size_t),
             (dst, dst_offset, src, count), NOTHING, {
                 r_.bytes = count;
                 r_.copy_kind = KIND_HTOD;
             });
}

/* hipMemsetD8/D16/D32: count elements of 1, 2 or 4 bytes (the value is passed as an int,
 * which is how the C calling convention passes unsigned char and unsigned short too). */
#define HIP_SET_SYNC(api, elem)                                                                    \
    COLLECTOR_EXPORT int api(void *dst, int value, size_t count)                                   \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, int, size_t), (dst, value, count), NOTHING,       \
                 r_.bytes = count * (elem));                                                       \
    }
#define HIP_SET_ASYNC(api, elem)                                                                   \
    COLLECTOR_EXPORT int api(void *dst, int value, size_t count, void *stream)                     \
    {                                                                                              \
        HIP_BODY(api, "hip_4.2", int (*)(void *, int, size_t, void *),                             \
                 (dst, value, count, stream), NOTHING, {                                           \
                     r_.bytes = count * (elem);                                                    \
                     r_.stream = (uint64_t)(uintptr_t)stream;                                      \
                 });                                                                               \
    }

HIP_SET_SYNC(hipMemsetD8, 1)
HIP_SET_SYNC(hipMemsetD16, 2)
HIP_SET_SYNC(hipMemsetD32, 4)
HIP_SET_ASYNC(hipMemsetD8Async, 1)
HIP_SET_ASYNC(hipMemsetD16Async, 2)
HIP_SET_ASYNC(hipMemsetD32Async, 4)

COLLECTOR_EXPORT int hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)
{
    HIP_BODY(hipMemset2D, "hip_4.2", int (*)(void *, size_t, int, size_t, size_t),
             (dst, pitch, value, width, height), NOTHING, r_.bytes = width * height);
}

COLLECTOR_EXPORT int hipMemset2DAsync(void *dst, size_t pitch, int value, size_t width,
                                      size_t height, void *stream)
{
    HIP_BODY(hipMemset2DAsync, "hip_4.2", int (*)(void *, size_t, int, size_t, size_t, void *),
             (dst, pitch, value, width, height, stream), NOTHING, {
                 r_.bytes = width * height;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemset2D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemset2D_spt(void *dst, size_t pitch, int value, size_t width,
                                     size_t height)
{
    HIP_BODY(hipMemset2D_spt, "hip_5.2", int (*)(void *, size_t, int, size_t, size_t),
             (dst, pitch, value, width, height), NOTHING, r_.bytes = width * height);
}

/* 3D sets of pitched memory (hipPitchedPtr and hipExtent are passed by value): width (in bytes)
 * x height x depth. */
COLLECTOR_EXPORT int hipMemset3D(struct rocsys_hip_pitched_ptr ptr, int value,
                                 struct rocsys_hip_extent extent)
{
    HIP_BODY(hipMemset3D, "hip_4.2",
             int (*)(struct rocsys_hip_pitched_ptr, int, struct rocsys_hip_extent),
             (ptr, value, extent), NOTHING, r_.bytes = extent.width * extent.height * extent.depth);
}

COLLECTOR_EXPORT int hipMemset3DAsync(struct rocsys_hip_pitched_ptr ptr, int value,
                                      struct rocsys_hip_extent extent, void *stream)
{
    HIP_BODY(hipMemset3DAsync, "hip_4.2",
             int (*)(struct rocsys_hip_pitched_ptr, int, struct rocsys_hip_extent, void *),
             (ptr, value, extent, stream), NOTHING, {
                 r_.bytes = extent.width * extent.height * extent.depth;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

/* hipMemset3D on the per-thread default stream. */
COLLECTOR_EXPORT int hipMemset3D_spt(struct rocsys_hip_pitched_ptr ptr, int value,
                                     struct rocsys_hip_extent extent)
{
    HIP_BODY(hipMemset3D_spt, "hip_5.2",
             int (*)(struct rocsys_hip_pitched_ptr, int, struct rocsys_hip_extent),
             (ptr, value, extent), NOTHING, r_.bytes = extent.width * extent.height * extent.depth);
}

/* ---- more allocation forms ---- */

COLLECTOR_EXPORT int hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    HIP_BODY(hipMallocPitch, "hip_4.2", int (*)(void **, size_t *, size_t, size_t),
             (ptr, pitch, width, height), NOTHING,
             r_.bytes = rc_ == 0 && pitch ? *pitch * height : width * height);
}

COLLECTOR_EXPORT int hipMallocHost(void **ptr, size_t bytes)
{
    HIP_BODY(hipMallocHost, "hip_4.2", int (*)(void **, size_t), (ptr, bytes), NOTHING,
             r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipFreeHost(void *ptr)
{
    HIP_BODY(hipFreeHost, "hip_4.2", int (*)(void *), (ptr), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipExtMallocWithFlags(void **ptr, size_t bytes, unsigned int flags)
{
    HIP_BODY(hipExtMallocWithFlags, "hip_4.2", int (*)(void **, size_t, unsigned int),
             (ptr, bytes, flags), NOTHING, r_.bytes = bytes);
}

COLLECTOR_EXPORT int hipMallocFromPoolAsync(void **ptr, size_t bytes, void *pool, void *stream)
{
    HIP_BODY(hipMallocFromPoolAsync, "hip_5.1", int (*)(void **, size_t, void *, void *),
             (ptr, bytes, pool, stream), NOTHING, {
                 r_.bytes = bytes;
                 r_.stream = (uint64_t)(uintptr_t)stream;
             });
}

COLLECTOR_EXPORT int hipMallocArray(void **array, const void *desc, size_t width, size_t height,
                                    unsigned int flags)
{
    HIP_BODY(hipMallocArray, "hip_4.2",
             int (*)(void **, const void *, size_t, size_t, unsigned int),
             (array, desc, width, height, flags), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipFreeArray(void *array)
{
    HIP_BODY(hipFreeArray, "hip_4.2", int (*)(void *), (array), NOTHING, NOTHING);
}

/* Pitched 3D allocation: pitch * height * depth once allocated, else the extent asked for. */
COLLECTOR_EXPORT int hipMalloc3D(struct rocsys_hip_pitched_ptr *ptr,
                                 struct rocsys_hip_extent extent)
{
    HIP_BODY(hipMalloc3D, "hip_4.2",
             int (*)(struct rocsys_hip_pitched_ptr *, struct rocsys_hip_extent), (ptr, extent),
             NOTHING, {
                 size_t row = rc_ == 0 && ptr ? ptr->pitch : extent.width;
                 r_.bytes = row * extent.height * extent.depth;
             });
}

/* The array allocations (hipMalloc3DArray's are freed by hipFreeArray, hipArrayCreate's and
 * hipArray3DCreate's by hipArrayDestroy): no byte count, as for hipMallocArray (the extent is in
 * elements of a format only the runtime lays out). */
COLLECTOR_EXPORT int hipMalloc3DArray(void **array, const void *desc,
                                      struct rocsys_hip_extent extent, unsigned int flags)
{
    HIP_BODY(hipMalloc3DArray, "hip_4.2",
             int (*)(void **, const void *, struct rocsys_hip_extent, unsigned int),
             (array, desc, extent, flags), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipArrayCreate(void **array, const void *desc)
{
    HIP_BODY(hipArrayCreate, "hip_4.2", int (*)(void **, const void *), (array, desc), NOTHING,
             NOTHING);
}

COLLECTOR_EXPORT int hipArray3DCreate(void **array, const void *desc)
{
    HIP_BODY(hipArray3DCreate, "hip_4.2", int (*)(void **, const void *), (array, desc), NOTHING,
             NOTHING);
}

COLLECTOR_EXPORT int hipArrayDestroy(void *array)
{
    HIP_BODY(hipArrayDestroy, "hip_4.3", int (*)(void *), (array), NOTHING, NOTHING);
}

/* ---- synchronization, streams, events ---- */

COLLECTOR_EXPORT int hipDeviceSynchronize(void)
{
    HIP_BODY(hipDeviceSynchronize, "hip_4.2", int (*)(void), (), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamSynchronize(void *stream)
{
    HIP_BODY(hipStreamSynchronize, "hip_4.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipEventSynchronize(void *event)
{
    HIP_BODY(hipEventSynchronize, "hip_4.2", int (*)(void *), (event), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamCreate(void **stream)
{
    HIP_BODY(hipStreamCreate, "hip_4.2", int (*)(void **), (stream), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamCreateWithFlags(void **stream, unsigned int flags)
{
    HIP_BODY(hipStreamCreateWithFlags, "hip_4.2", int (*)(void **, unsigned int), (stream, flags),
             NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamCreateWithPriority(void **stream, unsigned int flags, int priority)
{
    HIP_BODY(hipStreamCreateWithPriority, "hip_4.2", int (*)(void **, unsigned int, int),
             (stream, flags, priority), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipStreamDestroy(void *stream)
{
    HIP_BODY(hipStreamDestroy, "hip_4.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamWaitEvent(void *stream, void *event, unsigned int flags)
{
    HIP_BODY(hipStreamWaitEvent, "hip_4.2", int (*)(void *, void *, unsigned int),
             (stream, event, flags), NOTHING, r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamQuery(void *stream)
{
    HIP_BODY(hipStreamQuery, "hip_4.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

/* hipStreamSynchronize, hipStreamQuery and hipStreamWaitEvent in their per-thread default stream
 * forms (the stream they name is recorded as given: 0 is the thread's default stream there). */
COLLECTOR_EXPORT int hipStreamSynchronize_spt(void *stream)
{
    HIP_BODY(hipStreamSynchronize_spt, "hip_5.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamQuery_spt(void *stream)
{
    HIP_BODY(hipStreamQuery_spt, "hip_5.2", int (*)(void *), (stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipStreamWaitEvent_spt(void *stream, void *event, unsigned int flags)
{
    HIP_BODY(hipStreamWaitEvent_spt, "hip_5.2", int (*)(void *, void *, unsigned int),
             (stream, event, flags), NOTHING, r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipEventCreate(void **event)
{
    HIP_BODY(hipEventCreate, "hip_4.2", int (*)(void **), (event), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventCreateWithFlags(void **event, unsigned int flags)
{
    HIP_BODY(hipEventCreateWithFlags, "hip_4.2", int (*)(void **, unsigned int), (event, flags),
             NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventRecord(void *event, void *stream)
{
    HIP_BODY(hipEventRecord, "hip_4.2", int (*)(void *, void *), (event, stream), NOTHING,
             r_.stream = (uint64_t)(uintptr_t)stream);
}

COLLECTOR_EXPORT int hipEventDestroy(void *event)
{
    HIP_BODY(hipEventDestroy, "hip_4.2", int (*)(void *), (event), NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventElapsedTime(float *ms, void *start, void *stop)
{
    HIP_BODY(hipEventElapsedTime, "hip_4.2", int (*)(float *, void *, void *), (ms, start, stop),
             NOTHING, NOTHING);
}

COLLECTOR_EXPORT int hipEventQuery(void *event)
{
    HIP_BODY(hipEventQuery, "hip_4.2", int (*)(void *), (event), NOTHING, NOTHING);
}
