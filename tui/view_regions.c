/* View 6, regions: the program's user regions (rocsys-top's user API, ROCTx, ROCm Systems
 * Profiler, OpenMP parallel regions through OMPT, Kokkos kernels and regions) per region and
 * thread: count, total / mean / min / max / standard deviation of the time, instances open now
 * and instances closed by the end of their thread or process; for an OpenMP region, its
 * imbalance across threads and barrier share on the status line (and in a section of the batch
 * frame). The thread filter of the call tree applies (Enter in the threads view). */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(regions);

/* The batch frame's columns (in ms, with the instances closed at exit: kept as scripts read
 * them); the screen's are the column table below. */
#define BATCH_COLUMNS                                                                              \
    "    COUNT    TOTAL_MS     MEAN_MS      MIN_MS      MAX_MS   STDDEV_MS  OPEN  EXIT  TID      " \
    "REGION"

enum { SORT_TOTAL, SORT_COUNT, SORT_MEAN, SORT_NAME, SORT_COUNT_ };
static const char *const sort_names[] = {"total", "count", "mean", "name"};
struct regions_view {
    struct tui_lv lv;
    struct model_region_stats *rows; /* a snapshot: frozen while paused */
    int count;
    struct model_regions_summary sum;
};

/* A duration for the table: "812ns", "12.3us", "4.56ms", "1.234s". */
static void fmt_ns(char *buf, size_t n, double ns)
{
    if (ns < 1e3)
        snprintf(buf, n, "%.0fns", ns);
    else if (ns < 1e6)
        snprintf(buf, n, "%.1fus", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, n, "%.2fms", ns / 1e6);
    else
        snprintf(buf, n, "%.3fs", ns / 1e9);
}

/* The thread id of model thread index i (0 if unknown). */
static unsigned thread_tid(struct model *m, int i)
{
    const struct model_thread *th = model_thread_at(m, i);
    return th ? (unsigned)th->tid : 0;
}

/* The cells of a row of the list (rows: the view's struct model_region_stats). */
static const struct model_region_stats *row_at(const void *rows, int row)
{
    return &((const struct model_region_stats *)rows)[row];
}

static void cell_count(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu", (unsigned long long)row_at(rows, row)->count);
}

static void cell_total(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    fmt_ns(buf, n, (double)row_at(rows, row)->total_ns);
}

static void cell_mean(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    fmt_ns(buf, n, row_at(rows, row)->mean_ns);
}

static void cell_min(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    fmt_ns(buf, n, (double)row_at(rows, row)->min_ns);
}

static void cell_max(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    fmt_ns(buf, n, (double)row_at(rows, row)->max_ns);
}

static void cell_stddev(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    fmt_ns(buf, n, model_region_stddev_ns(row_at(rows, row)));
}

static void cell_open(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu", (unsigned long long)row_at(rows, row)->open);
}

static void cell_tid(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    snprintf(buf, n, "%u", thread_tid(m, row_at(rows, row)->thread));
}

/* The screen's columns; a click on a heading chooses its sort. */
static const struct tui_list_column columns[] = {
    {"COUNT", 9, 0, SORT_COUNT, cell_count},  {"TOTAL", 11, 0, SORT_TOTAL, cell_total, 1},
    {"MEAN", 11, 0, SORT_MEAN, cell_mean, 1}, {"MIN", 11, 0, -1, cell_min, 1},
    {"MAX", 11, 0, -1, cell_max, 1},          {"STDDEV", 11, 0, -1, cell_stddev, 1},
    {"OPEN", 6, 0, -1, cell_open, 1},         {"TID", 9, 0, -1, cell_tid, 2, 1},
    {"REGION", 0, 0, SORT_NAME, NULL, 2},
};
#define NCOLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

void *tui_regions_create(void)
{
    return xcalloc(1, sizeof(struct regions_view));
}

void tui_regions_destroy(void *st)
{
    struct regions_view *v = st;

    if (!v)
        return;
    free(v->rows);
    free(v);
}

/* Order rows by the sort in arg; ties by name, then thread. */
static int row_cmp(const void *a, const void *b, void *arg)
{
    const struct model_region_stats *x = a, *y = b;
    int sort = *(const int *)arg, c;

    if (sort == SORT_TOTAL && x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    if (sort == SORT_COUNT && x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (sort == SORT_MEAN && x->mean_ns != y->mean_ns)
        return x->mean_ns > y->mean_ns ? -1 : 1;
    c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->thread > y->thread) - (x->thread < y->thread);
}

/* A snapshot of the statistics, filtered by f's thread (or rank) and sorted; *count rows. */
static struct model_region_stats *snapshot(struct model *m, const struct model_filter *f, int sort,
                                           int *count)
{
    int n, k = 0;
    const struct model_region_stats *s = model_regions_stats(m, &n);
    struct model_region_stats *rows = xcalloc((size_t)n + 1, sizeof(*rows));

    for (int i = 0; i < n; i++)
        if ((f->thread < 0 || s[i].thread == f->thread) && tui_thread_in_rank(m, f, s[i].thread))
            rows[k++] = s[i];
    qsort_r(rows, (size_t)k, sizeof(*rows), row_cmp, &sort);
    *count = k;
    return rows;
}

void tui_regions_rebuild(struct tui *t, void *st)
{
    struct regions_view *v = st;

    free(v->rows);
    v->rows = snapshot(t->m, &t->filter, v->lv.sort, &v->count);
    model_regions_summary(t->m, &v->sum);
    tui_list_fit(&v->lv.nav, v->count, tui_page_rows(t));
}

/* One-line summary of the anomalies and state: "2 open, unbalanced pops 1, ...". */
static void summary_text(const struct model_regions_summary *s, char *buf, size_t n)
{
    snprintf(buf, n,
             "%llu open, %llu closed at exit, unbalanced pops %llu, too deep %llu, names full "
             "%llu, lost ranges %llu, marks %llu, sampling %s",
             (unsigned long long)s->open, (unsigned long long)s->closed_at_exit,
             (unsigned long long)s->unbalanced_pops, (unsigned long long)s->too_deep,
             (unsigned long long)s->names_full, (unsigned long long)s->range_errors,
             (unsigned long long)s->marks, s->sampling_paused ? "stopped by the program" : "on");
}

void tui_regions_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct regions_view *v = st;
    char title[512], sum[256], desc[160], line[160], heading[160], name[4096];
    int page;

    tui_filter_desc(t->m, &t->filter, desc, sizeof(desc));
    summary_text(&v->sum, sum, sizeof(sum));
    snprintf(title, sizeof(title), "Regions: %s  (%d, sort: %s; %s)", desc, v->count,
             sort_names[v->lv.sort], sum);
    tui_list_heading(columns, NCOLUMNS, NULL, heading, sizeof(heading));
    page = tui_draw_frame(t, r, title, heading);
    tui_list_fit(&v->lv.nav, v->count, page);
    for (int i = 0; i < page && v->lv.nav.top + i < v->count; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        int sel = idx == v->lv.nav.sel;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;

        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        tui_list_cells(t->m, columns, NCOLUMNS, NULL, v->rows, idx, line, sizeof(line) - 2);
        strcat(line, "  ");
        x += tui_put(t, y, x, end - x, norm, line, 0);
        tui_fit_middle(name, sizeof(name), v->rows[idx].name, end - x,
                       t->utf8); /* start, end stay */
        tui_put(t, y, x, end - x, norm, name, 0);
    }
    if (v->count == 0 && page >= 2) {
        if (!tui_replay_no_data(t->m, "region", line, sizeof(line)))
            snprintf(line, sizeof(line), "%s",
                     "no regions: annotate the program with rocsys/user.h, ROCTx or "
                     "rocprofsys_user_*");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), line, 0);
    }
}

/* The list layer's view of the rows (tui/list.h): it takes the sort and navigation keys, the
 * clicks and the search. */
static int regions_count(const void *st)
{
    return ((const struct regions_view *)st)->count;
}

static void regions_sort(struct tui *t, void *st)
{
    struct regions_view *v = st;

    (void)t;
    qsort_r(v->rows, (size_t)v->count, sizeof(*v->rows), row_cmp, &v->lv.sort);
}

static int regions_match(struct tui *t, const void *st, int row, const char *needle)
{
    (void)t;
    return tui_match(((const struct regions_view *)st)->rows[row].name, needle);
}

const struct tui_list_class tui_regions_list = {
    .lv_offset = offsetof(struct regions_view, lv),
    .nsorts = SORT_COUNT_,
    .cols = columns,
    .ncols = NCOLUMNS,
    .count = regions_count,
    .sort = regions_sort,
    .match = regions_match,
};

/* The OpenMP statistics of the region named name (of any process), or NULL. */
static const struct model_omp_stats *omp_of(struct model *m, const char *name)
{
    int n;
    const struct model_omp_stats *o = model_omp_stats(m, &n);

    for (int i = 0; i < n; i++)
        if (strcmp(o[i].name, name) == 0)
            return &o[i];
    return NULL;
}

/* The selected region's OpenMP line: instances, team, imbalance, waits. */
void tui_regions_status(struct tui *t, void *st, char *buf, size_t n)
{
    struct regions_view *v = st;
    const struct model_omp_stats *o = NULL;

    if (v->lv.nav.sel >= 0 && v->lv.nav.sel < v->count)
        o = omp_of(t->m, v->rows[v->lv.nav.sel].name);
    if (!o) {
        if (n)
            buf[0] = '\0';
        return;
    }
    snprintf(buf, n,
             "OpenMP: %llu instances, %u threads, imbalance %.1f%%, barrier wait %.1f%% of the "
             "threads' time, task wait %.1f ms",
             (unsigned long long)o->count, (unsigned)o->threads, model_omp_imbalance_pct(o),
             model_omp_barrier_pct(o), (double)o->taskwait_ns / 1e6);
}

/* The OpenMP parallel regions (OMPT) of a batch frame: one line per region. */
static void omp_batch(FILE *out, struct model *m)
{
    int n;
    const struct model_omp_stats *o = model_omp_stats(m, &n);
    char name[1024];

    if (n == 0)
        return;
    fprintf(out,
            "== OpenMP parallel regions: %d (imbalance: slowest thread's work over the mean, "
            "barrier: the threads' time in barriers) ==\n",
            n);
    fprintf(out, "    COUNT  THREADS     WALL_MS  IMBALANCE%%  BARRIER%%  TASKWAIT_MS  PID      "
                 "REGION\n");
    for (int i = 0; i < n; i++) {
        tui_fit(name, sizeof(name), o[i].name, 250, 1);
        fprintf(out, "%9llu %8u %11.3f %11.2f %9.2f %12.3f  %-7u  %s\n",
                (unsigned long long)o[i].count, (unsigned)o[i].threads, (double)o[i].wall_ns / 1e6,
                model_omp_imbalance_pct(&o[i]), model_omp_barrier_pct(&o[i]),
                (double)o[i].taskwait_ns / 1e6, (unsigned)o[i].pid, name);
    }
}

void tui_regions_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_regions_summary sum;
    char text[256], name[1024];
    int n;
    const struct model_filter all = {.thread = -1};
    struct model_region_stats *rows = snapshot(m, &all, SORT_NAME, &n);

    model_regions_summary(m, &sum);
    summary_text(&sum, text, sizeof(text));
    fprintf(out, "== Regions: %d; %s ==\n", n, text);
    fprintf(out, "%s\n", BATCH_COLUMNS);
    for (int i = 0; i < n && (max_rows <= 0 || i < max_rows); i++) {
        const struct model_region_stats *s = &rows[i];
        tui_fit(name, sizeof(name), s->name, 250, 1);
        fprintf(out, "%9llu %11.3f %11.3f %11.3f %11.3f %11.3f %5llu %5llu  %-7u  %s\n",
                (unsigned long long)s->count, (double)s->total_ns / 1e6, s->mean_ns / 1e6,
                (double)s->min_ns / 1e6, (double)s->max_ns / 1e6, model_region_stddev_ns(s) / 1e6,
                (unsigned long long)s->open, (unsigned long long)s->closed_at_exit,
                thread_tid(m, s->thread), name);
    }
    if (n == 0 && tui_replay_no_data(m, "region", text, sizeof(text)))
        fprintf(out, "%s\n", text);
    free(rows);
    omp_batch(out, m);
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_regions_sort(void *st, int set)
{
    return tui_lv_sort_setting(&tui_regions_list, st, set);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(regions, "Regions", '6', "Reg", .list = &tui_regions_list);
