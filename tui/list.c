/* The list layer the list views share (tui/list.h): selection kept by row identity, sort
 * cycling, clicks and wrap-around search, written once for every list view. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/list.h"

#include <curses.h>

struct tui_lv *tui_lv_of(const struct tui_list_class *c, void *st)
{
    return (struct tui_lv *)((char *)st + c->lv_offset);
}

void tui_lv_init(struct tui_lv *lv)
{
    lv->nav.sel = lv->nav.top = 0;
    lv->sort = 0;
    lv->sel_id = -1;
}

void tui_lv_resort(struct tui *t, const struct tui_list_class *c, void *st)
{
    struct tui_lv *lv = tui_lv_of(c, st);
    int n;

    if (c->sort)
        c->sort(t, st);
    n = c->count(st);
    if (c->row_id || c->remembered) {
        int found = c->missing_row;
        for (int i = 0; i < n; i++)
            if (c->row_id ? c->row_id(st, i) == lv->sel_id : c->remembered(st, i)) {
                found = i;
                break;
            }
        if (found >= 0)
            lv->nav.sel = found;
    }
    tui_list_fit(&lv->nav, n, tui_page_rows(t));
    if (c->renote)
        tui_lv_note(c, st);
}

void tui_lv_note(const struct tui_list_class *c, void *st)
{
    struct tui_lv *lv = tui_lv_of(c, st);

    if (lv->nav.sel < 0 || lv->nav.sel >= c->count(st))
        return;
    if (c->row_id)
        lv->sel_id = c->row_id(st, lv->nav.sel);
    else if (c->remember)
        c->remember(st, lv->nav.sel);
}

int tui_lv_key(struct tui *t, const struct tui_list_class *c, void *st, int key)
{
    struct tui_lv *lv = tui_lv_of(c, st);
    enum tui_nav nav = tui_key_nav(key);

    if ((key == 's' || key == KEY_F(6)) && c->nsorts > 0) {
        lv->sort = (lv->sort + 1) % c->nsorts;
        tui_lv_resort(t, c, st);
        return 1;
    }
    if (nav != TUI_NAV_NONE) {
        tui_list_nav(&lv->nav, nav, c->count(st), tui_page_rows(t));
        tui_lv_note(c, st);
        return 1;
    }
    return 0;
}

/* Text placed in column c at buf + o (of len): its gap, then aligned in the rest of the width;
 * the new offset. */
static size_t list_put(const struct tui_list_column *c, const char *text, char *buf, size_t o,
                       size_t len)
{
    int w = c->width - c->gap;

    return o + (size_t)(c->left ? snprintf(buf + o, len - o, "%*s%-*s", c->gap, "", w, text)
                                : snprintf(buf + o, len - o, "%*s%*s", c->gap, "", w, text));
}

void tui_list_heading(const struct tui_list_column *c, int n, const int *show, char *buf,
                      size_t len)
{
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++)
        if (!show || show[i])
            o = c[i].width
                    ? list_put(&c[i], c[i].heading, buf, o, len)
                    : o + (size_t)snprintf(buf + o, len - o, "%*s%s", c[i].gap, "", c[i].heading);
}

/* The screen columns c takes: its width, the name column's blanks. */
static int list_width(const struct tui_list_column *c)
{
    return c->width ? c->width : c->gap;
}

int tui_list_fit_columns(const struct tui_list_column *c, int n, int width, int name_min,
                         unsigned hidden, int *show)
{
    int used = 0, room;

    for (int i = 0; i < n; i++) {
        show[i] = 1;
        used += list_width(&c[i]);
    }
    while (width - used < name_min) { /* leave out the column with the highest drop rank */
        int worst = -1;
        for (int i = 0; i < n; i++)
            if (show[i] && c[i].drop > 0 && (worst < 0 || c[i].drop > c[worst].drop))
                worst = i;
        if (worst < 0)
            break;
        show[worst] = 0;
        used -= list_width(&c[worst]);
    }
    room = width - used > 0 ? width - used : 0;
    for (int i = 0; i < n; i++) /* the columns the settings hide */
        if (show[i] && c[i].option && (hidden >> (c[i].option - 1) & 1u)) {
            show[i] = 0;
            room += list_width(&c[i]);
        }
    return room;
}

void tui_list_cells(struct model *m, const struct tui_list_column *c, int n, const int *show,
                    const void *rows, int row, char *buf, size_t len)
{
    char cell[256];
    size_t o = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && o < len; i++) {
        if ((show && !show[i]) || !c[i].cell)
            continue;
        c[i].cell(m, rows, row, cell, sizeof(cell));
        o = list_put(&c[i], cell, buf, o, len);
    }
}

int tui_list_sort_map(const struct tui_list_column *c, int n, struct tui_sort_column *map, int max)
{
    int nmap = 0;

    for (int i = 0; i < n && nmap < max; i++)
        if (c[i].sort >= 0)
            map[nmap++] = (struct tui_sort_column){c[i].heading, c[i].sort};
    return nmap;
}

int tui_lv_click(struct tui *t, const struct tui_list_class *c, void *st,
                 const struct tui_mouse *ev)
{
    struct tui_lv *lv = tui_lv_of(c, st);
    int rows = lv->rows > 0 ? lv->rows : ev->h - 2;
    struct tui_sort_column map[32];
    const struct tui_sort_column *sorts = c->sort_columns;
    char heading[1024];
    const char *columns = c->columns;
    int value, nsorts = c->nsort_columns;

    if (c->cols) { /* the headings and their sorts from the columns */
        tui_list_heading(c->cols, c->ncols, c->shown ? c->shown(st) : NULL, heading,
                         sizeof(heading));
        columns = heading;
        nsorts = tui_list_sort_map(c->cols, c->ncols, map, 32);
        sorts = map;
    } else if (!columns) {
        c->heading(st, heading, sizeof(heading));
        columns = heading;
    }
    switch (tui_list_click(ev, &lv->nav, c->count(st), rows, columns, sorts, nsorts, &value)) {
    case TUI_CLICK_SORT:
        lv->sort = value;
        tui_lv_resort(t, c, st);
        return 1;
    case TUI_CLICK_SELECT:
        lv->nav.sel = value;
        tui_lv_note(c, st);
        return 1;
    case TUI_CLICK_AGAIN:
        return c->key ? c->key(t, st, '\n') : 0;
    default:
        return 0;
    }
}

int tui_lv_search(struct tui *t, const struct tui_list_class *c, void *st, const char *needle)
{
    struct tui_lv *lv = tui_lv_of(c, st);
    int n = c->count(st);

    for (int i = 1; i <= n && c->match; i++) {
        int idx = (lv->nav.sel + i) % n;
        if (c->match(t, st, idx, needle)) {
            lv->nav.sel = idx;
            tui_list_fit(&lv->nav, n, tui_page_rows(t));
            tui_lv_note(c, st);
            return 1;
        }
    }
    return 0;
}

int tui_lv_sort_setting(const struct tui_list_class *c, void *st, int set)
{
    struct tui_lv *lv = tui_lv_of(c, st);

    if (set >= 0 && set < c->nsorts)
        lv->sort = set;
    return lv->sort;
}

int tui_view_key(struct tui *t, const struct tui_view *v, void *st, int key)
{
    if (v->list && tui_lv_key(t, v->list, st, key))
        return 1;
    return v->key ? v->key(t, st, key) : 0;
}

int tui_view_search(struct tui *t, const struct tui_view *v, void *st, const char *needle)
{
    if (v->search)
        return v->search(t, st, needle);
    if (v->list && v->list->match)
        return tui_lv_search(t, v->list, st, needle);
    return -1;
}

int tui_view_click(struct tui *t, const struct tui_view *v, void *st, const struct tui_mouse *ev)
{
    if (v->click)
        return v->click(t, st, ev);
    return v->list ? tui_lv_click(t, v->list, st, ev) : 0;
}
