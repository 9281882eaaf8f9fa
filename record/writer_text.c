/* Text writers built from the model when the session ends:
 *   "profile" -> profile.txt: per-thread call trees as aligned text tables in the manner of
 *                ROCm Systems Profiler's wall_clock.txt, then flat hot-function tables per
 *                thread and overall.
 *   "folded"  -> stacks.folded: collapsed stacks, one line per distinct stack and thread,
 *                `THREADNAME-TID;outermost;...;leaf COUNT` (flamegraph.pl, speedscope, inferno).
 *
 * File format (profile.txt):
 *   # header lines (command, sampling, totals)
 *   one table per thread, rows in depth-first order, children by inclusive count:
 *   | |TT>>> |_label | SAMPLES | DEPTH | INCL % | SELF % | EST. TIME (s) |
 *   (TT = the thread's index; label indented two spaces per depth; shares are of the thread's
 *   samples; estimated time = samples x sampling period), then hot functions tables:
 *   | FUNCTION | SELF | SELF % | INCL % | EST. SELF TIME (s) | LOCATION |
 *   User regions are "[region] NAME" nodes of the trees; when the program has regions, a table
 *   of their times comes before the hot functions:
 *   | REGION | TID | COUNT | TOTAL | MEAN | MIN | MAX | STDDEV | EXIT |  (ms; EXIT = instances
 *   still open when their thread or process ended)
 *   Counters of the recording (GPU metrics, ...) end the file, one row per track:
 *   | TRACK | UNIT | READINGS | MIN | MEAN | MAX |
 * Nothing else is in the file; it is meant for people (cat), the folded file for tools. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
    struct model *m;
    int folded;               /* 1: stacks.folded, 0: profile.txt */
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

/* One row per node below `node`, depth first. */
static void profile_rows(FILE *f, struct model *m, const struct model_tree *t, int node,
                         int thread_index, uint64_t total)
{
    int *kids, n = sorted_children(t, node, &kids);
    for (int i = 0; i < n; i++) {
        const struct model_node *x = &t->nodes[kids[i]];
        const struct model_func *fn = model_func_at(m, x->func);
        char label[512];
        snprintf(label, sizeof(label), "|%02d>>> %*s|_%s", thread_index % 100, 2 * (x->depth - 1),
                 "", fn ? fn->name : "?");
        fprintf(f, "| %-70s | %9llu | %5d | %6.1f | %6.1f | %13.3f |\n", label,
                (unsigned long long)x->inclusive, x->depth - 1,
                total ? 100.0 * (double)x->inclusive / (double)total : 0,
                total ? 100.0 * (double)x->self / (double)total : 0,
                (double)x->inclusive * period_s(m));
        profile_rows(f, m, t, kids[i], thread_index, total);
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

/* The flat hot-functions table for one filter. */
static void profile_hot(FILE *f, struct model *m, const struct model_filter *flt, const char *title)
{
    struct model_hot_list *h = model_hot_build(m, flt);
    qsort(h->items, (size_t)h->count, sizeof(*h->items), hot_cmp);
    fprintf(f, "\n== Hot functions: %s (%llu samples) ==\n", title, (unsigned long long)h->total);
    fprintf(f, "| %-50s | %9s | %6s | %6s | %18s | %s\n", "FUNCTION", "SELF", "SELF %", "INCL %",
            "EST. SELF TIME (s)", "LOCATION");
    for (int i = 0; i < h->count; i++) {
        const struct model_hot *e = &h->items[i];
        const struct model_func *fn = model_func_at(m, e->func);
        if (e->self == 0 && i >= 20)
            break;
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

/* profile.txt */
static void write_profile(FILE *f, struct model *m, const struct record_end *end)
{
    struct model_session *s = model_session(m);
    int nthreads = model_thread_count(m);

    fprintf(f, "# rocsys-top profile: %s\n", s->target);
    fprintf(f, "# %s sampling at %d Hz (timer %s); %llu samples, %llu dropped; target %s\n",
            s->mode, s->freq_hz, s->timer ? s->timer : "?", (unsigned long long)s->samples,
            (unsigned long long)s->dropped, end && end->status_text ? end->status_text : "?");
    fprintf(f,
            "# call trees per thread: samples, depth, share of the thread's samples "
            "(inclusive, self), estimated time = samples x %.6f s\n",
            period_s(m));
    for (int i = 0; i < nthreads; i++) {
        const struct model_thread *th = model_thread_at(m, i);
        if (!th || th->samples == 0)
            continue;
        struct model_filter flt = {.thread = i, .window = 0};
        struct model_tree *t = model_tree_build(m, &flt);
        fprintf(f, "\n== Thread %d: %s (tid %u, pid %u): %llu samples ==\n", i, th->name, th->tid,
                th->pid, (unsigned long long)t->total);
        fprintf(f, "| %-70s | %9s | %5s | %6s | %6s | %13s |\n", "LABEL", "SAMPLES", "DEPTH",
                "INCL %", "SELF %", "EST. TIME (s)");
        profile_rows(f, m, t, 0, i, t->total);
        model_tree_free(t);
    }
    profile_regions(f, m);
    struct model_filter all = {.thread = -1, .window = 0};
    profile_hot(f, m, &all, "all threads");
    for (int i = 0; i < nthreads; i++) {
        const struct model_thread *th = model_thread_at(m, i);
        if (!th || th->samples == 0)
            continue;
        char title[128];
        snprintf(title, sizeof(title), "thread %s (tid %u)", th->name, th->tid);
        struct model_filter flt = {.thread = i, .window = 0};
        profile_hot(f, m, &flt, title);
    }
}

/* Emit one folded line per node with self samples below `node`; path holds the labels. */
static void folded_rows(FILE *f, struct model *m, const struct model_tree *t, int node, char *path,
                        size_t len, size_t cap)
{
    for (int c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling) {
        /* one buffer for every level: the label is copied into path before the recursion
         * (a frame's worth on each of 1,024 levels would overflow the stack) */
        static char label[MODEL_LABEL_MAX];
        size_t n = len;
        model_python_label(model_func_at(m, t->nodes[c].func), label, sizeof(label));
        int w = snprintf(path + n, cap - n, ";%s", label);
        if (w < 0 || (size_t)w >= cap - n)
            continue; /* deeper than the buffer: cut (never happens with 1024 frames x 64) */
        /* ';' and ' ' separate fields in this format: keep names parseable */
        for (size_t k = n + 1; k < n + (size_t)w; k++)
            if (path[k] == ';' || path[k] == '\n')
                path[k] = ':';
        n += (size_t)w;
        if (t->nodes[c].self)
            fprintf(f, "%.*s %llu\n", (int)n, path, (unsigned long long)t->nodes[c].self);
        folded_rows(f, m, t, c, path, n, cap);
    }
}

/* stacks.folded */
static void write_folded(FILE *f, struct model *m)
{
    size_t cap = 1 << 20;
    char *path = xmalloc(cap);

    for (int i = 0; i < model_thread_count(m); i++) {
        const struct model_thread *th = model_thread_at(m, i);
        if (!th || th->samples == 0)
            continue;
        struct model_filter flt = {.thread = i, .window = 0};
        struct model_tree *t = model_tree_build(m, &flt);
        int n = snprintf(path, cap, "%s-%u", th->name[0] ? th->name : "thread", th->tid);
        for (int k = 0; k < n; k++)
            if (path[k] == ';' || path[k] == ' ')
                path[k] = '_';
        folded_rows(f, m, t, 0, path, (size_t)n, cap);
        model_tree_free(t);
    }
    free(path);
}

/* Open path for a text writer. */
static struct record_writer *text_open(const char *path, struct model *m, char *err, size_t errlen,
                                       int folded)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));
    w->f = fopen(path, "we");
    if (!w->f) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    w->m = m;
    w->folded = folded;
    return w;
}

static struct record_writer *profile_open(const char *path, struct model *m, char *err,
                                          size_t errlen)
{
    return text_open(path, m, err, errlen, 0);
}

static struct record_writer *folded_open(const char *path, struct model *m, char *err,
                                         size_t errlen)
{
    return text_open(path, m, err, errlen, 1);
}

/* The text files are written from the aggregated model at the end: no per-event work. */
static void text_event(struct record_writer *w, const struct record_event *ev)
{
    struct text_counter *c = NULL;

    if (w->folded || ev->type != RECORD_EV_COUNTER || !ev->track)
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

static void text_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    if (w->folded)
        write_folded(w->f, m ? m : w->m);
    else
        write_profile(w->f, m ? m : w->m, end);
    profile_counters(w);
    fclose(w->f);
    free(w);
}

const struct record_writer_class record_profile_txt = {
    .name = "profile",
    .open = profile_open,
    .event = text_event,
    .close = text_close,
};

const struct record_writer_class record_stacks_folded = {
    .name = "folded",
    .open = folded_open,
    .event = text_event,
    .close = text_close,
};
