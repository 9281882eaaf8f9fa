/* Collapsed stacks (flamegraph.pl, speedscope, inferno), written from the model when the
 * session ends.
 * stacks.folded: one line per distinct stack and thread, `THREADNAME-TID;outermost;...;leaf
 * COUNT`: every stack, nothing pruned, threads in the order the model met them, a thread's
 * stacks in the order they were first seen.
 * gpu.folded: one line per kernel and launch call path, `outermost;...;launcher;KERNEL NS`,
 * weighted by the GPU nanoseconds of the dispatches launched from there (paths without GPU
 * time left out), by GPU time; then `[no HIP launch];KERNEL NS` for the GPU time of dispatches
 * no HIP launch made, so that the weights add up to all the GPU time. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
    struct model *m;
    char **labels; /* function -> its label with ';' and newlines made ':' (made on use) */
    int nlabels;
};

static struct record_writer *folded_open(const char *path, struct model *m, char *err,
                                         size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));

    w->f = record_fopen_err(path, err, errlen);
    if (!w->f) {
        free(w);
        return NULL;
    }
    w->m = m;
    return w;
}

/* The label of function fn as this format needs it (';' and ' ' separate its fields). */
static const char *label_of(struct record_writer *w, uint32_t fn)
{
    char buf[MODEL_LABEL_MAX];

    if ((int)fn >= w->nlabels) {
        int n = model_func_count(w->m);
        w->labels = xrealloc(w->labels, (size_t)n * sizeof(*w->labels));
        memset(w->labels + w->nlabels, 0, (size_t)(n - w->nlabels) * sizeof(*w->labels));
        w->nlabels = n;
    }
    if (!w->labels[fn]) {
        model_python_label(model_func_at(w->m, (int)fn), buf, sizeof(buf));
        for (char *c = buf; *c; c++)
            if (*c == ';' || *c == '\n')
                *c = ':';
        w->labels[fn] = xstrdup(buf);
    }
    return w->labels[fn];
}

/* One line: the thread's prefix, the path's functions root first, the count. */
static void folded_line(struct record_writer *w, const char *prefix, uint32_t path, uint64_t count,
                        uint32_t *funcs)
{
    uint32_t n = 0;

    for (uint32_t p = path; p && n < MODEL_MAX_STACK; p = model_path_parent(w->m, p))
        funcs[n++] = model_path_func(w->m, p);
    fputs(prefix, w->f);
    while (n > 0) {
        fputc(';', w->f);
        fputs(label_of(w, funcs[--n]), w->f);
    }
    fprintf(w->f, " %llu\n", (unsigned long long)count);
}

static void write_folded(struct record_writer *w)
{
    struct model *m = w->m;
    size_t nst = model_distinct_stacks(m);
    int nth = model_thread_count(m);
    size_t *start = xcalloc((size_t)nth + 2, sizeof(*start));
    uint32_t *order = xcalloc(nst ? nst : 1, sizeof(*order));
    uint32_t *funcs = xmalloc(MODEL_MAX_STACK * sizeof(*funcs));
    struct model_stack_info si;

    /* the stacks grouped by thread (a counting sort keeps each thread's in first-seen order) */
    for (size_t i = 0; i < nst; i++)
        if (model_stack_at(m, i, &si) == 0)
            start[si.thread + 2]++;
    for (int t = 0; t < nth; t++)
        start[t + 2] += start[t + 1];
    for (size_t i = 0; i < nst; i++)
        if (model_stack_at(m, i, &si) == 0)
            order[start[si.thread + 1]++] = (uint32_t)i;
    for (int t = 0; t < nth; t++) {
        const struct model_thread *th = model_thread_at(m, t);
        char prefix[128];
        if (!th || th->samples == 0)
            continue;
        int n =
            snprintf(prefix, sizeof(prefix), "%s-%u", th->name[0] ? th->name : "thread", th->tid);
        for (int k = 0; k < n && k < (int)sizeof(prefix); k++)
            if (prefix[k] == ';' || prefix[k] == ' ')
                prefix[k] = '_';
        for (size_t k = start[t]; k < start[t + 1]; k++)
            if (model_stack_at(m, order[k], &si) == 0 && si.count)
                folded_line(w, prefix, si.path, si.count, funcs);
    }
    free(funcs);
    free(order);
    free(start);
}

/* Write the file with write (from the final model m, if given), close it, free the writer. */
static int close_with(struct record_writer *w, struct model *m,
                      void (*write)(struct record_writer *))
{
    int err;

    if (m)
        w->m = m;
    write(w);
    err = ostream_close(w->f);
    for (int i = 0; i < w->nlabels; i++)
        free(w->labels[i]);
    free(w->labels);
    free(w);
    return err;
}

static int folded_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    (void)end;
    return close_with(w, m, write_folded);
}

/* gpu.folded: each launch path of each kernel with the GPU time charged to it. */
static void write_gpu_folded(struct record_writer *w)
{
    struct model_launch_path_list *l = model_launch_paths(w->m, NULL);
    uint32_t *funcs = xmalloc(MODEL_MAX_STACK * sizeof(*funcs));

    for (int i = 0; i < l->count; i++) {
        const struct model_launch_path *p = &l->items[i];
        uint32_t n = 0;
        if (!p->gpu_ns)
            continue;
        for (uint32_t q = p->path; q && n < MODEL_MAX_STACK; q = model_path_parent(w->m, q))
            funcs[n++] = model_path_func(w->m, q);
        fputs(n ? "" : "[call path not captured]", w->f);
        for (uint32_t k = n; k > 0; k--)
            fprintf(w->f, "%s%s", k < n ? ";" : "", label_of(w, funcs[k - 1]));
        fputc(';', w->f);
        for (const char *c = p->name ? p->name : "[unknown kernel]"; *c; c++)
            fputc(*c == ';' || *c == '\n' ? ':' : *c, w->f);
        fprintf(w->f, " %llu\n", (unsigned long long)p->gpu_ns);
    }
    /* the kernels' GPU time no launch path holds (dispatches not made by a HIP launch this
     * collector saw): the weights add up to all the GPU time */
    struct model_kernel_list *k = model_kernels_list(w->m);
    for (int i = 0; i < k->count; i++) {
        uint64_t held = 0;
        for (int j = 0; j < l->count; j++)
            if (l->items[j].name && strcmp(l->items[j].name, k->items[i].name) == 0)
                held += l->items[j].gpu_ns;
        if (k->items[i].gpu.total_ns <= held)
            continue;
        fputs("[no HIP launch];", w->f);
        for (const char *c = k->items[i].name; *c; c++)
            fputc(*c == ';' || *c == '\n' ? ':' : *c, w->f);
        fprintf(w->f, " %llu\n", (unsigned long long)(k->items[i].gpu.total_ns - held));
    }
    model_kernels_list_free(k);
    free(funcs);
    model_launch_paths_free(l);
}

static int gpu_folded_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    (void)end;
    return close_with(w, m, write_gpu_folded);
}

const struct record_writer_class record_gpu_folded = {
    .name = "gpu-folded",
    .open = folded_open,
    .event = NULL,
    .close = gpu_folded_close,
};

const struct record_writer_class record_stacks_folded = {
    .name = "folded",
    .open = folded_open,
    .event = NULL,
    .close = folded_close,
};
