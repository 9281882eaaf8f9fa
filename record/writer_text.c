/* profile.txt, built from the model when the session ends: per-thread call trees as aligned
 * text tables in the manner of ROCm Systems Profiler's wall_clock.txt, then flat hot-function
 * tables per thread and overall (writer_folded.c writes every stack, for tools).
 *
 * File format, for people (cat):
 *   # header lines (command, sampling, totals, what was left out)
 *   the hot functions of all threads: | FUNCTION | SELF | SELF % | INCL % | EST. SELF TIME (s)
 *   | LOCATION |
 *   when the program has user regions, a table of their times:
 *   | REGION | TID | COUNT | TOTAL | MEAN | MIN | MAX | STDDEV | EXIT |  (ms; EXIT = instances
 *   still open when their thread or process ended)
 *   when GPU kernels were seen, the top ones (by GPU time, then HIP launches), each with the
 *   call paths it was launched from: | SHARE % | LAUNCHES | GPU (us) | LAUNCHED FROM | (the
 *   share is of the kernel's GPU time, or of its launches when none was timed)
 *   one call tree per thread (the busiest first), rows in depth-first order, children by
 *   inclusive count: | |TT>>> |_label | SAMPLES | DEPTH | INCL % | SELF % | EST. TIME (s) |
 *   (TT = the thread's index; label indented two spaces per depth; shares are of the thread's
 *   samples; estimated time = samples x sampling period). User regions are "[region] NAME"
 *   nodes. The children of a node below --profile-min % (default 0.5) of the thread's samples
 *   are one row "... N more below P %" with their samples summed.
 *   the hot functions of each thread (20 rows each)
 *   counters of the recording (GPU metrics, ...), one row per track:
 *   | TRACK | UNIT | READINGS | MIN | MEAN | MAX |
 *   The file stays under PROFILE_MAX_BYTES: threads' sections that would not fit are left out,
 *   and a line says how many (with --profile-min 0 nothing is left out).
 * Nothing else is in the file; it is meant for people (cat), the folded file for tools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "model/model.h"
#include "record.h"

#define PROFILE_MAX_BYTES    1000000L /* profile.txt's size limit with pruning on */
#define PROFILE_TREES_BYTES  850000L  /* where the call trees stop, room left for the rest */
#define PROFILE_HOT_ROWS     20       /* rows of each per-thread hot-functions table */
#define PROFILE_KERNELS      10       /* kernels with their launch paths */
#define PROFILE_KERNEL_PATHS 10       /* launch paths of each */

struct record_writer {
    FILE *f;
    struct model *m;
    struct text_counter *ctr; /* counter tracks seen, in order of appearance */
    int nctr, capctr;
};

/* Running statistics of one counter track (pid, name) for the summary table. */
struct text_counter {
    uint32_t pid;
    char *track, *unit;
    uint64_t n;
    double sum, min, max;
};

/* Children of node in t, sorted by inclusive count (largest first), into a new array. */
static int sorted_children(const struct model_tree *t, int node, int **out)
{
    int n = 0;
    for (int c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling)
        n++;
    int *v = xcalloc((size_t)n + 1, sizeof(*v));
    n = 0;
    for (int c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling)
        v[n++] = c;
    for (int i = 1; i < n; i++) /* insertion sort: trees have few children per node */
        for (int k = i; k > 0 && t->nodes[v[k]].inclusive > t->nodes[v[k - 1]].inclusive; k--) {
            int x = v[k];
            v[k] = v[k - 1];
            v[k - 1] = x;
        }
    *out = v;
    return n;
}

/* Sampling period in seconds (for estimated times). */
static double period_s(struct model *m)
{
    int hz = model_session(m)->freq_hz;
    return hz > 0 ? 1.0 / hz : 0;
}

/* What profile_rows needs besides the node. */
struct tree_out {
    FILE *f;
    struct model *m;
    const struct model_tree *t;
    int thread_index;
    uint64_t total; /* the thread's samples */
    double min_pct; /* children below this share are summed into one row */
    long max_bytes; /* 0: no limit; else the tree stops at this file offset */
    int cut;        /* the limit was reached */
};

/* One table row of the call tree. */
static void tree_row(const struct tree_out *o, const char *name, int depth, uint64_t incl,
                     uint64_t self)
{
    char label[512];
    snprintf(label, sizeof(label), "|%02d>>> %*s|_%s", o->thread_index % 100, 2 * (depth - 1), "",
             name);
    fprintf(o->f, "| %-70s | %9llu | %5d | %6.1f | %6.1f | %13.3f |\n", label,
            (unsigned long long)incl, depth - 1,
            o->total ? 100.0 * (double)incl / (double)o->total : 0,
            o->total ? 100.0 * (double)self / (double)o->total : 0, (double)incl * period_s(o->m));
}

/* One row per node below `node`, depth first; children below the threshold (those the model
 * left out of the tree, and any kept one still below it) as one row. */
static void profile_rows(struct tree_out *o, int node)
{
    const struct model_node *nd = &o->t->nodes[node];
    int *kids, n = sorted_children(o->t, node, &kids), more = nd->hidden;
    uint64_t rest = nd->inclusive - nd->self; /* what the rows of the children leave */
    int i;

    for (i = 0; i < n && !o->cut; i++) {
        const struct model_node *x = &o->t->nodes[kids[i]];
        if (o->min_pct > 0 && 100.0 * (double)x->inclusive < o->min_pct * (double)o->total)
            break; /* sorted: this one and all after it are below */
        if (o->max_bytes && ftell(o->f) > o->max_bytes) {
            o->cut = 1;
            break;
        }
        const struct model_func *fn = model_func_at(o->m, x->func);
        tree_row(o, fn ? fn->name : "?", x->depth, x->inclusive, x->self);
        rest -= x->inclusive;
        profile_rows(o, kids[i]);
    }
    more += n - i;
    if (!o->cut && more > 0 && rest > 0) {
        char what[96];
        snprintf(what, sizeof(what), "... %d more below %g %%", more, o->min_pct);
        tree_row(o, what, nd->depth + 1, rest, 0);
    }
    free(kids);
}

/* Order hot-list entries by self count, then inclusive. */
static int hot_cmp(const void *a, const void *b)
{
    const struct model_hot *x = a, *y = b;
    if (x->self != y->self)
        return x->self < y->self ? 1 : -1;
    if (x->inclusive != y->inclusive)
        return x->inclusive < y->inclusive ? 1 : -1;
    return 0;
}

/* The flat hot-functions table for one filter: functions with self samples, then the first
 * of the others up to 20 rows; at most max_rows rows (0: no limit). */
static void profile_hot(FILE *f, struct model *m, const struct model_filter *flt, const char *title,
                        int max_rows)
{
    struct model_hot_list *h = model_hot_build(m, flt);
    qsort(h->items, (size_t)h->count, sizeof(*h->items), hot_cmp);
    fprintf(f, "\n== Hot functions: %s (%llu samples) ==\n", title, (unsigned long long)h->total);
    fprintf(f, "| %-50s | %9s | %6s | %6s | %18s | %s\n", "FUNCTION", "SELF", "SELF %", "INCL %",
            "EST. SELF TIME (s)", "LOCATION");
    for (int i = 0; i < h->count; i++) {
        const struct model_hot *e = &h->items[i];
        const struct model_func *fn = model_func_at(m, e->func);
        if ((e->self == 0 && i >= 20) || (max_rows > 0 && i >= max_rows)) {
            if (i < h->count)
                fprintf(f, "| ... %d more functions\n", h->count - i);
            break;
        }
        char loc[512];
        if (fn->file)
            snprintf(loc, sizeof(loc), "%s %s:%d", fn->module, fn->file, fn->line);
        else
            snprintf(loc, sizeof(loc), "%s", fn->module);
        fprintf(f, "| %-50s | %9llu | %6.1f | %6.1f | %18.3f | %s\n", fn->name,
                (unsigned long long)e->self,
                h->total ? 100.0 * (double)e->self / (double)h->total : 0,
                h->total ? 100.0 * (double)e->inclusive / (double)h->total : 0,
                (double)e->self * period_s(m), loc);
    }
    model_hot_free(h);
}

/* The user regions table of profile.txt (nothing when the program has none). */
static void profile_regions(FILE *f, struct model *m)
{
    int n;
    const struct model_region_stats *st = model_regions_stats(m, &n);
    struct model_regions_summary sum;

    if (n == 0)
        return;
    model_regions_summary(m, &sum);
    fprintf(f,
            "\n== Regions (%d; unbalanced pops %llu, closed at exit %llu, marks %llu): time "
            "per region and thread, ms ==\n",
            n, (unsigned long long)sum.unbalanced_pops, (unsigned long long)sum.closed_at_exit,
            (unsigned long long)sum.marks);
    fprintf(f, "| %-40s | %8s | %9s | %12s | %10s | %10s | %10s | %10s | %5s |\n", "REGION", "TID",
            "COUNT", "TOTAL", "MEAN", "MIN", "MAX", "STDDEV", "EXIT");
    for (int i = 0; i < n; i++) {
        const struct model_thread *th = model_thread_at(m, st[i].thread);
        fprintf(f, "| %-40s | %8u | %9llu | %12.3f | %10.3f | %10.3f | %10.3f | %10.3f | %5llu |\n",
                st[i].name, th ? (unsigned)th->tid : 0u, (unsigned long long)st[i].count,
                (double)st[i].total_ns / 1e6, st[i].mean_ns / 1e6, (double)st[i].min_ns / 1e6,
                (double)st[i].max_ns / 1e6, model_region_stddev_ns(&st[i]) / 1e6,
                (unsigned long long)st[i].closed_at_exit);
    }
}

/* The top kernels and the call paths they were launched from (innermost caller first). */
static void profile_kernels(FILE *f, struct model *m)
{
    struct model_kernel_list *k = model_kernels_list(m);
    char path[2048];

    model_kernels_sort_by_gpu(k);
    for (int i = 0; i < k->count && i < PROFILE_KERNELS; i++) {
        const struct model_kernel *e = &k->items[i];
        struct model_launch_path_list *l = model_launch_paths(m, e->name);
        fprintf(f, "\n== Kernel %s: %llu dispatches, %llu HIP launches, GPU %.3f ms (%.1f %%) ==\n",
                e->name, (unsigned long long)e->dispatches, (unsigned long long)e->hip_launches,
                (double)e->gpu.total_ns / 1e6,
                k->gpu_total_ns ? 100.0 * (double)e->gpu.total_ns / (double)k->gpu_total_ns : 0.0);
        if (l->count)
            fprintf(f, "| %7s | %9s | %12s | %s\n", "SHARE %", "LAUNCHES", "GPU (us)",
                    "LAUNCHED FROM (innermost caller first)");
        for (int j = 0; j < l->count && j < PROFILE_KERNEL_PATHS; j++) {
            const struct model_launch_path *p = &l->items[j];
            model_path_names(m, p->path, " < ", 1, path, sizeof(path));
            fprintf(f, "| %7.1f | %9llu | %12.3f | %s\n",
                    l->gpu_ns
                        ? 100.0 * (double)p->gpu_ns / (double)l->gpu_ns
                        : 100.0 * (double)p->launches / (double)(l->launches ? l->launches : 1),
                    (unsigned long long)p->launches, (double)p->gpu_ns / 1e3,
                    p->path      ? path
                    : p->pending ? "(call path: symbols still loading)"
                                 : "(call path not captured)");
        }
        if (l->count > PROFILE_KERNEL_PATHS)
            fprintf(f, "| ... %d more launch paths\n", l->count - PROFILE_KERNEL_PATHS);
        model_launch_paths_free(l);
    }
    model_kernels_list_free(k);
}

/* Order thread indexes by samples, the busiest first. */
static struct model *sort_model;
static int by_samples(const void *a, const void *b)
{
    const struct model_thread *x = model_thread_at(sort_model, *(const int *)a);
    const struct model_thread *y = model_thread_at(sort_model, *(const int *)b);
    if (x->samples != y->samples)
        return x->samples < y->samples ? 1 : -1;
    return *(const int *)a - *(const int *)b;
}

/* profile.txt */
static void write_profile(FILE *f, struct model *m, const struct record_end *end)
{
    struct model_session *s = model_session(m);
    int nthreads = model_thread_count(m), n = 0, left = 0;
    int *order = xcalloc((size_t)nthreads + 1, sizeof(*order));
    double min_pct = s->profile_min_pct;
    long max_trees = min_pct > 0 ? PROFILE_TREES_BYTES : 0;
    uint64_t left_samples = 0;

    for (int i = 0; i < nthreads; i++) {
        const struct model_thread *th = model_thread_at(m, i);
        if (th && th->samples > 0)
            order[n++] = i;
    }
    sort_model = m;
    qsort(order, (size_t)n, sizeof(*order), by_samples);

    fprintf(f, "# rocsys-top profile: %s\n", s->target);
    fprintf(f, "# %s sampling at %d Hz (timer %s); %llu samples, %llu dropped; target %s\n",
            s->mode, s->freq_hz, s->timer ? s->timer : "?", (unsigned long long)s->samples,
            (unsigned long long)s->dropped, end && end->status_text ? end->status_text : "?");
    if (s->keep_ns || s->keep_bytes) { /* --keep: the trace rolls, the profiles do not */
        struct record_keep k = {s->keep_ns, s->keep_bytes};
        char text[32];
        record_keep_text(&k, text, sizeof(text));
        fprintf(f,
                "# the trace keeps the last %s (trace.pftrace, --keep); profiles cover the "
                "whole run\n",
                text);
    }
    if (min_pct > 0)
        fprintf(f,
                "# hot functions, then call trees per thread (busiest first; nodes below %g %% "
                "of their thread's samples folded into one row; --profile-min 0 keeps all), "
                "then hot functions per thread; every stack is in stacks.folded\n",
                min_pct);
    else
        fprintf(f, "# hot functions, then call trees per thread (busiest first, every node), "
                   "then hot functions per thread\n");
    fprintf(f,
            "# call trees: samples, depth, share of the thread's samples (inclusive, self), "
            "estimated time = samples x %.6f s\n",
            period_s(m));
    struct model_filter all = {.thread = -1, .window = 0};
    profile_hot(f, m, &all, "all threads", min_pct > 0 ? 100 : 0);
    profile_regions(f, m);
    profile_kernels(f, m);
    for (int k = 0; k < n; k++) {
        int i = order[k];
        const struct model_thread *th = model_thread_at(m, i);
        if (max_trees && ftell(f) > max_trees) {
            left = n - k;
            for (; k < n; k++)
                left_samples += model_thread_at(m, order[k])->samples;
            break;
        }
        /* the model leaves out what would be folded anyway: the tree stays small */
        struct model_filter flt = {
            .thread = i, .window = 0, .min_ppm = min_pct > 0 ? (uint32_t)(min_pct * 10000) : 0};
        struct model_tree *t = model_tree_build(m, &flt);
        fprintf(f, "\n== Thread %d: %s (tid %u, pid %u): %llu samples ==\n", i, th->name, th->tid,
                th->pid, (unsigned long long)t->total);
        fprintf(f, "| %-70s | %9s | %5s | %6s | %6s | %13s |\n", "LABEL", "SAMPLES", "DEPTH",
                "INCL %", "SELF %", "EST. TIME (s)");
        struct tree_out o = {.f = f,
                             .m = m,
                             .t = t,
                             .thread_index = i,
                             .total = t->total,
                             .min_pct = min_pct,
                             .max_bytes = max_trees};
        profile_rows(&o, 0);
        if (o.cut)
            fprintf(f, "| ... the rest of this tree is left out: profile.txt stays under 1 MB "
                       "(stacks.folded has every stack)\n");
        model_tree_free(t);
    }
    if (left)
        fprintf(f,
                "\n== %d more threads (%llu samples) left out: profile.txt stays under 1 MB; "
                "stacks.folded has every stack ==\n",
                left, (unsigned long long)left_samples);
    for (int k = 0; k < n - left; k++) {
        int i = order[k];
        const struct model_thread *th = model_thread_at(m, i);
        if (max_trees && ftell(f) > PROFILE_MAX_BYTES - 100000) {
            fprintf(f, "\n== hot functions of %d more threads left out (size limit) ==\n",
                    n - left - k);
            break;
        }
        char title[128];
        snprintf(title, sizeof(title), "thread %s (tid %u)", th->name, th->tid);
        struct model_filter flt = {.thread = i, .window = 0};
        profile_hot(f, m, &flt, title, min_pct > 0 ? PROFILE_HOT_ROWS : 0);
    }
    free(order);
}

/* Open path for a text writer. */
static struct record_writer *profile_open(const char *path, struct model *m, char *err,
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

/* The text files are written from the aggregated model at the end: no per-event work. */
static void text_event(struct record_writer *w, const struct record_event *ev)
{
    struct text_counter *c = NULL;

    if (ev->type != RECORD_EV_COUNTER || !ev->track)
        return; /* counters are summed up as they come: they are not in the model */
    for (int i = w->nctr - 1; i >= 0 && !c; i--)
        if (w->ctr[i].pid == ev->pid && strcmp(w->ctr[i].track, ev->track) == 0)
            c = &w->ctr[i];
    if (!c) {
        if (w->nctr == w->capctr) {
            w->capctr = w->capctr ? 2 * w->capctr : 64;
            w->ctr = xrealloc(w->ctr, (size_t)w->capctr * sizeof(*w->ctr));
        }
        c = &w->ctr[w->nctr++];
        *c = (struct text_counter){
            .pid = ev->pid, .track = xstrdup(ev->track), .unit = xstrdup(ev->unit ? ev->unit : "")};
    }
    if (c->n == 0 || ev->value < c->min)
        c->min = ev->value;
    if (c->n == 0 || ev->value > c->max)
        c->max = ev->value;
    c->sum += ev->value;
    c->n++;
}

/* The counters table at the end of profile.txt (nothing when there were none). */
static void profile_counters(struct record_writer *w)
{
    if (w->nctr)
        fprintf(w->f,
                "\n== Counters: min / mean / max per track ==\n| %-36s | %5s | %9s | %14s | "
                "%14s | %14s |\n",
                "TRACK", "UNIT", "READINGS", "MIN", "MEAN", "MAX");
    for (int i = 0; i < w->nctr; i++) {
        const struct text_counter *c = &w->ctr[i];
        char track[64];
        if (c->pid)
            snprintf(track, sizeof(track), "pid %u %s", (unsigned)c->pid, c->track);
        else
            snprintf(track, sizeof(track), "%s", c->track);
        fprintf(w->f, "| %-36s | %5s | %9llu | %14.3f | %14.3f | %14.3f |\n", track, c->unit,
                (unsigned long long)c->n, c->min, c->sum / (double)c->n, c->max);
        free(c->track);
        free(c->unit);
    }
    free(w->ctr);
}

static int text_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    int err;

    write_profile(w->f, m ? m : w->m, end);
    profile_counters(w);
    err = ostream_close(w->f);
    free(w);
    return err;
}

const struct record_writer_class record_profile_txt = {
    .name = "profile",
    .open = profile_open,
    .event = text_event,
    .close = text_close,
};
