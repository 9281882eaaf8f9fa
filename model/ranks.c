/* The ranks of a multi-rank recording: one row per MPI rank, its processes summed, and its
 * load against the mean of all ranks (model/ranks.h). The Ranks view draws these rows; the
 * batch section and --merge's merged-profile.txt print them with model_ranks_print. */
#define _GNU_SOURCE 1
#include "model/ranks.h"
#include "model/mpi.h"
#include "base/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HOST_MAX_COLS 32 /* host column of the text table, at most */

/* The name of function func ("?" when unknown), as the TUI names it. */
static const char *func_name(struct model *m, int func)
{
    const struct model_func *f = func >= 0 ? model_func_at(m, func) : NULL;

    return func < 0 ? "[all]" : f && f->name ? f->name : "?";
}

/* The row of rank in tb (rows in rank order), or -1. */
static int row_of(const struct model_rank_table *tb, int rank)
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
static struct model_rank_row *row_get(struct model_rank_table *tb, int rank)
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
int model_ranks_thread_rank(struct model *m, int i)
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
uint64_t model_ranks_row_load(const struct model_rank_table *tb, const struct model_rank_row *r)
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
const char *model_ranks_top_region(struct model *m)
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
void model_ranks_load(struct model *m, struct model_rank_table *tb, const char *region,
                      int region_load)
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
            int at = strcmp(st[i].name, region) == 0
                         ? row_of(tb, model_ranks_thread_rank(m, st[i].thread))
                         : -1;
            if (at >= 0)
                tb->rows[at].region_ns += st[i].total_ns;
        }
    }
    for (int i = 0; i < tb->count; i++)
        sum += model_ranks_row_load(tb, &tb->rows[i]);
    mean = tb->count ? (double)sum / tb->count : 0.0;
    for (int i = 0; i < tb->count; i++) {
        double load = (double)model_ranks_row_load(tb, &tb->rows[i]);
        tb->rows[i].imbal = mean > 0 ? 100.0 * (load - mean) / mean : NAN;
    }
}

/* Add the MPI calls of process pid to rank row r. */
static void mpi_add(struct model *m, struct model_rank_row *r, uint32_t pid)
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
void model_ranks_build(struct model *m, int window, const char *region, int region_load,
                       struct model_rank_table *tb)
{
    int np = model_process_count(m), nt = model_thread_count(m);

    tb->count = 0;
    tb->hosts = 0;
    for (int i = 0; i < np; i++) {
        const struct model_process *p = model_process_at(m, i);
        struct model_rank_row *r;
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
        int at = row_of(tb, model_ranks_thread_rank(m, i));
        const struct model_thread *th = model_thread_at(m, i);
        if (at >= 0)
            tb->rows[at].samples += window ? th->window_samples : th->samples;
    }
    for (int i = 0; i < tb->count; i++) {
        struct model_rank_row *r = &tb->rows[i];
        struct model_filter f = {.thread = -1, .window = window, .only_rank = r->rank + 1};
        struct model_hot_list *hot = model_hot_build(m, &f);
        for (int k = 0; k < hot->count; k++) {
            const struct model_hot *it = &hot->items[k];
            if (it->self > r->hot_self ||
                (it->self && it->self == r->hot_self &&
                 strcmp(func_name(m, it->func), func_name(m, r->hot_func)) < 0)) {
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
    model_ranks_load(m, tb, region, region_load);
}

/* The most loaded rank's row, NULL when there is no mean to compare with. */
static const struct model_rank_row *most_loaded(const struct model_rank_table *tb)
{
    const struct model_rank_row *best = NULL;

    for (int i = 0; i < tb->count; i++)
        if (!isnan(tb->rows[i].imbal) && (!best || tb->rows[i].imbal > best->imbal))
            best = &tb->rows[i];
    return best;
}

/* Fill c for row r; times in ms with ms_digits decimals. */
void model_ranks_cells(struct model *m, const struct model_rank_table *tb,
                       const struct model_rank_row *r, int ms_digits, struct model_rank_cells *c)
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
        snprintf(c->hot_pct, sizeof(c->hot_pct), "%.1f",
                 r->hot_total ? 100.0 * (double)r->hot_self / (double)r->hot_total : 0.0);
        c->hot = func_name(m, r->hot_func);
    } else {
        snprintf(c->hot_pct, sizeof(c->hot_pct), "-");
        c->hot = "-";
    }
}

/* One line saying what the table compares: "3 ranks on 2 hosts; load (IMBAL): samples;
 * REGION: solve; most loaded: rank 1 +12.3%". */
void model_ranks_summary(const struct model_rank_table *tb, char *buf, size_t n)
{
    const struct model_rank_row *top = most_loaded(tb);
    char most[64] = "";

    if (top)
        snprintf(most, sizeof(most), "; most loaded: rank %d %+.1f%%", top->rank, top->imbal);
    snprintf(buf, n, "%d rank%s on %d host%s; load (IMBAL): %s; REGION: %s%s", tb->count,
             tb->count == 1 ? "" : "s", tb->hosts, tb->hosts == 1 ? "" : "s",
             tb->region_load ? "the region's time" : "samples", tb->region ? tb->region : "none",
             most);
}

/* Write the table as aligned text, columns splittable on blanks (the function name last). */
void model_ranks_print(FILE *out, struct model *m, const struct model_rank_table *tb, int max_rows)
{
    char host[256];
    int hw = 4;
    struct model_rank_cells c;

    for (int i = 0; i < tb->count; i++) {
        int w = text_width(tb->rows[i].host, 1);
        hw = w > hw ? (w < HOST_MAX_COLS ? w : HOST_MAX_COLS) : hw;
    }
    fprintf(out, "%5s  %-*s  %8s  %6s  %9s  %11s  %6s  %6s  %-14s  %11s  %8s  %5s  %s\n", "RANK",
            hw, "HOST", "PID", "CPU%", "SAMPLES", "GPU_MS", "GPU%", "MPI%", "MPI_TOP", "REGION_MS",
            "IMBAL", "HOT%", "HOT");
    for (int i = 0; i < tb->count && (max_rows <= 0 || i < max_rows); i++) {
        const struct model_rank_row *r = &tb->rows[i];
        int w = text_fit(host, sizeof(host), r->host[0] ? r->host : "-", hw, 1);
        for (char *p = host; *p; p++)
            if (*p == ' ')
                *p = '_'; /* keep the columns splittable on blanks */
        model_ranks_cells(m, tb, r, 3, &c);
        fprintf(out, "%5s  %s%*s  %8s  %6s  %9s  %11s  %6s  %6s  %-14s  %11s  %8s  %5s  %s\n",
                c.rank, host, hw - w, "", c.pid, c.cpu, c.samples, c.gpu_ms, c.gpu_pct, c.mpi_pct,
                c.mpi_top, c.region, c.imbal, c.hot_pct, c.hot);
    }
}

void model_ranks_free(struct model_rank_table *tb)
{
    free(tb->rows);
    memset(tb, 0, sizeof(*tb));
}

void model_ranks_write(FILE *out, struct model *m)
{
    struct model_rank_table tb = {0};
    char sum[320];

    model_ranks_build(m, 0, model_ranks_top_region(m), 0, &tb);
    if (tb.count) {
        model_ranks_summary(&tb, sum, sizeof(sum));
        fprintf(out, "%s\n", sum);
        model_ranks_print(out, m, &tb, 0);
    }
    model_ranks_free(&tb);
}

int model_ranks_next(struct model *m, int only_rank)
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
const char *model_ranks_next_region(struct model *m, const char *cur)
{
    int n;
    const struct model_region_stats *st = model_regions_stats(m, &n);
    const char *best = NULL;

    for (int i = 0; i < n; i++)
        if ((!cur || strcmp(st[i].name, cur) > 0) && (!best || strcmp(st[i].name, best) < 0))
            best = st[i].name;
    return best;
}
