/* View 7, hot kernels: per GPU kernel, dispatches and GPU time (total, average, min, max, share
 * of all kernels' GPU time), launches seen through HIP, the last grid and block; below it, the
 * GPU-idle summary of each queue (busy %, histogram of the gaps between dispatches).
 * Keys: s cycles the sort, f folds/unfolds template arguments, F (F4) keeps only the kernels
 * matching the last search, Enter lists the selected kernel's launch call paths
 * (kernel_paths.c). */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(kernels);

enum kernel_sort { SORT_TIME, SORT_CALLS, SORT_AVG, SORT_MAX, SORT_NAME, SORT_COUNT };
static const char *const sort_names[SORT_COUNT] = {"GPU time", "calls", "average", "max", "name"};
/* The columns (the table below the cells), the name's included. */
enum {
    KC_PCT,
    KC_CALLS,
    KC_TOTAL,
    KC_AVG,
    KC_MIN,
    KC_MAX,
    KC_HIP,
    KC_GRID,
    KC_BLOCK,
    KC_NAME,
    KC_COUNT
};

struct kernels_view {
    struct model_kernel_list *list;
    int *rows; /* indices into list->items of the rows shown, in order */
    int nrows;
    struct tui_lv lv; /* selection, scroll, sort (tui/list.h) */
    int unfolded;     /* 1: full template arguments */
    int filtering;    /* 1: only names matching filter */
    char filter[128];
    char sel_name[512];      /* the selected kernel, kept across rebuilds */
    int show[KC_COUNT];      /* the columns the last draw showed (the ones that fit) */
    struct tui_kpaths paths; /* Enter: the selected kernel's launch paths */
};

static int sort_key; /* for the qsort comparator */

/* Compare two kernels by the current sort key (largest first, names ascending). */
static int cmp_kernels(const struct model_kernel *x, const struct model_kernel *y)
{
    double a = 0, b = 0;

    switch (sort_key) {
    case SORT_TIME:
        a = (double)x->gpu.total_ns, b = (double)y->gpu.total_ns;
        break;
    case SORT_CALLS:
        a = (double)(x->dispatches + x->hip_launches),
        b = (double)(y->dispatches + y->hip_launches);
        break;
    case SORT_AVG:
        a = model_duration_avg_ns(&x->gpu), b = model_duration_avg_ns(&y->gpu);
        break;
    case SORT_MAX:
        a = (double)x->gpu.max_ns, b = (double)y->gpu.max_ns;
        break;
    default:
        break;
    }
    if (a != b)
        return a < b ? 1 : -1;
    if (sort_key != SORT_NAME && x->hip_launches != y->hip_launches)
        return x->hip_launches < y->hip_launches ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int cmp_kernels_qsort(const void *a, const void *b)
{
    return cmp_kernels(a, b);
}

/* Sort a kernel list in place by sort. */
static void sort_list(struct model_kernel_list *l, int sort)
{
    sort_key = sort;
    if (l && l->count > 1)
        qsort(l->items, (size_t)l->count, sizeof(*l->items), cmp_kernels_qsort);
}

/* "x,y,z" of a dimension triple of k, N/A when its launches gave none. */
static void put_dims(char *buf, size_t n, const struct model_kernel *k, const uint32_t d[3])
{
    if (k->has_dims)
        snprintf(buf, n, "%u,%u,%u", d[0], d[1], d[2]);
    else
        snprintf(buf, n, "N/A");
}

/* Kernel row of list (a struct model_kernel_list): the rows the columns' cells read. */
static const struct model_kernel *kernel_at(const void *list, int row)
{
    return &((const struct model_kernel_list *)list)->items[row];
}

/* The cells of the columns. A kernel never timed on the GPU (e.g. launches that failed) shows
 * N/A, no made-up zeros. */
static void cell_pct(struct model *m, const void *list, int row, char *buf, size_t n)
{
    const struct model_kernel *k = kernel_at(list, row);

    (void)m;
    if (k->gpu.calls)
        snprintf(buf, n, "%.1f",
                 tui_pct(k->gpu.total_ns, ((const struct model_kernel_list *)list)->gpu_total_ns));
    else
        snprintf(buf, n, "N/A");
}

static void cell_calls(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu", (unsigned long long)kernel_at(list, row)->gpu.calls);
}

/* A GPU time in microseconds, N/A when never timed. */
static void put_us(char *buf, size_t n, const struct model_kernel *k, double time_ns)
{
    if (k->gpu.calls)
        snprintf(buf, n, "%.3f", time_ns / 1e3);
    else
        snprintf(buf, n, "N/A");
}

static void cell_total(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    put_us(buf, n, kernel_at(list, row), (double)kernel_at(list, row)->gpu.total_ns);
}

static void cell_avg(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    put_us(buf, n, kernel_at(list, row), model_duration_avg_ns(&kernel_at(list, row)->gpu));
}

static void cell_min(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    put_us(buf, n, kernel_at(list, row), (double)kernel_at(list, row)->gpu.min_ns);
}

static void cell_max(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    put_us(buf, n, kernel_at(list, row), (double)kernel_at(list, row)->gpu.max_ns);
}

static void cell_hip(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu", (unsigned long long)kernel_at(list, row)->hip_launches);
}

static void cell_grid(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    put_dims(buf, n, kernel_at(list, row), kernel_at(list, row)->grid);
}

static void cell_block(struct model *m, const void *list, int row, char *buf, size_t n)
{
    (void)m;
    put_dims(buf, n, kernel_at(list, row), kernel_at(list, row)->block);
}

/* The columns (tui/list.h): when the kernel's name would get fewer than NAME_MIN columns, MIN,
 * MAX, BLOCK, GRID, HIP, then AVG make room for it; F2 hides AVG to BLOCK (option: the word of
 * TUI_KERNEL_OPTIONAL_COLUMNS, in order). */
static const struct tui_list_column columns[KC_COUNT] = {
    [KC_PCT] = {"GPU%", 6, 0, SORT_TIME, cell_pct},
    [KC_CALLS] = {"CALLS", 8, 0, SORT_CALLS, cell_calls},
    [KC_TOTAL] = {"TOTAL(us)", 11, 0, SORT_TIME, cell_total, 1},
    [KC_AVG] = {"AVG(us)", 11, 1, SORT_AVG, cell_avg, 1, 0, 1},
    [KC_MIN] = {"MIN(us)", 11, 6, -1, cell_min, 1, 0, 2},
    [KC_MAX] = {"MAX(us)", 11, 5, SORT_MAX, cell_max, 1, 0, 3},
    [KC_HIP] = {"HIP", 7, 2, -1, cell_hip, 1, 0, 4},
    [KC_GRID] = {"GRID", 14, 3, -1, cell_grid, 2, 1, 5},
    [KC_BLOCK] = {"BLOCK", 10, 4, -1, cell_block, 1, 1, 6},
    [KC_NAME] = {"KERNEL", 0, 0, SORT_NAME, NULL, 1},
};
#define NAME_MIN 40

void *tui_kernels_create(void)
{
    struct kernels_view *v = xcalloc(1, sizeof(struct kernels_view));

    for (int i = 0; i < KC_COUNT; i++) /* every column until a draw fits them */
        v->show[i] = 1;
    return v;
}

void tui_kernels_destroy(void *st)
{
    struct kernels_view *v = st;

    if (!v)
        return;
    model_kernels_list_free(v->list);
    tui_kpaths_close(&v->paths);
    free(v->rows);
    free(v);
}

/* The list layer's view of the rows (tui/list.h); the view calls it itself, after the launch
 * paths (open over the list) had their turn. */
static int kernels_count(const void *st)
{
    return ((const struct kernels_view *)st)->nrows;
}

/* The shown rows: sorted, and the filter's matches only when filtering. */
static void kernels_shape(struct tui *t, void *st)
{
    struct kernels_view *v = st;
    int n = v->list ? v->list->count : 0;

    (void)t;
    sort_list(v->list, v->lv.sort);
    free(v->rows);
    v->rows = xcalloc((size_t)n + 1, sizeof(*v->rows));
    v->nrows = 0;
    for (int i = 0; i < n; i++)
        if (!v->filtering || tui_match(v->list->items[i].name, v->filter))
            v->rows[v->nrows++] = i;
}

/* The selected kernel is kept by name. */
static void kernels_remember(void *st, int row)
{
    struct kernels_view *v = st;

    snprintf(v->sel_name, sizeof(v->sel_name), "%s", v->list->items[v->rows[row]].name);
}

static int kernels_remembered(const void *st, int row)
{
    const struct kernels_view *v = st;

    return v->sel_name[0] && strcmp(v->list->items[v->rows[row]].name, v->sel_name) == 0;
}

static int kernels_match(struct tui *t, const void *st, int row, const char *needle)
{
    const struct kernels_view *v = st;

    (void)t;
    return tui_match(v->list->items[v->rows[row]].name, needle);
}

/* The columns the last draw showed (the ones that fit): their headings take the clicks. */
static const int *kernels_shown(const void *st)
{
    return ((const struct kernels_view *)st)->show;
}

static const struct tui_list_class kernels_class = {
    .lv_offset = offsetof(struct kernels_view, lv),
    .nsorts = SORT_COUNT,
    .cols = columns,
    .ncols = KC_COUNT,
    .shown = kernels_shown,
    .count = kernels_count,
    .sort = kernels_shape,
    .remember = kernels_remember,
    .remembered = kernels_remembered,
    .missing_row = -1,
    .match = kernels_match,
    .key = tui_kernels_key,
};

void tui_kernels_rebuild(struct tui *t, void *st)
{
    struct kernels_view *v = st;

    model_kernels_list_free(v->list);
    v->list = model_kernels_list(t->m);
    tui_lv_resort(t, &kernels_class, v);
    tui_kpaths_rebuild(&v->paths, t->m);
}

/* The numbers of kernel row of l (without the name) in the columns show says (NULL: all), and
 * the blanks before the name. */
static void format_row(char *buf, size_t n, const struct model_kernel_list *l, int row,
                       const int *show)
{
    size_t o;

    tui_list_cells(NULL, columns, KC_COUNT, show, l, row, buf, n);
    o = strlen(buf);
    snprintf(buf + o, n - o, "%*s", columns[KC_NAME].gap, "");
}

/* One line of the GPU-idle summary of queue q. */
static void format_queue(char *buf, size_t n, const struct model_gpu_queue *q)
{
    uint64_t span = q->last_end_ns > q->first_start_ns ? q->last_end_ns - q->first_start_ns : 0;
    int off = snprintf(buf, n, "GPU%u queue %llu (pid %u): dispatches %llu  busy %.1f%%",
                       (unsigned)q->agent, (unsigned long long)q->queue_id, (unsigned)q->pid,
                       (unsigned long long)q->dispatches, tui_pct(q->busy_ns, span));

    for (int b = 0; b < MODEL_GAP_BUCKETS && off > 0 && (size_t)off < n; b++)
        if (q->gaps[b])
            off += snprintf(buf + off, n - (size_t)off, "  %s %llu", model_gap_bucket_names[b],
                            (unsigned long long)q->gaps[b]);
}

void tui_kernels_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct kernels_view *v = st;
    char title[320], heading[256], nums[256], name[1024];
    int nq = model_gpu_queue_count(t->m), page;
    uint64_t total = v->list ? v->list->gpu_total_ns : 0;

    if (v->paths.open) {
        tui_kpaths_draw(t, &v->paths, r);
        return;
    }
    snprintf(title, sizeof(title), "Hot kernels: %d kernels, GPU time %.3f ms  (sort: %s%s%s%s)",
             v->list ? v->list->count : 0, (double)total / 1e6, sort_names[v->lv.sort],
             v->unfolded ? "" : ", templates folded", v->filtering ? ", filter: " : "",
             v->filtering ? v->filter : "");
    int name_w = tui_list_fit_columns(columns, KC_COUNT, r->w, NAME_MIN,
                                      t->set.kernel_columns_hidden, v->show);
    tui_list_heading(columns, KC_COUNT, v->show, heading, sizeof(heading));
    page = tui_draw_frame(t, r, title, heading);
    int qrows = nq > 0 ? (nq + 1 < page / 2 ? nq + 1 : page / 2) : 0;
    int list_rows = page - qrows;
    v->lv.rows = list_rows; /* the queues are below */
    tui_list_fit(&v->lv.nav, v->nrows, list_rows);
    for (int i = 0; i < list_rows && v->lv.nav.top + i < v->nrows; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_kernel *k = &v->list->items[v->rows[idx]];
        int sel = idx == v->lv.nav.sel;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        format_row(nums, sizeof(nums), v->list, v->rows[idx], v->show);
        x += tui_put(t, y, x, end - x,
                     tui_pct(k->gpu.total_ns, total) >= 20.0 && !sel ? tui_style(t, TUI_S_HOT)
                                                                     : norm,
                     nums, 0);
        if (v->unfolded)
            snprintf(name, sizeof(name), "%s", k->name);
        else
            model_kernel_fold_name(k->name, name, sizeof(name), t->utf8);
        tui_fit_middle(nums, sizeof(nums), name, name_w, t->utf8); /* its start and end stay */
        tui_put(t, y, x, end - x, norm, nums, 0);
    }
    if (v->nrows == 0 && list_rows >= 2) {
        if (!(v->list && v->list->count == 0 &&
              tui_replay_no_data(t->m, "kernel", name, sizeof(name))))
            snprintf(name, sizeof(name), "%s",
                     model_gpu_seen(t->m)
                         ? "no kernel matches"
                         : "no GPU kernels seen yet (HIP calls and HSA dispatches)");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), name, 0);
    }
    if (nq == 0 && v->nrows > 0 && v->nrows + 1 < list_rows)
        /* launches seen through HIP, but no dispatch reached a queue the collector times */
        tui_put(
            t, r->y + 3 + v->nrows, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM),
            "no GPU times: no dispatch reached a GPU queue (no GPU, or HSA_TOOLS_LIB not loaded)",
            0);
    for (int i = 0; i < qrows; i++) {
        int y = r->y + 2 + list_rows + i;
        if (i == 0) {
            tui_put(t, y, r->x, r->w, tui_style(t, TUI_S_COLUMNS), "GPU idle per queue", 1);
            continue;
        }
        format_queue(nums, sizeof(nums), model_gpu_queue_at(t->m, i - 1));
        tui_put(t, y, r->x, r->w, A_NORMAL, nums, 1);
    }
}

const struct tui_key_help tui_kernels_help[] = {
    {"Enter", "kernels: launch paths (there v: tree / paths, Esc: back)"},
    {"f F", "kernels: fold templates; keep only the search's matches"},
    {NULL, NULL},
};

int tui_kernels_key(struct tui *t, void *st, int key)
{
    struct kernels_view *v = st;

    if (v->paths.open)
        return tui_kpaths_key(t, &v->paths, key);
    if ((key == '\n' || key == '\r' || key == KEY_ENTER) && v->lv.nav.sel >= 0 &&
        v->lv.nav.sel < v->nrows) {
        tui_kpaths_open(&v->paths, t->m, v->list->items[v->rows[v->lv.nav.sel]].name);
        return 1;
    }
    if (tui_lv_key(t, &kernels_class, st, key)) /* sort, navigation */
        return 1;
    if (key == 'f') {
        v->unfolded = !v->unfolded;
        tui_message(t, "template arguments %s", v->unfolded ? "shown" : "folded");
        return 1;
    }
    if (key == 'F' || key == KEY_F(4)) {
        v->filtering = !v->filtering && t->search[0];
        snprintf(v->filter, sizeof(v->filter), "%s", t->search);
        if (!v->filtering)
            tui_message(t, t->search[0] ? "filter off" : "search (/) first: F keeps the matches");
        tui_lv_resort(t, &kernels_class, v);
        return 1;
    }
    return 0;
}

int tui_kernels_click(struct tui *t, void *st, const struct tui_mouse *ev)
{
    struct kernels_view *v = st;

    if (v->paths.open) /* the launch paths take the clicks as they take the keys */
        return tui_kpaths_click(t, &v->paths, ev);
    return tui_lv_click(t, &kernels_class, st, ev);
}

int tui_kernels_search(struct tui *t, void *st, const char *needle)
{
    struct kernels_view *v = st;

    if (v->paths.open)
        return tui_kpaths_search(&v->paths, t->m, needle);
    return tui_lv_search(t, &kernels_class, st, needle);
}

void tui_kernels_status(struct tui *t, void *st, char *buf, size_t n)
{
    struct kernels_view *v = st;

    (void)t;
    if (v->paths.open)
        snprintf(buf, n, "s sort  v tree/paths  Left/Right fold  / search  Esc back");
    else
        snprintf(buf, n, "Enter launch paths  s sort  f fold  F filter");
}

void tui_kernels_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_kernel_list *l = model_kernels_list(m);
    char nums[256], text[160];
    uint64_t dispatches = 0;

    sort_list(l, SORT_TIME);
    for (int i = 0; i < l->count; i++)
        dispatches += l->items[i].dispatches;
    fprintf(out, "== Hot kernels: %d kernels, %llu dispatches, GPU time %.3f ms ==\n", l->count,
            (unsigned long long)dispatches, (double)l->gpu_total_ns / 1e6);
    tui_list_heading(columns, KC_COUNT, NULL, nums, sizeof(nums));
    fprintf(out, "%s\n", nums);
    for (int i = 0; i < l->count && (max_rows <= 0 || i < max_rows); i++) {
        format_row(nums, sizeof(nums), l, i, NULL);
        fprintf(out, "%s%s\n", nums, l->items[i].name);
    }
    if (l->count == 0 && tui_replay_no_data(m, "kernel", text, sizeof(text)))
        fprintf(out, "%s\n", text);
    for (int i = 0; i < model_gpu_queue_count(m); i++) {
        format_queue(nums, sizeof(nums), model_gpu_queue_at(m, i));
        fprintf(out, "%s\n", nums);
    }
    for (int i = 0; i < l->count && i < 5; i++) /* where the top kernels were launched from */
        tui_kpaths_batch(out, m, l->items[i].name, max_rows > 0 && max_rows < 10 ? max_rows : 10);
    model_kernels_list_free(l);
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_kernels_sort(void *st, int set)
{
    return tui_lv_sort_setting(&kernels_class, st, set);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(kernels, "Kernels", '7', "Kern", .key = tui_kernels_key,
                .search = tui_kernels_search, .click = tui_kernels_click, .help = tui_kernels_help);
