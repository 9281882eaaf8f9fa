/* View d, Diff (--replay NEW --diff OLD): before and after, as four tables of model/diff.c's
 * comparison: hot functions, the call tree (matched by path of names), kernels and HIP API,
 * each entry with its share in OLD and NEW, the change in points, and a mark for entries of one
 * side only (new, gone). Keys: c / C next / previous table, s cycles the sort (change, NEW
 * share, name), Enter/Space, Right and Left open and close call-tree nodes. The same tables
 * are the "== Diff ..." sections of batch frames; without --diff the view says how to get one
 * and batch frames have no such section. Always over all threads; the range (--range, w [ ]
 * { }) applies to NEW, OLD is counted whole. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/diff.h"

TUI_VIEW_DECLARE(diff);

/* Call-tree rows below this inclusive share (%) on both sides are left out: in the TUI as in
 * the call tree view, in batch frames as in the batch call tree. */
#define DIFF_TREE_MIN_PCT  0.001
#define DIFF_BATCH_MIN_PCT 0.5
/* Call-tree nodes the user did not open or close are open when this share (%) is reached on
 * either side. */
#define DIFF_OPEN_PCT 1.0
/* Changes of at least this many points are coloured. */
#define DIFF_LOUD_PTS 5.0

enum diff_part { PART_FUNCS, PART_TREE, PART_KERNELS, PART_HIP, PART_COUNT };

/* What each table is called, its column headings and what its shares are of. */
static const struct {
    const char *name;
    const char *columns;
    const char *shares;
} parts[PART_COUNT] = {
    {"hot functions", "  SELF:OLD    NEW CHANGE  INCL:OLD    NEW CHANGE  MARK  FUNCTION",
     "self, then inclusive share of the samples"},
    {"call tree", "  INCL:OLD    NEW CHANGE  SELF:OLD    NEW CHANGE  MARK  FUNCTION",
     "inclusive, then self share of the samples, by path"},
    {"kernels", "  TIME%:OLD    NEW CHANGE  CALLS:OLD     NEW     MS:OLD       NEW  MARK  KERNEL",
     "share of the GPU time, dispatches (or HIP launches), GPU time"},
    {"HIP API", "  TIME%:OLD    NEW CHANGE  CALLS:OLD     NEW     MS:OLD       NEW  MARK  API",
     "share of the time in HIP calls, calls, host time"},
};

static const enum model_diff_sort sort_cycle[] = {MODEL_DIFF_SORT_CHANGE, MODEL_DIFF_SORT_NEW,
                                                  MODEL_DIFF_SORT_NAME};
#define SORT_STEPS ((int)(sizeof(sort_cycle) / sizeof(sort_cycle[0])))

struct diff_view {
    int part; /* enum diff_part */
    struct model_diff *d[PART_COUNT];
    int sort_step[PART_COUNT]; /* index into sort_cycle */
    struct tui_list list[PART_COUNT];
    uint64_t sel_key[PART_COUNT]; /* key of the selected row, kept across rebuilds */
    int have_sel[PART_COUNT];
    /* the call tree's visible rows (indices into d[PART_TREE]->rows) and the user's choices */
    int *vis;
    int nvis;
    size_t vcap;
    struct tui_expand exp;
};

void *tui_diff_create(void)
{
    return xcalloc(1, sizeof(struct diff_view));
}

void tui_diff_destroy(void *st)
{
    struct diff_view *v = st;

    if (!v)
        return;
    for (int p = 0; p < PART_COUNT; p++)
        model_diff_free(v->d[p]);
    free(v->vis);
    tui_expand_free(&v->exp);
    free(v);
}

/* The comparison of part between the two models, sorted by sort. */
static struct model_diff *build_part(struct model *old_m, struct model *new_m, int part,
                                     enum model_diff_sort sort, double tree_min_pct)
{
    switch (part) {
    case PART_FUNCS:
        return model_diff_funcs(old_m, new_m, sort);
    case PART_TREE:
        return model_diff_tree(old_m, new_m, sort, tree_min_pct);
    case PART_KERNELS:
        return model_diff_kernels(old_m, new_m, sort);
    default:
        return model_diff_hip(old_m, new_m, sort);
    }
}

/* A change that rounds to zero prints as +0.0, never -0.0. */
static double shown(double delta)
{
    return fabs(delta) < 0.05 ? 0.0 : delta;
}

/* The columns of row r of part before its name (they end with the mark and two blanks). */
static void format_nums(char *buf, size_t n, int part, const struct model_diff_row *r)
{
    const char *mark = model_diff_mark_name(r->mark);

    if (!*mark)
        mark = "-";
    if (part == PART_FUNCS || part == PART_TREE)
        snprintf(buf, n, "%10.1f%7.1f%+7.1f%10.1f%7.1f%+7.1f  %-4s  ", r->share[MODEL_DIFF_OLD],
                 r->share[MODEL_DIFF_NEW], shown(r->delta), r->share2[MODEL_DIFF_OLD],
                 r->share2[MODEL_DIFF_NEW], shown(r->delta2), mark);
    else
        snprintf(
            buf, n, "%11.1f%7.1f%+7.1f%11llu%8llu%11.3f%10.3f  %-4s  ", r->share[MODEL_DIFF_OLD],
            r->share[MODEL_DIFF_NEW], shown(r->delta), (unsigned long long)r->count[MODEL_DIFF_OLD],
            (unsigned long long)r->count[MODEL_DIFF_NEW], (double)r->time_ns[MODEL_DIFF_OLD] / 1e6,
            (double)r->time_ns[MODEL_DIFF_NEW] / 1e6, mark);
}

/* What the shares of part d are of, both sides: "6012 vs 5988 samples" or "12.3 vs 10.1 ms". */
static void format_totals(char *buf, size_t n, int part, const struct model_diff *d)
{
    if (part == PART_FUNCS || part == PART_TREE)
        snprintf(buf, n, "%llu vs %llu samples", (unsigned long long)d->total[MODEL_DIFF_NEW],
                 (unsigned long long)d->total[MODEL_DIFF_OLD]);
    else
        snprintf(buf, n, "%.3f vs %.3f ms", (double)d->total[MODEL_DIFF_NEW] / 1e6,
                 (double)d->total[MODEL_DIFF_OLD] / 1e6);
}

/* A key for row i of part: the tree's path hash, else a hash of name and module. */
static uint64_t row_key(const struct model_diff *d, int part, int i)
{
    const struct model_diff_row *r = &d->rows[i];
    uint64_t h = 0xcbf29ce484222325ull;

    if (part == PART_TREE)
        return r->path_hash;
    for (const char *s = r->name; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;
    for (const char *s = r->module ? r->module : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

/* Rows part shows: the visible tree rows, or every row of a flat table. */
static int part_rows(const struct diff_view *v, int part)
{
    if (part == PART_TREE)
        return v->nvis;
    return v->d[part] ? v->d[part]->count : 0;
}

/* The index into d[part]->rows of shown row i. */
static int part_row(const struct diff_view *v, int part, int i)
{
    return part == PART_TREE ? v->vis[i] : i;
}

/* Whether tree row i is open: the user's choice, else by its share. */
static int tree_open(const struct diff_view *v, int i)
{
    const struct model_diff_row *r = &v->d[PART_TREE]->rows[i];
    int st = tui_expand_get(&v->exp, r->path_hash);

    if (st != TUI_EXP_DEFAULT)
        return st == TUI_EXP_OPEN;
    return fmax(r->share[MODEL_DIFF_OLD], r->share[MODEL_DIFF_NEW]) >= DIFF_OPEN_PCT;
}

/* Remember the key of the selected row of part. */
static void note_selection(struct diff_view *v, int part)
{
    int sel = v->list[part].sel;

    if (sel >= 0 && sel < part_rows(v, part)) {
        v->sel_key[part] = row_key(v->d[part], part, part_row(v, part, sel));
        v->have_sel[part] = 1;
    }
}

/* Recompute the tree's visible rows (the rows under a closed node are skipped), then put the
 * selection of part back on the row with its key. */
static void refit(struct tui *t, struct diff_view *v, int part)
{
    int n;

    if (part == PART_TREE) {
        const struct model_diff *d = v->d[PART_TREE];
        v->nvis = 0;
        for (int i = 0; d && i < d->count;) {
            xgrow(&v->vis, &v->vcap, (size_t)v->nvis + 1, sizeof(*v->vis));
            v->vis[v->nvis++] = i;
            i += d->rows[i].descendants && !tree_open(v, i) ? d->rows[i].descendants + 1 : 1;
        }
    }
    n = part_rows(v, part);
    if (v->have_sel[part])
        for (int i = 0; i < n; i++)
            if (row_key(v->d[part], part, part_row(v, part, i)) == v->sel_key[part]) {
                v->list[part].sel = i;
                break;
            }
    tui_list_fit(&v->list[part], n, tui_page_rows(t));
    note_selection(v, part);
}

void tui_diff_rebuild(struct tui *t, void *st)
{
    struct diff_view *v = st;
    struct model *old_m = model_session(t->m)->diff_old;

    for (int p = 0; p < PART_COUNT; p++) {
        model_diff_free(v->d[p]);
        v->d[p] = old_m ? build_part(old_m, t->m, p, sort_cycle[v->sort_step[p]], DIFF_TREE_MIN_PCT)
                        : NULL;
        refit(t, v, p);
    }
}

/* Draw shown row i of the current table at screen line y. */
static void draw_row(struct tui *t, struct diff_view *v, const struct tui_rect *r, int y, int i)
{
    const struct model_diff_row *row = &v->d[v->part]->rows[part_row(v, v->part, i)];
    int sel = i == v->list[v->part].sel;
    unsigned int norm = sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL;
    /* more of the time: red; less: green (5 points or more); one side only: dimmed when gone */
    unsigned int mark = sel                             ? norm
                        : row->delta >= DIFF_LOUD_PTS   ? tui_style(t, TUI_S_HOT)
                        : row->delta <= -DIFF_LOUD_PTS  ? tui_style(t, TUI_S_GOOD)
                        : row->mark == MODEL_DIFF_ADDED ? tui_style(t, TUI_S_LABEL)
                        : row->mark == MODEL_DIFF_GONE  ? tui_style(t, TUI_S_DIM)
                                                        : norm;
    char nums[160], glyph[16];
    int x = r->x, end = r->x + r->w;

    if (sel)
        tui_put(t, y, r->x, r->w, norm, "", 1);
    format_nums(nums, sizeof(nums), v->part, row);
    x += tui_put(t, y, x, end - x, mark, nums, 0);
    if (v->part == PART_TREE) {
        int indent = 2 * (row->depth - 1);
        if (indent > (end - x) / 2)
            indent = (end - x) / 2; /* very deep trees: keep half the room for names */
        x += tui_put(t, y, x, indent, norm, "", 1);
        snprintf(glyph, sizeof(glyph), "%s ",
                 row->descendants ? (tree_open(v, part_row(v, PART_TREE, i)) ? tui_glyph_open(t)
                                                                             : tui_glyph_closed(t))
                                  : " ");
        x += tui_put(t, y, x, end - x, norm, glyph, 0);
    }
    x += tui_put(t, y, x, end - x, norm, row->name, 0);
    if (row->module && *row->module && end - x > 4) {
        x += tui_put(t, y, x, 2, norm, "", 1);
        tui_put(t, y, x, end - x, sel ? norm : tui_style(t, TUI_S_DIM), row->module, 0);
    }
}

void tui_diff_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct diff_view *v = st;
    const struct model_session *s = model_session(t->m);
    const struct model_diff *d = v->d[v->part];
    char title[512], totals[96], tabs[128] = "";
    size_t o = 0;
    int page, n = part_rows(v, v->part);

    for (int p = 0; p < PART_COUNT; p++)
        o += (size_t)snprintf(tabs + o, sizeof(tabs) - o, p == v->part ? "[%s] " : "%s ",
                              parts[p].name);
    if (!s->diff_old) {
        page = tui_draw_frame(t, r, "Diff: no comparison loaded", "");
        if (page >= 2)
            tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM),
                    "compare two recordings: rocsys-top --replay NEW --diff OLD", 0);
        return;
    }
    format_totals(totals, sizeof(totals), v->part, d);
    snprintf(title, sizeof(title), "Diff: %s(c: next)  NEW vs OLD %s, %d new, %d gone, sort: %s",
             tabs, totals, d ? d->added : 0, d ? d->gone : 0,
             model_diff_sort_name(sort_cycle[v->sort_step[v->part]]));
    page = tui_draw_frame(t, r, title, parts[v->part].columns);
    tui_list_fit(&v->list[v->part], n, page);
    for (int i = 0; i < page && v->list[v->part].top + i < n; i++)
        draw_row(t, v, r, r->y + 2 + i, v->list[v->part].top + i);
    if (n == 0 && page >= 2) {
        char none[160];
        snprintf(none, sizeof(none), "no %s data in either recording",
                 v->part == PART_KERNELS ? "kernel"
                 : v->part == PART_HIP   ? "HIP API"
                                         : "sample");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), none, 0);
    }
}

/* Open or close tree node (shown row) sel and recompute the visible rows. */
static void set_open(struct tui *t, struct diff_view *v, int sel, int open)
{
    tui_expand_set(&v->exp, v->d[PART_TREE]->rows[part_row(v, PART_TREE, sel)].path_hash,
                   open ? TUI_EXP_OPEN : TUI_EXP_CLOSED);
    refit(t, v, PART_TREE);
}

/* Tree keys on the selected row: Enter/Space toggle, Right opens, Left closes or goes to the
 * parent. Returns 1 if key was one of them. */
static int tree_key(struct tui *t, struct diff_view *v, int key)
{
    int sel = v->list[PART_TREE].sel, i, open;
    const struct model_diff_row *row;

    if (sel < 0 || sel >= v->nvis)
        return 0;
    i = part_row(v, PART_TREE, sel);
    row = &v->d[PART_TREE]->rows[i];
    open = row->descendants && tree_open(v, i);
    switch (key) {
    case '\n':
    case '\r':
    case ' ':
    case KEY_ENTER:
        if (row->descendants)
            set_open(t, v, sel, !open);
        return 1;
    case KEY_RIGHT:
    case '+':
    case 'l':
        if (row->descendants && !open)
            set_open(t, v, sel, 1);
        return 1;
    case KEY_LEFT:
    case '-':
        if (open) {
            set_open(t, v, sel, 0);
            return 1;
        }
        for (int k = 0; k < v->nvis && row->parent >= 0; k++)
            if (v->vis[k] == row->parent) {
                v->list[PART_TREE].sel = k;
                tui_list_fit(&v->list[PART_TREE], v->nvis, tui_page_rows(t));
                note_selection(v, PART_TREE);
            }
        return 1;
    default:
        return 0;
    }
}

const struct tui_key_help tui_diff_help[] = {
    {"d c C s", "Diff view; its next / previous table; sort"},
    {NULL, NULL},
};

int tui_diff_key(struct tui *t, void *st, int key)
{
    struct diff_view *v = st;
    enum tui_nav nav = tui_key_nav(key);
    int p = v->part;

    if (key == 'c' || key == 'C') {
        v->part = (p + (key == 'c' ? 1 : PART_COUNT - 1)) % PART_COUNT;
        refit(t, v, v->part);
        return 1;
    }
    if (!v->d[p])
        return 0;
    if (key == 's' || key == KEY_F(6)) {
        struct model *old_m = model_session(t->m)->diff_old;
        v->sort_step[p] = (v->sort_step[p] + 1) % SORT_STEPS;
        model_diff_free(v->d[p]);
        v->d[p] = build_part(old_m, t->m, p, sort_cycle[v->sort_step[p]], DIFF_TREE_MIN_PCT);
        refit(t, v, p);
        return 1;
    }
    if (nav != TUI_NAV_NONE) {
        tui_list_nav(&v->list[p], nav, part_rows(v, p), tui_page_rows(t));
        note_selection(v, p);
        return 1;
    }
    return p == PART_TREE && tree_key(t, v, key);
}

int tui_diff_search(struct tui *t, void *st, const char *needle)
{
    struct diff_view *v = st;
    const struct model_diff *d = v->d[v->part];
    int p = v->part, n = d ? d->count : 0, from = 0, found = -1;

    if (n == 0)
        return 0;
    if (v->list[p].sel >= 0 && v->list[p].sel < part_rows(v, p))
        from = part_row(v, p, v->list[p].sel);
    for (int k = 1; k <= n && found < 0; k++) /* every row, hidden tree rows too */
        if (tui_match(d->rows[(from + k) % n].name, needle))
            found = (from + k) % n;
    if (found < 0)
        return 0;
    if (p == PART_TREE) /* open the path down to it */
        for (int a = d->rows[found].parent; a >= 0; a = d->rows[a].parent)
            tui_expand_set(&v->exp, d->rows[a].path_hash, TUI_EXP_OPEN);
    v->sel_key[p] = row_key(d, p, found);
    v->have_sel[p] = 1;
    refit(t, v, p);
    return 1;
}

void tui_diff_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)st;
    if (!n)
        return;
    buf[0] = '\0';
    if (model_session(t->m)->diff_old)
        snprintf(buf, n, "c: next table  s: sort");
}

void tui_diff_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_session *s = model_session(m);
    char nums[160], totals[96], name[1024];

    if (!s->diff_old)
        return; /* no comparison: no section */
    for (int p = 0; p < PART_COUNT; p++) {
        struct model_diff *d = build_part(s->diff_old, m, p, MODEL_DIFF_SORT_CHANGE,
                                          p == PART_TREE ? DIFF_BATCH_MIN_PCT : 0);
        format_totals(totals, sizeof(totals), p, d);
        char cut[96] = "";
        if (p == PART_TREE && d->left_out)
            snprintf(cut, sizeof(cut), "; %d paths below %g %% on both sides left out", d->left_out,
                     DIFF_BATCH_MIN_PCT);
        fprintf(out, "== Diff %s: %s vs %s (%s: %s; change in points; %d new, %d gone%s) ==\n",
                parts[p].name, s->diff_new_dir ? s->diff_new_dir : "NEW",
                s->diff_old_dir ? s->diff_old_dir : "OLD", parts[p].shares, totals, d->added,
                d->gone, cut);
        fprintf(out, "%s\n", parts[p].columns);
        for (int i = 0; i < d->count && (max_rows <= 0 || i < max_rows); i++) {
            const struct model_diff_row *r = &d->rows[i];
            format_nums(nums, sizeof(nums), p, r);
            tui_fit(name, sizeof(name), r->name, 250, 1);
            fprintf(out, "%s%*s%s%s%s\n", nums, p == PART_TREE ? 2 * (r->depth - 1) : 0, "", name,
                    r->module && *r->module ? "  " : "", r->module ? r->module : "");
        }
        if (d->count == 0)
            fprintf(out, "no %s data in either recording\n",
                    p == PART_KERNELS ? "kernel"
                    : p == PART_HIP   ? "HIP API"
                                      : "sample");
        model_diff_free(d);
    }
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(diff, "Diff", 'd', "Diff", .key = tui_diff_key, .search = tui_diff_search,
                .help = tui_diff_help);
