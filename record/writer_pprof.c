/* profile.pb.gz: the session's profile in pprof's profile.proto (go tool pprof, Grafana
 * Pyroscope, Parca), written from the model when the session ends (record/pprof.c encodes).
 * File format:
 *  - sample types: samples/count (timer periods), cpu/nanoseconds (wall/nanoseconds in wall
 *    mode: periods x the sampling period) and gpu/nanoseconds; default cpu (wall); period_type
 *    the same as the second, period the sampling period in ns; duration_nanos the run's length.
 *  - CPU samples: one per stack record of the model (thread and call path, as stacks.folded),
 *    values {count, count x period, 0}, labels thread (name), tid, pid, process (basename of
 *    its executable) and rank (under MPI; a string: pprof drops a numeric label of value 0).
 *  - GPU samples: one per kernel and launch call path (as gpu.folded), values {0, 0, GPU ns},
 *    the kernel as the leaf frame (mapping "[gpu]"), the launch path above it ("[call path not
 *    captured]" when none; "[no HIP launch]" for dispatches no HIP launch made), labels kernel
 *    and rank.
 *  - Mappings: the launched program's executable first (readers take mapping 1 for the main
 *    binary), then one per module basename as functions meet them.
 *  - Frames: a location per function as the call trees show it (an inlined function is its
 *    own location), one Line each. Native: Function {name, filename = the definition's file,
 *    start_line}, in a mapping per module basename. Python: Function {qualname, co_filename}
 *    and Line.line = the line it was running (mapping "[python]").
 * The bytes depend on the model only (no clock is read). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model/model.h"
#include "pprof.h"
#include "record.h"

#define PPROF_GPU_MAPPING "[gpu]"

struct record_writer {
    int fd;
};

static struct record_writer *pprof_open(const char *path, struct model *m, char *err, size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));

    (void)m;
    w->fd = record_open(path, 1);
    if (w->fd < 0) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    return w;
}

/* The pprof location of model function fn (cached in locs, 0 until made). */
static uint64_t func_location(struct pprof *p, struct model *m, uint64_t *locs, uint32_t fn)
{
    const struct model_func *f = model_func_at(m, (int)fn);

    if (locs[fn])
        return locs[fn];
    if (!f)
        return locs[fn] = pprof_location(p, 0, pprof_function(p, "?", NULL, 0), 0);
    uint64_t map = pprof_mapping(p, f->module);
    if (f->module == model_python_module)
        locs[fn] = pprof_location(p, map, pprof_function(p, f->name, f->file, 0), f->line);
    else
        locs[fn] = pprof_location(p, map, pprof_function(p, f->name, f->file, f->line), 0);
    return locs[fn];
}

/* Leaf-first locations of path into out (after the n already there): the new count. */
static size_t path_locations(struct pprof *p, struct model *m, uint64_t *locs, uint32_t path,
                             uint64_t *out, size_t n)
{
    for (uint32_t q = path; q && n < MODEL_MAX_STACK + 2; q = model_path_parent(m, q))
        out[n++] = func_location(p, m, locs, model_path_func(m, q));
    return n;
}

/* A location for a pseudo-frame of the GPU samples (a kernel, a marker). */
static uint64_t named_location(struct pprof *p, const char *name)
{
    return pprof_location(p, pprof_mapping(p, PPROF_GPU_MAPPING), pprof_function(p, name, NULL, 0),
                          0);
}

/* The CPU samples: one per stack record. */
static void add_cpu_samples(struct pprof *p, struct model *m, uint64_t *locs, uint64_t *stack,
                            int64_t period_ns, int rank)
{
    struct model_stack_info si;

    for (size_t i = 0; model_stack_at(m, i, &si) == 0; i++) {
        const struct model_thread *th = model_thread_at(m, (int)si.thread);
        if (!si.count || !th)
            continue;
        const struct model_process *pr = model_process_find(m, th->pid);
        const char *exe = pr && pr->exe ? pr->exe : "";
        const char *base = strrchr(exe, '/');
        struct pprof_label l[5] = {
            {.key = "thread", .str = th->name[0] ? th->name : "thread"},
            {.key = "tid", .num = th->tid},
            {.key = "pid", .num = pr && pr->real_pid ? pr->real_pid : th->pid},
            {.key = "process", .str = base ? base + 1 : exe},
        };
        size_t nl = 4;
        char rs[16];
        int r = pr && pr->rank >= 0 ? pr->rank : rank;
        if (r >= 0) {
            snprintf(rs, sizeof(rs), "%d", r);
            l[nl++] = (struct pprof_label){.key = "rank", .str = rs};
        }
        size_t n = path_locations(p, m, locs, si.path, stack, 0);
        if (n == 0)
            stack[n++] = named_location(p, "[no frames]");
        int64_t v[3] = {(int64_t)si.count, (int64_t)si.count * period_ns, 0};
        pprof_sample(p, stack, n, v, l, nl);
    }
}

/* The GPU samples: kernels' GPU time by launch path, then what no launch path holds. */
static void add_gpu_samples(struct pprof *p, struct model *m, uint64_t *locs, uint64_t *stack,
                            int rank)
{
    struct model_launch_path_list *lp = model_launch_paths(m, NULL);
    struct model_kernel_list *k = model_kernels_list(m);
    char rs[16];
    struct pprof_label l[2] = {{.key = "kernel"}, {.key = "rank", .str = rs}};
    size_t nl = rank >= 0 ? 2 : 1;

    snprintf(rs, sizeof(rs), "%d", rank);

    for (int i = 0; i < lp->count; i++) {
        const struct model_launch_path *e = &lp->items[i];
        if (!e->gpu_ns)
            continue;
        l[0].str = e->name ? e->name : "[unknown kernel]";
        stack[0] = named_location(p, l[0].str);
        size_t n = path_locations(p, m, locs, e->path, stack, 1);
        if (n == 1)
            stack[n++] = named_location(p, "[call path not captured]");
        int64_t v[3] = {0, 0, (int64_t)e->gpu_ns};
        pprof_sample(p, stack, n, v, l, nl);
    }
    for (int i = 0; i < k->count; i++) {
        uint64_t held = 0;
        for (int j = 0; j < lp->count; j++)
            if (lp->items[j].name && strcmp(lp->items[j].name, k->items[i].name) == 0)
                held += lp->items[j].gpu_ns;
        if (k->items[i].gpu.total_ns <= held)
            continue;
        l[0].str = k->items[i].name;
        stack[0] = named_location(p, l[0].str);
        stack[1] = named_location(p, "[no HIP launch]");
        int64_t v[3] = {0, 0, (int64_t)(k->items[i].gpu.total_ns - held)};
        pprof_sample(p, stack, 2, v, l, nl);
    }
    model_kernels_list_free(k);
    model_launch_paths_free(lp);
}

/* The profile of model m. */
static struct pprof *build_profile(struct model *m)
{
    const struct model_session *s = model_session(m);
    const char *clock = s->mode && strcmp(s->mode, "wall") == 0 ? "wall" : "cpu";
    int64_t period_ns = s->freq_hz > 0 ? 1000000000 / s->freq_hz : 0;
    struct pprof *p = pprof_new();
    int nf = model_func_count(m);
    uint64_t *locs = xcalloc((size_t)nf + 1, sizeof(*locs));
    uint64_t *stack = xmalloc((MODEL_MAX_STACK + 2) * sizeof(*stack));
    char line[512];

    /* mapping 1 is the main binary for readers: the launched program's */
    for (int i = 0; i < model_process_count(m); i++) {
        const struct model_process *pr = model_process_at(m, i);
        if (pr->is_root && pr->exe) {
            const char *base = strrchr(pr->exe, '/');
            pprof_mapping(p, base ? base + 1 : pr->exe);
            break;
        }
    }
    pprof_sample_type(p, "samples", "count");
    pprof_sample_type(p, clock, "nanoseconds");
    pprof_sample_type(p, "gpu", "nanoseconds");
    pprof_set_default_type(p, clock);
    pprof_set_period(p, clock, "nanoseconds", period_ns);
    if (s->end_ns > s->start_ns && s->start_ns)
        pprof_set_times(p, 0, (int64_t)(s->end_ns - s->start_ns));
    snprintf(line, sizeof(line), "rocsys-top: %s", s->target);
    pprof_comment(p, line);
    snprintf(line, sizeof(line), "sampling: %s, %d Hz (%s)", clock, s->freq_hz,
             s->timer ? s->timer : "?");
    pprof_comment(p, line);
    if (s->keep_ns || s->keep_bytes) { /* --keep: the trace rolls, this profile does not */
        struct record_keep k = {s->keep_ns, s->keep_bytes};
        char text[32];
        record_keep_text(&k, text, sizeof(text));
        snprintf(line, sizeof(line),
                 "the trace keeps the last %s (trace.pftrace, --keep); this profile covers the "
                 "whole run",
                 text);
        pprof_comment(p, line);
    }
    add_cpu_samples(p, m, locs, stack, period_ns, s->rank);
    add_gpu_samples(p, m, locs, stack, s->rank);
    free(stack);
    free(locs);
    return p;
}

static int pprof_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    struct pprof *p = build_profile(m);
    int err = pprof_write_gz(p, w->fd);

    (void)end;
    pprof_free(p);
    if (close(w->fd) != 0 && !err)
        err = errno;
    free(w);
    return err;
}

const struct record_writer_class record_profile_pb = {
    .name = "pprof",
    .open = pprof_open,
    .event = NULL,
    .close = pprof_close,
    .error = NULL,
};
