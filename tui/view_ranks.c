/* View 9, ranks: one row per MPI rank of a multi-rank recording (rocsys-top --replay DIR --live
 * over DIR/rank-N/): host, pid, recorded CPU %, samples, GPU kernel time, the time of a chosen
 * user region, how far the rank's load is from the mean of all ranks, and its hottest function;
 * with MPI calls (collector/mpi.c), the rank's MPI time as a share of its MPI span (MPI%: from
 * MPI_Init's start to MPI_Finalize's end) and the MPI call it spent the most time in.
 * Keys: Enter shows the selected rank in the other views (the filter's only_rank), a shows all
 * ranks again, u cycles the region whose time is the load (none: samples), s sorts. */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"
#include "model/ranks.h"

#include <curses.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

TUI_VIEW_DECLARE(ranks);

#define NO_RANKS                                                                                   \
    "no ranks: not a multi-rank recording (rocsys-top --replay DIR --live on an MPI recording's "  \
    "parent directory)"
#define HOST_COLS 12 /* host column of the interactive view */

enum { SORT_RANK, SORT_SAMPLES, SORT_CPU, SORT_GPU, SORT_LOAD, SORT_MPI, SORT_COUNT };
static const char *const sort_names[] = {"rank", "samples", "cpu", "GPU time", "load", "MPI%"};

struct ranks_view {
    struct tui_lv lv; /* sel_id: rank of the selected row */
    struct model_rank_table tb;
    char *region;  /* the selected region's name (NULL: none) */
    int window;    /* samples are the sliding window's */
    int only_rank; /* as drawn: the filter's rank + 1 (its row marked), 0: all */
    int utf8;      /* as drawn: the terminal's */
};

/* The cells of a row of the list (rows: the view), from the model's cells of its rank. */
static void rank_cells(struct model *m, const void *rows, int row, struct model_rank_cells *c)
{
    const struct ranks_view *v = rows;

    model_ranks_cells(m, &v->tb, &v->tb.rows[row], 1, c);
}

/* cell_FIELD: the model's cell FIELD as it is. */
#define RANK_CELL(field)                                                                           \
    static void cell_##field(struct model *m, const void *rows, int row, char *buf, size_t n)      \
    {                                                                                              \
        struct model_rank_cells c;                                                                 \
        rank_cells(m, rows, row, &c);                                                              \
        snprintf(buf, n, "%s", c.field);                                                           \
    }
RANK_CELL(rank)
RANK_CELL(pid)
RANK_CELL(cpu)
RANK_CELL(samples)
RANK_CELL(gpu_ms)
RANK_CELL(gpu_pct)
RANK_CELL(mpi_pct)
RANK_CELL(region)
RANK_CELL(imbal)
RANK_CELL(hot_pct)

/* '*' on the rank the other views show. */
static void cell_mark(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct ranks_view *v = rows;

    (void)m;
    snprintf(buf, n, "%c", v->only_rank == v->tb.rows[row].rank + 1 ? '*' : ' ');
}

/* The host, fitted into HOST_COLS (its middle left out) and filled to them. */
static void cell_host(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct ranks_view *v = rows;
    const struct model_rank_row *r = &v->tb.rows[row];
    char host[256];
    int hw = tui_fit_middle(host, sizeof(host), r->host[0] ? r->host : "-", HOST_COLS, v->utf8);

    (void)m;
    snprintf(buf, n, "%s%*s", host, HOST_COLS - hw, "");
}

/* The MPI call with the most time, cut to 14 bytes. */
static void cell_mpi_top(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    struct model_rank_cells c;

    rank_cells(m, rows, row, &c);
    snprintf(buf, n, "%.14s", c.mpi_top);
}

/* The screen's columns; a click on a heading chooses its sort. */
enum { COL_IMBAL = 11, COL_HOT_PCT };
static const struct tui_list_column columns[] = {
    {"", 1, 0, -1, cell_mark},
    {"RANK", 5, 0, SORT_RANK, cell_rank},
    {"HOST", 1 + HOST_COLS, 0, -1, cell_host, 1, 1},
    {"PID", 8, 0, -1, cell_pid, 1},
    {"CPU%", 7, 0, SORT_CPU, cell_cpu, 1},
    {"SAMPLES", 9, 0, SORT_SAMPLES, cell_samples, 1},
    {"GPU_MS", 10, 0, SORT_GPU, cell_gpu_ms, 1},
    {"GPU%", 6, 0, SORT_GPU, cell_gpu_pct, 1},
    {"MPI%", 6, 0, SORT_MPI, cell_mpi_pct, 1},
    {"MPI_TOP", 15, 0, SORT_MPI, cell_mpi_top, 1, 1},
    {"REGION_MS", 10, 0, SORT_LOAD, cell_region, 1},
    [COL_IMBAL] = {"IMBAL", 9, 0, SORT_LOAD, cell_imbal, 1}, /* drawn in the hot style when far */
    [COL_HOT_PCT] = {"HOT%", 6, 0, -1, cell_hot_pct, 1},
    {"HOT", 0, 0, -1, NULL, 2},
};
#define NCOLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

void *tui_ranks_create(void)
{
    struct ranks_view *v = xcalloc(1, sizeof(*v));

    tui_lv_init(&v->lv);
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

    if (v->lv.sort == SORT_SAMPLES && x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (v->lv.sort == SORT_CPU && cx != cy)
        return cx > cy ? -1 : 1;
    if (v->lv.sort == SORT_GPU && x->gpu_ns != y->gpu_ns)
        return x->gpu_ns > y->gpu_ns ? -1 : 1;
    if (v->lv.sort == SORT_MPI && x->mpi_ns != y->mpi_ns)
        return x->mpi_ns > y->mpi_ns ? -1 : 1;
    if (v->lv.sort == SORT_LOAD &&
        model_ranks_row_load(&v->tb, x) != model_ranks_row_load(&v->tb, y))
        return model_ranks_row_load(&v->tb, x) > model_ranks_row_load(&v->tb, y) ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The list layer's view of the rows (tui/list.h): it takes the sort and navigation keys, the
 * clicks and the search. */
static int ranks_count(const void *st)
{
    return ((const struct ranks_view *)st)->tb.count;
}

static void ranks_sort(struct tui *t, void *st)
{
    struct ranks_view *v = st;

    (void)t;
    qsort_r(v->tb.rows, (size_t)v->tb.count, sizeof(*v->tb.rows), row_cmp, v);
}

static long ranks_row_id(const void *st, int row)
{
    return ((const struct ranks_view *)st)->tb.rows[row].rank;
}

/* A rank matches its number, its host or its hottest function. */
static int ranks_match(struct tui *t, const void *st, int row, const char *needle)
{
    const struct model_rank_row *r = &((const struct ranks_view *)st)->tb.rows[row];
    char rank[16];

    snprintf(rank, sizeof(rank), "%d", r->rank);
    return strcmp(rank, needle) == 0 || tui_match(r->host, needle) ||
           (r->hot_func >= 0 && tui_match(tui_model_func_name(t->m, r->hot_func), needle));
}

const struct tui_list_class tui_ranks_list = {
    .lv_offset = offsetof(struct ranks_view, lv),
    .nsorts = SORT_COUNT,
    .cols = columns,
    .ncols = NCOLUMNS,
    .count = ranks_count,
    .sort = ranks_sort,
    .row_id = ranks_row_id,
    .missing_row = -1,
    .match = ranks_match,
    .key = tui_ranks_key,
};

/* Recount the region columns and the imbalance for the selected region (the rest stays as
 * built: no hot lists per keypress). */
static void reload_region(struct tui *t, struct ranks_view *v)
{
    int sort = v->lv.sort;

    v->lv.sort = SORT_RANK; /* model_ranks_load finds rows by rank */
    qsort_r(v->tb.rows, (size_t)v->tb.count, sizeof(*v->tb.rows), row_cmp, v);
    v->lv.sort = sort;
    model_ranks_load(t->m, &v->tb, v->region, 1);
    tui_lv_resort(t, &tui_ranks_list, v);
}

void tui_ranks_rebuild(struct tui *t, void *st)
{
    struct ranks_view *v = st;

    v->window = t->filter.window;
    model_ranks_build(t->m, v->window, v->region, 1, &v->tb); /* rows in rank order */
    tui_lv_resort(t, &tui_ranks_list, v);
}

void tui_ranks_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct ranks_view *v = st;
    char title[512], sum[320], line[512];
    struct model_rank_cells c;
    int page, before[NCOLUMNS] = {0}, imbal[NCOLUMNS] = {0}, after[NCOLUMNS] = {0};

    for (int i = 0; i < COL_IMBAL; i++) /* three parts: IMBAL has a style of its own */
        before[i] = 1;
    imbal[COL_IMBAL] = after[COL_HOT_PCT] = 1;
    v->only_rank = t->filter.only_rank;
    v->utf8 = t->utf8;
    model_ranks_summary(&v->tb, sum, sizeof(sum));
    if (v->tb.count)
        snprintf(title, sizeof(title), "Ranks: %s  (samples %s, sort: %s)", sum,
                 v->window ? "in the window" : "since start", sort_names[v->lv.sort]);
    else
        snprintf(title, sizeof(title), "Ranks: none");
    tui_list_heading(columns, NCOLUMNS, NULL, line, sizeof(line));
    page = tui_draw_frame(t, r, title, line);
    tui_list_fit(&v->lv.nav, v->tb.count, page);
    for (int i = 0; i < page && v->lv.nav.top + i < v->tb.count; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_rank_row *row = &v->tb.rows[idx];
        int sel = idx == v->lv.nav.sel;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        int far = !isnan(row->imbal) && fabs(row->imbal) >= 10.0;

        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        tui_list_cells(t->m, columns, NCOLUMNS, before, v, idx, line, sizeof(line));
        x += tui_put(t, y, x, end - x, norm, line, 0);
        tui_list_cells(t->m, columns, NCOLUMNS, imbal, v, idx, line, sizeof(line));
        x += tui_put(t, y, x, end - x, norm, " ", 0); /* its gap: not in the style */
        x += tui_put(t, y, x, end - x, far && !sel ? tui_style(t, TUI_S_HOT) : norm, line + 1, 0);
        tui_list_cells(t->m, columns, NCOLUMNS, after, v, idx, line, sizeof(line) - 2);
        strcat(line, "  ");
        x += tui_put(t, y, x, end - x, norm, line, 0);
        model_ranks_cells(t->m, &v->tb, row, 1, &c);
        tui_fit_middle(line, sizeof(line), c.hot, end - x, t->utf8); /* start and end stay */
        tui_put(t, y, x, end - x, norm, line, 0);
    }
    if (v->tb.count == 0 && page >= 2)
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), NO_RANKS, 0);
}

/* Show rank (-1: all ranks) in the call tree and hot views (the filter's only_rank); a thread
 * filter on another rank's thread is dropped. */
static void ranks_show(struct tui *t, int rank)
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

/* R in every view: all ranks, then each rank in turn. */
int tui_ranks_global(struct tui *t, int key)
{
    int n;

    if (key != 'R')
        return 0;
    n = model_ranks_next(t->m, t->filter.only_rank);
    if (n < 0)
        tui_message(t, "no ranks: not a multi-rank recording");
    else
        ranks_show(t, n - 1);
    return 1;
}

const struct tui_key_help tui_ranks_help[] = {
    {"R", "rank (multi-rank): all ranks, then each rank in turn"},
    {"Enter Space", "ranks: show that rank in the other views"},
    {"a u", "ranks view: all ranks again; cycle the region compared"},
    {NULL, NULL},
};

int tui_ranks_key(struct tui *t, void *st, int key)
{
    struct ranks_view *v = st;

    if (key == '\n' || key == '\r' || key == KEY_ENTER || key == ' ') {
        tui_lv_note(&tui_ranks_list, st);
        if (v->lv.sel_id < 0 || v->tb.count == 0) /* no rank selected */
            return 1;
        ranks_show(t, (int)v->lv.sel_id);
        tui_switch_view(t, TUI_VIEW_CALLTREE);
        return 1;
    }
    if (key == 'a') {
        ranks_show(t, -1);
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

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(ranks, "Ranks", '9', "Rank", .key = tui_ranks_key, .help = tui_ranks_help,
                .global_key = tui_ranks_global, .list = &tui_ranks_list);
