/* Mouse hit-testing: which tab is at a column of the tab bar, which column heading or list row
 * a click in a view's body hit. Pure functions (no curses), unit-tested in test_tui_mouse.c;
 * mouse.c reads the events and hands them to these and to the views' click callbacks. */
#include "tui/tui_internal.h"

#include <string.h>

int tui_tabs_layout(const struct tui_view *const *views, int count, int current, int width,
                    struct tui_tab_place *out)
{
    int placed = 0;

    for (int mode = 0; mode < 3; mode++) {
        int x0 = 0;
        for (int i = 0; i < count; i++) {
            const char *label = mode == 0                   ? views[i]->name
                                : mode == 1 || i == current ? views[i]->short_name
                                                            : "";
            if (!label)
                label = views[i]->name;
            out[i].x = x0;
            out[i].label = label;
            out[i].w = *label ? tui_text_width(label, 1) + 4 : 3; /* " K Label " or " K " */
            x0 += out[i].w + 1;
        }
        if (x0 - 1 <= width || mode == 2)
            break;
    }
    for (int i = 0; i < count; i++)
        placed += out[i].x < width;
    return placed;
}

int tui_tab_at(const struct tui_view *const *views, int count, int current, int x, int width)
{
    struct tui_tab_place tabs[TUI_MAX_VIEWS];
    int n;

    if (x < 0 || x >= width || count > TUI_MAX_VIEWS)
        return -1;
    n = tui_tabs_layout(views, count, current, width, tabs);
    for (int i = 0; i < n; i++)
        if (x >= tabs[i].x && x < tabs[i].x + tabs[i].w)
            return i;
    return -1;
}

int tui_column_at(const char *columns, int x, char *label, size_t n)
{
    const char *p = columns, *last = NULL;
    size_t last_len = 0;

    if (!columns || x < 0)
        return 0;
    /* the blanks before a heading are its column's (numbers are right-aligned under their
     * heading); right of the last heading is the last column (a name, left-aligned) */
    while (*p) {
        const char *w;
        size_t len;

        while (*p == ' ')
            p++;
        if (!*p)
            break;
        w = p;
        while (*p && *p != ' ')
            p++;
        len = (size_t)(p - w);
        last = w;
        last_len = len;
        if (x < (int)(p - columns))
            break;
    }
    if (!last)
        return 0;
    if (n > 0) {
        size_t k = last_len < n - 1 ? last_len : n - 1;
        memcpy(label, last, k);
        label[k] = '\0';
    }
    return 1;
}

int tui_sort_at(const char *columns, int x, const struct tui_sort_column *map, int nmap)
{
    char label[64];

    if (!tui_column_at(columns, x, label, sizeof(label)))
        return -1;
    for (int i = 0; i < nmap; i++)
        if (strcmp(map[i].label, label) == 0)
            return map[i].sort;
    return -1;
}

enum tui_click tui_list_click(const struct tui_mouse *ev, const struct tui_list *l, int count,
                              int rows, const char *columns, const struct tui_sort_column *map,
                              int nmap, int *value)
{
    int idx;

    *value = -1;
    if (ev->kind != TUI_MOUSE_CLICK || ev->x < 0 || ev->x >= ev->w || ev->y < 0 || ev->y >= ev->h)
        return TUI_CLICK_NONE;
    if (ev->y == 1) { /* the column headings (tui_draw_frame's second line) */
        *value = tui_sort_at(columns, ev->x, map, nmap);
        return *value >= 0 ? TUI_CLICK_SORT : TUI_CLICK_NONE;
    }
    if (ev->y < 2 || ev->y - 2 >= rows) /* the title, or below the list's rows */
        return TUI_CLICK_NONE;
    idx = l->top + ev->y - 2;
    if (idx < 0 || idx >= count)
        return TUI_CLICK_NONE;
    *value = idx;
    return idx == l->sel ? TUI_CLICK_AGAIN : TUI_CLICK_SELECT;
}
