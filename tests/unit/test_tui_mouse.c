/* Unit tests of the mouse's hit-testing (tui/hittest.c): the tab under a column of the tab bar
 * (checked against the tab bar's own text), the column heading under a column of a headings
 * line, and what a click in a list view hit (heading, row, the selected row, nothing). */
#include "tui/tui_internal.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

/* The tab bar's text as draw_tabs writes it: " K Name " and a blank per view. */
static void tab_text(const struct tui_view *views, int count, char *buf, size_t n)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < count && o < n; i++)
        o += (size_t)snprintf(buf + o, n - o, " %c %s  ", views[i].hotkey, views[i].name);
}

/* Every column of a tab bar hits the tab whose label covers it, and only that. */
static void check_tabs(const struct tui_view *views, int count, int width)
{
    char bar[1024];
    int len;

    tab_text(views, count, bar, sizeof(bar));
    len = (int)strlen(bar);
    for (int x = -2; x < width + 3; x++) {
        int tab = tui_tab_at(views, count, x, width);
        if (x < 0 || x >= width || x >= len) {
            CHECK_MSG(tab == -1, "x %d width %d: tab %d", x, width, tab);
            continue;
        }
        if (tab < 0) { /* a blank between two tabs, after " Name " */
            CHECK_MSG(bar[x] == ' ' && x > 0 && bar[x - 1] == ' ', "x %d: no tab", x);
            continue;
        }
        /* the tab's label "K Name" is the one that column x falls into */
        {
            char label[96];
            const char *at;
            int start;
            snprintf(label, sizeof(label), " %c %s ", views[tab].hotkey, views[tab].name);
            at = strstr(bar, label);
            start = at ? (int)(at - bar) : -100;
            CHECK_MSG(x >= start && x < start + (int)strlen(label), "x %d: tab %d (%s)", x, tab,
                      views[tab].name);
        }
    }
}

static void test_tabs(void)
{
    static const struct tui_view fake[] = {{.name = "One", .hotkey = '1'},
                                           {.name = "Two words", .hotkey = '2'},
                                           {.name = "X", .hotkey = '3'}};

    /* " 1 One " is columns 0-6, a blank at 7, " 2 Two words " 8-20, a blank, " 3 X " 22-26 */
    CHECK(tui_tab_at(fake, 3, 0, 80) == 0);
    CHECK(tui_tab_at(fake, 3, 6, 80) == 0);
    CHECK(tui_tab_at(fake, 3, 7, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 8, 80) == 1);
    CHECK(tui_tab_at(fake, 3, 20, 80) == 1);
    CHECK(tui_tab_at(fake, 3, 21, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 22, 80) == 2);
    CHECK(tui_tab_at(fake, 3, 26, 80) == 2);
    CHECK(tui_tab_at(fake, 3, 27, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 40, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 24, 24) == -1); /* cut by the terminal's width */
    CHECK(tui_tab_at(fake, 3, 23, 24) == 2);
    CHECK(tui_tab_at(fake, 0, 0, 80) == -1);
    for (int w = 1; w < 40; w++)
        check_tabs(fake, 3, w);
    /* the real view table, at the sizes people use */
    check_tabs(tui_views, tui_view_count, 80);
    check_tabs(tui_views, tui_view_count, 120);
    check_tabs(tui_views, tui_view_count, 200);
}

static void test_columns(void)
{
    const char *cols = "  SELF%  INCL%  SAMPLES  FUNCTION";
    char label[32];

    CHECK(tui_column_at(cols, 0, label, sizeof(label)) && strcmp(label, "SELF%") == 0);
    CHECK(tui_column_at(cols, 6, label, sizeof(label)) && strcmp(label, "SELF%") == 0);
    CHECK(tui_column_at(cols, 7, label, sizeof(label)) && strcmp(label, "INCL%") == 0);
    CHECK(tui_column_at(cols, 13, label, sizeof(label)) && strcmp(label, "INCL%") == 0);
    CHECK(tui_column_at(cols, 14, label, sizeof(label)) && strcmp(label, "SAMPLES") == 0);
    CHECK(tui_column_at(cols, 22, label, sizeof(label)) && strcmp(label, "SAMPLES") == 0);
    CHECK(tui_column_at(cols, 23, label, sizeof(label)) && strcmp(label, "FUNCTION") == 0);
    CHECK(tui_column_at(cols, 33, label, sizeof(label)) && strcmp(label, "FUNCTION") == 0);
    CHECK(tui_column_at(cols, 200, label, sizeof(label)) && strcmp(label, "FUNCTION") == 0);
    CHECK(!tui_column_at(cols, -1, label, sizeof(label)));
    CHECK(!tui_column_at("    ", 2, label, sizeof(label)));
    CHECK(!tui_column_at("", 0, label, sizeof(label)));
    CHECK(!tui_column_at(NULL, 0, label, sizeof(label)));
    CHECK(tui_column_at(cols, 30, label, 4) && strcmp(label, "FUN") == 0); /* cut to fit */
    /* every column of a headings line lands on the heading at or after it */
    for (int x = 0; x < (int)strlen(cols); x++) {
        const char *end;
        CHECK(tui_column_at(cols, x, label, sizeof(label)));
        end = strstr(cols, label);
        CHECK_MSG(end && x < (int)(end - cols) + (int)strlen(label) &&
                      (x >= (int)(end - cols) || cols[x] == ' '),
                  "x %d: %s", x, label);
    }
}

static void test_sort_at(void)
{
    static const struct tui_sort_column map[] = {{"SELF%", 10}, {"INCL%", 11}, {"FUNCTION", 12}};
    const char *cols = "  SELF%  INCL%  SAMPLES  FUNCTION";

    CHECK(tui_sort_at(cols, 3, map, 3) == 10);
    CHECK(tui_sort_at(cols, 10, map, 3) == 11);
    CHECK(tui_sort_at(cols, 20, map, 3) == -1); /* SAMPLES: not in the map */
    CHECK(tui_sort_at(cols, 60, map, 3) == 12);
    CHECK(tui_sort_at(cols, 3, map, 0) == -1);
}

static void test_list_click(void)
{
    static const struct tui_sort_column map[] = {{"A", 1}, {"B", 2}};
    struct tui_list l = {.sel = 5, .top = 3};
    struct tui_mouse ev = {.kind = TUI_MOUSE_CLICK, .y = 0, .x = 1, .h = 12, .w = 40};
    int v;

    /* title line: nothing */
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_NONE && v == -1);
    /* headings: the sort */
    ev.y = 1;
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_SORT && v == 1);
    ev.x = 5;
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_SORT && v == 2);
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  C", map, 2, &v) == TUI_CLICK_NONE);
    /* rows: line 2 is row top */
    ev.y = 2;
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_SELECT && v == 3);
    ev.y = 4; /* row 5, the selected one */
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_AGAIN && v == 5);
    ev.y = 11; /* row 12, the last line the list has */
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_SELECT && v == 12);
    /* below the list's rows (another part of the view is drawn there) */
    CHECK(tui_list_click(&ev, &l, 20, 9, "  A  B", map, 2, &v) == TUI_CLICK_NONE);
    /* below the last row of a short list */
    CHECK(tui_list_click(&ev, &l, 8, 10, "  A  B", map, 2, &v) == TUI_CLICK_NONE);
    ev.y = 6;
    CHECK(tui_list_click(&ev, &l, 8, 10, "  A  B", map, 2, &v) == TUI_CLICK_SELECT && v == 7);
    /* outside the body, or not a click */
    ev.y = 12;
    CHECK(tui_list_click(&ev, &l, 20, 20, "  A  B", map, 2, &v) == TUI_CLICK_NONE);
    ev.y = 3;
    ev.x = 40;
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_NONE);
    ev.x = 0;
    ev.kind = TUI_MOUSE_WHEEL_DOWN;
    CHECK(tui_list_click(&ev, &l, 20, 10, "  A  B", map, 2, &v) == TUI_CLICK_NONE);
    /* an empty list */
    ev.kind = TUI_MOUSE_CLICK;
    l = (struct tui_list){0};
    CHECK(tui_list_click(&ev, &l, 0, 10, "  A  B", map, 2, &v) == TUI_CLICK_NONE);
}

int main(void)
{
    test_tabs();
    test_columns();
    test_sort_at();
    test_list_click();
    return check_summary();
}
