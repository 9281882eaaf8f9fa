/* View 0, the flame graph: an icicle graph of the call tree (the root on top, callees below),
 * each frame a box as wide as its share of the samples, coloured by kind (native, Python,
 * user region, GPU runtime and waits); arrows move between frames, Enter zooms into one, Esc
 * or Backspace zooms out, / highlights matches and shows their share. Zoom and selection are
 * kept across refreshes by path hash. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(flame);

/* Paths below this share of the samples (parts per million) are left out, as in the call tree:
 * even zoomed into a 1 % frame on a 1000-column terminal a box needs 10 ppm. */
#define FLAME_MIN_PPM    10
#define FLAME_BATCH_COLS 100 /* width of the batch rendering */
/* ... and in the batch rendering, which is never zoomed: a quarter of a column (a box is drawn
 * from one column; a frame merged from more than four paths that small is the rare loss) */
#define FLAME_BATCH_MIN_PPM (1000000 / FLAME_BATCH_COLS / 4)
#define FLAME_PAIR_BASE     40 /* colour pairs of the kinds: above the ones tui.c uses */
#define FLAME_SHADES        2  /* colours per kind, picked by a hash of the name */
#define FLAME_PAIR_MATCH    (FLAME_PAIR_BASE + TUI_FLAME_KINDS * FLAME_SHADES)
#define FLAME_PAIR_SEL      (FLAME_PAIR_MATCH + 1)
#define KEY_ESC             27

struct flame {
    struct model_tree *tree;
    struct tui_flame lay;
    int zoom, sel;                /* tree nodes */
    uint64_t zoom_hash, sel_hash; /* the same by path hash, kept across rebuilds */
    int top;                      /* first row (depth below the zoom root) shown */
    int width;                    /* columns of the last layout */
    char needle[128];             /* the search whose matches are highlighted ("": none) */
    uint64_t match_samples;       /* samples under those matches */
    int pairs;                    /* 1: the kind colour pairs are set up; -1: not available */
    int by_gpu;                   /* b: widths by the GPU time of the kernels launched below */
};

void *tui_flame_create(void)
{
    return xcalloc(1, sizeof(struct flame));
}

void tui_flame_destroy(void *st)
{
    struct flame *c = st;

    if (!c)
        return;
    model_tree_free(c->tree);
    tui_flame_free(&c->lay);
    free(c);
}

/* tui_key_fn over a struct model: a function's name and module (a Python function's entries
 * of different lines are one frame). */
static uint64_t func_key(const void *ctx, int func)
{
    const struct model_func *f = model_func_at(ctx, func);
    const char *parts[2] = {f && f->name ? f->name : "?", f && f->module ? f->module : ""};
    uint64_t h = 0xcbf29ce484222325ull;

    for (int i = 0; i < 2; i++) {
        for (const char *p = parts[i]; *p; p++)
            h = (h ^ (unsigned char)*p) * 0x100000001b3ull;
        h = (h ^ 0x1ff) * 0x100000001b3ull; /* a separator no byte equals */
    }
    return h;
}

/* The call tree under f, with a function's entries merged into one frame per path; by_gpu:
 * weighted by the GPU time of the kernels launched from each frame and below instead of by
 * samples (the counts become nanoseconds). */
static struct model_tree *flame_tree(struct model *m, const struct model_filter *f, int by_gpu)
{
    struct model_filter g = *f;
    struct model_tree *raw, *merged;

    g.with_gpu = by_gpu;
    raw = model_tree_build(m, &g);
    merged = tui_flame_merge(raw, func_key, m);
    model_tree_free(raw);
    for (int i = 0; by_gpu && merged && i < merged->count; i++) {
        struct model_node *nd = &merged->nodes[i];
        uint64_t below = 0;
        for (int c = nd->first_child; c >= 0; c = merged->nodes[c].next_sibling)
            below += merged->nodes[c].gpu_ns;
        nd->inclusive = nd->gpu_ns;
        nd->self = nd->gpu_ns > below ? nd->gpu_ns - below : 0;
    }
    if (by_gpu && merged)
        merged->total = merged->gpu_ns;
    return merged;
}

/* Node of the tree with path hash h, or -1. */
static int node_by_hash(const struct model_tree *t, uint64_t h)
{
    for (int i = 0; t && i < t->count; i++)
        if (t->nodes[i].path_hash == h)
            return i;
    return -1;
}

/* Whether node is zoom or below it. */
static int in_subtree(const struct model_tree *t, int node, int zoom)
{
    for (; node >= 0; node = t->nodes[node].parent)
        if (node == zoom)
            return 1;
    return 0;
}

/* Remember zoom and selection by path hash. */
static void note(struct flame *c)
{
    if (!c->tree || c->tree->count == 0)
        return;
    c->zoom_hash = c->tree->nodes[c->zoom].path_hash;
    c->sel_hash = c->tree->nodes[c->sel].path_hash;
}

/* Lay the graph out again (width columns) and put the selection on a box: its own, else its
 * nearest ancestor's that has one. */
static void relayout(struct tui *t, struct flame *c, int width)
{
    struct tui_tree_order o = {c->tree, TUI_SORT_INCL, tui_model_func_name, t->m};

    c->width = width;
    tui_flame_layout(&o, c->zoom, width, 0, &c->lay);
    if (!c->tree || c->tree->count == 0)
        return;
    while (c->sel >= 0 && c->sel != c->zoom && tui_flame_box_of(&c->lay, c->sel) < 0)
        c->sel = c->tree->nodes[c->sel].parent;
    if (c->sel < 0)
        c->sel = c->zoom;
    note(c);
}

void tui_flame_rebuild(struct tui *t, void *st)
{
    struct flame *c = st;
    struct model_filter f = t->filter;
    struct tui_tree_order o;
    int n;

    f.min_ppm = FLAME_MIN_PPM;
    f.max_nodes = TUI_TREE_MAX_NODES;
    model_tree_free(c->tree);
    c->tree = flame_tree(t->m, &f, c->by_gpu);
    c->zoom = c->sel = 0;
    if (c->tree && c->tree->count > 0) {
        n = node_by_hash(c->tree, c->zoom_hash);
        c->zoom = n >= 0 ? n : 0;
        n = node_by_hash(c->tree, c->sel_hash);
        c->sel = n >= 0 && in_subtree(c->tree, n, c->zoom) ? n : c->zoom;
    }
    o = (struct tui_tree_order){c->tree, TUI_SORT_INCL, tui_model_func_name, t->m};
    c->match_samples = tui_flame_match_samples(&o, c->needle);
    relayout(t, c, c->width > 0 ? c->width : 80);
}

/* Set up the colour pairs of the kinds (8 colours, or shades of the 256-colour palette). */
static void init_pairs(struct tui *t, struct flame *c)
{
    /* per kind: FLAME_SHADES backgrounds with 8 colours, then with 256 */
    static const short bg8[TUI_FLAME_KINDS][FLAME_SHADES] = {
        {COLOR_YELLOW, COLOR_RED},
        {COLOR_GREEN, COLOR_GREEN},
        {COLOR_MAGENTA, COLOR_MAGENTA},
        {COLOR_WHITE, COLOR_WHITE},
    };
    static const short bg256[TUI_FLAME_KINDS][FLAME_SHADES] = {
        {214, 209}, /* native: orange, salmon */
        {114, 150}, /* Python: greens */
        {177, 213}, /* region: violet, pink */
        {250, 110}, /* GPU runtime, waits, other: grey, steel blue */
    };
    int rich = COLORS >= 256;

    c->pairs = -1;
    if (!t->color || COLOR_PAIRS <= FLAME_PAIR_SEL)
        return;
    for (int k = 0; k < TUI_FLAME_KINDS; k++)
        for (int s = 0; s < FLAME_SHADES; s++)
            init_pair((short)(FLAME_PAIR_BASE + k * FLAME_SHADES + s), COLOR_BLACK,
                      rich ? bg256[k][s] : bg8[k][s]);
    init_pair(FLAME_PAIR_MATCH, COLOR_BLACK, rich ? 51 : COLOR_CYAN);
    init_pair(FLAME_PAIR_SEL, COLOR_BLACK, rich ? 231 : COLOR_WHITE);
    c->pairs = 1;
}

/* Attributes of a frame of kind with name (its shade), selected or matching the search. */
static unsigned int box_attr(const struct flame *c, int kind, const char *name, int sel, int match)
{
    static const unsigned int mono[TUI_FLAME_KINDS] = {A_REVERSE, A_REVERSE | A_BOLD,
                                                       A_REVERSE | A_UNDERLINE, A_REVERSE | A_DIM};
    unsigned int h = 5381;

    if (c->pairs != 1) {
        if (sel)
            return A_BOLD | A_UNDERLINE;
        return match ? A_BOLD : mono[kind];
    }
    for (const char *p = name; *p; p++)
        h = h * 33 + (unsigned char)*p;
    if (sel) /* white, whatever the kind (the status line says which frame it is) */
        return COLOR_PAIR(FLAME_PAIR_SEL) | A_BOLD | A_UNDERLINE;
    if (match)
        return COLOR_PAIR(FLAME_PAIR_MATCH) | A_BOLD;
    return COLOR_PAIR(FLAME_PAIR_BASE + kind * FLAME_SHADES + (int)(h % FLAME_SHADES));
}

/* Kind of a tree node's function. */
static int node_kind(struct tui *t, const struct model_tree *tree, int node)
{
    int func = tree->nodes[node].func;
    const struct model_func *f = func >= 0 ? model_func_at(t->m, func) : NULL;

    return tui_flame_kind(f ? f->name : NULL, f ? f->module : NULL);
}

/* The legend line: a swatch per kind, the keys on the right. */
static void draw_legend(struct tui *t, struct flame *c, int y, const struct tui_rect *r)
{
    static const char *const names[TUI_FLAME_KINDS] = {"native", "Python", "region",
                                                       "GPU runtime/wait/other"};
    int x = r->x, end = r->x + r->w;

    for (int k = 0; k < TUI_FLAME_KINDS && x < end; k++) {
        tui_seg(t, y, &x, end, box_attr(c, k, "", 0, 0), " %s ", names[k]);
        tui_seg(t, y, &x, end, A_NORMAL, " ");
    }
    if (end - x > 44)
        tui_put(t, y, end - 42, 42, tui_style(t, TUI_S_DIM),
                "arrows move  Enter zoom  Esc out  / find", 0);
}

/* Draw the box i of the layout at screen row y. */
static void draw_box(struct tui *t, struct flame *c, int i, int y, const struct tui_rect *r)
{
    const struct tui_flame_box *b = &c->lay.boxes[i];
    const char *name = tui_model_func_name(t->m, c->tree->nodes[b->node].func);
    int sel = b->node == c->sel;
    int match = c->needle[0] && b->node != 0 && tui_match(name, c->needle);
    unsigned int a = box_attr(c, node_kind(t, c->tree, b->node), name, sel, match);
    int x = r->x + b->x, room = b->w > 1 ? b->w - 1 : 1; /* the last column: a gap */

    if (b->w - 1 >= 2)
        tui_put(t, y, x, room, a, name, 1);
    else
        tui_put(t, y, x, room, a, "", 1);
}

void tui_flame_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct flame *c = st;
    char title[640], desc[160], zoom[200] = "", match[200] = "";
    const struct model_tree *tree = c->tree;
    int page = r->h > 2 ? r->h - 2 : 0, seld = 0;

    if (c->pairs == 0)
        init_pairs(t, c);
    if (r->w != c->width)
        relayout(t, c, r->w);
    tui_filter_desc(t->m, &t->filter, desc, sizeof(desc));
    /* what the user asked for first: an 80-column title keeps them */
    if (c->needle[0])
        snprintf(match, sizeof(match), "  match \"%.60s\": %.1f%%", c->needle,
                 tui_pct(c->match_samples, tree ? tree->total : 0));
    if (tree && tree->count > 0 && c->zoom != 0)
        snprintf(zoom, sizeof(zoom), "  zoom: %.120s %.1f%%",
                 tui_model_func_name(t->m, tree->nodes[c->zoom].func),
                 tui_pct(tree->nodes[c->zoom].inclusive, tree->total));
    if (c->by_gpu)
        snprintf(title, sizeof(title), "Flame graph by GPU time%s%s  %.3f ms, %s", match, zoom,
                 (double)(tree ? tree->total : 0) / 1e6, desc);
    else
        snprintf(title, sizeof(title), "Flame graph%s%s  %llu samples, %s", match, zoom,
                 (unsigned long long)(tree ? tree->total : 0), desc);
    if (r->h >= 1)
        tui_put(t, r->y, r->x, r->w, tui_style(t, TUI_S_TITLE), title, 1);
    if (r->h >= 2)
        draw_legend(t, c, r->y + 1, r);
    if (!tree || tree->total == 0) {
        if (page >= 1)
            tui_put(t, r->y + 2, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), "no samples yet", 0);
        return;
    }
    /* scroll so that the selected frame's row is shown */
    for (int i = 0; i < c->lay.count; i++)
        if (c->lay.boxes[i].node == c->sel)
            seld = c->lay.boxes[i].depth;
    if (seld < c->top)
        c->top = seld;
    if (page > 0 && seld >= c->top + page)
        c->top = seld - page + 1;
    if (c->top > 0 && c->top + page > c->lay.rows)
        c->top = c->lay.rows > page ? c->lay.rows - page : 0;
    for (int i = 0; i < c->lay.count; i++) {
        int d = c->lay.boxes[i].depth - c->top;
        if (d >= 0 && d < page)
            draw_box(t, c, i, r->y + 2 + d, r);
    }
    if (c->lay.rows > page && page > 0) { /* deeper than the screen: say which rows show */
        char more[64];
        int w = snprintf(more, sizeof(more), " rows %d-%d of %d ", c->top + 1,
                         c->top + page < c->lay.rows ? c->top + page : c->lay.rows, c->lay.rows);
        if (w < r->w)
            tui_put(t, r->y, r->x + r->w - w, w, tui_style(t, TUI_S_LABEL), more, 0);
    }
}

/* Zoom into node (0: the whole graph) and lay out again. */
static void set_zoom(struct tui *t, struct flame *c, int node)
{
    c->zoom = node;
    c->top = 0;
    if (!in_subtree(c->tree, c->sel, node))
        c->sel = node;
    relayout(t, c, c->width);
}

const struct tui_key_help tui_flame_help[] = {
    {"Arrows", "flame graph: parent, hottest child, frame left / right"},
    {"Enter Esc Bksp", "flame graph: zoom into the frame / out one level"},
    {"b", "flame graph: width by samples / by GPU time launched below"},
    {NULL, NULL},
};

int tui_flame_key(struct tui *t, void *st, int key)
{
    struct flame *c = st;
    int box, dir = -1;

    if (!c->tree || c->tree->count == 0)
        return 0;
    box = tui_flame_box_of(&c->lay, c->sel);
    if (key == 'b') { /* by GPU time of the kernels launched below, or by samples */
        struct model_filter f = t->filter;
        struct model_tree *probe;
        f.with_gpu = 1;
        probe = c->by_gpu ? NULL : model_tree_build(t->m, &f);
        if (probe && probe->gpu_ns == 0)
            tui_message(t, "no GPU time of kernels launched through HIP to draw by");
        else
            c->by_gpu = !c->by_gpu;
        model_tree_free(probe);
        c->zoom_hash = c->sel_hash = 0;
        tui_flame_rebuild(t, c);
        return 1;
    }
    switch (key) {
    case KEY_UP:
    case 'k':
        dir = TUI_FLAME_UP;
        break;
    case KEY_DOWN:
    case 'j':
        dir = TUI_FLAME_DOWN;
        break;
    case KEY_LEFT:
        dir = TUI_FLAME_LEFT;
        break;
    case KEY_RIGHT:
    case 'l':
        dir = TUI_FLAME_RIGHT;
        break;
    case KEY_HOME:
    case 'g':
        c->sel = c->zoom;
        note(c);
        return 1;
    case '\n':
    case '\r':
    case KEY_ENTER:
        set_zoom(t, c, c->sel);
        return 1;
    case KEY_ESC:
    case KEY_BACKSPACE:
    case 127:
    case 8:
        if (c->zoom != 0)
            set_zoom(t, c, c->tree->nodes[c->zoom].parent);
        else if (key == KEY_ESC && c->needle[0])
            c->needle[0] = '\0'; /* at the top, Esc drops the highlight */
        return 1;
    default:
        return 0;
    }
    box = tui_flame_move(c->tree, &c->lay, box, dir);
    if (box >= 0)
        c->sel = c->lay.boxes[box].node;
    note(c);
    return 1;
}

/* Index of the first box after box (in layout order, wrapping) whose name contains needle. */
static int next_match(struct tui *t, const struct flame *c, int box, const char *needle)
{
    for (int k = 1; k <= c->lay.count; k++) {
        int i = (box + k) % c->lay.count;
        int node = c->lay.boxes[i].node;
        if (node != 0 && tui_match(tui_model_func_name(t->m, c->tree->nodes[node].func), needle))
            return i;
    }
    return -1;
}

int tui_flame_search(struct tui *t, void *st, const char *needle)
{
    struct flame *c = st;
    struct tui_tree_order o = {c->tree, TUI_SORT_INCL, tui_model_func_name, t->m};
    int box, i;

    snprintf(c->needle, sizeof(c->needle), "%s", needle);
    c->match_samples = tui_flame_match_samples(&o, c->needle);
    if (!c->tree || c->match_samples == 0)
        return 0;
    box = tui_flame_box_of(&c->lay, c->sel);
    i = next_match(t, c, box < 0 ? 0 : box, needle);
    if (i < 0 && c->zoom != 0) { /* none in the zoomed part: look at the whole graph */
        set_zoom(t, c, 0);
        i = next_match(t, c, 0, needle);
    }
    if (i >= 0) {
        c->sel = c->lay.boxes[i].node;
        note(c);
    } else {
        tui_message(t, "\"%s\": %.1f%% of the samples, in frames too narrow to show", needle,
                    tui_pct(c->match_samples, c->tree->total));
    }
    return 1;
}

void tui_flame_status(struct tui *t, void *st, char *buf, size_t n)
{
    struct flame *c = st;
    const struct model_node *nd;
    char loc[512];

    if (n)
        buf[0] = '\0';
    if (!c->tree || c->tree->count == 0 || c->tree->total == 0)
        return;
    nd = &c->tree->nodes[c->sel];
    tui_func_location(t->m, nd->func, loc, sizeof(loc));
    snprintf(buf, n,
             c->by_gpu ? "%.100s: %llu ns GPU, %.1f%% (self %.1f%%)%s%.200s"
                       : "%.100s: %llu samples, %.1f%% (self %.1f%%)%s%.200s",
             tui_model_func_name(t->m, nd->func), (unsigned long long)nd->inclusive,
             tui_pct(nd->inclusive, c->tree->total), tui_pct(nd->self, c->tree->total),
             loc[0] ? "  " : "", loc);
}

void tui_flame_batch(FILE *out, struct model *m, int max_rows)
{
    struct model_filter f = {.thread = -1, .window = 0, .min_ppm = FLAME_BATCH_MIN_PPM};
    struct model_tree *tree = flame_tree(m, &f, 0);
    struct tui_tree_order o = {tree, TUI_SORT_INCL, tui_model_func_name, m};
    struct tui_flame lay = {0};
    char desc[160], line[8 * FLAME_BATCH_COLS];

    tui_filter_desc(m, &f, desc, sizeof(desc));
    fprintf(out, "== Flame graph: %s  (%llu samples, %d columns = 100%%) ==\n", desc,
            (unsigned long long)(tree ? tree->total : 0), FLAME_BATCH_COLS);
    if (!tree || tree->total == 0)
        goto out;
    tui_flame_layout(&o, 0, FLAME_BATCH_COLS, max_rows, &lay);
    for (int d = 0; d < lay.rows; d++) {
        tui_flame_text_row(&lay, tree, d, tui_model_func_name, m, line, sizeof(line));
        fprintf(out, "%s\n", line);
    }
out:
    tui_flame_free(&lay);
    model_tree_free(tree);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(flame, "Flame graph", '0', "Flame", .key = tui_flame_key,
                .search = tui_flame_search, .help = tui_flame_help);
