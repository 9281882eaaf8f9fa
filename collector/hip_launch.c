/* HIP wrappers: kernel registration (host stub -> kernel name) and the kernel launch entry
 * points, each with its launch fields and the launching call stack (hip_wrap.h). */
#define _GNU_SOURCE
#include "hip_wrap.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* Fill launch fields. */
static void fill_launch(struct rocsys_rec_hip_api *r, const void *f, struct hip_dim3 g,
                        struct hip_dim3 b, void *stream, uint64_t corr)
{
    r->name_id = hip_fn_lookup(f);
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
        uint32_t id = hip_intern_name(device_name ? device_name : device_function);
        if (id)
            hip_fn_insert(host_function, id);
    }
    errno = saved;
}

COLLECTOR_EXPORT int hipModuleGetFunction(void **function, void *module, const char *name)
{
    HIP_BODY(hipModuleGetFunction, "hip_4.2", int (*)(void **, void *, const char *),
             (function, module, name), NOTHING, {
                 if (rc_ == 0 && function && *function && name) {
                     uint32_t id = hip_intern_name(name);
                     if (id)
                         hip_fn_insert(*function, id);
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

/* Copy up to n entries of size bytes of an application's launch list without ever faulting:
 * the runtime checks n against the device count before it reads the list, so a failed call may
 * come with a list shorter than n, or none. After a successful call the runtime has read all n
 * entries; otherwise process_vm_readv copies what is readable, entry by entry. Returns entries
 * copied. */
static int copy_launch_list(void *out, const void *list, int n, size_t size, int rc)
{
    struct iovec local = {out, (size_t)n * size};
    struct iovec remote[MULTI_LAUNCH_MAX];
    ssize_t got;

    if (rc == 0) {
        memcpy(out, list, (size_t)n * size);
        return n;
    }
    for (int i = 0; i < n; i++) {
        remote[i].iov_base = (char *)(uintptr_t)list + (size_t)i * size;
        remote[i].iov_len = size;
    }
    got = process_vm_readv(getpid(), &local, 1, remote, (unsigned long)n, 0);
    return got > 0 ? (int)((size_t)got / size) : 0;
}

/* Launch fields of a multi-device launch from its first entry (func, grid, block, stream) and
 * the kernels of the got entries read of n: the kernel name only when all n could be read and
 * launch the same kernel (the entries of hipExtLaunchMultiKernelMultiDevice may differ: then the
 * call is recorded without a name). */
static void fill_multi_entries(struct rocsys_rec_hip_api *r,
                               const struct rocsys_hip_launch_params *p, int got, int n,
                               uint64_t corr)
{
    r->correlation = corr;
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

/* Launch fields of a multi-device launch of a hipLaunchParams list. */
static void fill_multi_launch(struct rocsys_rec_hip_api *r, const void *list, int n, int rc,
                              uint64_t corr)
{
    struct rocsys_hip_launch_params p[MULTI_LAUNCH_MAX];
    int got = 0;

    if (list && n > 0)
        got =
            copy_launch_list(p, list, n < MULTI_LAUNCH_MAX ? n : MULTI_LAUNCH_MAX, sizeof(*p), rc);
    fill_multi_entries(r, p, got, n, corr);
}

/* Launch fields of a multi-device launch of a hipFunctionLaunchParams list (module functions,
 * hipModuleLaunchCooperativeKernelMultiDevice). */
static void fill_multi_function_launch(struct rocsys_rec_hip_api *r, const void *list, unsigned n,
                                       int rc, uint64_t corr)
{
    struct rocsys_hip_function_launch_params f[MULTI_LAUNCH_MAX];
    struct rocsys_hip_launch_params p[MULTI_LAUNCH_MAX];
    int want = n < MULTI_LAUNCH_MAX ? (int)n : MULTI_LAUNCH_MAX, got = 0;

    if (list && n > 0)
        got = copy_launch_list(f, list, want, sizeof(*f), rc);
    for (int i = 0; i < got; i++) {
        p[i].func = f[i].function;
        p[i].grid = (struct hip_dim3){f[i].grid_x, f[i].grid_y, f[i].grid_z};
        p[i].block = (struct hip_dim3){f[i].block_x, f[i].block_y, f[i].block_z};
        p[i].stream = f[i].stream;
    }
    fill_multi_entries(r, p, got, n > (unsigned)INT32_MAX ? INT32_MAX : (int)n, corr);
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
        r_.name_id = hip_fn_lookup(f);
        r_.correlation = corr_;
        r_.stack = collector_launch_stack();
    });
}

/* A dim3 from its three sizes. */
static struct hip_dim3 dim3_of(uint32_t x, uint32_t y, uint32_t z)
{
    struct hip_dim3 d = {x, y, z};
    return d;
}

/* ---- the rest of the launch family (5.3+, 5.5+ and the C names of 6.x; one row each) ---- */

/* clang-format off */
HIP_WRAP(hipModuleLaunchCooperativeKernel, "hip_5.5", (void *f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, void *stream, void **params), (f, gx, gy, gz, bx, by, bz, shmem, stream, params), LAUNCH, fill_launch(&r_, f, dim3_of(gx, gy, gz), dim3_of(bx, by, bz), stream, corr_))
HIP_WRAP(hipModuleLaunchCooperativeKernelMultiDevice, "hip_5.5", (void *list, unsigned int n, unsigned int flags), (list, n, flags), LAUNCH, fill_multi_function_launch(&r_, list, n, rc_, corr_))
/* 6.x declares hipExtModuleLaunchKernel / hipHccModuleLaunchKernel extern "C": programs built
 * against its hip_ext.h call these names, not the mangled ones above (the same API rows). */
HIP_WRAP(hipExtModuleLaunchKernel, "hip_4.2", (void *f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz, size_t shmem, void *stream, void **params, void **extra, void *start, void *stop, uint32_t flags), (f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra, start, stop, flags), LAUNCH, fill_launch(&r_, f, blocks_of(gx, gy, gz, dim3_of(bx, by, bz)), dim3_of(bx, by, bz), stream, corr_))
HIP_WRAP(hipHccModuleLaunchKernel, "hip_4.2", (void *f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz, size_t shmem, void *stream, void **params, void **extra, void *start, void *stop), (f, gx, gy, gz, bx, by, bz, shmem, stream, params, extra, start, stop), LAUNCH, fill_launch(&r_, f, blocks_of(gx, gy, gz, dim3_of(bx, by, bz)), dim3_of(bx, by, bz), stream, corr_))
/* graphs: their kernels are dispatched by the runtime (the HSA side times them) */
HIP_WRAP(hipGraphLaunch_spt, "hip_5.3", (void *exec, void *stream), (exec, stream), LAUNCH, STREAM(stream))
HIP_WRAP(hipGraphUpload, "hip_5.3", (void *exec, void *stream), (exec, stream), NOTHING, STREAM(stream))
/* a host function queued on a stream (no kernel) */
HIP_WRAP(hipLaunchHostFunc, "hip_5.3", (void *stream, void *fn, void *data), (stream, fn, data), NOTHING, STREAM(stream))
HIP_WRAP(hipLaunchHostFunc_spt, "hip_5.3", (void *stream, void *fn, void *data), (stream, fn, data), NOTHING, STREAM(stream))
/* clang-format on */
