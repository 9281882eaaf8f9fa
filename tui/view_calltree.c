/* View 1, the call tree: per thread or all threads merged, expandable, the hottest path open
 * by default, expansion remembered across refreshes by path hash. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(calltree);

#define COLUMNS "  INCL%  SELF%  SAMPLES  FUNCTION"
/* With GPU time (kernels launched through HIP were timed): the inclusive GPU time of the
 * kernels launched from each node and below, since start. */
#define COLUMNS_GPU "  INCL%  SELF%  SAMPLES    GPU(ms)  FUNCTION"
/* A click on a column heading: the sort it chooses (SAMPLES are inclusive samples). */
static const struct tui_sort_column sort_columns[] = {{"INCL%", TUI_SORT_INCL},
                                                      {"SELF%", TUI_SORT_SELF},
                                                      {"SAMPLES", TUI_SORT_INCL},
                                                      {"GPU(ms)", TUI_SORT_GPU},
                                                      {"FUNCTION", TUI_SORT_NAME}};
/* Paths below this share of the tree (parts per million: 0.001 %) are left out of the view,
 * with what is under them: a program of a million distinct stacks would otherwise cost a
 * tree node each on every refresh, for rows nobody can tell from zero. */
#define CALLTREE_MIN_PPM 10

struct calltree {
    struct model_tree *tree;
    struct tui_tree_rows rows;
    struct tui_expand exp;
    struct tui_lv lv;  /* selection, scroll; sort: enum tui_sort, inclusive by default */
    uint64_t sel_hash; /* path hash of the selected node, kept across rebuilds */
    int have_sel;
};

void *tui_calltree_create(void)
{
    return xcalloc(1, sizeof(struct calltree));
}

void tui_calltree_destroy(void *st)
{
    struct calltree *c = st;

    if (!c)
        return;
    model_tree_free(c->tree);
    tui_tree_rows_free(&c->rows);
    tui_expand_free(&c->exp);
    free(c);
}

/* The list layer's view of the rows (tui/list.h): the visible rows of the tree. The view calls
 * it itself (its s cycles through the GPU order only when the tree has GPU time). */
static int calltree_count(const void *st)
{
    return ((const struct calltree *)st)->rows.count;
}

/* Flatten the tree into its visible rows in the view's order. */
static void calltree_flatten(struct tui *t, void *st)
{
    struct calltree *c = st;
    struct tui_tree_order o = {c->tree, c->lv.sort, tui_model_func_name, t->m};

    c->rows.count = 0;
    if (c->tree)
        tui_tree_flatten(&o, &c->exp, &c->rows);
}

/* The selected node is kept by its path hash. */
static void calltree_remember(void *st, int row)
{
    struct calltree *c = st;

    if (c->tree) {
        c->sel_hash = c->tree->nodes[c->rows.rows[row].node].path_hash;
        c->have_sel = 1;
    }
}

static int calltree_remembered(const void *st, int row)
{
    const struct calltree *c = st;

    return c->have_sel && c->tree->nodes[c->rows.rows[row].node].path_hash == c->sel_hash;
}

/* The headings, with the GPU column when the tree has GPU time. */
static void calltree_heading(const void *st, char *buf, size_t n)
{
    const struct calltree *c = st;

    snprintf(buf, n, "%s", c->tree && c->tree->gpu_ns ? COLUMNS_GPU : COLUMNS);
}

static const struct tui_list_class calltree_class = {
    .lv_offset = offsetof(struct calltree, lv),
    .sort_columns = sort_columns,
    .nsort_columns = (int)(sizeof(sort_columns) / sizeof(sort_columns[0])),
    .heading = calltree_heading,
    .count = calltree_count,
    .sort = calltree_flatten,
    .remember = calltree_remember,
    .remembered = calltree_remembered,
    .renote = 1,
    .missing_row = -1,
    .key = tui_calltree_key,
};

/* Recompute the visible rows and put the selection back on the same node if it is visible. */
static void reflatten(struct tui *t, struct calltree *c)
{
    tui_lv_resort(t, &calltree_class, c);
}

void tui_calltree_rebuild(struct tui *t, void *st)
{
    struct calltree *c = st;

    struct model_filter f = t->filter;

    f.min_ppm = CALLTREE_MIN_PPM;
    f.max_nodes = TUI_TREE_MAX_NODES;
    f.with_gpu = 1;
    model_tree_free(c->tree);
    c->tree = model_tree_build(t->m, &f);
    if (c->lv.sort == TUI_SORT_GPU && !c->tree->gpu_ns)
        c->lv.sort = TUI_SORT_INCL; /* the GPU times went (reset, another thread) */
    reflatten(t, c);
}

/* Draw one tree row at screen line y. */
static void draw_row(struct tui *t, struct calltree *c, int y, const struct tui_rect *r, int i)
{
    const struct tui_tree_row *row = &c->rows.rows[i];
    const struct model_node *nd = &c->tree->nodes[row->node];
    uint64_t total = c->tree->total;
    int sel = i == c->lv.nav.sel;
    unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
    unsigned int dim = sel ? norm : tui_style(t, TUI_S_DIM);
    double incl = tui_pct(nd->inclusive, total);
    char nums[64], loc[512], glyph[16], name[4096];
    int x = r->x, end = r->x + r->w, indent, room;

    if (sel)
        tui_put(t, y, r->x, r->w, norm, "", 1);
    if (c->tree->gpu_ns)
        snprintf(nums, sizeof(nums), "%7.1f%7.1f%9llu %10.3f  ", incl, tui_pct(nd->self, total),
                 (unsigned long long)nd->inclusive, (double)nd->gpu_ns / 1e6);
    else
        snprintf(nums, sizeof(nums), "%7.1f%7.1f%9llu  ", incl, tui_pct(nd->self, total),
                 (unsigned long long)nd->inclusive);
    x += tui_put(t, y, x, end - x, incl >= 50.0 && !sel ? tui_style(t, TUI_S_HOT) : norm, nums, 0);
    room = end - x;
    indent = 2 * row->depth;
    if (indent > room / 2)
        indent = room / 2; /* very deep trees: keep half the room for names */
    x += tui_put(t, y, x, indent, norm, "", 1);
    snprintf(glyph, sizeof(glyph), "%s ",
             row->has_children ? (row->expanded ? tui_glyph_open(t) : tui_glyph_closed(t)) : " ");
    x += tui_put(t, y, x, end - x, norm, glyph, 0);
    tui_fit_middle(name, sizeof(name), tui_model_func_name(t->m, nd->func), end - x, t->utf8);
    x += tui_put(t, y, x, end - x, row->node == 0 && !sel ? A_BOLD : norm, name, 0);
    tui_func_location(t->m, nd->func, loc, sizeof(loc));
    if (loc[0] && end - x > 4) {
        x += tui_put(t, y, x, 2, norm, "", 1);
        tui_put(t, y, x, end - x, dim, loc, 0);
    }
}

void tui_calltree_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct calltree *c = st;
    char title[256], desc[160], hidden[64] = "";
    int page;

    tui_filter_desc(t->m, &t->filter, desc, sizeof(desc));
    if (c->tree && c->tree->hidden)
        snprintf(hidden, sizeof(hidden), ", %d paths below %g %% not shown", c->tree->hidden,
                 c->tree->min_ppm / 10000.0);
    snprintf(title, sizeof(title), "Call tree: %s  (%llu samples, sort: %s%s)", desc,
             (unsigned long long)(c->tree ? c->tree->total : 0), tui_sort_name(c->lv.sort), hidden);
    page = tui_draw_frame(t, r, title, c->tree && c->tree->gpu_ns ? COLUMNS_GPU : COLUMNS);
    tui_list_fit(&c->lv.nav, c->rows.count, page);
    for (int i = 0; i < page && c->lv.nav.top + i < c->rows.count; i++)
        draw_row(t, c, r->y + 2 + i, r, c->lv.nav.top + i);
    if (c->tree && c->tree->total == 0 && page >= 2)
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), "no samples yet", 0);
}

/* Set the open/closed state of the selected node and re-flatten. */
static void set_open(struct tui *t, struct calltree *c, int open)
{
    const struct tui_tree_row *row = &c->rows.rows[c->lv.nav.sel];

    tui_expand_set(&c->exp, c->tree->nodes[row->node].path_hash,
                   open ? TUI_EXP_OPEN : TUI_EXP_CLOSED);
    reflatten(t, c);
}

const struct tui_key_help tui_calltree_help[] = {
    {"Enter Space", "call tree: expand / collapse"},
    {"Right Left", "call tree: expand / collapse or go to the parent"},
    {"S (Enter: hot)", "call tree, hot functions: the function's source, its hot"},
    {"", "lines; there n N: next / previous hot line, Esc q: back"},
    {NULL, NULL},
};

int tui_calltree_key(struct tui *t, void *st, int key)
{
    struct calltree *c = st;
    const struct tui_tree_row *row;

    if (key == 's' || key == KEY_F(6)) { /* inclusive, self, name, and GPU time if any */
        c->lv.sort = (c->lv.sort + 1) % (c->tree && c->tree->gpu_ns ? 4 : 3);
        reflatten(t, c);
        return 1;
    }
    if (tui_lv_key(t, &calltree_class, st, key)) /* navigation */
        return 1;
    if (c->rows.count == 0 || c->lv.nav.sel < 0 || c->lv.nav.sel >= c->rows.count)
        return 0;
    row = &c->rows.rows[c->lv.nav.sel];
    switch (key) {
    case 'S': /* the Source view of the selected function */
        return tui_source_open(t, c->tree->nodes[row->node].func);
    case '\n':
    case '\r':
    case ' ':
    case KEY_ENTER:
        if (row->has_children)
            set_open(t, c, !row->expanded);
        return 1;
    case KEY_RIGHT:
    case '+':
    case 'l':
        if (row->has_children && !row->expanded)
            set_open(t, c, 1);
        else if (row->expanded)
            tui_list_nav(&c->lv.nav, TUI_NAV_DOWN, c->rows.count, tui_page_rows(t));
        tui_lv_note(&calltree_class, c);
        return 1;
    case KEY_LEFT:
    case '-':
        if (row->expanded) {
            set_open(t, c, 0);
        } else {
            int p = tui_tree_row_of(&c->rows, c->tree->nodes[row->node].parent);
            if (p >= 0) {
                c->lv.nav.sel = p;
                tui_list_fit(&c->lv.nav, c->rows.count, tui_page_rows(t));
                tui_lv_note(&calltree_class, c);
            }
        }
        return 1;
    default:
        return 0;
    }
}

int tui_calltree_click(struct tui *t, void *st, const struct tui_mouse *ev)
{
    return tui_lv_click(t, &calltree_class, st, ev); /* again: expand, collapse */
}

int tui_calltree_search(struct tui *t, void *st, const char *needle)
{
    struct calltree *c = st;
    struct tui_tree_order o = {c->tree, c->lv.sort, tui_model_func_name, t->m};
    int after = 0, node;

    if (!c->tree)
        return 0;
    if (c->lv.nav.sel >= 0 && c->lv.nav.sel < c->rows.count)
        after = c->rows.rows[c->lv.nav.sel].node;
    node = tui_tree_find(&o, after, needle);
    if (node < 0)
        return 0;
    tui_tree_reveal(c->tree, &c->exp, node);
    c->sel_hash = c->tree->nodes[node].path_hash;
    c->have_sel = 1;
    reflatten(t, c);
    return 1;
}

void tui_calltree_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    if (n)
        buf[0] = '\0';
}

void tui_calltree_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_filter f = {
        .thread = -1, .window = 0, .min_ppm = 5000, .with_gpu = 1}; /* 0.5 %, as shown */
    struct model_tree *tree = model_tree_build(m, &f);
    struct tui_tree_order o = {tree, TUI_SORT_INCL, tui_model_func_name, m};
    int *stack = NULL, *kids = NULL, nstack = 0, cap = 0, rows = 0;
    char desc[160], name[1024], loc[512];

    tui_filter_desc(m, &f, desc, sizeof(desc));
    fprintf(out, "== Call tree: %s ==\n", desc);
    fprintf(out, "%s\n", tree && tree->gpu_ns ? COLUMNS_GPU : COLUMNS);
    if (!tree || tree->count == 0)
        goto out;
    stack = xmalloc((size_t)tree->count * sizeof(*stack));
    stack[nstack++] = 0;
    while (nstack > 0 && (max_rows <= 0 || rows < max_rows)) {
        int node = stack[--nstack];
        const struct model_node *nd = &tree->nodes[node];
        int k;

        tui_fit(name, sizeof(name), tui_model_func_name(m, nd->func), 250, 1);
        tui_func_location(m, nd->func, loc, sizeof(loc));
        fprintf(out, "%7.1f%7.1f%9llu", tui_pct(nd->inclusive, tree->total),
                tui_pct(nd->self, tree->total), (unsigned long long)nd->inclusive);
        if (tree->gpu_ns)
            fprintf(out, " %10.3f", (double)nd->gpu_ns / 1e6);
        fprintf(out, "  %*s%s%s%s\n", 2 * nd->depth, "", name, loc[0] ? "  " : "", loc);
        rows++;
        k = tui_tree_children(&o, node, &kids, &cap);
        for (int i = k - 1; i >= 0; i--) /* only nodes with >= 0.5% of the samples or GPU */
            if ((tree->nodes[kids[i]].inclusive * 200 >= tree->total && tree->total > 0) ||
                tree->nodes[kids[i]].gpu_ns * 200 > tree->gpu_ns)
                stack[nstack++] = kids[i];
    }
out:
    free(stack);
    free(kids);
    model_tree_free(tree);
}

/* The settings' sort order of the view (set >= 0: choose it); the order now. */
int tui_calltree_sort(void *st, int set)
{
    struct calltree *v = st;

    if (set >= 0 && set < 4)
        v->lv.sort = set;
    return v->lv.sort;
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(calltree, "Call tree", '1', "Tree", .key = tui_calltree_key,
                .search = tui_calltree_search, .click = tui_calltree_click,
                .help = tui_calltree_help);
