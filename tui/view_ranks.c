/* View 9, ranks: one row per MPI rank of a multi-rank recording (rocsys-top --replay DIR --live
 * over DIR/rank-N/): host, pid, recorded CPU %, samples, GPU kernel time, the time of a chosen
 * user region, how far the rank's load is from the mean of all ranks, and its hottest function;
 * with MPI calls (collector/mpi.c), the rank's MPI time as a share of its MPI span (MPI%: from
 * MPI_Init's start to MPI_Finalize's end) and the MPI call it spent the most time in.
 * Keys: Enter shows the selected rank in the other views (the filter's only_rank), a shows all
 * ranks again, u cycles the region whose time is the load (none: samples), s sorts. */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"
#include "model/ranks.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NO_RANKS                                                                                   \
    "no ranks: not a multi-rank recording (rocsys-top --replay DIR --live on an MPI recording's "  \
    "parent directory)"
#define HOST_COLS 12 /* host column of the interactive view */

enum { SORT_RANK, SORT_SAMPLES, SORT_CPU, SORT_GPU, SORT_LOAD, SORT_MPI, SORT_COUNT };
static const char *const sort_names[] = {"rank", "samples", "cpu", "GPU time", "load", "MPI%"};
/* A click on a column heading: the sort it chooses. */
static const struct tui_sort_column sort_columns[] = {
    {"RANK", SORT_RANK},  {"SAMPLES", SORT_SAMPLES}, {"CPU%", SORT_CPU},
    {"GPU_MS", SORT_GPU}, {"GPU%", SORT_GPU},        {"REGION_MS", SORT_LOAD},
    {"IMBAL", SORT_LOAD}, {"MPI%", SORT_MPI},        {"MPI_TOP", SORT_MPI}};

struct ranks_view {
    struct model_rank_table tb;
    struct tui_list list;
    int sort;
    int sel_rank; /* rank of the selected row, kept across rebuilds and sorts (-1: none) */
    char *region; /* the selected region's name (NULL: none) */
    int window;   /* samples are the sliding window's */
};

void *tui_ranks_create(void)
{
    struct ranks_view *v = xcalloc(1, sizeof(*v));

    v->sel_rank = -1;
    return v;
}

void tui_ranks_destroy(void *st)
{
    struct ranks_view *v = st;

    if (!v)
        return;
    model_ranks_free(&v->tb);
    free(v->region);
    free(v);
}

/* Order rows by the sort in arg (largest first); ties by rank. */
static int row_cmp(const void *a, const void *b, void *arg)
{
    const struct ranks_view *v = arg;
    const struct model_rank_row *x = a, *y = b;
    double cx = isnan(x->cpu_pct) ? -1.0 : x->cpu_pct, cy = isnan(y->cpu_pct) ? -1.0 : y->cpu_pct;

    if (v->sort == SORT_SAMPLES && x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (v->sort == SORT_CPU && cx != cy)
        return cx > cy ? -1 : 1;
    if (v->sort == SORT_GPU && x->gpu_ns != y->gpu_ns)
        return x->gpu_ns > y->gpu_ns ? -1 : 1;
    if (v->sort == SORT_MPI && x->mpi_ns != y->mpi_ns)
        return x->mpi_ns > y->mpi_ns ? -1 : 1;
    if (v->sort == SORT_LOAD && model_ranks_row_load(&v->tb, x) != model_ranks_row_load(&v->tb, y))
        return model_ranks_row_load(&v->tb, x) > model_ranks_row_load(&v->tb, y) ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Sort and put the selection back on the same rank. */
static void resort(struct tui *t, struct ranks_view *v)
{
    qsort_r(v->tb.rows, (size_t)v->tb.count, sizeof(*v->tb.rows), row_cmp, v);
    for (int i = 0; i < v->tb.count; i++)
        if (v->tb.rows[i].rank == v->sel_rank)
            v->list.sel = i;
    tui_list_fit(&v->list, v->tb.count, tui_page_rows(t));
}

/* Remember the rank under the selection. */
static void note_selection(struct ranks_view *v)
{
    v->sel_rank = v->list.sel >= 0 && v->list.sel < v->tb.count ? v->tb.rows[v->list.sel].rank : -1;
}

/* Recount the region columns and the imbalance for the selected region (the rest stays as
 * built: no hot lists per keypress). */
static void reload_region(struct tui *t, struct ranks_view *v)
{
    int sort = v->sort;

    v->sort = SORT_RANK; /* model_ranks_load finds rows by rank */
    qsort_r(v->tb.rows, (size_t)v->tb.count, sizeof(*v->tb.rows), row_cmp, v);
    v->sort = sort;
    model_ranks_load(t->m, &v->tb, v->region, 1);
    resort(t, v);
}

void tui_ranks_rebuild(struct tui *t, void *st)
{
    struct ranks_view *v = st;

    v->window = t->filter.window;
    model_ranks_build(t->m, v->window, v->region, 1, &v->tb); /* rows in rank order */
    resort(t, v);
}

/* The column headings line. */
static void column_line(char *buf, size_t n)
{
    snprintf(buf, n, "%s%-*s %7s %6s %8s %9s %5s %5s %-14s %9s %8s %5s  %s", "  RANK ", HOST_COLS,
             "HOST", "PID", "CPU%", "SAMPLES", "GPU_MS", "GPU%", "MPI%", "MPI_TOP", "REGION_MS",
             "IMBAL", "HOT%", "HOT");
}

void tui_ranks_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct ranks_view *v = st;
    char title[512], sum[320], line[512], host[256];
    struct model_rank_cells c;
    int page;

    model_ranks_summary(&v->tb, sum, sizeof(sum));
    if (v->tb.count)
        snprintf(title, sizeof(title), "Ranks: %s  (samples %s, sort: %s)", sum,
                 v->window ? "in the window" : "since start", sort_names[v->sort]);
    else
        snprintf(title, sizeof(title), "Ranks: none");
    column_line(line, sizeof(line));
    page = tui_draw_frame(t, r, title, line);
    tui_list_fit(&v->list, v->tb.count, page);
    for (int i = 0; i < page && v->list.top + i < v->tb.count; i++) {
        int idx = v->list.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_rank_row *row = &v->tb.rows[idx];
        int sel = idx == v->list.sel, hw;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        int far = !isnan(row->imbal) && fabs(row->imbal) >= 10.0;

        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        model_ranks_cells(t->m, &v->tb, row, 1, &c);
        hw = tui_fit_middle(host, sizeof(host), row->host[0] ? row->host : "-", HOST_COLS, t->utf8);
        snprintf(line, sizeof(line), "%c%5s %s%*s %7s %6s %8s %9s %5s %5s %-14.14s %9s ",
                 t->filter.only_rank == row->rank + 1 ? '*' : ' ', c.rank, host, HOST_COLS - hw, "",
                 c.pid, c.cpu, c.samples, c.gpu_ms, c.gpu_pct, c.mpi_pct, c.mpi_top, c.region);
        x += tui_put(t, y, x, end - x, norm, line, 0);
        snprintf(line, sizeof(line), "%8s", c.imbal);
        x += tui_put(t, y, x, end - x, far && !sel ? tui_style(t, TUI_S_HOT) : norm, line, 0);
        snprintf(line, sizeof(line), " %5s  ", c.hot_pct);
        x += tui_put(t, y, x, end - x, norm, line, 0);
        tui_fit_middle(line, sizeof(line), c.hot, end - x, t->utf8); /* start and end stay */
        tui_put(t, y, x, end - x, norm, line, 0);
    }
    if (v->tb.count == 0 && page >= 2)
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), NO_RANKS, 0);
}

void tui_ranks_show(struct tui *t, int rank)
{
    t->filter.only_rank = rank >= 0 ? rank + 1 : 0;
    if (rank >= 0 && t->filter.thread >= 0 &&
        model_ranks_thread_rank(t->m, t->filter.thread) != rank)
        t->filter.thread = -1;
    tui_filter_changed(t);
    if (rank >= 0)
        tui_message(t, "rank %d only (R: next rank; a in the Ranks view: all ranks)", rank);
    else
        tui_message(t, "all ranks");
}

int tui_ranks_key(struct tui *t, void *st, int key)
{
    struct ranks_view *v = st;
    enum tui_nav nav = tui_key_nav(key);

    if (key == 's' || key == KEY_F(6)) {
        v->sort = (v->sort + 1) % SORT_COUNT;
        resort(t, v);
        return 1;
    }
    if (nav != TUI_NAV_NONE) {
        tui_list_nav(&v->list, nav, v->tb.count, tui_page_rows(t));
        note_selection(v);
        return 1;
    }
    if (key == '\n' || key == '\r' || key == KEY_ENTER || key == ' ') {
        note_selection(v);
        if (v->sel_rank < 0)
            return 1;
        tui_ranks_show(t, v->sel_rank);
        tui_switch_view(t, TUI_VIEW_CALLTREE);
        return 1;
    }
    if (key == 'a') {
        tui_ranks_show(t, -1);
        return 1;
    }
    if (key == 'u') {
        const char *next = model_ranks_next_region(t->m, v->region);
        char *name = next ? xstrdup(next) : NULL;
        free(v->region);
        v->region = name;
        reload_region(t, v);
        tui_message(t, "%s%s", v->region ? "load: region " : "load: samples (no region)",
                    v->region ? v->region : "");
        return 1;
    }
    return 0;
}

int tui_ranks_click(struct tui *t, void *st, const struct tui_mouse *ev)
{
    struct ranks_view *v = st;
    char columns[512];
    int value;

    column_line(columns, sizeof(columns));
    switch (tui_list_click(ev, &v->list, v->tb.count, ev->h - 2, columns, sort_columns,
                           (int)(sizeof(sort_columns) / sizeof(sort_columns[0])), &value)) {
    case TUI_CLICK_SORT:
        v->sort = value;
        resort(t, v);
        return 1;
    case TUI_CLICK_SELECT:
        v->list.sel = value;
        note_selection(v);
        return 1;
    case TUI_CLICK_AGAIN: /* that rank in the call tree */
        return tui_ranks_key(t, st, '\n');
    default:
        return 0;
    }
}

int tui_ranks_search(struct tui *t, void *st, const char *needle)
{
    struct ranks_view *v = st;
    char rank[16];

    for (int i = 1; i <= v->tb.count; i++) {
        int idx = (v->list.sel + i) % v->tb.count;
        const struct model_rank_row *r = &v->tb.rows[idx];
        snprintf(rank, sizeof(rank), "%d", r->rank);
        if (strcmp(rank, needle) == 0 || tui_match(r->host, needle) ||
            (r->hot_func >= 0 && tui_match(tui_model_func_name(t->m, r->hot_func), needle))) {
            v->list.sel = idx;
            tui_list_fit(&v->list, v->tb.count, tui_page_rows(t));
            note_selection(v);
            return 1;
        }
    }
    return 0;
}

void tui_ranks_status(struct tui *t, void *st, char *buf, size_t n)
{
    struct ranks_view *v = st;

    (void)t;
    if (v->tb.count)
        snprintf(buf, n, "Enter: show this rank  a: all ranks  u: region");
    else if (n)
        buf[0] = '\0';
}

void tui_ranks_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_rank_table tb = {0};
    char sum[320];

    model_ranks_build(m, 0, model_ranks_top_region(m), 0, &tb);
    if (tb.count) { /* only multi-rank models: other batch frames stay as they were */
        model_ranks_summary(&tb, sum, sizeof(sum));
        fprintf(out, "== Ranks: %s ==\n", sum);
        model_ranks_print(out, m, &tb, max_rows);
    }
    model_ranks_free(&tb);
}
