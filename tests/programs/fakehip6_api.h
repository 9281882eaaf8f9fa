/* The HIP 6.x entry points the stand-in HIP library (fakehip.c) exports with the symbol version
 * libamdhip64.so.6 gives them (6.4.3's `nm -D`), and how tp_hip6 calls them: the names a program
 * built against the 6.x headers binds to (the R0600 renames, the _spt forms of
 * HIP_API_PER_THREAD_DEFAULT_STREAM, the C names of hip_ext.h, the 5.3-6.4 additions), so that
 * the link records versioned references (hipGetDevicePropertiesR0600@hip_6.0) as with the real
 * library. One row per entry point:
 *   X(name, version, (parameters), (arguments tp_hip6 passes), launch)
 * launch: 0 no kernel, 1 launches kernel K (a registered host stub) or module function M,
 * 2 a multi-device launch of the list LIST (host stubs) or FLIST (module functions). */
#ifndef ROCSYS_TESTS_FAKEHIP6_API_H
#define ROCSYS_TESTS_FAKEHIP6_API_H

#include <stddef.h>
#include <stdint.h>

struct fh_dim3 {
    uint32_t x, y, z;
};
struct fh_extent {
    size_t w, h, d;
};
struct fh_pitched {
    void *ptr;
    size_t pitch, xsize, ysize;
};
struct fh_ipc { /* hipIpcMemHandle_t: 64 bytes, passed by value */
    char reserved[64];
};
struct fh_launch_params { /* hipLaunchParams */
    void *func;
    struct fh_dim3 grid, block;
    void **args;
    size_t shmem;
    void *stream;
};
struct fh_function_launch_params { /* hipFunctionLaunchParams */
    void *function;
    uint32_t gx, gy, gz, bx, by, bz, shmem;
    void *stream;
    void **params;
};

/* clang-format off */
#define FAKEHIP6_API(X) \
    X(hipGetDeviceCount, "hip_4.2", (int *n), (&I), 0) \
    X(hipGetDevicePropertiesR0600, "hip_6.0", (void *prop, int dev), (BUF, 0), 0) \
    X(hipChooseDeviceR0600, "hip_6.0", (int *dev, const void *prop), (&I, BUF), 0) \
    X(hipSetDevice, "hip_4.2", (int dev), (0), 0) \
    X(hipGetDevice, "hip_4.2", (int *dev), (&I), 0) \
    X(hipDeviceGetAttribute, "hip_4.2", (int *v, int attr, int dev), (&I, 1, 0), 0) \
    X(hipInit, "hip_4.2", (unsigned flags), (0), 0) \
    X(hipDeviceReset, "hip_4.2", (void), (), 0) \
    X(hipLaunchKernel_spt, "hip_5.2", (const void *f, struct fh_dim3 g, struct fh_dim3 b, void **a, size_t s, void *st), (K, G, B, NULL, 0, ST), 1) \
    X(hipLaunchCooperativeKernel_spt, "hip_5.2", (const void *f, struct fh_dim3 g, struct fh_dim3 b, void **a, uint32_t s, void *st), (K, G, B, NULL, 0, ST), 1) \
    X(hipExtLaunchKernel, "hip_4.2", (const void *f, struct fh_dim3 g, struct fh_dim3 b, void **a, size_t s, void *st, void *e0, void *e1, int fl), (K, G, B, NULL, 0, ST, NULL, NULL, 0), 1) \
    X(hipLaunchCooperativeKernel, "hip_4.2", (const void *f, struct fh_dim3 g, struct fh_dim3 b, void **a, unsigned s, void *st), (K, G, B, NULL, 0, ST), 1) \
    X(hipModuleLaunchKernel, "hip_4.2", (void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned s, void *st, void **p, void **e), (M, 8, 1, 1, 64, 1, 1, 0, ST, NULL, NULL), 1) \
    X(hipModuleLaunchCooperativeKernel, "hip_5.5", (void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned s, void *st, void **p), (M, 8, 1, 1, 64, 1, 1, 0, ST, NULL), 1) \
    X(hipExtModuleLaunchKernel, "hip_4.2", (void *f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz, size_t s, void *st, void **p, void **e, void *e0, void *e1, uint32_t fl), (M, 512, 1, 1, 64, 1, 1, 0, ST, NULL, NULL, NULL, NULL, 0), 1) \
    X(hipHccModuleLaunchKernel, "hip_4.2", (void *f, uint32_t gx, uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz, size_t s, void *st, void **p, void **e, void *e0, void *e1), (M, 512, 1, 1, 64, 1, 1, 0, ST, NULL, NULL, NULL, NULL), 1) \
    X(hipLaunchCooperativeKernelMultiDevice, "hip_4.2", (void *list, int n, unsigned fl), (LIST, 2, 0), 2) \
    X(hipModuleLaunchCooperativeKernelMultiDevice, "hip_5.5", (void *list, unsigned n, unsigned fl), (FLIST, 2, 0), 2) \
    X(hipGraphLaunch_spt, "hip_5.3", (void *exec, void *st), (BUF, ST), 0) \
    X(hipGraphUpload, "hip_5.3", (void *exec, void *st), (BUF, ST), 0) \
    X(hipLaunchHostFunc_spt, "hip_5.3", (void *st, void *fn, void *data), (ST, BUF, NULL), 0) \
    X(hipMemcpy_spt, "hip_5.2", (void *d, const void *s, size_t n, int k), (BUF, BUF, 64, 1), 0) \
    X(hipMemcpyAsync_spt, "hip_5.2", (void *d, const void *s, size_t n, int k, void *st), (BUF, BUF, 64, 2, ST), 0) \
    X(hipMemcpy2DAsync_spt, "hip_5.3", (void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, int k, void *st), (BUF, 16, BUF, 16, 16, 4, 1, ST), 0) \
    X(hipMemcpy2DFromArrayAsync_spt, "hip_5.3", (void *d, size_t dp, const void *s, size_t wo, size_t ho, size_t w, size_t h, int k, void *st), (BUF, 16, BUF, 0, 0, 16, 2, 2, ST), 0) \
    X(hipMemcpy2DToArrayAsync_spt, "hip_5.3", (void *d, size_t wo, size_t ho, const void *s, size_t sp, size_t w, size_t h, int k, void *st), (BUF, 0, 0, BUF, 16, 16, 2, 1, ST), 0) \
    X(hipMemcpy3DAsync_spt, "hip_5.3", (const void *p, void *st), (NULL, ST), 0) \
    X(hipMemcpyFromArray_spt, "hip_5.3", (void *d, const void *s, size_t wo, size_t ho, size_t n, int k), (BUF, BUF, 0, 0, 32, 2), 0) \
    X(hipMemcpyFromSymbolAsync_spt, "hip_5.3", (void *d, const void *sym, size_t n, size_t o, int k, void *st), (BUF, BUF, 48, 0, 2, ST), 0) \
    X(hipMemcpyToSymbolAsync_spt, "hip_5.3", (const void *sym, const void *s, size_t n, size_t o, int k, void *st), (BUF, BUF, 24, 0, 1, ST), 0) \
    X(hipMemcpy2DArrayToArray, "hip_6.2", (void *d, size_t dw, size_t dh, const void *s, size_t sw, size_t sh, size_t w, size_t h, int k), (BUF, 0, 0, BUF, 0, 0, 8, 8, 3), 0) \
    X(hipMemcpyAtoA, "hip_6.2", (void *d, size_t dof, void *s, size_t sof, size_t n), (BUF, 0, BUF, 0, 40), 0) \
    X(hipMemcpyAtoD, "hip_6.2", (void *d, void *s, size_t sof, size_t n), (BUF, BUF, 0, 56), 0) \
    X(hipMemcpyAtoHAsync, "hip_6.2", (void *d, void *s, size_t sof, size_t n, void *st), (BUF, BUF, 0, 72, ST), 0) \
    X(hipMemcpyDtoA, "hip_6.2", (void *d, size_t dof, void *s, size_t n), (BUF, 0, BUF, 88), 0) \
    X(hipMemcpyHtoAAsync, "hip_6.2", (void *d, size_t dof, const void *s, size_t n, void *st), (BUF, 0, BUF, 104, ST), 0) \
    X(hipDrvMemcpy2DUnaligned, "hip_4.3", (const void *c), (NULL), 0) \
    X(hipDrvMemcpy3D, "hip_4.2", (const void *c), (NULL), 0) \
    X(hipDrvMemcpy3DAsync, "hip_4.2", (const void *c, void *st), (NULL, ST), 0) \
    X(hipMemset_spt, "hip_5.2", (void *d, int v, size_t n), (BUF, 0, 32), 0) \
    X(hipMemsetAsync_spt, "hip_5.3", (void *d, int v, size_t n, void *st), (BUF, 0, 32, ST), 0) \
    X(hipMemset2DAsync_spt, "hip_5.3", (void *d, size_t p, int v, size_t w, size_t h, void *st), (BUF, 16, 0, 16, 2, ST), 0) \
    X(hipMemset3DAsync_spt, "hip_5.3", (struct fh_pitched p, int v, struct fh_extent e, void *st), (PITCHED, 0, EXTENT, ST), 0) \
    X(hipEventRecord_spt, "hip_5.2", (void *ev, void *st), (BUF, ST), 0) \
    X(hipEventRecordWithFlags, "hip_6.4", (void *ev, void *st, unsigned fl), (BUF, ST, 0), 0) \
    X(hipStreamSynchronize_spt, "hip_5.2", (void *st), (ST), 0) \
    X(hipStreamQuery_spt, "hip_5.2", (void *st), (ST), 0) \
    X(hipStreamWaitEvent_spt, "hip_5.2", (void *st, void *ev, unsigned fl), (ST, BUF, 0), 0) \
    X(hipStreamAddCallback_spt, "hip_5.3", (void *st, void *cb, void *data, unsigned fl), (ST, BUF, NULL, 0), 0) \
    X(hipStreamBeginCapture_spt, "hip_5.3", (void *st, int mode), (ST, 0), 0) \
    X(hipStreamEndCapture_spt, "hip_5.3", (void *st, void **g), (ST, &P), 0) \
    X(hipStreamIsCapturing_spt, "hip_5.3", (void *st, int *status), (ST, &I), 0) \
    X(hipStreamGetFlags_spt, "hip_5.2", (void *st, unsigned *fl), (ST, &U), 0) \
    X(hipStreamGetPriority_spt, "hip_5.2", (void *st, int *prio), (ST, &I), 0) \
    X(hipGraphCreate, "hip_4.3", (void **g, unsigned fl), (&P, 0), 0) \
    X(hipGraphAddEmptyNode, "hip_4.4", (void **n, void *g, const void *deps, size_t nd), (&P, BUF, NULL, 0), 0) \
    X(hipGraphAddBatchMemOpNode, "hip_6.4", (void **n, void *g, const void *deps, size_t nd, const void *p), (&P, BUF, NULL, 0, BUF), 0) \
    X(hipStreamGetCaptureInfo_v2_spt, "hip_5.3", (void *st, int *cs, unsigned long long *id, void **g, const void **deps, size_t *nd), (ST, &I, NULL, &P, NULL, NULL), 0) \
    X(hipMemPoolTrimTo, "hip_5.1", (void *pool, size_t keep), (BUF, 0), 0) \
    X(hipMemAddressReserve, "hip_5.1", (void **p, size_t n, size_t align, void *addr, unsigned long long fl), (&P, 4096, 0, NULL, 0), 0) \
    X(hipCreateTextureObject, "hip_4.2", (void **t, const void *res, const void *tex, const void *view), (&P, BUF, BUF, NULL), 0) \
    X(hipTexRefSetMipmapLevelBias, "hip_4.2", (void *ref, float bias), (BUF, 0.5f), 0) \
    X(hipModuleLoadData, "hip_4.2", (void **m, const void *image), (&P, BUF), 0) \
    X(hipLinkCreate, "hip_6.4", (unsigned n, void *opts, void **vals, void **state), (0, NULL, NULL, &P), 0) \
    X(hipConfigureCall, "hip_4.2", (struct fh_dim3 g, struct fh_dim3 b, size_t s, void *st), (G, B, 0, ST), 0) \
    X(hipCtxGetCurrent, "hip_4.2", (void **ctx), (&P), 0) \
    X(hipGetLastError, "hip_4.2", (void), (), 0) \
    X(hipPeekAtLastError, "hip_4.2", (void), (), 0) \
    X(hipMemGetInfo, "hip_4.2", (size_t *fr, size_t *tot), (&Z, &Z), 0) \
    X(hipIpcOpenMemHandle, "hip_4.2", (void **p, struct fh_ipc h, unsigned fl), (&P, IPC, 1), 0) \
    X(hipStreamWriteValue64, "hip_4.4", (void *st, void *p, uint64_t v, unsigned fl), (ST, BUF, 1, 0), 0)
/* clang-format on */

#endif
