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
 * program that never calls HIP costs nothing: nothing is resolved before the first call.
 *
 * This file holds what the wrappers share (hip_wrap.h); the wrappers themselves are in
 * hip_launch.c (registration, launches), hip_copy.c (copies), hip_memory.c (allocation, sets),
 * hip_sync.c (synchronization, streams, events), hip_device.c (devices), and one HIP_WRAP row
 * per entry point in hip_graph.c (graphs, capture), hip_pool.c (memory pools, virtual memory),
 * hip_texture.c (arrays, textures, surfaces), hip_module.c (modules, linking, functions,
 * occupancy), hip_context.c (contexts, peers, device settings, errors, versions) and hip_misc.c
 * (the rest: memory queries and hints, IPC, external resources, stream memory operations). */
#define _GNU_SOURCE
#include "hip_wrap.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
__thread uint64_t hip_tls_launch; /* correlation id of the launch in progress, or 0 */
__thread int hip_tls_depth;       /* inside a traced call: the runtime's own calls are its */

uint64_t collector_hip_current_launch(void)
{
    return hip_tls_launch;
}

/* The next definition of r (versioned first, then any version), cached. */
void *hip_resolve(struct hip_real *r)
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
uint32_t hip_fn_lookup(const void *f)
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
void hip_fn_insert(const void *f, uint32_t id)
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

/* The id of name, interned (and announced) on first sight; 0 when the table is full. */
uint32_t hip_intern_name(const char *name)
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

/* Fill the common part of a HIP_API record at the end of a call. */
void hip_fill(struct rocsys_rec_hip_api *r, uint16_t api, uint64_t start_ns, int result)
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
void hip_send(const struct rocsys_rec_hip_api *r)
{
    int saved = errno;

    collector_write_any(r);
    errno = saved;
}

/* The calling thread's CPU time (ns). */
uint64_t hip_thread_cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The calling thread begins to wait for the device in HIP call api: its samples until the
 * call returns are "[gpu wait]" leaves (the signal engine's handler reads the flag; the perf
 * engine's samples are matched by time with a GPU_WAIT record). Returns the thread's CPU time,
 * for the CPU time the wait burns. */
uint64_t hip_wait_begin(int api, uint64_t t0)
{
    int saved = errno;
    uint64_t cpu = hip_thread_cpu_ns();

    collector_wait_begin(ROCSYS_WAIT_GPU, api, t0);
    errno = saved;
    return cpu;
}

/* Begin a launch: a correlation id for the dispatch it makes on this thread. */
uint64_t hip_launch_begin(uint64_t t0)
{
    uint64_t c = t0 ? atomic_fetch_add_explicit(&next_correlation, 1, memory_order_relaxed) : 0;
    hip_tls_launch = c;
    return c;
}

int hip_runtime_major(void)
{
    static _Atomic int major;
    int m = atomic_load_explicit(&major, memory_order_relaxed), saved = errno;

    if (m)
        return m;
    m = dlvsym(RTLD_NEXT, "hipGetDevicePropertiesR0600", "hip_6.0") ? 6 : 5;
    atomic_store_explicit(&major, m, memory_order_relaxed);
    errno = saved;
    return m;
}
