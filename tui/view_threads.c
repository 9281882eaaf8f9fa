/* View 3, threads: every thread seen, its CPU use and samples; Enter makes the selected thread
 * the filter of the call tree and hot views (the first row stands for all threads). */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

/* Row layout: marker, name (16 columns), tid, pid, cpu%, state, samples. */
#define ROW_FMT "%c %s%*s %7s  %7s  %5s  %-5s %9s  %5s"

enum { SORT_TABLE, SORT_CPU, SORT_SAMPLES, SORT_COUNT };
static const char *const sort_names[] = {"first seen", "cpu", "samples"};
/* A click on a column heading: the sort it chooses. */
static const struct tui_sort_column sort_columns[] = {
    {"TID", SORT_TABLE}, {"CPU%", SORT_CPU}, {"SAMPLES", SORT_SAMPLES}};

/* The column headings line. */
static void column_line(char *buf, size_t n)
{
    snprintf(buf, n, ROW_FMT, ' ', "NAME", 12, "", "TID", "PID", "CPU%", "STATE", "SAMPLES",
             "GIL%");
}

/* A snapshot of one thread: the data stays frozen while paused. */
struct trow {
    struct model_thread th;
    int index; /* in the model's thread table */
};

struct threads_view {
    struct trow *rows;
    int count, cap;
    int window;           /* samples column shows window_samples */
    struct tui_list list; /* row 0 is "all threads", row i + 1 is rows[i] */
    int sort;
    int sel_index; /* model index of the selected thread, -1 for "all" */
};

void *tui_threads_create(void)
{
    struct threads_view *v = xcalloc(1, sizeof(*v));

    v->sel_index = -1;
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

/* Order rows by the view's sort; ties by model index. */
static int trow_cmp(const void *a, const void *b, void *arg)
{
    const struct threads_view *v = arg;
    const struct trow *x = a, *y = b;

    if (v->sort == SORT_CPU && x->th.cpu_pct != y->th.cpu_pct)
        return x->th.cpu_pct > y->th.cpu_pct ? -1 : 1;
    if (v->sort == SORT_SAMPLES && row_samples(v, x) != row_samples(v, y))
        return row_samples(v, x) > row_samples(v, y) ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Sort and put the selection back on the same thread. */
static void resort(struct tui *t, struct threads_view *v)
{
    qsort_r(v->rows, (size_t)v->count, sizeof(*v->rows), trow_cmp, v);
    v->list.sel = 0;
    for (int i = 0; i < v->count; i++)
        if (v->rows[i].index == v->sel_index)
            v->list.sel = i + 1;
    tui_list_fit(&v->list, v->count + 1, tui_page_rows(t));
}

/* Remember the thread under the selection. */
static void note_selection(struct threads_view *v)
{
    v->sel_index = v->list.sel > 0 && v->list.sel <= v->count ? v->rows[v->list.sel - 1].index : -1;
}

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
    resort(t, v);
}

/* The share of a Python thread's samples in which it held the GIL ("-": not a Python thread). */
static void gil_pct(const struct model_thread *th, char *buf, size_t n)
{
    if (th->py_samples)
        snprintf(buf, n, "%.0f", 100.0 * (double)th->gil_samples / (double)th->py_samples);
    else
        snprintf(buf, n, "-");
}

void tui_threads_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct threads_view *v = st;
    char title[200], line[256], name[80], c1[24], c2[24], c3[24], c4[8], c5[24], c6[16];
    int page, alive = 0, nw;
    uint64_t total = 0;

    for (int i = 0; i < v->count; i++) {
        alive += v->rows[i].th.alive != 0;
        total += row_samples(v, &v->rows[i]);
    }
    snprintf(title, sizeof(title), "Threads: %d (%d alive)  samples %s  (sort: %s)", v->count,
             alive, v->window ? "in the window" : "since start", sort_names[v->sort]);
    column_line(line, sizeof(line));
    page = tui_draw_frame(t, r, title, line);
    tui_list_fit(&v->list, v->count + 1, page);
    for (int i = 0; i < page && v->list.top + i <= v->count; i++) {
        int idx = v->list.top + i, y = r->y + 2 + i;
        int sel = idx == v->list.sel;
        int filtered;
        unsigned int attr;

        if (idx == 0) {
            filtered = t->filter.thread < 0;
            snprintf(c5, sizeof(c5), "%llu", (unsigned long long)total);
            snprintf(line, sizeof(line), ROW_FMT, filtered ? '*' : ' ', "[all threads]", 3, "", "",
                     "", "", "", c5, "");
            attr = sel ? tui_style(t, TUI_S_SELECTED) : A_BOLD;
        } else {
            const struct trow *tr = &v->rows[idx - 1];
            filtered = t->filter.thread == tr->index;
            nw =
                tui_fit_middle(name, sizeof(name), tr->th.name[0] ? tr->th.name : "?", 16, t->utf8);
            snprintf(c1, sizeof(c1), "%u", (unsigned)tr->th.tid);
            snprintf(c2, sizeof(c2), "%u", (unsigned)tr->th.pid);
            snprintf(c3, sizeof(c3), "%.1f", tr->th.cpu_pct);
            snprintf(c4, sizeof(c4), "%c", tr->th.state ? tr->th.state : '?');
            snprintf(c5, sizeof(c5), "%llu", (unsigned long long)row_samples(v, tr));
            gil_pct(&tr->th, c6, sizeof(c6));
            snprintf(line, sizeof(line), ROW_FMT, filtered ? '*' : ' ', name, 16 - nw, "", c1, c2,
                     c3, c4, c5, c6);
            attr = sel            ? tui_style(t, TUI_S_SELECTED)
                   : tr->th.alive ? A_NORMAL
                                  : tui_style(t, TUI_S_DIM);
        }
        tui_put(t, y, r->x, r->w, attr, line, sel);
    }
}

int tui_threads_key(struct tui *t, void *st, int key)
{
    struct threads_view *v = st;
    enum tui_nav nav = tui_key_nav(key);

    if (key == 's' || key == KEY_F(6)) {
        v->sort = (v->sort + 1) % SORT_COUNT;
        resort(t, v);
        return 1;
    }
    if (nav != TUI_NAV_NONE) {
        tui_list_nav(&v->list, nav, v->count + 1, tui_page_rows(t));
        note_selection(v);
        return 1;
    }
    if (key == '\n' || key == '\r' || key == KEY_ENTER || key == ' ') {
        note_selection(v);
        t->filter.thread = v->sel_index;
        tui_filter_changed(t);
        tui_switch_view(t, TUI_VIEW_CALLTREE);
        return 1;
    }
    return 0;
}

int tui_threads_click(struct tui *t, void *st, const struct tui_mouse *ev)
{
    struct threads_view *v = st;
    char columns[256];
    int value;

    column_line(columns, sizeof(columns));
    switch (tui_list_click(ev, &v->list, v->count + 1, ev->h - 2, columns, sort_columns,
                           (int)(sizeof(sort_columns) / sizeof(sort_columns[0])), &value)) {
    case TUI_CLICK_SORT:
        v->sort = value;
        resort(t, v);
        return 1;
    case TUI_CLICK_SELECT:
        v->list.sel = value;
        note_selection(v);
        return 1;
    case TUI_CLICK_AGAIN: /* that thread in the call tree */
        return tui_threads_key(t, st, '\n');
    default:
        return 0;
    }
}

int tui_threads_search(struct tui *t, void *st, const char *needle)
{
    struct threads_view *v = st;

    for (int i = 1; i <= v->count + 1; i++) {
        int idx = (v->list.sel + i) % (v->count + 1);
        if (idx > 0 && tui_match(v->rows[idx - 1].th.name, needle)) {
            v->list.sel = idx;
            tui_list_fit(&v->list, v->count + 1, tui_page_rows(t));
            note_selection(v);
            return 1;
        }
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
    struct threads_view *v = st;

    if (set >= 0 && set < 3)
        v->sort = set;
    return v->sort;
}
