/* The launch call paths of one kernel, opened by Enter in the Kernels view: where the program
 * launched it from, with launches, GPU time and share of the kernel's GPU time (of its
 * launches while nothing was timed), sortable. A caller tree by default (the functions that
 * launched it, below each its callers; the heaviest branch open), or with v a flat list of the
 * whole paths (innermost caller first) with the selected path's stack below. Also the batch
 * rendering of the top kernels' paths. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ESC 27

enum { KP_SORT_GPU, KP_SORT_LAUNCHES, KP_SORT_COUNT };
static const char *const kp_sort_names[KP_SORT_COUNT] = {"GPU time", "launches"};

static int kp_sort; /* for the qsort comparator */

/* Compare two launch paths by the current sort (largest first). */
static int cmp_paths(const void *a, const void *b)
{
    const struct model_launch_path *x = a, *y = b;
    uint64_t p = kp_sort == KP_SORT_GPU ? x->gpu_ns : x->launches;
    uint64_t q = kp_sort == KP_SORT_GPU ? y->gpu_ns : y->launches;

    if (p != q)
        return p < q ? 1 : -1;
    if (x->launches != y->launches)
        return x->launches < y->launches ? 1 : -1;
    return x->path < y->path ? -1 : x->path > y->path;
}

/* A path's share of its kernel: of the GPU time when any was timed, else of the launches. */
static double path_share(const struct model_launch_path_list *l, const struct model_launch_path *p)
{
    return l->gpu_ns ? tui_pct(p->gpu_ns, l->gpu_ns) : tui_pct(p->launches, l->launches);
}

/* The functions of a launch path innermost first, joined by " < ". */
static void path_text(struct model *m, const struct model_launch_path *lp, char *buf, size_t n)
{
    if (lp->path)
        model_path_names(m, lp->path, " < ", 1, buf, n);
    else
        snprintf(buf, n, "%s",
                 lp->pending ? "(call path: symbols still loading)" : "(call path not captured)");
}

/* The numbers of row of kp's list (flat) or of its tree's visible rows: the share of the
 * kernel's GPU time (of its launches while nothing was timed), the launches and the GPU time
 * as text. */
static double row_numbers(const struct tui_kpaths *kp, int row, uint64_t *launches, char *gpu,
                          size_t n)
{
    if (kp->flat) {
        const struct model_launch_path_list *l = kp->list;
        const struct model_launch_path *p = &l->items[row];
        *launches = p->launches;
        if (p->dispatches && (p->gpu_ns || l->gpu_ns))
            snprintf(gpu, n, "%.3f", (double)p->gpu_ns / 1e3);
        else
            snprintf(gpu, n, "N/A");
        return path_share(l, p);
    }
    const struct model_tree *tr = kp->tree;
    const struct model_node *nd = &tr->nodes[kp->trows.rows[row].node];
    *launches = nd->inclusive;
    if (tr->gpu_ns)
        snprintf(gpu, n, "%.3f", (double)nd->gpu_ns / 1e3);
    else
        snprintf(gpu, n, "N/A");
    return tr->gpu_ns ? tui_pct(nd->gpu_ns, tr->gpu_ns) : tui_pct(nd->inclusive, tr->total);
}

/* The cells of the columns (rows: the struct tui_kpaths). */
static void cell_share(struct model *m, const void *kp, int row, char *buf, size_t n)
{
    char gpu[32];
    uint64_t launches;

    (void)m;
    snprintf(buf, n, "%.1f", row_numbers(kp, row, &launches, gpu, sizeof(gpu)));
}

static void cell_launches(struct model *m, const void *kp, int row, char *buf, size_t n)
{
    char gpu[32];
    uint64_t launches;

    (void)m;
    row_numbers(kp, row, &launches, gpu, sizeof(gpu));
    snprintf(buf, n, "%llu", (unsigned long long)launches);
}

static void cell_gpu(struct model *m, const void *kp, int row, char *buf, size_t n)
{
    uint64_t launches;

    (void)m;
    row_numbers(kp, row, &launches, buf, n);
}

/* The numbers' columns, before the name (the call path, or the tree's function) and its blanks. */
static const struct tui_list_column columns[] = {
    {"SHARE%", 8, 0, KP_SORT_GPU, cell_share, 2},
    {"LAUNCHES", 10, 0, KP_SORT_LAUNCHES, cell_launches, 2},
    {"GPU(us)", 10, 0, KP_SORT_GPU, cell_gpu, 1},
};
#define NCOLUMNS  ((int)(sizeof(columns) / sizeof(columns[0])))
#define NAME_GAP  "  "
#define PATH_NAME "CALL PATH (launching function first)"
#define TREE_NAME "LAUNCHED FROM (callers below)"

/* The column headings, the name's (flat: the whole paths, else the caller tree) last. */
static void format_heading(char *buf, size_t n, int flat)
{
    size_t o;

    tui_list_heading(columns, NCOLUMNS, NULL, buf, n);
    o = strlen(buf);
    snprintf(buf + o, n - o, NAME_GAP "%s", flat ? PATH_NAME : TREE_NAME);
}

/* One row's numbers and the blanks before its name. */
static void format_path_row(char *buf, size_t n, const struct tui_kpaths *kp, int row)
{
    size_t o;

    tui_list_cells(NULL, columns, NCOLUMNS, NULL, kp, row, buf, n);
    o = strlen(buf);
    snprintf(buf + o, n - o, NAME_GAP);
}

void tui_kpaths_open(struct tui_kpaths *kp, struct model *m, const char *kernel)
{
    tui_kpaths_close(kp);
    snprintf(kp->kernel, sizeof(kp->kernel), "%s", kernel);
    kp->open = 1;
    kp->nav.sel = kp->nav.top = 0;
    tui_kpaths_rebuild(kp, m);
}

/* The tree's visible rows, in the current sort. */
static void tree_flatten(struct tui_kpaths *kp, struct model *m)
{
    struct tui_tree_order o = {kp->tree, kp->sort == KP_SORT_GPU ? TUI_SORT_GPU : TUI_SORT_INCL,
                               tui_model_func_name, m};

    kp->trows.count = 0;
    if (kp->tree)
        tui_tree_flatten(&o, &kp->exp, &kp->trows);
}

void tui_kpaths_rebuild(struct tui_kpaths *kp, struct model *m)
{
    if (!kp->open)
        return;
    model_launch_paths_free(kp->list);
    kp->list = model_launch_paths(m, kp->kernel);
    kp_sort = kp->sort;
    if (kp->list->count > 1)
        qsort(kp->list->items, (size_t)kp->list->count, sizeof(*kp->list->items), cmp_paths);
    model_tree_free(kp->tree);
    kp->tree = model_launch_tree(m, kp->list); /* the same paths, as a caller tree */
    tree_flatten(kp, m);
}

void tui_kpaths_close(struct tui_kpaths *kp)
{
    model_launch_paths_free(kp->list);
    kp->list = NULL;
    model_tree_free(kp->tree);
    kp->tree = NULL;
    tui_tree_rows_free(&kp->trows);
    tui_expand_free(&kp->exp);
    kp->open = 0;
}

/* The caller tree: one row per visible node, indented by depth. */
static void draw_tree(struct tui *t, struct tui_kpaths *kp, const struct tui_rect *r, int rows)
{
    const struct model_tree *tr = kp->tree;
    char nums[96], name[1024];

    tui_list_fit(&kp->nav, kp->trows.count, rows);
    for (int i = 0; i < rows && kp->nav.top + i < kp->trows.count; i++) {
        const struct tui_tree_row *row = &kp->trows.rows[kp->nav.top + i];
        const struct model_node *nd = &tr->nodes[row->node];
        int y = r->y + 2 + i, x = r->x, end = r->x + r->w, sel = kp->nav.top + i == kp->nav.sel;
        unsigned int attr = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        if (sel)
            tui_put(t, y, r->x, r->w, attr, "", 1);
        format_path_row(nums, sizeof(nums), kp, kp->nav.top + i);
        x += tui_put(t, y, x, end - x, attr, nums, 0);
        x += tui_put(t, y, x, 2 * row->depth < (end - x) / 2 ? 2 * row->depth : (end - x) / 2, attr,
                     "", 1);
        snprintf(name, sizeof(name), "%s ",
                 row->has_children ? (row->expanded ? tui_glyph_open(t) : tui_glyph_closed(t))
                                   : " ");
        x += tui_put(t, y, x, end - x, attr, name, 0);
        tui_fit_middle(name, sizeof(name),
                       row->node == 0 ? kp->kernel : tui_model_func_name(t->m, nd->func), end - x,
                       t->utf8);
        tui_put(t, y, x, end - x, attr, name, 0);
    }
}

void tui_kpaths_draw(struct tui *t, struct tui_kpaths *kp, const struct tui_rect *r)
{
    const struct model_launch_path_list *l = kp->list;
    char title[700], nums[96], text[4096];
    int page, rows, detail;

    snprintf(title, sizeof(title),
             "Launch paths of %s: %d paths, %llu launches, GPU %.3f ms  (sort: %s%s)", kp->kernel,
             l ? l->count : 0, l ? (unsigned long long)l->launches : 0ull,
             l ? (double)l->gpu_ns / 1e6 : 0.0, kp_sort_names[kp->sort],
             kp->flat ? ", whole paths" : ", caller tree");
    format_heading(text, sizeof(text), kp->flat);
    page = tui_draw_frame(t, r, title, text);
    if (!kp->flat) {
        kp->rows = page;
        if (l && l->count == 0 && page >= 2)
            tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM),
                    "no launch of this kernel was seen through HIP (dispatches only)", 0);
        else
            draw_tree(t, kp, r, page);
        return;
    }
    detail = page >= 10 ? page / 3 : 0; /* the selected path's stack, one function a line */
    rows = page - detail;
    kp->rows = rows;
    tui_list_fit(&kp->nav, l ? l->count : 0, rows);
    for (int i = 0; l && i < rows && kp->nav.top + i < l->count; i++) {
        const struct model_launch_path *p = &l->items[kp->nav.top + i];
        int y = r->y + 2 + i, x = r->x, sel = kp->nav.top + i == kp->nav.sel;
        unsigned int attr = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
        if (sel)
            tui_put(t, y, r->x, r->w, attr, "", 1);
        format_path_row(nums, sizeof(nums), kp, kp->nav.top + i);
        x += tui_put(t, y, x, r->w, attr, nums, 0);
        path_text(t->m, p, text, sizeof(text));
        tui_put(t, y, x, r->x + r->w - x, attr, text, 0);
    }
    if (l && l->count == 0 && rows >= 2)
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM),
                "no launch of this kernel was seen through HIP (dispatches only)", 0);
    if (!detail || !l || kp->nav.sel >= l->count)
        return;
    int y = r->y + 2 + rows;
    tui_put(t, y++, r->x, r->w, tui_style(t, TUI_S_COLUMNS), "Call path (outermost first)", 1);
    uint32_t funcs[MODEL_MAX_STACK];
    int n = 0;
    for (uint32_t p = l->items[kp->nav.sel].path; p && n < MODEL_MAX_STACK;
         p = model_path_parent(t->m, p))
        funcs[n++] = model_path_func(t->m, p);
    int skip = n > detail - 1 ? n - (detail - 1) : 0; /* the innermost callers stay visible */
    for (int k = n - 1 - skip; k >= 0 && y < r->y + r->h; k--) {
        char loc[512];
        tui_func_location(t->m, (int)funcs[k], loc, sizeof(loc));
        snprintf(text, sizeof(text), "  %s%s  %s", skip && k == n - 1 - skip ? "... " : "",
                 tui_model_func_name(t->m, (int)funcs[k]), loc);
        tui_put(t, y++, r->x, r->w, A_NORMAL, text, 1);
    }
}

int tui_kpaths_key(struct tui *t, struct tui_kpaths *kp, int key)
{
    enum tui_nav nav = tui_key_nav(key);
    int count = kp->flat ? (kp->list ? kp->list->count : 0) : kp->trows.count;

    if (key == KEY_ESC || key == KEY_BACKSPACE || key == 127 || (kp->flat && key == KEY_LEFT)) {
        tui_kpaths_close(kp);
        return 1;
    }
    if (key == 's' || key == KEY_F(6)) {
        kp->sort = (kp->sort + 1) % KP_SORT_COUNT;
        tui_kpaths_rebuild(kp, t->m);
        return 1;
    }
    if (key == 'v') { /* the caller tree, or the whole paths */
        kp->flat = !kp->flat;
        kp->nav.sel = kp->nav.top = 0;
        return 1;
    }
    if (nav != TUI_NAV_NONE) {
        tui_list_nav(&kp->nav, nav, count, kp->rows);
        return 1;
    }
    if (!kp->flat && kp->nav.sel >= 0 && kp->nav.sel < kp->trows.count &&
        (key == KEY_RIGHT || key == KEY_LEFT || key == '\n' || key == '\r' || key == KEY_ENTER)) {
        const struct tui_tree_row *row = &kp->trows.rows[kp->nav.sel];
        int open = key == KEY_RIGHT || (key != KEY_LEFT && !row->expanded);
        if (key == KEY_LEFT && !row->expanded && row->node != 0) { /* to the parent */
            int parent = kp->tree->nodes[row->node].parent;
            for (int i = 0; i < kp->trows.count; i++)
                if (kp->trows.rows[i].node == parent)
                    kp->nav.sel = i;
            return 1;
        }
        tui_expand_set(&kp->exp, kp->tree->nodes[row->node].path_hash,
                       open ? TUI_EXP_OPEN : TUI_EXP_CLOSED);
        tree_flatten(kp, t->m);
        return 1;
    }
    return 0;
}

int tui_kpaths_click(struct tui *t, struct tui_kpaths *kp, const struct tui_mouse *ev)
{
    struct tui_sort_column map[NCOLUMNS];
    char heading[256];
    int value, count = kp->flat ? (kp->list ? kp->list->count : 0) : kp->trows.count;

    format_heading(heading, sizeof(heading), kp->flat);
    switch (tui_list_click(ev, &kp->nav, count, kp->rows, heading, map,
                           tui_list_sort_map(columns, NCOLUMNS, map, NCOLUMNS), &value)) {
    case TUI_CLICK_SORT:
        kp->sort = value;
        tui_kpaths_rebuild(kp, t->m);
        return 1;
    case TUI_CLICK_SELECT:
        kp->nav.sel = value;
        return 1;
    case TUI_CLICK_AGAIN: /* as Enter: open or close the tree's node */
        return tui_kpaths_key(t, kp, '\n');
    default:
        return 0;
    }
}

int tui_kpaths_search(struct tui_kpaths *kp, struct model *m, const char *needle)
{
    char text[4096];
    int n = kp->list ? kp->list->count : 0;

    if (!kp->flat && kp->tree) { /* the next node whose function matches, opened to */
        struct tui_tree_order o = {kp->tree, kp->sort == KP_SORT_GPU ? TUI_SORT_GPU : TUI_SORT_INCL,
                                   tui_model_func_name, m};
        int after = kp->nav.sel >= 0 && kp->nav.sel < kp->trows.count
                        ? kp->trows.rows[kp->nav.sel].node
                        : 0;
        int node = tui_tree_find(&o, after, needle);
        if (node < 0)
            return 0;
        tui_tree_reveal(kp->tree, &kp->exp, node);
        tree_flatten(kp, m);
        kp->nav.sel = tui_tree_row_of(&kp->trows, node);
        tui_list_fit(&kp->nav, kp->trows.count, kp->rows);
        return 1;
    }

    for (int i = 1; i <= n; i++) {
        int idx = (kp->nav.sel + i) % n;
        path_text(m, &kp->list->items[idx], text, sizeof(text));
        if (tui_match(text, needle)) {
            kp->nav.sel = idx;
            tui_list_fit(&kp->nav, n, kp->rows);
            return 1;
        }
    }
    return 0;
}

void tui_kpaths_batch(FILE *out, struct model *m, const char *kernel, int max_rows)
{
    struct model_launch_path_list *l = model_launch_paths(m, kernel);
    const struct tui_kpaths kp = {.list = l, .flat = 1}; /* the rows the columns read */
    char nums[96], text[4096];

    if (l->count > 0) {
        format_heading(text, sizeof(text), 1);
        fprintf(out, "-- launch paths of %s: %d paths, %llu launches --\n%s\n", kernel, l->count,
                (unsigned long long)l->launches, text);
        for (int i = 0; i < l->count && (max_rows <= 0 || i < max_rows); i++) {
            format_path_row(nums, sizeof(nums), &kp, i);
            path_text(m, &l->items[i], text, sizeof(text));
            fprintf(out, "%s%s\n", nums, text);
        }
    }
    model_launch_paths_free(l);
}
