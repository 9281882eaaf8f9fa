/* View 3, threads: every thread seen, its CPU use and samples; Enter makes the selected thread
 * the filter of the call tree and hot views (the first row stands for all threads). */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(threads);

#define NAME_COLS 16 /* the name column's room */

enum { SORT_TABLE, SORT_CPU, SORT_SAMPLES, SORT_COUNT };
static const char *const sort_names[] = {"first seen", "cpu", "samples"};

/* A snapshot of one thread: the data stays frozen while paused. */
struct trow {
    struct model_thread th;
    int index; /* in the model's thread table */
};

struct threads_view {
    /* row 0 is "all threads", row i + 1 is rows[i]; sel_id: the model index of the selected
     * thread, -1 for "all" */
    struct tui_lv lv;
    struct trow *rows;
    int count, cap;
    int window; /* samples column shows window_samples */
};

void *tui_threads_create(void)
{
    struct threads_view *v = xcalloc(1, sizeof(*v));

    tui_lv_init(&v->lv);
    return v;
}

void tui_threads_destroy(void *st)
{
    struct threads_view *v = st;

    if (!v)
        return;
    free(v->rows);
    free(v);
}

/* Samples of a thread row as the view shows them. */
static uint64_t row_samples(const struct threads_view *v, const struct trow *r)
{
    return v->window ? r->th.window_samples : r->th.samples;
}

/* The share of a Python thread's samples in which it held the GIL ("-": not a Python thread). */
static void gil_pct(const struct model_thread *th, char *buf, size_t n)
{
    if (th->py_samples)
        snprintf(buf, n, "%.0f", 100.0 * (double)th->gil_samples / (double)th->py_samples);
    else
        snprintf(buf, n, "-");
}

/* The cells of a row of the list (rows: the view; row 0 stands for all threads, row i + 1 for
 * thread row i). */
static const struct trow *trow_at(const void *rows, int row)
{
    return row > 0 ? &((const struct threads_view *)rows)->rows[row - 1] : NULL;
}

static void cell_tid(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct trow *tr = trow_at(rows, row);

    (void)m;
    if (tr)
        snprintf(buf, n, "%u", (unsigned)tr->th.tid);
    else if (n)
        buf[0] = '\0';
}

static void cell_pid(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct trow *tr = trow_at(rows, row);

    (void)m;
    if (tr)
        snprintf(buf, n, "%u", (unsigned)tr->th.pid);
    else if (n)
        buf[0] = '\0';
}

static void cell_cpu(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct trow *tr = trow_at(rows, row);

    (void)m;
    if (tr)
        snprintf(buf, n, "%.1f", tr->th.cpu_pct);
    else if (n)
        buf[0] = '\0';
}

static void cell_state(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct trow *tr = trow_at(rows, row);

    (void)m;
    if (tr)
        snprintf(buf, n, "%c", tr->th.state ? tr->th.state : '?');
    else if (n)
        buf[0] = '\0';
}

/* A thread's samples; all threads': their sum. */
static void cell_samples(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct threads_view *v = rows;
    uint64_t total = 0;

    (void)m;
    if (row > 0)
        total = row_samples(v, trow_at(rows, row));
    else
        for (int i = 0; i < v->count; i++)
            total += row_samples(v, &v->rows[i]);
    snprintf(buf, n, "%llu", (unsigned long long)total);
}

static void cell_gil(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    if (row > 0)
        gil_pct(&trow_at(rows, row)->th, buf, n);
    else if (n)
        buf[0] = '\0';
}

/* The screen's columns after the marker (the name: drawn in its room); a click on a heading
 * chooses its sort. */
static const struct tui_list_column columns[] = {
    {"NAME", 2 + NAME_COLS, 0, -1, NULL, 2, 1},
    {"TID", 8, 0, SORT_TABLE, cell_tid, 1},
    {"PID", 9, 0, -1, cell_pid, 2},
    {"CPU%", 7, 0, SORT_CPU, cell_cpu, 2},
    {"STATE", 7, 0, -1, cell_state, 2, 1},
    {"SAMPLES", 10, 0, SORT_SAMPLES, cell_samples, 1},
    {"GIL%", 7, 0, -1, cell_gil, 2},
};
#define NCOLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

/* Order rows by the view's sort; ties by model index. */
static int trow_cmp(const void *a, const void *b, void *arg)
{
    const struct threads_view *v = arg;
    const struct trow *x = a, *y = b;

    if (v->lv.sort == SORT_CPU && x->th.cpu_pct != y->th.cpu_pct)
        return x->th.cpu_pct > y->th.cpu_pct ? -1 : 1;
    if (v->lv.sort == SORT_SAMPLES && row_samples(v, x) != row_samples(v, y))
        return row_samples(v, x) > row_samples(v, y) ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The list layer's view of the rows (tui/list.h): it takes the sort and navigation keys, the
 * clicks and the search. */
static int threads_count(const void *st)
{
    return ((const struct threads_view *)st)->count + 1;
}

static void threads_sort(struct tui *t, void *st)
{
    struct threads_view *v = st;

    (void)t;
    qsort_r(v->rows, (size_t)v->count, sizeof(*v->rows), trow_cmp, v);
}

static long threads_row_id(const void *st, int row)
{
    return row > 0 ? ((const struct threads_view *)st)->rows[row - 1].index : -1;
}

static int threads_match(struct tui *t, const void *st, int row, const char *needle)
{
    (void)t;
    return row > 0 && tui_match(((const struct threads_view *)st)->rows[row - 1].th.name, needle);
}

const struct tui_list_class tui_threads_list = {
    .lv_offset = offsetof(struct threads_view, lv),
    .nsorts = SORT_COUNT,
    .cols = columns,
    .ncols = NCOLUMNS,
    .count = threads_count,
    .sort = threads_sort,
    .row_id = threads_row_id,
    .missing_row = 0, /* a thread gone: all threads */
    .match = threads_match,
    .key = tui_threads_key,
};

void tui_threads_rebuild(struct tui *t, void *st)
{
    struct threads_view *v = st;
    int n = model_thread_count(t->m);

    if (n > v->cap) {
        v->cap = n;
        v->rows = xrealloc(v->rows, (size_t)n * sizeof(*v->rows));
    }
    v->count = 0;
    for (int i = 0; i < n; i++) { /* the threads of the rank shown (Ranks view), or all */
        if (!tui_thread_in_rank(t->m, &t->filter, i))
            continue;
        v->rows[v->count].th = *model_thread_at(t->m, i);
        v->rows[v->count++].index = i;
    }
    v->window = t->filter.window;
    tui_lv_resort(t, &tui_threads_list, v);
}

void tui_threads_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct threads_view *v = st;
    char title[200], line[256], name[80], cells[160];
    int page, alive = 0, nw;

    for (int i = 0; i < v->count; i++)
        alive += v->rows[i].th.alive != 0;
    snprintf(title, sizeof(title), "Threads: %d (%d alive)  samples %s  (sort: %s)", v->count,
             alive, v->window ? "in the window" : "since start", sort_names[v->lv.sort]);
    tui_list_heading(columns, NCOLUMNS, NULL, line, sizeof(line));
    page = tui_draw_frame(t, r, title, line);
    tui_list_fit(&v->lv.nav, v->count + 1, page);
    for (int i = 0; i < page && v->lv.nav.top + i <= v->count; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i;
        int sel = idx == v->lv.nav.sel;
        int filtered;
        unsigned int attr;

        if (idx == 0) {
            filtered = t->filter.thread < 0;
            nw = snprintf(name, sizeof(name), "[all threads]");
            attr = sel ? tui_style(t, TUI_S_SELECTED) : A_BOLD;
        } else {
            const struct trow *tr = &v->rows[idx - 1];
            filtered = t->filter.thread == tr->index;
            nw = tui_fit_middle(name, sizeof(name), tr->th.name[0] ? tr->th.name : "?", NAME_COLS,
                                t->utf8);
            attr = sel            ? tui_style(t, TUI_S_SELECTED)
                   : tr->th.alive ? A_NORMAL
                                  : tui_style(t, TUI_S_DIM);
        }
        tui_list_cells(t->m, columns, NCOLUMNS, NULL, v, idx, cells, sizeof(cells));
        snprintf(line, sizeof(line), "%c %s%*s%s", filtered ? '*' : ' ', name, NAME_COLS - nw, "",
                 cells);
        tui_put(t, y, r->x, r->w, attr, line, sel);
    }
}

const struct tui_key_help tui_threads_help[] = {
    {"Enter Space", "threads: show that thread (or all) in the call tree"},
    {NULL, NULL},
};

int tui_threads_key(struct tui *t, void *st, int key)
{
    struct threads_view *v = st;

    if (key == '\n' || key == '\r' || key == KEY_ENTER || key == ' ') {
        tui_lv_note(&tui_threads_list, st);
        t->filter.thread = (int)v->lv.sel_id;
        tui_filter_changed(t);
        tui_switch_view(t, TUI_VIEW_CALLTREE);
        return 1;
    }
    return 0;
}

void tui_threads_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    snprintf(buf, n, "Enter: show this thread");
}

void tui_threads_batch(FILE *out, struct model *m, int max_rows)
{
    int n = model_thread_count(m);
    char name[80], gil[16];

    fprintf(out, "== Threads ==\n");
    fprintf(out, "  TID      PID      NAME             STATE  CPU%%   SAMPLES  GIL%%\n");
    for (int i = 0; i < n && (max_rows <= 0 || i < max_rows); i++) {
        const struct model_thread *th = model_thread_at(m, i);
        tui_fit(name, sizeof(name), th->name[0] ? th->name : "?", 15, 1);
        for (char *p = name; *p; p++)
            if (*p == ' ')
                *p = '_'; /* keep the columns splittable on blanks */
        gil_pct(th, gil, sizeof(gil));
        fprintf(out, "  %-7u  %-7u  %-15s  %-5c  %-5.1f  %-7llu  %s\n", (unsigned)th->tid,
                (unsigned)th->pid, name, th->state ? th->state : '?', th->cpu_pct,
                (unsigned long long)th->samples, gil);
    }
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_threads_sort(void *st, int set)
{
    return tui_lv_sort_setting(&tui_threads_list, st, set);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(threads, "Threads", '3', "Thr", .key = tui_threads_key, .help = tui_threads_help,
                .list = &tui_threads_list);
