/* The collector's HIP and HSA records in the session: validated, fed to the model, and turned
 * into slice events for the recording: HIP calls on the calling thread's track, dispatches on
 * one track per GPU queue, async copies on a copies track, and a flow from each launch to the
 * dispatch it made. Names come in records of their own, possibly drained after the events that
 * use them, so a slice whose name is unknown waits (a bounded time) for it. */
#include "session/session.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "record/record.h"

#define PENDING_MAX_NS 500000000ull /* an unnamed slice waits this long for its name */
/* A HIP or MPI call waits for its call path as long as the model does (the stack's modules,
 * model/launch_paths.c STACK_WAIT_NS; a file being loaded, until it is loaded or the session
 * ends): written without it, the replay counted the call under "call path not captured" while
 * the live view had its path (on a loaded machine symbols take seconds). Beyond this many
 * waiting slices the oldest are written without their path. */
#define PENDING_PATH_MAX 262144 /* about 36 MB */

/* A slice waiting for a name: the record as it came, and who wrote it. */
struct pending_slice {
    uint32_t pid, tid;
    uint64_t seen_ns; /* when it was drained */
    union {
        struct rocsys_rec_header h;
        struct rocsys_rec_hip_api hip;
        struct rocsys_rec_hsa_dispatch disp;
        struct rocsys_rec_mpi_call mpi; /* session/mpi.c's, waiting for its call path */
    } u;
};

static struct pending_slice *pending;
static size_t npending, pending_cap;

/* Flow id of a launch (pid, correlation): the same on both ends, never 0. */
static uint64_t flow_id(uint32_t pid, uint64_t correlation)
{
    return correlation ? ((uint64_t)pid << 40) ^ correlation : 0;
}

/* Emit a HIP call as a slice on its thread (kernel: its name, or NULL if unknown); a launch
 * carries the call path it was made from (launch_path=, functions root first). */
static void emit_hip(struct model *m, struct record_set *rec, uint32_t pid, uint32_t tid,
                     const struct rocsys_rec_hip_api *r, const char *kernel)
{
    char args[600 + 4096];
    int n = snprintf(args, sizeof(args), "result=%d", r->result);
    uint32_t path = model_launch_stack_path(m, pid, r->stack);

    if (rocsys_hip_api_launch(r->api))
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\nkernel=%.300s", kernel ? kernel : "?");
    if (rocsys_hip_api_launch(r->api) && rocsys_launch_dims_known(r->grid, r->block))
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\ngrid=%u,%u,%u\nblock=%u,%u,%u",
                      r->grid[0], r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2]);
    if (r->bytes && n < (int)sizeof(args))
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\nbytes=%llu",
                      (unsigned long long)r->bytes);
    if (strncmp(model_hip_api_name(r->api), "hipMemcpy", 9) == 0 && n < (int)sizeof(args))
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\ncopy_kind=%d", (int)r->copy_kind);
    if (rocsys_hip_api_waits(r->api) && n < (int)sizeof(args))
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\nwait_cpu_ns=%llu",
                      (unsigned long long)r->wait_cpu_ns);
    if (path && n + 16 < (int)sizeof(args)) {
        n += snprintf(args + n, sizeof(args) - (size_t)n, "\nlaunch_path=");
        model_path_names(m, path, ";", 0, args + n, sizeof(args) - (size_t)n);
    }
    struct record_event ev = {.type = RECORD_EV_SLICE,
                              .time_ns = r->start_ns,
                              .end_ns = r->end_ns >= r->start_ns ? r->end_ns : r->start_ns,
                              .pid = pid,
                              .tid = tid,
                              .track = NULL,
                              .category = "hip",
                              .name = model_hip_api_name(r->api),
                              .flow_out = flow_id(pid, r->correlation),
                              .args = args};
    record_set_event(rec, &ev);
}

/* Emit a timed dispatch as a slice on its queue's track. */
static void emit_dispatch(struct record_set *rec, uint32_t pid, uint32_t tid,
                          const struct rocsys_rec_hsa_dispatch *r, const char *kernel)
{
    char args[256], track[64], fallback[48];

    if (!kernel) {
        snprintf(fallback, sizeof(fallback), "kernel 0x%llx", (unsigned long long)r->kernel_object);
        kernel = fallback;
    }
    snprintf(track, sizeof(track), "GPU%u queue %llu", (unsigned)r->agent,
             (unsigned long long)r->queue_id);
    snprintf(args, sizeof(args), "grid=%u,%u,%u\nblock=%u,%u,%u\nsubmit_tid=%u", r->grid[0],
             r->grid[1], r->grid[2], r->block[0], r->block[1], r->block[2],
             (unsigned)r->submit_tid);
    struct record_event ev = {.type = RECORD_EV_SLICE,
                              .time_ns = r->start_ns,
                              .end_ns = r->end_ns,
                              .pid = pid,
                              .tid = tid,
                              .track = track,
                              .category = "kernel",
                              .name = kernel,
                              .flow_in = flow_id(pid, r->correlation),
                              .args = args};
    record_set_event(rec, &ev);
}

/* Keep a slice for later (its name is not known yet). */
static void defer(uint32_t pid, uint32_t tid, const struct rocsys_rec_header *h, size_t size)
{
    if (npending == pending_cap) {
        pending_cap = pending_cap ? pending_cap * 2 : 64;
        pending = xrealloc(pending, pending_cap * sizeof(*pending));
    }
    struct pending_slice *p = &pending[npending++];
    memset(p, 0, sizeof(*p));
    p->pid = pid;
    p->tid = tid;
    p->seen_ns = model_clock_ns(CLOCK_MONOTONIC);
    memcpy(&p->u, h, size);
}

void session_kernels_defer(uint32_t pid, uint32_t tid, const struct rocsys_rec_header *h,
                           size_t size)
{
    defer(pid, tid, h, size);
}

/* The launch stack key a pending HIP or MPI slice waits for (0: none). */
static uint64_t stack_of(const struct pending_slice *p)
{
    if (p->u.h.type == ROCSYS_REC_HIP_API)
        return p->u.hip.stack;
    return p->u.h.type == ROCSYS_REC_MPI_CALL ? p->u.mpi.stack : 0;
}

/* Emit a pending slice if its name is known (or name_force: waited too long for it) and its
 * call path is not pending (path_wait); returns 1 if emitted. */
static int try_emit(struct model *m, struct record_set *rec, const struct pending_slice *p,
                    int name_force, int path_wait)
{
    const char *name;

    if (p->u.h.type == ROCSYS_REC_HIP_API) {
        name = model_hip_kernel_name(m, p->pid, p->u.hip.name_id);
        if ((!name && p->u.hip.name_id && !name_force) || path_wait)
            return 0; /* its kernel's name, or its launch path, is not known yet */
        emit_hip(m, rec, p->pid, p->tid, &p->u.hip, name);
        return 1;
    }
    if (p->u.h.type == ROCSYS_REC_MPI_CALL) {
        if (path_wait)
            return 0; /* its call path is not known yet */
        session_mpi_emit(m, rec, p->pid, p->tid, &p->u.mpi);
        return 1;
    }
    name = model_kernel_object_name(m, p->pid, p->u.disp.kernel_object);
    if (!name && !name_force)
        return 0;
    emit_dispatch(rec, p->pid, p->tid, &p->u.disp, name);
    return 1;
}

void session_kernels_flush(struct model *m, struct record_set *rec, int final)
{
    uint64_t now = model_clock_ns(CLOCK_MONOTONIC);
    size_t kept = 0, over = npending > PENDING_PATH_MAX ? npending - PENDING_PATH_MAX : 0;
    uint32_t last_pid = 0;
    uint64_t last_stack = 0;
    int last_wait = 0;

    for (size_t i = 0; i < npending; i++) {
        const struct pending_slice *p = &pending[i];
        uint64_t stack = final || i < over ? 0 : stack_of(p);
        if (stack && (stack != last_stack || p->pid != last_pid)) { /* runs of one stack: once */
            last_pid = p->pid;
            last_stack = stack;
            last_wait = model_launch_stack_pending(m, p->pid, stack);
        }
        int name_force = final || now - p->seen_ns > PENDING_MAX_NS;
        if (!try_emit(m, rec, p, name_force, stack && last_wait))
            pending[kept++] = *p;
    }
    npending = kept;
    if (final) {
        free(pending);
        pending = NULL;
        npending = pending_cap = 0;
    }
}

/* A name record's string, NUL-terminated (NULL if the record is malformed). */
static char *name_of(const struct rocsys_rec_header *h)
{
    const struct rocsys_rec_name *r = (const void *)h;
    char *s;

    if (h->size < sizeof(*r) || (uint64_t)sizeof(*r) + r->name_len > h->size)
        return NULL;
    s = xmalloc((size_t)r->name_len + 1);
    memcpy(s, (const uint8_t *)h + sizeof(*r), r->name_len);
    s[r->name_len] = '\0';
    return s;
}

int session_kernels_record(struct model *m, struct record_set *rec,
                           const struct rocsys_ring_ctl *ctl, const struct rocsys_rec_header *h)
{
    switch (h->type) {
    case ROCSYS_REC_HIP_NAME:
    case ROCSYS_REC_HSA_SYMBOL: {
        const struct rocsys_rec_name *r = (const void *)h;
        char *s = name_of(h);
        if (s)
            model_kernel_name(m, r->pid, h->type == ROCSYS_REC_HIP_NAME ? 0 : 1, r->key, s);
        free(s);
        return 1;
    }
    case ROCSYS_REC_HIP_API: {
        const struct rocsys_rec_hip_api *r = (const void *)h;
        if (h->size < sizeof(*r))
            return 1;
        struct model_hip_call c = {.pid = ctl->pid,
                                   .tid = ctl->tid,
                                   .api = r->api,
                                   .result = r->result,
                                   .start_ns = r->start_ns,
                                   .end_ns = r->end_ns,
                                   .name_id = r->name_id,
                                   .bytes = r->bytes,
                                   .copy_kind = (int)r->copy_kind};
        memcpy(c.grid, r->grid, sizeof(c.grid));
        memcpy(c.block, r->block, sizeof(c.block));
        c.stack_key = r->stack;
        c.wait_cpu_ns = r->wait_cpu_ns;
        c.correlation = r->correlation;
        model_hip_call(m, &c);
        if ((r->name_id && !model_hip_kernel_name(m, ctl->pid, r->name_id)) ||
            model_launch_stack_pending(m, ctl->pid, r->stack))
            defer(ctl->pid, ctl->tid, h, sizeof(*r));
        else
            emit_hip(m, rec, ctl->pid, ctl->tid, r, model_hip_kernel_name(m, ctl->pid, r->name_id));
        return 1;
    }
    case ROCSYS_REC_LAUNCH_STACK: {
        const struct rocsys_rec_launch_stack *r = (const void *)h;
        if (h->size < sizeof(*r) || r->nframes > (h->size - sizeof(*r)) / 8 ||
            r->nframes > ROCSYS_LAUNCH_NATIVE_MAX + ROCSYS_LAUNCH_PY_MAX + ROCSYS_REGION_DEPTH_MAX)
            return 1;
        model_launch_stack_define(m, ctl->pid, r->key, r->frames, r->nframes);
        return 1;
    }
    case ROCSYS_REC_HSA_DISPATCH: {
        const struct rocsys_rec_hsa_dispatch *r = (const void *)h;
        int bad;
        if (h->size < sizeof(*r))
            return 1;
        bad = (h->flags & ROCSYS_DISPATCH_BAD_TIME) || r->end_ns < r->start_ns;
        model_gpu_dispatch(m, r->pid, r->agent, r->queue_id, r->kernel_object, r->start_ns,
                           r->end_ns, bad, r->grid, r->block);
        model_launch_dispatch(m, r->pid, r->correlation,
                              bad ? UINT64_MAX : r->end_ns - r->start_ns);
        if (bad)
            return 1;
        if (!model_kernel_object_name(m, r->pid, r->kernel_object))
            defer(r->pid, ctl->tid, h, sizeof(*r));
        else
            emit_dispatch(rec, r->pid, ctl->tid, r,
                          model_kernel_object_name(m, r->pid, r->kernel_object));
        return 1;
    }
    case ROCSYS_REC_HSA_COPY: {
        const struct rocsys_rec_hsa_copy *r = (const void *)h;
        char args[64];
        int bad;
        if (h->size < sizeof(*r))
            return 1;
        bad = (h->flags & ROCSYS_DISPATCH_BAD_TIME) || r->end_ns < r->start_ns;
        model_gpu_copy(m, r->pid, r->bytes, r->start_ns, r->end_ns, bad);
        if (bad)
            return 1;
        snprintf(args, sizeof(args), "bytes=%llu", (unsigned long long)r->bytes);
        struct record_event ev = {.type = RECORD_EV_SLICE,
                                  .time_ns = r->start_ns,
                                  .end_ns = r->end_ns,
                                  .pid = r->pid,
                                  .tid = ctl->tid,
                                  .track = "GPU async copies",
                                  .category = "copy",
                                  .name = "async copy",
                                  .args = args};
        record_set_event(rec, &ev);
        return 1;
    }
    default:
        return 0;
    }
}

void session_kernels_summary(FILE *out, struct model *m, int max_rows)
{
    struct model_kernel_list *l;

    if (!model_gpu_seen(m))
        return;
    l = model_kernels_list(m);
    model_kernels_sort_by_gpu(l);
    fprintf(out, "top kernels (GPU time):\n");
    for (int i = 0; i < l->count && i < max_rows; i++) {
        const struct model_kernel *k = &l->items[i];
        fprintf(out, "  %5.1f%%  %10.3f ms  %6llu dispatches  %6llu HIP launches  %s\n",
                l->gpu_total_ns ? 100.0 * (double)k->gpu.total_ns / (double)l->gpu_total_ns : 0.0,
                (double)k->gpu.total_ns / 1e6, (unsigned long long)k->dispatches,
                (unsigned long long)k->hip_launches, k->name);
    }
    model_kernels_list_free(l);
}
