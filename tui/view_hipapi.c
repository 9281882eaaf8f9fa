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

#define COLUMNS "  TIME%    CALLS  TOTAL(us)    AVG(us)    MAX(us)  ERRORS  LAST_ERR  API"

enum api_sort { SORT_TIME, SORT_CALLS, SORT_ERRORS, SORT_NAME, SORT_COUNT };
static const char *const sort_names[SORT_COUNT] = {"time", "calls", "errors", "name"};
/* A click on a column heading: the sort it chooses. */
static const struct tui_sort_column sort_columns[] = {
    {"TIME%", SORT_TIME},    {"CALLS", SORT_CALLS},     {"TOTAL(us)", SORT_TIME},
    {"ERRORS", SORT_ERRORS}, {"LAST_ERR", SORT_ERRORS}, {"API", SORT_NAME}};

struct hipapi_view {
    const struct model_hip_api **rows; /* rebuilt from the model at every rebuild */
    int nrows;
    struct tui_lv lv;
    int list_rows; /* API rows the last draw had room for (the copies are below) */
    uint64_t total_ns;
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

/* The numbers of one API row (without the name). */
static void format_row(char *buf, size_t n, const struct model_hip_api *a, uint64_t total_ns)
{
    char last[16];

    if (a->errors)
        snprintf(last, sizeof(last), "%d", a->last_error);
    else
        snprintf(last, sizeof(last), "-");
    snprintf(buf, n, "%7.1f%9llu %10.3f %10.3f %10.3f %7llu  %8s  ",
             tui_pct(a->time.total_ns, total_ns), (unsigned long long)a->time.calls,
             (double)a->time.total_ns / 1e3, model_duration_avg_ns(&a->time) / 1e3,
             (double)a->time.max_ns / 1e3, (unsigned long long)a->errors, last);
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
    free(v->rows);
    free(v);
}

void tui_hipapi_rebuild(struct tui *t, void *st)
{
    struct hipapi_view *v = st;

    free(v->rows);
    v->rows = sorted_apis(t->m, v->lv.sort, &v->nrows, &v->total_ns);
    tui_list_fit(&v->lv.nav, v->nrows, tui_page_rows(t));
}

void tui_hipapi_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct hipapi_view *v = st;
    char title[160], nums[200];
    int ncopies = model_copy_count(t->m), nwaits = 0;
    int page;

    for (int i = 0; i < v->nrows; i++)
        nwaits += v->rows[i]->waits;
    ncopies += nwaits; /* below the list: the waits, then the copies */

    snprintf(title, sizeof(title), "HIP API: %d entry points, %.3f ms in calls  (sort: %s)",
             v->nrows, (double)v->total_ns / 1e6, sort_names[v->lv.sort]);
    page = tui_draw_frame(t, r, title, COLUMNS);
    int crows = ncopies < page / 2 ? ncopies : page / 2;
    int list_rows = page - crows;
    v->list_rows = list_rows;
    tui_list_fit(&v->lv.nav, v->nrows, list_rows);
    for (int i = 0; i < list_rows && v->lv.nav.top + i < v->nrows; i++) {
        int idx = v->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_hip_api *a = v->rows[idx];
        int sel = idx == v->lv.nav.sel;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        format_row(nums, sizeof(nums), a, v->total_ns);
        x += tui_put(t, y, x, end - x, a->errors && !sel ? tui_style(t, TUI_S_BAD) : norm, nums, 0);
        tui_fit_middle(nums, sizeof(nums), a->name, end - x, t->utf8); /* start and end stay */
        tui_put(t, y, x, end - x, norm, nums, 0);
    }
    if (v->nrows == 0 && list_rows >= 2) {
        if (!tui_replay_no_data(t->m, "HIP API", nums, sizeof(nums)))
            snprintf(nums, sizeof(nums), "no HIP calls seen yet");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), nums, 0);
    }
    for (int i = 0, k = 0, w = 0; i < crows; i++) {
        while (w < nwaits && k < v->nrows && !v->rows[k]->waits)
            k++;
        if (w < nwaits && k < v->nrows) {
            format_wait(nums, sizeof(nums), v->rows[k++]);
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
    return ((const struct hipapi_view *)st)->nrows;
}

static void hipapi_sort(struct tui *t, void *st)
{
    tui_hipapi_rebuild(t, st);
}

static int hipapi_match(struct tui *t, const void *st, int row, const char *needle)
{
    (void)t;
    return tui_match(((const struct hipapi_view *)st)->rows[row]->name, needle);
}

const struct tui_list_class tui_hipapi_list = {
    .lv_offset = offsetof(struct hipapi_view, lv),
    .nsorts = SORT_COUNT,
    .sort_columns = sort_columns,
    .nsort_columns = (int)(sizeof(sort_columns) / sizeof(sort_columns[0])),
    .columns = COLUMNS,
    .count = hipapi_count,
    .sort = hipapi_sort,
    .match = hipapi_match,
};

int tui_hipapi_click(struct tui *t, void *st, const struct tui_mouse *ev)
{
    return tui_lv_click(t, &tui_hipapi_list, st, ev, ((struct hipapi_view *)st)->list_rows);
}

void tui_hipapi_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    snprintf(buf, n, "s sort");
}

void tui_hipapi_batch(FILE *out, struct model *m, int max_rows)
{
    int n;
    uint64_t total, calls = 0, errors = 0;
    const struct model_hip_api **rows = sorted_apis(m, SORT_TIME, &n, &total);
    char nums[200];

    for (int i = 0; i < n; i++) {
        calls += rows[i]->time.calls;
        errors += rows[i]->errors;
    }
    fprintf(out, "== HIP API: %llu calls, %llu errors, %.3f ms ==\n", (unsigned long long)calls,
            (unsigned long long)errors, (double)total / 1e6);
    fprintf(out, "%s\n", COLUMNS);
    for (int i = 0; i < n && (max_rows <= 0 || i < max_rows); i++) {
        format_row(nums, sizeof(nums), rows[i], total);
        fprintf(out, "%s%s\n", nums, rows[i]->name);
    }
    if (n == 0 && tui_replay_no_data(m, "HIP API", nums, sizeof(nums)))
        fprintf(out, "%s\n", nums);
    for (int i = 0; i < n; i++)
        if (rows[i]->waits) {
            format_wait(nums, sizeof(nums), rows[i]);
            fprintf(out, "%s\n", nums);
        }
    for (int i = 0; i < model_copy_count(m); i++) {
        format_copy(nums, sizeof(nums), model_copy_at(m, i));
        fprintf(out, "%s\n", nums);
    }
    free(rows);
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_hipapi_sort(void *st, int set)
{
    return tui_lv_sort_setting(&tui_hipapi_list, st, set);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(hipapi, "HIP API", '8', "HIP", .click = tui_hipapi_click, .list = &tui_hipapi_list);
