/* Unit tests of the mouse's hit-testing (tui/hittest.c): the tab under a column of the tab bar
 * (checked against the tab bar's own text), the column heading under a column of a headings
 * line, and what a click in a list view hit (heading, row, the selected row, nothing). */
#include "tui/tui_internal.h"

#include <stdio.h>
#include <string.h>

#include "check.h"

/* The tab bar's text as draw_tabs writes it from the layout: " K Label " (or " K ") at each
 * tab's column, blanks between. */
static void tab_text(const struct tui_view *const *views, int count, int current, int width,
                     char *buf, size_t n)
{
    struct tui_tab_place tabs[TUI_MAX_VIEWS];
    int placed = tui_tabs_layout(views, count, current, width, tabs);

    memset(buf, ' ', n - 1);
    buf[n - 1] = '\0';
    for (int i = 0; i < placed; i++) {
        char one[96];
        int len = *tabs[i].label
                      ? snprintf(one, sizeof(one), " %c %s ", views[i]->hotkey, tabs[i].label)
                      : snprintf(one, sizeof(one), " %c ", views[i]->hotkey);
        CHECK_MSG(len == tabs[i].w, "tab %d: width %d, text %d", i, tabs[i].w, len);
        if (tabs[i].x + len < (int)n)
            memcpy(buf + tabs[i].x, one, (size_t)len);
    }
}

/* Every column of a tab bar hits the tab whose text covers it, and only that; tabs do not
 * overlap and keep a blank between them. */
static void check_tabs(const struct tui_view *const *views, int count, int current, int width)
{
    struct tui_tab_place tabs[TUI_MAX_VIEWS];
    char bar[1024];
    int placed = tui_tabs_layout(views, count, current, width, tabs);

    tab_text(views, count, current, width, bar, sizeof(bar));
    for (int i = 1; i < placed; i++)
        CHECK_MSG(tabs[i].x == tabs[i - 1].x + tabs[i - 1].w + 1, "tab %d at %d", i, tabs[i].x);
    for (int x = -2; x < width + 3; x++) {
        int tab = tui_tab_at(views, count, current, x, width);
        if (x < 0 || x >= width) {
            CHECK_MSG(tab == -1, "x %d width %d: tab %d", x, width, tab);
            continue;
        }
        if (tab < 0) /* a blank between two tabs, or after the last */
            CHECK_MSG(bar[x] == ' ', "x %d: no tab but '%c'", x, bar[x]);
        else
            CHECK_MSG(x >= tabs[tab].x && x < tabs[tab].x + tabs[tab].w, "x %d: tab %d", x, tab);
    }
}

/* The width of the whole tab bar (the last tab's end). */
static int bar_width(const struct tui_view *const *views, int count, int current, int width)
{
    struct tui_tab_place tabs[TUI_MAX_VIEWS];

    tui_tabs_layout(views, count, current, width, tabs);
    return count ? tabs[count - 1].x + tabs[count - 1].w : 0;
}

static void test_tabs(void)
{
    static const struct tui_view one = {.name = "One", .short_name = "1", .hotkey = '1'},
                                 two = {.name = "Two words", .short_name = "Two", .hotkey = '2'},
                                 x = {.name = "X", .short_name = "X", .hotkey = '3'};
    static const struct tui_view *const fake[] = {&one, &two, &x};
    struct tui_tab_place tabs_all[TUI_MAX_VIEWS];

    /* " 1 One " is columns 0-6, a blank at 7, " 2 Two words " 8-20, a blank, " 3 X " 22-26 */
    CHECK(tui_tab_at(fake, 3, 0, 0, 80) == 0);
    CHECK(tui_tab_at(fake, 3, 0, 6, 80) == 0);
    CHECK(tui_tab_at(fake, 3, 0, 7, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 0, 8, 80) == 1);
    CHECK(tui_tab_at(fake, 3, 0, 20, 80) == 1);
    CHECK(tui_tab_at(fake, 3, 0, 21, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 0, 22, 80) == 2);
    CHECK(tui_tab_at(fake, 3, 0, 26, 80) == 2);
    CHECK(tui_tab_at(fake, 3, 0, 27, 80) == -1);
    CHECK(tui_tab_at(fake, 3, 0, 40, 80) == -1);
    CHECK(tui_tab_at(fake, 0, 0, 0, 80) == -1);
    /* 27 columns: full names; 26: short names (" 1 1 " " 2 Two " " 3 X ": 5+1+7+1+5) */
    struct tui_tab_place tabs[3];
    tui_tabs_layout(fake, 3, 1, 27, tabs);
    CHECK(strcmp(tabs[1].label, "Two words") == 0);
    tui_tabs_layout(fake, 3, 1, 26, tabs);
    CHECK(strcmp(tabs[0].label, "1") == 0 && strcmp(tabs[1].label, "Two") == 0);
    CHECK(tui_tab_at(fake, 3, 1, 15, 26) == 2);
    /* 18 columns: the keys, the current view's short name: " 1 " " 2 Two " " 3 " */
    tui_tabs_layout(fake, 3, 1, 18, tabs);
    CHECK(!*tabs[0].label && strcmp(tabs[1].label, "Two") == 0 && !*tabs[2].label);
    CHECK(tabs[2].x == 12 && tui_tab_at(fake, 3, 1, 13, 18) == 2);
    for (int w = 1; w < 40; w++)
        for (int cur = 0; cur < 3; cur++)
            check_tabs(fake, 3, cur, w);
    /* the real view table: every tab within 80 columns, whatever the current view */
    for (int cur = 0; cur < tui_view_count; cur++) {
        CHECK_MSG(bar_width(tui_views, tui_view_count, cur, 80) <= 80, "view %d at 80", cur);
        check_tabs(tui_views, tui_view_count, cur, 80);
        check_tabs(tui_views, tui_view_count, cur, 100);
    }
    check_tabs(tui_views, tui_view_count, 0, 120);
    check_tabs(tui_views, tui_view_count, 0, 200);
    tui_tabs_layout(tui_views, tui_view_count, 0, 200, tabs_all);
    CHECK(strcmp(tabs_all[0].label, "Call tree") == 0); /* room: the full names */
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
