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
#include "model/mpi.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NO_RANKS                                                                                   \
    "no ranks: not a multi-rank recording (rocsys-top --replay DIR --live on an MPI recording's "  \
    "parent directory)"
#define HOST_COLS     12 /* host column of the interactive view */
#define HOST_MAX_COLS 32 /* host column of the text table, at most */

enum { SORT_RANK, SORT_SAMPLES, SORT_CPU, SORT_GPU, SORT_LOAD, SORT_MPI, SORT_COUNT };
static const char *const sort_names[] = {"rank", "samples", "cpu", "GPU time", "load", "MPI%"};
/* A click on a column heading: the sort it chooses. */
static const struct tui_sort_column sort_columns[] = {
    {"RANK", SORT_RANK},  {"SAMPLES", SORT_SAMPLES}, {"CPU%", SORT_CPU},
    {"GPU_MS", SORT_GPU}, {"GPU%", SORT_GPU},        {"REGION_MS", SORT_LOAD},
    {"IMBAL", SORT_LOAD}, {"MPI%", SORT_MPI},        {"MPI_TOP", SORT_MPI}};

/* One rank: its processes summed. */
struct rank_row {
    int rank;
    char host[64];
    uint32_t pid;   /* real_pid of its first process */
    int procs;      /* its processes */
    double cpu_pct; /* sum of its processes' CPU %, NAN when none is known */
    uint64_t samples;
    int hot_func;                 /* its hottest function by self samples, -1: none */
    uint64_t hot_self;            /* that function's self samples */
    uint64_t hot_total;           /* the samples its hot list counted */
    uint64_t gpu_ns, gpu_disp;    /* kernel time and dispatches */
    uint64_t region_ns;           /* total time of the selected region on its threads */
    double imbal;                 /* load against the mean of all ranks, %; NAN: no mean */
    uint64_t mpi_ns, mpi_span_ns; /* time in MPI calls, and the MPI span it is a share of */
    const struct model_mpi_stats *mpi_top; /* the MPI call with the most time, NULL: none */
};

/* Every rank of a model, rows in rank order unless sorted. */
struct rank_table {
    struct rank_row *rows;
    int count;
    size_t cap;
    int hosts;          /* distinct host names */
    uint64_t span_ns;   /* what GPU% is a share of: the replayed range or the run */
    const char *region; /* the region of the REGION column, NULL: none */
    int region_load;    /* 1: the region's time is the load; 0: the samples are */
};

struct ranks_view {
    struct rank_table tb;
    struct tui_list list;
    int sort;
    int sel_rank; /* rank of the selected row, kept across rebuilds and sorts (-1: none) */
    char *region; /* the selected region's name (NULL: none) */
    int window;   /* samples are the sliding window's */
};

/* The row of rank in tb (rows in rank order), or -1. */
static int row_of(const struct rank_table *tb, int rank)
{
    int lo = 0, hi = tb->count - 1;

    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (tb->rows[mid].rank == rank)
            return mid;
        if (tb->rows[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

/* The row of rank, inserted in rank order if new. */
static struct rank_row *row_get(struct rank_table *tb, int rank)
{
    int at = row_of(tb, rank);

    if (at >= 0)
        return &tb->rows[at];
    xgrow(&tb->rows, &tb->cap, (size_t)tb->count + 1, sizeof(*tb->rows));
    for (at = tb->count; at > 0 && tb->rows[at - 1].rank > rank; at--)
        ;
    memmove(&tb->rows[at + 1], &tb->rows[at], (size_t)(tb->count - at) * sizeof(*tb->rows));
    tb->count++;
    memset(&tb->rows[at], 0, sizeof(tb->rows[at]));
    tb->rows[at].rank = rank;
    tb->rows[at].cpu_pct = NAN;
    tb->rows[at].hot_func = -1;
    return &tb->rows[at];
}

/* The rank of the process of thread index i, -1 if none. */
static int thread_rank(struct model *m, int i)
{
    const struct model_thread *th = model_thread_at(m, i);
    const struct model_process *p = th ? model_process_find(m, th->pid) : NULL;

    return p ? p->rank : -1;
}

/* What GPU% is a share of: the replayed range when set, else the run so far. */
static uint64_t span_ns(struct model *m)
{
    const struct model_session *s = model_session(m);
    uint64_t end;

    if (s->range_end_ns > s->range_start_ns)
        return s->range_end_ns - s->range_start_ns;
    end = s->end_ns ? s->end_ns : model_clock_ns(CLOCK_MONOTONIC);
    return s->start_ns && end > s->start_ns ? end - s->start_ns : 0;
}

/* The load the imbalance compares: the region's time, or the samples. */
static uint64_t row_load(const struct rank_table *tb, const struct rank_row *r)
{
    return tb->region_load ? r->region_ns : r->samples;
}

/* Order region statistics by name (qsort). */
static int stats_name_cmp(const void *a, const void *b)
{
    const struct model_region_stats *const *x = a, *const *y = b;

    return strcmp((*x)->name, (*y)->name);
}

/* The region with the most time of all (ties: the first by name), NULL when none. */
static const char *top_region(struct model *m)
{
    int n;
    const struct model_region_stats *st = model_regions_stats(m, &n);
    const struct model_region_stats **by = xcalloc((size_t)n + 1, sizeof(*by));
    const char *best = NULL;
    uint64_t best_ns = 0;

    for (int i = 0; i < n; i++)
        by[i] = &st[i];
    qsort(by, (size_t)n, sizeof(*by), stats_name_cmp);
    for (int i = 0, k; i < n; i = k) {
        uint64_t ns = 0;
        for (k = i; k < n && strcmp(by[k]->name, by[i]->name) == 0; k++)
            ns += by[k]->total_ns;
        if (!best || ns > best_ns) {
            best = by[i]->name;
            best_ns = ns;
        }
    }
    free(by);
    return best;
}

/* The region column (region NULL: none) and the imbalance, whose load is the region's time
 * when region_load, else the samples. */
static void table_load(struct model *m, struct rank_table *tb, const char *region, int region_load)
{
    uint64_t sum = 0;
    double mean;
    int n = 0;

    tb->region = region;
    tb->region_load = region && region_load;
    for (int i = 0; i < tb->count; i++)
        tb->rows[i].region_ns = 0;
    if (region) {
        const struct model_region_stats *st = model_regions_stats(m, &n);
        for (int i = 0; i < n; i++) {
            int at =
                strcmp(st[i].name, region) == 0 ? row_of(tb, thread_rank(m, st[i].thread)) : -1;
            if (at >= 0)
                tb->rows[at].region_ns += st[i].total_ns;
        }
    }
    for (int i = 0; i < tb->count; i++)
        sum += row_load(tb, &tb->rows[i]);
    mean = tb->count ? (double)sum / tb->count : 0.0;
    for (int i = 0; i < tb->count; i++) {
        double load = (double)row_load(tb, &tb->rows[i]);
        tb->rows[i].imbal = mean > 0 ? 100.0 * (load - mean) / mean : NAN;
    }
}

/* Add the MPI calls of process pid to rank row r. */
static void mpi_add(struct model *m, struct rank_row *r, uint32_t pid)
{
    const struct model_session *s = model_session(m);
    const struct model_mpi_stats *top;
    uint64_t ns, span;

    if (!model_mpi_process(m, pid, s->end_ns ? s->end_ns : model_clock_ns(CLOCK_MONOTONIC), &ns,
                           &span, &top))
        return;
    r->mpi_ns += ns;
    r->mpi_span_ns += span;
    if (top && (!r->mpi_top || top->time.total_ns > r->mpi_top->time.total_ns))
        r->mpi_top = top;
}

/* Fill tb with the model's ranks (rows in rank order); window: samples of the sliding window;
 * region, region_load: as table_load. One hot list per rank. */
static void table_build(struct model *m, int window, const char *region, int region_load,
                        struct rank_table *tb)
{
    int np = model_process_count(m), nt = model_thread_count(m);

    tb->count = 0;
    tb->hosts = 0;
    for (int i = 0; i < np; i++) {
        const struct model_process *p = model_process_at(m, i);
        struct rank_row *r;
        if (p->rank < 0)
            continue;
        r = row_get(tb, p->rank);
        if (r->procs++ == 0) { /* its first process names the row */
            r->pid = p->real_pid ? p->real_pid : p->pid;
            snprintf(r->host, sizeof(r->host), "%s", p->host);
        }
        if (p->metrics.valid && !isnan(p->metrics.cpu_pct))
            r->cpu_pct = (isnan(r->cpu_pct) ? 0.0 : r->cpu_pct) + p->metrics.cpu_pct;
        r->gpu_ns += p->gpu_kernel_ns;
        r->gpu_disp += p->gpu_dispatches;
        mpi_add(m, r, p->pid);
    }
    for (int i = 0; i < nt && tb->count; i++) {
        int at = row_of(tb, thread_rank(m, i));
        const struct model_thread *th = model_thread_at(m, i);
        if (at >= 0)
            tb->rows[at].samples += window ? th->window_samples : th->samples;
    }
    for (int i = 0; i < tb->count; i++) {
        struct rank_row *r = &tb->rows[i];
        struct model_filter f = {.thread = -1, .window = window, .only_rank = r->rank + 1};
        struct model_hot_list *hot = model_hot_build(m, &f);
        for (int k = 0; k < hot->count; k++) {
            const struct model_hot *it = &hot->items[k];
            if (it->self > r->hot_self || (it->self && it->self == r->hot_self &&
                                           strcmp(tui_model_func_name(m, it->func),
                                                  tui_model_func_name(m, r->hot_func)) < 0)) {
                r->hot_func = it->func;
                r->hot_self = it->self;
            }
        }
        r->hot_total = hot->total;
        model_hot_free(hot);
        tb->hosts++;
        for (int k = 0; k < i; k++)
            if (strcmp(tb->rows[k].host, r->host) == 0) {
                tb->hosts--;
                break;
            }
    }
    tb->span_ns = span_ns(m);
    table_load(m, tb, region, region_load);
}

/* The most loaded rank's row, NULL when there is no mean to compare with. */
static const struct rank_row *most_loaded(const struct rank_table *tb)
{
    const struct rank_row *best = NULL;

    for (int i = 0; i < tb->count; i++)
        if (!isnan(tb->rows[i].imbal) && (!best || tb->rows[i].imbal > best->imbal))
            best = &tb->rows[i];
    return best;
}

/* A rank's cells as text, shared by the view and the text table. */
struct rank_cells {
    char rank[16], pid[16], cpu[16], samples[24], gpu_ms[24], gpu_pct[16], region[24];
    char imbal[16], hot_pct[16], mpi_pct[16];
    const char *hot;     /* the hottest function's name, "-" */
    const char *mpi_top; /* the MPI call with the most time, "-" */
};

/* Fill c for row r; times in ms with ms_digits decimals. */
static void row_cells(struct model *m, const struct rank_table *tb, const struct rank_row *r,
                      int ms_digits, struct rank_cells *c)
{
    snprintf(c->rank, sizeof(c->rank), "%d", r->rank);
    snprintf(c->pid, sizeof(c->pid), "%u", (unsigned)r->pid);
    if (isnan(r->cpu_pct))
        snprintf(c->cpu, sizeof(c->cpu), "-");
    else
        snprintf(c->cpu, sizeof(c->cpu), "%.1f", r->cpu_pct);
    snprintf(c->samples, sizeof(c->samples), "%llu", (unsigned long long)r->samples);
    if (r->gpu_disp == 0) {
        snprintf(c->gpu_ms, sizeof(c->gpu_ms), "-");
        snprintf(c->gpu_pct, sizeof(c->gpu_pct), "-");
    } else {
        snprintf(c->gpu_ms, sizeof(c->gpu_ms), "%.*f", ms_digits, (double)r->gpu_ns / 1e6);
        if (tb->span_ns)
            snprintf(c->gpu_pct, sizeof(c->gpu_pct), "%.1f",
                     100.0 * (double)r->gpu_ns / (double)tb->span_ns);
        else
            snprintf(c->gpu_pct, sizeof(c->gpu_pct), "-");
    }
    if (r->mpi_span_ns)
        snprintf(c->mpi_pct, sizeof(c->mpi_pct), "%.1f",
                 100.0 * (double)r->mpi_ns / (double)r->mpi_span_ns);
    else
        snprintf(c->mpi_pct, sizeof(c->mpi_pct), "-");
    c->mpi_top = r->mpi_top ? r->mpi_top->name : "-";
    if (tb->region)
        snprintf(c->region, sizeof(c->region), "%.*f", ms_digits, (double)r->region_ns / 1e6);
    else
        snprintf(c->region, sizeof(c->region), "-");
    if (isnan(r->imbal))
        snprintf(c->imbal, sizeof(c->imbal), "-");
    else
        snprintf(c->imbal, sizeof(c->imbal), "%+.1f%%", r->imbal);
    if (r->hot_func >= 0) {
        snprintf(c->hot_pct, sizeof(c->hot_pct), "%.1f", tui_pct(r->hot_self, r->hot_total));
        c->hot = tui_model_func_name(m, r->hot_func);
    } else {
        snprintf(c->hot_pct, sizeof(c->hot_pct), "-");
        c->hot = "-";
    }
}

/* One line saying what the table compares: "3 ranks on 2 hosts; load (IMBAL): samples;
 * REGION: solve; most loaded: rank 1 +12.3%". */
static void table_summary(const struct rank_table *tb, char *buf, size_t n)
{
    const struct rank_row *top = most_loaded(tb);
    char most[64] = "";

    if (top)
        snprintf(most, sizeof(most), "; most loaded: rank %d %+.1f%%", top->rank, top->imbal);
    snprintf(buf, n, "%d rank%s on %d host%s; load (IMBAL): %s; REGION: %s%s", tb->count,
             tb->count == 1 ? "" : "s", tb->hosts, tb->hosts == 1 ? "" : "s",
             tb->region_load ? "the region's time" : "samples", tb->region ? tb->region : "none",
             most);
}

/* Write the table as aligned text, columns splittable on blanks (the function name last). */
static void table_print(FILE *out, struct model *m, const struct rank_table *tb, int max_rows)
{
    char host[256];
    int hw = 4;
    struct rank_cells c;

    for (int i = 0; i < tb->count; i++) {
        int w = tui_text_width(tb->rows[i].host, 1);
        hw = w > hw ? (w < HOST_MAX_COLS ? w : HOST_MAX_COLS) : hw;
    }
    fprintf(out, "%5s  %-*s  %8s  %6s  %9s  %11s  %6s  %6s  %-14s  %11s  %8s  %5s  %s\n", "RANK",
            hw, "HOST", "PID", "CPU%", "SAMPLES", "GPU_MS", "GPU%", "MPI%", "MPI_TOP", "REGION_MS",
            "IMBAL", "HOT%", "HOT");
    for (int i = 0; i < tb->count && (max_rows <= 0 || i < max_rows); i++) {
        const struct rank_row *r = &tb->rows[i];
        int w = tui_fit(host, sizeof(host), r->host[0] ? r->host : "-", hw, 1);
        for (char *p = host; *p; p++)
            if (*p == ' ')
                *p = '_'; /* keep the columns splittable on blanks */
        row_cells(m, tb, r, 3, &c);
        fprintf(out, "%5s  %s%*s  %8s  %6s  %9s  %11s  %6s  %6s  %-14s  %11s  %8s  %5s  %s\n",
                c.rank, host, hw - w, "", c.pid, c.cpu, c.samples, c.gpu_ms, c.gpu_pct, c.mpi_pct,
                c.mpi_top, c.region, c.imbal, c.hot_pct, c.hot);
    }
}

static void table_free(struct rank_table *tb)
{
    free(tb->rows);
    memset(tb, 0, sizeof(*tb));
}

void tui_ranks_table(FILE *out, struct model *m)
{
    struct rank_table tb = {0};
    char sum[320];

    table_build(m, 0, top_region(m), 0, &tb);
    if (tb.count) {
        table_summary(&tb, sum, sizeof(sum));
        fprintf(out, "%s\n", sum);
        table_print(out, m, &tb, 0);
    }
    table_free(&tb);
}

int tui_ranks_next(struct model *m, int only_rank)
{
    int next = -1, any = 0;

    for (int i = 0; i < model_process_count(m); i++) {
        int r = model_process_at(m, i)->rank;
        any |= r >= 0;
        if (r >= 0 && r + 1 > only_rank && (next < 0 || r + 1 < next))
            next = r + 1;
    }
    return !any ? -1 : next < 0 ? 0 : next;
}

/* The region name after cur in name order (NULL cur: the first), NULL after the last. */
static const char *next_region(struct model *m, const char *cur)
{
    int n;
    const struct model_region_stats *st = model_regions_stats(m, &n);
    const char *best = NULL;

    for (int i = 0; i < n; i++)
        if ((!cur || strcmp(st[i].name, cur) > 0) && (!best || strcmp(st[i].name, best) < 0))
            best = st[i].name;
    return best;
}

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
    table_free(&v->tb);
    free(v->region);
    free(v);
}

/* Order rows by the sort in arg (largest first); ties by rank. */
static int row_cmp(const void *a, const void *b, void *arg)
{
    const struct ranks_view *v = arg;
    const struct rank_row *x = a, *y = b;
    double cx = isnan(x->cpu_pct) ? -1.0 : x->cpu_pct, cy = isnan(y->cpu_pct) ? -1.0 : y->cpu_pct;

    if (v->sort == SORT_SAMPLES && x->samples != y->samples)
        return x->samples > y->samples ? -1 : 1;
    if (v->sort == SORT_CPU && cx != cy)
        return cx > cy ? -1 : 1;
    if (v->sort == SORT_GPU && x->gpu_ns != y->gpu_ns)
        return x->gpu_ns > y->gpu_ns ? -1 : 1;
    if (v->sort == SORT_MPI && x->mpi_ns != y->mpi_ns)
        return x->mpi_ns > y->mpi_ns ? -1 : 1;
    if (v->sort == SORT_LOAD && row_load(&v->tb, x) != row_load(&v->tb, y))
        return row_load(&v->tb, x) > row_load(&v->tb, y) ? -1 : 1;
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

    v->sort = SORT_RANK; /* table_load finds rows by rank */
    qsort_r(v->tb.rows, (size_t)v->tb.count, sizeof(*v->tb.rows), row_cmp, v);
    v->sort = sort;
    table_load(t->m, &v->tb, v->region, 1);
    resort(t, v);
}

void tui_ranks_rebuild(struct tui *t, void *st)
{
    struct ranks_view *v = st;

    v->window = t->filter.window;
    table_build(t->m, v->window, v->region, 1, &v->tb); /* rows in rank order */
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
    struct rank_cells c;
    int page;

    table_summary(&v->tb, sum, sizeof(sum));
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
        const struct rank_row *row = &v->tb.rows[idx];
        int sel = idx == v->list.sel, hw;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        int far = !isnan(row->imbal) && fabs(row->imbal) >= 10.0;

        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        row_cells(t->m, &v->tb, row, 1, &c);
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
    if (rank >= 0 && t->filter.thread >= 0 && thread_rank(t->m, t->filter.thread) != rank)
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
        const char *next = next_region(t->m, v->region);
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
        const struct rank_row *r = &v->tb.rows[idx];
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
    struct rank_table tb = {0};
    char sum[320];

    table_build(m, 0, top_region(m), 0, &tb);
    if (tb.count) { /* only multi-rank models: other batch frames stay as they were */
        table_summary(&tb, sum, sizeof(sum));
        fprintf(out, "== Ranks: %s ==\n", sum);
        table_print(out, m, &tb, max_rows);
    }
    table_free(&tb);
}
