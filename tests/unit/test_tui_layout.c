/* Unit tests of the TUI's pure parts: layout math, formatting, text fitting, sanitizing,
 * list navigation and columns, and call-tree flattening/sorting/search with expand/collapse
 * state. */
#include "tui/list.h"
#include "tui/tui_internal.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

/* ---- layout ---- */

/* Is r inside a rows x cols screen (empty rects count as inside)? */
static int rect_inside(const struct tui_rect *r, int rows, int cols)
{
    if (r->h == 0 || r->w == 0)
        return 1;
    return r->y >= 0 && r->x >= 0 && r->h > 0 && r->w > 0 && r->y + r->h <= rows &&
           r->x + r->w <= cols;
}

/* Do two rects share a cell? */
static int rects_overlap(const struct tui_rect *a, const struct tui_rect *b)
{
    if (a->h <= 0 || a->w <= 0 || b->h <= 0 || b->w <= 0)
        return 0;
    return a->y < b->y + b->h && b->y < a->y + a->h && a->x < b->x + b->w && b->x < a->x + a->w;
}

/* Layout invariants for one size. */
static void check_layout(int rows, int cols, int header_want)
{
    struct tui_layout l;
    const struct tui_rect *r[4];

    tui_layout_compute(rows, cols, header_want, &l);
    r[0] = &l.header;
    r[1] = &l.tabs;
    r[2] = &l.body;
    r[3] = &l.status;
    for (int i = 0; i < 4; i++) {
        CHECK(rect_inside(r[i], rows, cols));
        for (int k = i + 1; k < 4; k++)
            CHECK(!rects_overlap(r[i], r[k]));
    }
    if (rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS) {
        CHECK(l.too_small);
        return;
    }
    CHECK(!l.too_small);
    CHECK(l.header.y == 0 && l.header.h >= 2);
    CHECK(l.tabs.h == 1 && l.tabs.y == l.header.y + l.header.h);
    CHECK(l.body.y == l.tabs.y + 1);
    CHECK(l.body.h >= 3); /* title, column headings, at least one row */
    CHECK(l.status.h == 1 && l.status.y == rows - 1);
    CHECK(l.body.y + l.body.h == l.status.y); /* nothing lost between them */
    for (int i = 0; i < 4; i++)
        CHECK(r[i]->x == 0 && r[i]->w == cols);
    if (header_want >= 2) /* as many lines as wanted, when the size allows them */
        CHECK(l.header.h <= header_want);
}

static void test_layout(void)
{
    static const int sizes[][2] = {
        {10, 20}, {0, 0},  {-1, -5}, {1, 1},    {24, 80}, {60, 200}, {7, 80},
        {8, 39},  {8, 40}, {13, 40}, {14, 100}, {23, 79}, {40, 120}, {1000, 1000},
    };
    struct tui_layout l;

    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
        for (int want = 0; want < 12; want++)
            check_layout(sizes[i][0], sizes[i][1], want);
    for (int rows = 0; rows < 70; rows++)
        for (int cols = 0; cols < 130; cols += 3)
            for (int want = 0; want < 10; want += 3)
                check_layout(rows, cols, want);

    tui_layout_compute(10, 20, 0, &l);
    CHECK(l.too_small);
    tui_layout_compute(24, 80, 0, &l);
    CHECK(!l.too_small);
    CHECK(l.body.h >= 15);
    tui_layout_compute(60, 200, 0, &l);
    CHECK(!l.too_small && l.header.h > 5 && l.body.w == 200);
    /* one process, no GPU line, no notice: 3 lines, none blank; many processes: the cap */
    tui_layout_compute(60, 200, 3, &l);
    CHECK(l.header.h == 3 && l.tabs.y == 3);
    tui_layout_compute(60, 200, 1, &l);
    CHECK(l.header.h == 2);
    tui_layout_compute(60, 200, 50, &l);
    CHECK(l.header.h == 7);
    tui_layout_compute(20, 80, 50, &l);
    CHECK(l.header.h == 3);
}

/* ---- formatting ---- */

static void test_format(void)
{
    char b[64];

    tui_format_pct(b, sizeof(b), 1, 3);
    CHECK_STR(b, "33.3");
    tui_format_pct(b, sizeof(b), 2, 3);
    CHECK_STR(b, "66.7");
    tui_format_pct(b, sizeof(b), 5, 5);
    CHECK_STR(b, "100.0");
    tui_format_pct(b, sizeof(b), 0, 0);
    CHECK_STR(b, "0.0");
    tui_format_pct(b, sizeof(b), 1, 2000);
    CHECK_STR(b, "0.1");
    CHECK(tui_pct(7, 0) == 0.0);

    tui_format_bytes(b, sizeof(b), 512);
    CHECK_STR(b, "512 B");
    tui_format_bytes(b, sizeof(b), 2202009);
    CHECK_STR(b, "2.1 MiB");
    tui_format_bytes(b, sizeof(b), 1536);
    CHECK_STR(b, "1.5 KiB");
    tui_format_bytes(b, sizeof(b), 3ull << 30);
    CHECK_STR(b, "3.0 GiB");

    tui_format_duration(b, sizeof(b), 3000000000ull);
    CHECK_STR(b, "3.0s");
    tui_format_duration(b, sizeof(b), 125000000000ull);
    CHECK_STR(b, "2m05s");
    tui_format_duration(b, sizeof(b), 3720000000000ull);
    CHECK_STR(b, "1h02m");

    CHECK_STR(tui_basename("/usr/lib/libc.so.6"), "libc.so.6");
    CHECK_STR(tui_basename("demo.c"), "demo.c");
    CHECK(tui_basename(NULL) == NULL);

    CHECK(tui_match("demo_Solve", "solve"));
    CHECK(tui_match("anything", ""));
    CHECK(!tui_match("main", "solve"));
    CHECK(!tui_match(NULL, "x"));
    CHECK_STR(tui_sort_name(TUI_SORT_INCL), "inclusive");
    CHECK_STR(tui_sort_name(TUI_SORT_SELF), "self");
    CHECK_STR(tui_sort_name(TUI_SORT_NAME), "name");
}

/* ---- fitting text ---- */

static void test_fit(void)
{
    char b[128];
    int w;

    w = tui_fit(b, sizeof(b), "short", 10, 0);
    CHECK_STR(b, "short");
    CHECK(w == 5);
    w = tui_fit(b, sizeof(b), "exactly10!", 10, 0);
    CHECK_STR(b, "exactly10!");
    CHECK(w == 10);
    w = tui_fit(b, sizeof(b), "a_very_long_function_name", 10, 0);
    CHECK_STR(b, "a_very_...");
    CHECK(w == 10);
    w = tui_fit(b, sizeof(b), "a_very_long_function_name", 10, 1);
    CHECK_STR(b, "a_very_lo\xe2\x80\xa6"); /* 9 columns and "…" */
    CHECK(w == 10);
    w = tui_fit(b, sizeof(b), "abcdef", 2, 0); /* no room for "...": plain cut */
    CHECK_STR(b, "ab");
    CHECK(w == 2);
    w = tui_fit(b, sizeof(b), "abcdef", 1, 1);
    CHECK_STR(b, "\xe2\x80\xa6");
    CHECK(w == 1);
    w = tui_fit(b, sizeof(b), "abc", 0, 1);
    CHECK_STR(b, "");
    CHECK(w == 0);
    w = tui_fit(b, sizeof(b), "tab\there", 20, 0); /* control characters never reach curses */
    CHECK_STR(b, "tab?here");
    /* non-ASCII: '?' per byte without UTF-8, kept (one column) with UTF-8 */
    w = tui_fit(b, sizeof(b), "caf\xc3\xa9", 10, 0);
    CHECK_STR(b, "caf??");
    w = tui_fit(b, sizeof(b), "caf\xc3\xa9", 10, 1);
    CHECK_STR(b, "caf\xc3\xa9");
    CHECK(w == 4);
    CHECK(tui_text_width("caf\xc3\xa9", 1) == 4);
    /* a multibyte character is never split, invalid UTF-8 becomes '?' */
    w = tui_fit(b, sizeof(b), "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, 1);
    CHECK_STR(b, "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
    w = tui_fit(b, sizeof(b), "a\xff\xc3z", 10, 1);
    CHECK_STR(b, "a??z");
    /* the output buffer bounds the copy */
    w = tui_fit(b, 6, "abcdefghij", 100, 0);
    CHECK_STR(b, "abcde");
    /* display width of wide characters in a UTF-8 locale */
    if (setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "en_US.UTF-8")) {
        CHECK(tui_text_width("\xe6\x97\xa5\xe6\x9c\xac", 1) == 4); /* two CJK characters */
        w = tui_fit(b, sizeof(b), "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e", 4, 1);
        CHECK(w <= 4);
        setlocale(LC_CTYPE, "C");
    }
}

/* Names cut in the middle keep their start and their end. */
static void test_fit_middle(void)
{
    const char *k = "saxpy_kernel<float, 256>(float*, float const*, float, int)";
    char b[128];
    int w;

    w = tui_fit_middle(b, sizeof(b), "short", 10, 1); /* fits: unchanged */
    CHECK_STR(b, "short");
    CHECK(w == 5);
    w = tui_fit_middle(b, sizeof(b), "exactly10!", 10, 1);
    CHECK_STR(b, "exactly10!");
    w = tui_fit_middle(b, sizeof(b), k, 21, 1); /* 10 + "…" + 10 */
    CHECK_STR(b, "saxpy_kern\xe2\x80\xa6loat, int)");
    CHECK(w == 21);
    w = tui_fit_middle(b, sizeof(b), k, 20, 1); /* odd room: the start gets the extra column */
    CHECK_STR(b, "saxpy_kern\xe2\x80\xa6oat, int)");
    CHECK(w == 20);
    w = tui_fit_middle(b, sizeof(b), k, 13, 0); /* ASCII: "..." */
    CHECK_STR(b, "saxpy... int)");
    CHECK(w == 13);
    CHECK(tui_text_width(b, 0) == w);
    w = tui_fit_middle(b, sizeof(b), "abcdefghij", 3, 1); /* one column each side */
    CHECK_STR(b, "a\xe2\x80\xa6j");
    w = tui_fit_middle(b, sizeof(b), "abcdefghij", 2, 1); /* too narrow for a middle: cut */
    CHECK_STR(b, "a\xe2\x80\xa6");
    w = tui_fit_middle(b, sizeof(b), "abc", 0, 1);
    CHECK_STR(b, "");
    CHECK(w == 0);
    w = tui_fit_middle(b, sizeof(b), "ctrl\tchars\x01in the middle", 9, 1);
    CHECK_STR(b, "ctrl\xe2\x80\xa6"
                 "ddle");
    w = tui_fit_middle(b, sizeof(b), "a\tb\tc\td\te\tf", 5, 1); /* control characters */
    CHECK_STR(b, "a?\xe2\x80\xa6?f");
    /* a multibyte character is never split */
    w = tui_fit_middle(b, sizeof(b), "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 5, 1);
    CHECK_STR(b, "\xc3\xa9\xc3\xa9\xe2\x80\xa6\xc3\xa9\xc3\xa9");
    CHECK(w == 5);
    /* the output buffer bounds the copy */
    w = tui_fit_middle(b, 8, k, 21, 1);
    CHECK(strlen(b) < 8);
    if (setlocale(LC_CTYPE, "C.UTF-8") || setlocale(LC_CTYPE, "en_US.UTF-8")) {
        /* wide characters: at most the width, never half a character */
        w = tui_fit_middle(b, sizeof(b),
                           "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe6\x97\xa5\xe6\x9c\xac", 6, 1);
        CHECK(w <= 6 && tui_text_width(b, 1) == w);
        setlocale(LC_CTYPE, "C");
    }
}

static void test_sanitize(void)
{
    char b[128];

    tui_sanitize(b, sizeof(b), "\x1b[31mred\x1b[0m text");
    CHECK_STR(b, "red text");
    tui_sanitize(b, sizeof(b),
                 "\x1b]0;title\x07"
                 "after");
    CHECK_STR(b, "after");
    tui_sanitize(b, sizeof(b), "a\tb");
    CHECK_STR(b, "a       b");
    tui_sanitize(b, sizeof(b), "progress 10%\rprogress 20%");
    CHECK_STR(b, "progress 20%");
    tui_sanitize(b, sizeof(b), "dos line\r");
    CHECK_STR(b, "dos line");
    tui_sanitize(b, sizeof(b), "bell\x07!");
    CHECK_STR(b, "bell?!");
    tui_sanitize(b, 4, "abcdef");
    CHECK_STR(b, "abc");
}

/* ---- list navigation ---- */

static void test_list(void)
{
    struct tui_list l = {0, 0};

    CHECK(tui_list_nav(&l, TUI_NAV_UP, 100, 10));
    CHECK(l.sel == 0 && l.top == 0);
    for (int i = 0; i < 12; i++)
        tui_list_nav(&l, TUI_NAV_DOWN, 100, 10);
    CHECK(l.sel == 12);
    CHECK(l.top == 3); /* selection on the last visible row */
    tui_list_nav(&l, TUI_NAV_END, 100, 10);
    CHECK(l.sel == 99 && l.top == 90);
    tui_list_nav(&l, TUI_NAV_PGUP, 100, 10);
    CHECK(l.sel == 89 && l.top <= 89 && l.sel < l.top + 10);
    tui_list_nav(&l, TUI_NAV_HOME, 100, 10);
    CHECK(l.sel == 0 && l.top == 0);
    tui_list_nav(&l, TUI_NAV_PGDN, 5, 10); /* short list */
    CHECK(l.sel == 4 && l.top == 0);
    CHECK(!tui_list_nav(&l, TUI_NAV_NONE, 5, 10));
    l.sel = 50;
    l.top = 45;
    tui_list_fit(&l, 20, 10); /* the list shrank */
    CHECK(l.sel == 19 && l.top == 10);
    tui_list_fit(&l, 0, 10); /* empty */
    CHECK(l.sel == 0 && l.top == 0);
}

/* ---- call trees ---- */

static const char *const names[] = {"main", "solve", "alpha", "beta", "zeta", "io_wait"};

static const char *name_of(const void *ctx, int func)
{
    (void)ctx;
    return func < 0 ? "[all]" : names[func];
}

/*
 * [all] 100
 *   main 90 (self 5)
 *     solve 60 (self 10)
 *       alpha 30 (self 30)
 *       beta 20 (self 20)
 *     zeta 25 (self 25)
 *   io_wait 10 (self 10)
 */
static struct model_node tree_nodes[] = {
    /* func, parent, first_child, next_sibling, depth, hidden, inclusive, self, path_hash */
    {-1, -1, 6, -1, 0, 0, 100, 0, 1},   /* 0 [all] */
    {0, 0, 5, -1, 1, 0, 90, 5, 11},     /* 1 main */
    {1, 1, 4, -1, 2, 0, 60, 10, 111},   /* 2 solve */
    {2, 2, -1, -1, 3, 0, 30, 30, 1111}, /* 3 alpha */
    {3, 2, -1, 3, 3, 0, 20, 20, 1112},  /* 4 beta (siblings in no particular order) */
    {4, 1, -1, 2, 2, 0, 25, 25, 112},   /* 5 zeta */
    {5, 0, -1, 1, 1, 0, 10, 10, 12},    /* 6 io_wait */
};
static const struct model_tree tree = {tree_nodes, 7, 100};

/* The visible rows' nodes as a string like "0 1 2 3 4 5 6". */
static void rows_str(const struct tui_tree_rows *r, char *buf, size_t n)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < r->count && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, "%s%d", i ? " " : "", r->rows[i].node);
}

static void test_tree(void)
{
    struct tui_tree_order o = {&tree, TUI_SORT_INCL, name_of, NULL};
    struct tui_expand e = {0};
    struct tui_tree_rows r = {0};
    int *kids = NULL, cap = 0, n;
    char s[128];

    /* children orders */
    n = tui_tree_children(&o, 1, &kids, &cap);
    CHECK(n == 2 && kids[0] == 2 && kids[1] == 5); /* solve 60, zeta 25 */
    o.sort = TUI_SORT_SELF;
    n = tui_tree_children(&o, 1, &kids, &cap);
    CHECK(n == 2 && kids[0] == 5 && kids[1] == 2); /* zeta self 25, solve self 10 */
    o.sort = TUI_SORT_NAME;
    n = tui_tree_children(&o, 0, &kids, &cap);
    CHECK(n == 2 && kids[0] == 6 && kids[1] == 1); /* io_wait, main */
    n = tui_tree_children(&o, 3, &kids, &cap);
    CHECK(n == 0);
    o.sort = TUI_SORT_INCL;

    /* default: the hottest path is open (root, main, solve), alpha and beta are leaves */
    tui_tree_flatten(&o, &e, &r);
    rows_str(&r, s, sizeof(s));
    CHECK_STR(s, "0 1 2 3 4 5 6");
    CHECK(r.rows[0].expanded && r.rows[1].expanded && r.rows[2].expanded);
    CHECK(!r.rows[3].has_children && !r.rows[3].expanded);
    CHECK(r.rows[5].node == 5 && !r.rows[5].has_children);
    CHECK(r.rows[2].depth == 2 && r.rows[3].depth == 3);

    /* collapse solve: its children disappear, the rest stays */
    tui_expand_set(&e, 111, TUI_EXP_CLOSED);
    tui_tree_flatten(&o, &e, &r);
    rows_str(&r, s, sizeof(s));
    CHECK_STR(s, "0 1 2 5 6");
    CHECK(r.rows[2].has_children && !r.rows[2].expanded);

    /* collapse main: only main and io_wait under the root */
    tui_expand_set(&e, 11, TUI_EXP_CLOSED);
    tui_tree_flatten(&o, &e, &r);
    rows_str(&r, s, sizeof(s));
    CHECK_STR(s, "0 1 6");

    /* re-open main: solve stays closed (the user's choice is remembered) */
    tui_expand_set(&e, 11, TUI_EXP_OPEN);
    tui_tree_flatten(&o, &e, &r);
    rows_str(&r, s, sizeof(s));
    CHECK_STR(s, "0 1 2 5 6");
    CHECK(tui_tree_row_of(&r, 5) == 3);
    CHECK(tui_tree_row_of(&r, 3) == -1);

    /* sort by name changes the order of children */
    o.sort = TUI_SORT_NAME;
    tui_expand_set(&e, 111, TUI_EXP_OPEN);
    tui_tree_flatten(&o, &e, &r);
    rows_str(&r, s, sizeof(s));
    CHECK_STR(s, "0 6 1 2 3 4 5");
    o.sort = TUI_SORT_INCL;

    /* collapsing the root hides everything else */
    tui_expand_set(&e, 1, TUI_EXP_CLOSED);
    tui_tree_flatten(&o, &e, &r);
    rows_str(&r, s, sizeof(s));
    CHECK_STR(s, "0");
    tui_expand_free(&e);

    /* the expand memory survives growth (many keys) */
    for (uint64_t k = 0; k < 5000; k++)
        tui_expand_set(&e, k * 7919 + 3, (k & 1) ? TUI_EXP_OPEN : TUI_EXP_CLOSED);
    for (uint64_t k = 0; k < 5000; k++)
        CHECK(tui_expand_get(&e, k * 7919 + 3) == ((k & 1) ? TUI_EXP_OPEN : TUI_EXP_CLOSED));
    CHECK(tui_expand_get(&e, 2) == TUI_EXP_DEFAULT);
    tui_expand_free(&e);

    /* search: in display order, wrapping, case-insensitive; reveal opens the path */
    CHECK(tui_tree_find(&o, 0, "BETA") == 4);
    CHECK(tui_tree_find(&o, 0, "a") == 1);    /* "main" comes first in display order */
    CHECK(tui_tree_find(&o, 1, "a") == 3);    /* then alpha */
    CHECK(tui_tree_find(&o, 3, "a") == 4);    /* beta */
    CHECK(tui_tree_find(&o, 6, "main") == 1); /* wraps around */
    CHECK(tui_tree_find(&o, 0, "nothing") == -1);
    CHECK(tui_tree_find(&o, 0, "all") == -1); /* the synthetic root is not a match */
    tui_expand_set(&e, 11, TUI_EXP_CLOSED);
    tui_expand_set(&e, 111, TUI_EXP_CLOSED);
    tui_tree_reveal(&tree, &e, 4);
    tui_tree_flatten(&o, &e, &r);
    CHECK(tui_tree_row_of(&r, 4) >= 0);
    tui_expand_free(&e);

    tui_tree_rows_free(&r);
    free(kids);
}

static void test_hot_sort(void)
{
    struct model_hot items[] = {
        {0, 5, 90}, {1, 10, 60}, {2, 30, 30}, {3, 20, 20}, {4, 25, 25}, {5, 10, 10},
    };
    int n = (int)(sizeof(items) / sizeof(items[0]));

    tui_hot_sort(items, n, TUI_SORT_SELF, name_of, NULL);
    CHECK(items[0].func == 2 && items[1].func == 4 && items[2].func == 3);
    CHECK(items[3].func == 1 && items[4].func == 5); /* self ties: inclusive decides */
    tui_hot_sort(items, n, TUI_SORT_INCL, name_of, NULL);
    CHECK(items[0].func == 0 && items[1].func == 1 && items[5].func == 5);
    tui_hot_sort(items, n, TUI_SORT_NAME, name_of, NULL);
    CHECK(items[0].func == 2 && items[1].func == 3 && items[2].func == 5);
    CHECK(items[5].func == 4); /* zeta last */
}

/* ---- list columns: the drop order when narrow, columns a setting hides ---- */

/* Cells of the test's columns: the row number with the column's letter. */
static void cell_a(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m, (void)rows;
    snprintf(buf, n, "a%d", row);
}

static void cell_b(struct model *m, const void *rows, int row, char *buf, size_t n)
{
    (void)m, (void)rows;
    snprintf(buf, n, "b%d", row);
}

static void test_list_columns(void)
{
    /* A (always), B (dropped second, hidden by bit 0), C (dropped first), the name */
    static const struct tui_list_column c[] = {
        {"A", 4, 0, -1, cell_a},
        {"B", 6, 1, -1, cell_b, 2, 1, 1},
        {"C", 5, 2, -1, cell_a, 1, 0},
        {"NAME", 0, 0, -1, NULL, 1},
    };
    char buf[128];
    int show[4];

    /* wide: every column, the name gets what is left (4 + 6 + 5 + 1 blank before it) */
    CHECK(tui_list_fit_columns(c, 4, 40, 10, 0, show) == 24);
    CHECK(show[0] && show[1] && show[2] && show[3]);
    tui_list_heading(c, 4, show, buf, sizeof(buf));
    CHECK(strcmp(buf, "   A  B       C NAME") == 0);
    tui_list_cells(NULL, c, 4, show, NULL, 7, buf, sizeof(buf));
    CHECK(strcmp(buf, "  a7  b7     a7") == 0);
    /* narrow: C (the highest drop) goes first, then B; A and the name never */
    CHECK(tui_list_fit_columns(c, 4, 25, 10, 0, show) == 14);
    CHECK(show[0] && show[1] && !show[2] && show[3]);
    CHECK(tui_list_fit_columns(c, 4, 18, 10, 0, show) == 13);
    CHECK(show[0] && !show[1] && !show[2] && show[3]);
    tui_list_heading(c, 4, show, buf, sizeof(buf));
    CHECK(strcmp(buf, "   A NAME") == 0);
    CHECK(tui_list_fit_columns(c, 4, 3, 10, 0, show) == 0); /* no room at all */
    CHECK(show[0] && !show[1] && !show[2] && show[3]);
    /* hidden by the setting: its room goes to the name, after the drops were decided */
    CHECK(tui_list_fit_columns(c, 4, 40, 10, 1u, show) == 30);
    CHECK(show[0] && !show[1] && show[2] && show[3]);
    CHECK(tui_list_fit_columns(c, 4, 25, 10, 1u, show) == 20);
    CHECK(show[0] && !show[1] && !show[2] && show[3]);
    CHECK(tui_list_fit_columns(c, 4, 40, 10, 2u, show) == 24); /* another bit: no column */
    CHECK(show[1]);
}

int main(void)
{
    test_layout();
    test_format();
    test_fit();
    test_fit_middle();
    test_sanitize();
    test_list();
    test_tree();
    test_hot_sort();
    test_list_columns();
    return check_summary();
}
