/* View 2, hot functions: a flat list of functions by self or inclusive samples. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(hot);

/* The sort orders `s` cycles through, the default first. */
static const int sort_cycle[] = {TUI_SORT_SELF, TUI_SORT_INCL, TUI_SORT_NAME};

/* The cells of a row of a hot list (rows: struct model_hot_list). */
static void cell_self(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct model_hot_list *l = rows;

    (void)m;
    snprintf(buf, n, "%.1f", tui_pct(l->items[row].self, l->total));
}

static void cell_incl(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    const struct model_hot_list *l = rows;

    (void)m;
    snprintf(buf, n, "%.1f", tui_pct(l->items[row].inclusive, l->total));
}

static void cell_samples(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m;
    snprintf(buf, n, "%llu",
             (unsigned long long)((const struct model_hot_list *)rows)->items[row].self);
}

/* The columns; a click on a heading chooses its step in sort_cycle (SAMPLES: self samples). */
static const struct tui_list_column columns[] = {
    {"SELF%", 7, 0, 0, cell_self},
    {"INCL%", 7, 0, 1, cell_incl},
    {"SAMPLES", 9, 0, 0, cell_samples},
    {"FUNCTION", 0, 0, 2, NULL, 2},
};
#define NCOLUMNS ((int)(sizeof(columns) / sizeof(columns[0])))

struct hot_view {
    struct tui_lv lv; /* sort: index into sort_cycle; sel_id: the selected row's function */
    struct model_hot_list *hot;
};

/* The list layer's view of the rows (tui/list.h): it takes the sort and navigation keys, the
 * clicks and the search. */
static int hot_count(const void *st)
{
    const struct hot_view *h = st;

    return h->hot ? h->hot->count : 0;
}

static void hot_sort(struct tui *t, void *st)
{
    struct hot_view *h = st;

    if (h->hot)
        tui_hot_sort(h->hot->items, h->hot->count, sort_cycle[h->lv.sort], tui_model_func_name,
                     t->m);
}

static long hot_row_id(const void *st, int row)
{
    return ((const struct hot_view *)st)->hot->items[row].func;
}

static int hot_match(struct tui *t, const void *st, int row, const char *needle)
{
    const struct hot_view *h = st;

    return tui_match(tui_model_func_name(t->m, h->hot->items[row].func), needle);
}

const struct tui_list_class tui_hot_list = {
    .lv_offset = offsetof(struct hot_view, lv),
    .nsorts = (int)(sizeof(sort_cycle) / sizeof(sort_cycle[0])),
    .cols = columns,
    .ncols = NCOLUMNS,
    .count = hot_count,
    .sort = hot_sort,
    .row_id = hot_row_id,
    .missing_row = -1,
    .match = hot_match,
    .key = tui_hot_key,
};

void *tui_hot_create(void)
{
    struct hot_view *h = xcalloc(1, sizeof(*h));

    tui_lv_init(&h->lv);
    return h;
}

void tui_hot_destroy(void *st)
{
    struct hot_view *h = st;

    if (!h)
        return;
    model_hot_free(h->hot);
    free(h);
}

void tui_hot_rebuild(struct tui *t, void *st)
{
    struct hot_view *h = st;

    model_hot_free(h->hot);
    h->hot = model_hot_build(t->m, &t->filter);
    tui_lv_resort(t, &tui_hot_list, h);
}

void tui_hot_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct hot_view *h = st;
    char title[256], desc[160], heading[128], nums[64], loc[512], name[4096];
    int page, count = h->hot ? h->hot->count : 0;

    tui_filter_desc(t->m, &t->filter, desc, sizeof(desc));
    snprintf(title, sizeof(title), "Hot functions: %s  (%d functions, sort: %s)", desc, count,
             tui_sort_name(sort_cycle[h->lv.sort]));
    tui_list_heading(columns, NCOLUMNS, NULL, heading, sizeof(heading));
    strcat(heading, "  LOCATION");
    page = tui_draw_frame(t, r, title, heading);
    tui_list_fit(&h->lv.nav, count, page);
    for (int i = 0; i < page && h->lv.nav.top + i < count; i++) {
        int idx = h->lv.nav.top + i, y = r->y + 2 + i, x = r->x, end = r->x + r->w;
        const struct model_hot *it = &h->hot->items[idx];
        int sel = idx == h->lv.nav.sel;
        unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        double self = tui_pct(it->self, h->hot->total);

        if (sel)
            tui_put(t, y, r->x, r->w, norm, "", 1);
        tui_list_cells(t->m, columns, NCOLUMNS, NULL, h->hot, idx, nums, sizeof(nums) - 2);
        strcat(nums, "  ");
        x += tui_put(t, y, x, end - x, self >= 20.0 && !sel ? tui_style(t, TUI_S_HOT) : norm, nums,
                     0);
        tui_fit_middle(name, sizeof(name), tui_model_func_name(t->m, it->func), end - x, t->utf8);
        x += tui_put(t, y, x, end - x, norm, name, 0);
        tui_func_location(t->m, it->func, loc, sizeof(loc));
        if (loc[0] && end - x > 4) {
            x += tui_put(t, y, x, 2, norm, "", 1);
            tui_put(t, y, x, end - x, sel ? norm : tui_style(t, TUI_S_DIM), loc, 0);
        }
    }
    if (count == 0 && page >= 2)
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), "no samples yet", 0);
}

int tui_hot_key(struct tui *t, void *st, int key)
{
    struct hot_view *h = st;

    if ((key == 'S' || key == '\n' || key == '\r' || key == KEY_ENTER) && h->hot &&
        h->lv.nav.sel >= 0 && h->lv.nav.sel < h->hot->count)
        return tui_source_open(t, h->hot->items[h->lv.nav.sel].func); /* the Source view */
    return 0;
}

void tui_hot_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    if (n)
        buf[0] = '\0';
}

void tui_hot_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_filter f = {.thread = -1, .window = 0};
    struct model_hot_list *hot = model_hot_build(m, &f);
    char desc[160], heading[128], nums[64], name[1024], loc[512];
    int rows = 0;

    tui_filter_desc(m, &f, desc, sizeof(desc));
    tui_list_heading(columns, NCOLUMNS, NULL, heading, sizeof(heading));
    fprintf(out, "== Hot functions: %s ==\n", desc);
    fprintf(out, "%s  LOCATION\n", heading);
    if (!hot)
        return;
    tui_hot_sort(hot->items, hot->count, TUI_SORT_SELF, tui_model_func_name, m);
    for (int i = 0; i < hot->count && (max_rows <= 0 || rows < max_rows); i++) {
        const struct model_hot *it = &hot->items[i];
        if (it->self == 0 && it->inclusive == 0)
            continue;
        tui_fit(name, sizeof(name), tui_model_func_name(m, it->func), 250, 1);
        tui_func_location(m, it->func, loc, sizeof(loc));
        tui_list_cells(m, columns, NCOLUMNS, NULL, hot, i, nums, sizeof(nums));
        fprintf(out, "%s  %s%s%s\n", nums, name, loc[0] ? "  " : "", loc); /* the screen's cells */
        rows++;
    }
    model_hot_free(hot);
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_hot_sort_order(void *st, int set)
{
    return tui_lv_sort_setting(&tui_hot_list, st, set);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(hot, "Hot functions", '2', "Hot", .key = tui_hot_key, .list = &tui_hot_list);
