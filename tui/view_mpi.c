/* View m, MPI: per MPI call (collector/mpi.c's interposition) the calls, time inside them
 * (share of all MPI time and of the MPI span: from MPI_Init's start to MPI_Finalize's end),
 * average and largest time, payload moved, the largest communicator and whether it waits for
 * other ranks (those are the "[mpi wait] CALL" leaves of the call tree); below, each call per
 * call path it was made from (root first), by time. The rank filter (R, or Enter in the Ranks
 * view) applies. Key: s cycles the sort. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"
#include "model/mpi.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

TUI_VIEW_DECLARE(mpi);

enum mpi_sort { SORT_TIME, SORT_CALLS, SORT_BYTES, SORT_NAME, SORT_COUNT };
static const char *const sort_names[SORT_COUNT] = {"time", "calls", "bytes", "name"};

/* The calls of the ranks a filter keeps, sorted, with what they are shares of. */
struct mpi_table {
    struct model_mpi_stats rows[MODEL_MPI_CALLS];
    int n;
    uint64_t total_ns, span_ns;
};

/* The cells of a row of the list (rows: struct mpi_table). */
static void cell_time(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct mpi_table *tb = rows;

    (void)m;
    snprintf(buf, n, "%.1f", tui_pct(tb->rows[row].time.total_ns, tb->total_ns));
}

static void cell_app(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct mpi_table *tb = rows;

    (void)m;
    snprintf(buf, n, "%.1f", tui_pct(tb->rows[row].time.total_ns, tb->span_ns));
}

static void cell_calls(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu",
             (unsigned long long)((const struct mpi_table *)rows)->rows[row].time.calls);
}

static void cell_total(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.3f",
             (double)((const struct mpi_table *)rows)->rows[row].time.total_ns / 1e6);
}

static void cell_avg(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.1f",
             model_duration_avg_ns(&((const struct mpi_table *)rows)->rows[row].time) / 1e3);
}

static void cell_max(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.1f", (double)((const struct mpi_table *)rows)->rows[row].time.max_ns / 1e3);
}

static void cell_bytes(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    tui_format_bytes(buf, n, ((const struct mpi_table *)rows)->rows[row].bytes);
}

static void cell_comm(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    uint32_t size = ((const struct mpi_table *)rows)->rows[row].comm_size;

    (void)m;
    snprintf(buf, n, size ? "%u" : "-", (unsigned)size);
}

static void cell_wait(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%s", ((const struct mpi_table *)rows)->rows[row].waits ? "wait" : "");
}

/* The columns (the screen's and the batch frame's); a click on a heading chooses its sort. */
static const struct tui_list_column columns[] = {
    {"TIME%", 7, 0, SORT_TIME, cell_time},
    {"APP%", 7, 0, SORT_TIME, cell_app},
    {"CALLS", 9, 0, SORT_CALLS, cell_calls},
    {"TOTAL(ms)", 11, 0, SORT_TIME, cell_total, 1},
    {"AVG(us)", 11, 0, -1, cell_avg, 1},
    {"MAX(us)", 11, 0, -1, cell_max, 1},
    {"BYTES", 11, 0, SORT_BYTES, cell_bytes, 1},
    {"COMM", 7, 0, -1, cell_comm, 1},
    {"WAIT", 6, 0, -1, cell_wait, 2},
    {"CALL", 0, 0, SORT_NAME, NULL, 2},
};
#define NCOLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

struct mpi_view {
    struct mpi_table tb;
    struct model_mpi_path *paths; /* the calls per call path, by time */
    int npaths;
    struct tui_lv lv;
};

static int sort_key; /* for the qsort comparator */

/* Largest first by the sort key, names ascending. */
static int cmp_call(const void *a, const void *b)
{
    const struct model_mpi_stats *x = a, *y = b;
    uint64_t p = 0, q = 0;

    if (sort_key == SORT_TIME)
        p = x->time.total_ns, q = y->time.total_ns;
    else if (sort_key == SORT_CALLS)
        p = x->time.calls, q = y->time.calls;
    else if (sort_key == SORT_BYTES)
        p = x->bytes, q = y->bytes;
    if (p != q)
        return p < q ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The end of the MPI spans of processes not finalized: the recording's end, else now. */
static uint64_t span_end_ns(struct model *m)
{
    const struct model_session *s = model_session(m);

    return s->end_ns ? s->end_ns : model_clock_ns(CLOCK_MONOTONIC);
}

/* Fill tb with the calls of rank only_rank - 1 (0: all), sorted by sort. */
static void table_build(struct model *m, int only_rank, int sort, struct mpi_table *tb)
{
    tb->n = model_mpi_totals(m, only_rank, span_end_ns(m), tb->rows, &tb->span_ns);
    tb->total_ns = 0;
    for (int i = 0; i < tb->n; i++)
        tb->total_ns += tb->rows[i].time.total_ns;
    sort_key = sort;
    qsort(tb->rows, (size_t)tb->n, sizeof(tb->rows[0]), cmp_call);
}

/* The cells of row of tb (without the name), as the screen and the batch frame show them. */
static void format_row(struct model *m, char *buf, size_t n, const struct mpi_table *tb, int row)
{
    tui_list_cells(m, columns, NCOLUMNS, NULL, tb, row, buf, n - 2);
    strcat(buf, "  ");
}

/* The title: calls, time and the MPI share of the span. */
static void format_title(char *buf, size_t n, const struct mpi_table *tb, const char *sort)
{
    uint64_t calls = 0;

    for (int i = 0; i < tb->n; i++)
        calls += tb->rows[i].time.calls;
    snprintf(buf, n, "MPI: %llu calls of %d kinds, %.3f ms, %.1f%% of the MPI span%s%s",
             (unsigned long long)calls, tb->n, (double)tb->total_ns / 1e6,
             tui_pct(tb->total_ns, tb->span_ns), sort ? "  (sort: " : "", sort ? sort : "");
    if (sort && strlen(buf) + 2 < n)
        strcat(buf, ")");
}

/* One line about one call from one call path: "MPI_Barrier from main > exchange: 3 calls,
 * 1924.992 ms, max 706.533 ms, 0 B". */
static void format_path(struct model *m, char *buf, size_t n, const struct model_mpi_path *p)
{
    char names[1024], bytes[32];

    if (p->path)
        model_path_names(m, p->path, " > ", 0, names, sizeof(names));
    else
        snprintf(names, sizeof(names), "(call path not captured)");
    tui_format_bytes(bytes, sizeof(bytes), p->bytes);
    snprintf(buf, n, "%s from %s: %llu calls, %.3f ms, max %.3f ms, %s", p->name, names,
             (unsigned long long)p->time.calls, (double)p->time.total_ns / 1e6,
             (double)p->time.max_ns / 1e6, bytes);
}

void *tui_mpi_create(void)
{
    return xcalloc(1, sizeof(struct mpi_view));
}

void tui_mpi_destroy(void *st)
{
    struct mpi_view *v = st;

    if (!v)
        return;
    free(v->paths);
    free(v);
}

void tui_mpi_rebuild(struct tui *t, void *st)
{
    struct mpi_view *v = st;

    table_build(t->m, t->filter.only_rank, v->lv.sort, &v->tb);
    free(v->paths);
    v->paths = model_mpi_paths(t->m, t->filter.only_rank, &v->npaths);
    tui_list_fit(&v->lv.nav, v->tb.n, tui_page_rows(t));
}

void tui_mpi_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct mpi_view *v = st;
    char title[200], heading[200], nums[1200];
    int page, prows, list_rows;

    format_title(title, sizeof(title), &v->tb, sort_names[v->lv.sort]);
    tui_list_heading(columns, NCOLUMNS, NULL, heading, sizeof(heading));
    page = tui_draw_frame(t, r, title, heading);
    prows = v->npaths < page / 2 ? v->npaths : page / 2; /* below the list: the call paths */
    list_rows = page - prows;
    v->lv.rows = list_rows; /* the paths are below */
    tui_list_fit(&v->lv.nav, v->tb.n, list_rows);
    for (int i = 0; i < prows; i++) {
        format_path(t->m, nums, sizeof(nums), &v->paths[i]);
        tui_put(t, r->y + 2 + list_rows + i, r->x, r->w, A_NORMAL, nums, 1);
    }
    for (int i = 0; i < list_rows && v->lv.nav.top + i < v->tb.n; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_mpi_stats *c = &v->tb.rows[idx];
        unsigned int norm = idx == v->lv.nav.sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        if (idx == v->lv.nav.sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        format_row(t->m, nums, sizeof(nums), &v->tb, idx);
        x += tui_put(t, y, x, end - x, norm, nums, 0);
        tui_put(t, y, x, end - x, norm, c->name, 0);
    }
    if (v->tb.n == 0 && page >= 2) {
        if (!tui_replay_no_data(t->m, "MPI", nums, sizeof(nums)))
            snprintf(nums, sizeof(nums), "no MPI calls seen yet");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), nums, 0);
    }
}

/* The list layer's view of the rows (tui/list.h): the rows are sorted as they are read. */
static int mpi_count(const void *st)
{
    return ((const struct mpi_view *)st)->tb.n;
}

static void mpi_sort(struct tui *t, void *st)
{
    tui_mpi_rebuild(t, st);
}

static int mpi_match(struct tui *t, const void *st, int row, const char *needle)
{
    (void)t;
    return tui_match(((const struct mpi_view *)st)->tb.rows[row].name, needle);
}

const struct tui_list_class tui_mpi_list = {
    .lv_offset = offsetof(struct mpi_view, lv),
    .nsorts = SORT_COUNT,
    .cols = columns,
    .ncols = NCOLUMNS,
    .count = mpi_count,
    .sort = mpi_sort,
    .match = mpi_match,
};

void tui_mpi_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    snprintf(buf, n, "s sort");
}

void tui_mpi_batch(FILE *out, struct model *m, int max_rows)
{
    struct mpi_table *tb;
    struct model_mpi_path *paths;
    char line[1200], heading[200];
    int npaths;

    if (!model_mpi_seen(m)) /* programs without MPI: their batch frames stay as they were */
        return;
    tb = xcalloc(1, sizeof(*tb));
    table_build(m, 0, SORT_TIME, tb);
    format_title(line, sizeof(line), tb, NULL);
    tui_list_heading(columns, NCOLUMNS, NULL, heading, sizeof(heading));
    fprintf(out, "== %s ==\n%s\n", line, heading);
    for (int i = 0; i < tb->n && (max_rows <= 0 || i < max_rows); i++) {
        format_row(m, line, sizeof(line), tb, i);
        fprintf(out, "%s%s\n", line, tb->rows[i].name);
    }
    if (tb->n == 0 && tui_replay_no_data(m, "MPI", line, sizeof(line)))
        fprintf(out, "%s\n", line); /* MPI calls, none in the replayed range */
    paths = model_mpi_paths(m, 0, &npaths);
    for (int i = 0; i < npaths && (max_rows <= 0 || i < max_rows); i++) {
        format_path(m, line, sizeof(line), &paths[i]);
        fprintf(out, "%s\n", line);
    }
    free(paths);
    free(tb);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(mpi, "MPI", 'm', "MPI", .list = &tui_mpi_list);
