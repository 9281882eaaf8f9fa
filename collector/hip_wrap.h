/* What the HIP wrappers share (collector/hip*.c): resolving the next definition of an entry
 * point, kernel names, the HIP_API record of a call, device waits and launch correlation, and
 * HIP_BODY, the body of every wrapper. hip.c defines the functions; hip_launch.c, hip_copy.c,
 * hip_memory.c, hip_sync.c, hip_device.c and the HIP_WRAP rows of hip_graph.c, hip_pool.c,
 * hip_texture.c, hip_module.c, hip_context.c and hip_misc.c define the wrappers. */
#ifndef ROCSYS_COLLECTOR_HIP_WRAP_H
#define ROCSYS_COLLECTOR_HIP_WRAP_H

#include "collector.h"
#include "hip_abi.h"

#include <errno.h>
#include <stdint.h>

/* The entry points are the HIP runtime's: their prototypes live in HIP's C++-flavoured
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

/* Correlation id of the launch in progress on this thread, or 0. */
extern __thread uint64_t hip_tls_launch;
/* 1 while this thread is inside a traced HIP call (calls the runtime makes meanwhile are its). */
extern __thread int hip_tls_depth;

/* The next definition of r (versioned first, then any version), cached; NULL when none. */
void *hip_resolve(struct hip_real *r);
/* The name id of host function / function handle f, 0 if unknown. Lock-free. */
uint32_t hip_fn_lookup(const void *f);
/* Map f to name id (a later mapping of the same f wins). */
void hip_fn_insert(const void *f, uint32_t id);
/* The id of name, interned (and announced) on first sight; 0 when the table is full. */
uint32_t hip_intern_name(const char *name);
/* Fill the common part of a HIP_API record at the end of a call. */
void hip_fill(struct rocsys_rec_hip_api *r, uint16_t api, uint64_t start_ns, int result);
/* Send a filled record; the caller's errno survives. */
void hip_send(const struct rocsys_rec_hip_api *r);
/* The calling thread's CPU time (ns). */
uint64_t hip_thread_cpu_ns(void);
/* The calling thread begins to wait for the device in HIP call api; returns its CPU time. */
uint64_t hip_wait_begin(int api, uint64_t t0);
/* Begin a launch: a correlation id for the dispatch it makes on this thread. */
uint64_t hip_launch_begin(uint64_t t0);
/* The major version of the HIP runtime the wrappers forward to: 6 when it defines symbol
 * version hip_6.0 (libamdhip64.so.6), else 5. Some types changed with it (hipMemoryType's
 * numbers, HIP_MEMCPY3D's sizes). */
int hip_runtime_major(void);

/* Start of a traced call: its start time, or 0 when not tracing. */
static inline uint64_t hip_begin(void)
{
    return collector_g.enabled ? collector_now_ns() : 0;
}

/* One wrapper body: resolve, time, call, record (fill runs with r_ and rc_ in scope). */
#define HIP_BODY(api, ver, ftype, call_args, pre, fill)                                            \
    HIP_BODY_SYM(api, #api, ver, ftype, call_args, pre, fill)
/* The same for a wrapper whose library symbol is not its API name (C++-mangled entry points). */
#define HIP_BODY_SYM(api, sym, ver, ftype, call_args, pre, fill)                                   \
    HIP_BODY_RET(api, sym, ver, int, HIP_ERROR_NOT_INITIALIZED, rc_, ftype, call_args, pre, fill)
/* The general body: the entry point returns rtype (missing when the runtime lacks it) and its
 * record's result is result (rc_ for a hipError_t). A call the runtime makes to one of its own
 * entry points from inside a traced call (through its PLT: 6.4.3 calls hipMemGetInfo,
 * hipGetDevice, hipCreateChannelDesc ... so) is part of that call: forwarded, not recorded. */
#define HIP_BODY_RET(api, sym, ver, rtype, missing, result, ftype, call_args, pre, fill)           \
    static struct hip_real real_ = {NULL, sym, ver};                                               \
    __typeof__(ftype) fn_ = (__typeof__(ftype))hip_resolve(&real_);                                \
    struct rocsys_rec_hip_api r_;                                                                  \
    uint64_t t0_, corr_ = 0, cpu0_ = 0;                                                            \
    rtype rc_;                                                                                     \
    (void)corr_;                                                                                   \
    if (!fn_)                                                                                      \
        return missing;                                                                            \
    if (hip_tls_depth)                                                                             \
        return fn_ call_args;                                                                      \
    t0_ = hip_begin();                                                                             \
    pre;                                                                                           \
    if (rocsys_hip_api_waits(HIP_API_##api) && t0_) /* samples meanwhile: [gpu wait] leaves */     \
        cpu0_ = hip_wait_begin(HIP_API_##api, t0_);                                                \
    hip_tls_depth = 1;                                                                             \
    rc_ = fn_ call_args;                                                                           \
    hip_tls_depth = 0;                                                                             \
    if (rocsys_hip_api_waits(HIP_API_##api))                                                       \
        collector_wait_end();                                                                      \
    if (t0_) {                                                                                     \
        int saved_ = errno;                                                                        \
        hip_tls_launch = 0;                                                                        \
        hip_fill(&r_, HIP_API_##api, t0_, (int)(result));                                          \
        if (rocsys_hip_api_waits(HIP_API_##api))                                                   \
            r_.wait_cpu_ns = hip_thread_cpu_ns() - cpu0_;                                          \
        fill;                                                                                      \
        hip_send(&r_);                                                                             \
        errno = saved_;                                                                            \
    }                                                                                              \
    return rc_

/* One row, one traced entry point: HIP_WRAP(api, "version", (parameters), (arguments), pre, fill)
 * defines api (returning hipError_t) with those parameters; it forwards to the runtime's
 * definition of that symbol version (or of any version: an entry point the loaded runtime
 * lacks returns hipErrorNotInitialized without a record). */
#define HIP_WRAP(api, ver, params, args, pre, fill)                                                \
    COLLECTOR_EXPORT int api params                                                                \
    {                                                                                              \
        HIP_BODY(api, ver, int(*) params, args, pre, fill);                                        \
    }

/* The same for one of the few entry points that return something else than a hipError_t
 * (hipGetErrorString, hipGetStreamDeviceId, hipCreateChannelDesc ...): HIP_WRAP_AS(rtype,
 * missing, api, "version", (parameters), (arguments), fill) returns rtype, missing when the
 * loaded runtime lacks it; its record's result is 0 (there is no error to count). */
#define HIP_WRAP_AS(rtype, missing, api, ver, params, args, fill)                                  \
    COLLECTOR_EXPORT rtype api params                                                              \
    {                                                                                              \
        HIP_BODY_RET(api, #api, ver, rtype, missing, 0, rtype(*) params, args, NOTHING, fill);     \
    }

/* Fill helpers for HIP_WRAP rows: the stream; bytes and direction of a copy. */
#define STREAM(s)        r_.stream = (uint64_t)(uintptr_t)(s)
#define COPY(n, k)       (r_.bytes = (n), r_.copy_kind = (uint32_t)(k))
#define COPY_ON(n, k, s) (COPY(n, k), STREAM(s))

#define NOTHING ((void)0)
#define LAUNCH  corr_ = hip_launch_begin(t0_)

#endif
