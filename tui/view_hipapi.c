/* View 8, HIP API: per HIP entry point the calls, host time inside them (total, average, max,
 * share of all HIP time) and the calls that returned an error (with the last error code); below
 * it, memory copies by direction. Key: s cycles the sort. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(hipapi);

enum api_sort { SORT_TIME, SORT_CALLS, SORT_ERRORS, SORT_NAME, SORT_COUNT };
static const char *const sort_names[SORT_COUNT] = {"time", "calls", "errors", "name"};

/* The rows the columns read: the entry points, sorted, and their summed time. */
struct api_rows {
    const struct model_hip_api **api;
    int n;
    uint64_t total_ns;
};

/* The cells of a row of the list (rows: struct api_rows). */
static const struct model_hip_api *api_at(const void *rows, int row)
{
    return ((const struct api_rows *)rows)->api[row];
}

static void cell_time(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.1f",
             tui_pct(api_at(rows, row)->time.total_ns, ((const struct api_rows *)rows)->total_ns));
}

static void cell_calls(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu", (unsigned long long)api_at(rows, row)->time.calls);
}

static void cell_total(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.3f", (double)api_at(rows, row)->time.total_ns / 1e3);
}

static void cell_avg(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.3f", model_duration_avg_ns(&api_at(rows, row)->time) / 1e3);
}

static void cell_max(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%.3f", (double)api_at(rows, row)->time.max_ns / 1e3);
}

static void cell_errors(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu", (unsigned long long)api_at(rows, row)->errors);
}

static void cell_last_error(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct model_hip_api *a = api_at(rows, row);

    (void)m;
    if (a->errors)
        snprintf(buf, n, "%d", a->last_error);
    else
        snprintf(buf, n, "-");
}

/* The columns (the screen's and the batch frame's); a click on a heading chooses its sort. */
static const struct tui_list_column columns[] = {
    {"TIME%", 7, 0, SORT_TIME, cell_time},
    {"CALLS", 9, 0, SORT_CALLS, cell_calls},
    {"TOTAL(us)", 11, 0, SORT_TIME, cell_total, 1},
    {"AVG(us)", 11, 0, -1, cell_avg, 1},
    {"MAX(us)", 11, 0, -1, cell_max, 1},
    {"ERRORS", 8, 0, SORT_ERRORS, cell_errors, 1},
    {"LAST_ERR", 10, 0, SORT_ERRORS, cell_last_error, 2},
    {"API", 0, 0, SORT_NAME, NULL, 2},
};
#define NCOLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

struct hipapi_view {
    struct api_rows rows; /* rebuilt from the model at every rebuild */
    struct tui_lv lv;
};

static int sort_key; /* for the qsort comparator */

/* Largest first by the sort key, names ascending. */
static int cmp_api(const void *a, const void *b)
{
    const struct model_hip_api *x = *(const struct model_hip_api *const *)a;
    const struct model_hip_api *y = *(const struct model_hip_api *const *)b;
    uint64_t p = 0, q = 0;

    if (sort_key == SORT_TIME)
        p = x->time.total_ns, q = y->time.total_ns;
    else if (sort_key == SORT_CALLS)
        p = x->time.calls, q = y->time.calls;
    else if (sort_key == SORT_ERRORS)
        p = x->errors, q = y->errors;
    if (p != q)
        return p < q ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* The model's HIP API entries, sorted; *total_ns gets their summed time. */
static const struct model_hip_api **sorted_apis(struct model *m, int sort, int *n,
                                                uint64_t *total_ns)
{
    int count = model_hip_api_count(m);
    const struct model_hip_api **v = xcalloc((size_t)count + 1, sizeof(*v));

    *total_ns = 0;
    for (int i = 0; i < count; i++) {
        v[i] = model_hip_api_at(m, i);
        *total_ns += v[i]->time.total_ns;
    }
    sort_key = sort;
    qsort(v, (size_t)count, sizeof(*v), cmp_api);
    *n = count;
    return v;
}

/* The cells of row of rows (without the name), as the screen and the batch frame show them. */
static void format_row(struct model *m, char *buf, size_t n, const struct api_rows *rows, int row)
{
    tui_list_cells(m, columns, NCOLUMNS, NULL, rows, row, buf, n - 2);
    strcat(buf, "  ");
}

/* One line about a HIP call that waits for the device: its time, and how much of it the
 * threads burned CPU (spinning) and how much they were blocked. */
static void format_wait(char *buf, size_t n, const struct model_hip_api *a)
{
    uint64_t cpu = a->wait_cpu_ns < a->time.total_ns ? a->wait_cpu_ns : a->time.total_ns;

    snprintf(buf, n, "gpu wait %s: %llu calls, %.3f ms (CPU %.3f ms, blocked %.3f ms)", a->name,
             (unsigned long long)a->time.calls, (double)a->time.total_ns / 1e6, (double)cpu / 1e6,
             (double)(a->time.total_ns - cpu) / 1e6);
}

/* One line about copies of one direction and source. */
static void format_copy(char *buf, size_t n, const struct model_copy *c)
{
    char bytes[32];

    tui_format_bytes(bytes, sizeof(bytes), c->bytes);
    snprintf(buf, n, "copies %s (%s): %llu, %s, %.3f us total", c->direction, c->source,
             (unsigned long long)c->time.calls, bytes, (double)c->time.total_ns / 1e3);
}

void *tui_hipapi_create(void)
{
    return xcalloc(1, sizeof(struct hipapi_view));
}

void tui_hipapi_destroy(void *st)
{
    struct hipapi_view *v = st;

    if (!v)
        return;
    free(v->rows.api);
    free(v);
}

void tui_hipapi_rebuild(struct tui *t, void *st)
{
    struct hipapi_view *v = st;

    free(v->rows.api);
    v->rows.api = sorted_apis(t->m, v->lv.sort, &v->rows.n, &v->rows.total_ns);
    tui_list_fit(&v->lv.nav, v->rows.n, tui_page_rows(t));
}

void tui_hipapi_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct hipapi_view *v = st;
    char title[160], heading[160], nums[200];
    int ncopies = model_copy_count(t->m), nwaits = 0;
    int page;

    for (int i = 0; i < v->rows.n; i++)
        nwaits += v->rows.api[i]->waits;
    ncopies += nwaits; /* below the list: the waits, then the copies */

    snprintf(title, sizeof(title), "HIP API: %d entry points, %.3f ms in calls  (sort: %s)",
             v->rows.n, (double)v->rows.total_ns / 1e6, sort_names[v->lv.sort]);
    tui_list_heading(columns, NCOLUMNS, NULL, heading, sizeof(heading));
    page = tui_draw_frame(t, r, title, heading);
    int crows = ncopies < page / 2 ? ncopies : page / 2;
    int list_rows = page - crows;
    v->lv.rows = list_rows; /* the copies are below */
    tui_list_fit(&v->lv.nav, v->rows.n, list_rows);
    for (int i = 0; i < list_rows && v->lv.nav.top + i < v->rows.n; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_hip_api *a = v->rows.api[idx];
        int sel = idx == v->lv.nav.sel;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        format_row(t->m, nums, sizeof(nums), &v->rows, idx);
        x += tui_put(t, y, x, end - x, a->errors && !sel ? tui_style(t, TUI_S_BAD) : norm, nums, 0);
        tui_fit_middle(nums, sizeof(nums), a->name, end - x, t->utf8); /* start and end stay */
        tui_put(t, y, x, end - x, norm, nums, 0);
    }
    if (v->rows.n == 0 && list_rows >= 2) {
        if (!tui_replay_no_data(t->m, "HIP API", nums, sizeof(nums)))
            snprintf(nums, sizeof(nums), "no HIP calls seen yet");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), nums, 0);
    }
    for (int i = 0, k = 0, w = 0; i < crows; i++) {
        while (w < nwaits && k < v->rows.n && !v->rows.api[k]->waits)
            k++;
        if (w < nwaits && k < v->rows.n) {
            format_wait(nums, sizeof(nums), v->rows.api[k++]);
            w++;
        } else {
            format_copy(nums, sizeof(nums), model_copy_at(t->m, i - nwaits));
        }
        tui_put(t, r->y + 2 + list_rows + i, r->x, r->w, A_NORMAL, nums, 1);
    }
}

/* The list layer's view of the rows (tui/list.h): the rows are sorted as they are read. */
static int hipapi_count(const void *st)
{
    return ((const struct hipapi_view *)st)->rows.n;
}

static void hipapi_sort(struct tui *t, void *st)
{
    tui_hipapi_rebuild(t, st);
}

static int hipapi_match(struct tui *t, const void *st, int row, const char *needle)
{
    (void)t;
    return tui_match(((const struct hipapi_view *)st)->rows.api[row]->name, needle);
}

const struct tui_list_class tui_hipapi_list = {
    .lv_offset = offsetof(struct hipapi_view, lv),
    .nsorts = SORT_COUNT,
    .cols = columns,
    .ncols = NCOLUMNS,
    .count = hipapi_count,
    .sort = hipapi_sort,
    .match = hipapi_match,
};

void tui_hipapi_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    snprintf(buf, n, "s sort");
}

void tui_hipapi_batch(FILE *out, struct model *m, int max_rows)
{
    struct api_rows rows;
    uint64_t calls = 0, errors = 0;
    char nums[200];

    rows.api = sorted_apis(m, SORT_TIME, &rows.n, &rows.total_ns);
    for (int i = 0; i < rows.n; i++) {
        calls += rows.api[i]->time.calls;
        errors += rows.api[i]->errors;
    }
    fprintf(out, "== HIP API: %llu calls, %llu errors, %.3f ms ==\n", (unsigned long long)calls,
            (unsigned long long)errors, (double)rows.total_ns / 1e6);
    tui_list_heading(columns, NCOLUMNS, NULL, nums, sizeof(nums));
    fprintf(out, "%s\n", nums);
    for (int i = 0; i < rows.n && (max_rows <= 0 || i < max_rows); i++) {
        format_row(m, nums, sizeof(nums), &rows, i);
        fprintf(out, "%s%s\n", nums, rows.api[i]->name);
    }
    if (rows.n == 0 && tui_replay_no_data(m, "HIP API", nums, sizeof(nums)))
        fprintf(out, "%s\n", nums);
    for (int i = 0; i < rows.n; i++)
        if (rows.api[i]->waits) {
            format_wait(nums, sizeof(nums), rows.api[i]);
            fprintf(out, "%s\n", nums);
        }
    for (int i = 0; i < model_copy_count(m); i++) {
        format_copy(nums, sizeof(nums), model_copy_at(m, i));
        fprintf(out, "%s\n", nums);
    }
    free(rows.api);
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_hipapi_sort(void *st, int set)
{
    return tui_lv_sort_setting(&tui_hipapi_list, st, set);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(hipapi, "HIP API", '8', "HIP", .list = &tui_hipapi_list);
