/* The list layer the list views share (tui/list.c): a selection kept on the same row across
 * sorts and rebuilds, s/F6 sort cycling, clicks on column headings and rows, wrap-around
 * search. A view describes its rows once (struct tui_list_class) and keeps a struct tui_lv in
 * its state; its key, click and search callbacks then call tui_lv_key, tui_lv_click and
 * tui_lv_search. */
#ifndef ROCSYS_TUI_LIST_H
#define ROCSYS_TUI_LIST_H

#include <stddef.h>

#include "tui/tui_internal.h"

/* A list view's state that the layer handles. */
struct tui_lv {
    struct tui_list nav; /* selection and scroll */
    int sort;            /* the view's sort order: 0 .. nsorts - 1 */
    long sel_id;         /* row_id of the selected row, kept across sorts (-1: none) */
    /* The list's rows on screen at the last draw, for the clicks, when the view draws more
     * below them (the Kernels view's queues); 0: the whole body below the headings. */
    int rows;
};

/* A column of a list view, in the spirit of perf's hpp formats: its heading, width, when it
 * gives way to the name, the sort a click on its heading chooses, and its cell as text, so
 * that the screen, the batch frame and the clicks read one description. */
struct tui_list_column {
    const char *heading; /* aligned as the cells */
    int width; /* columns, the blanks before it included; 0 (the name): the room left, "  NAME" */
    int drop;  /* 0: always shown; else given up for the name, the highest first */
    int sort;  /* the sort order a click on the heading chooses, -1: none */
    /* The cell of row (of rows, the data the view shows; m: its model) as text; NULL for the
     * name column, which the view draws (fitted into its width, or the room left). */
    void (*cell)(struct model *m, const void *rows, int row, char *buf, size_t n);
    int gap;    /* blanks always kept before the cell (one too wide never joins the one before);
                 * the name column (width 0): the blanks before its heading */
    int left;   /* 1: left-aligned after the gap (else right-aligned in the width) */
    int option; /* 1 + the bit of a hidden-columns setting that hides it (F2); 0: never hidden */
};

/* The headings of the shown columns (show NULL: all) as one line. */
void tui_list_heading(const struct tui_list_column *c, int n, const int *show, char *buf,
                      size_t len);
/* Which of the n columns c to show in width so that the name column (width 0) keeps at least
 * name_min: every one, less those with the highest drop while the name lacks room, then those
 * whose option bit is set in hidden (their room goes to the name); show[i] gets 1 or 0.
 * Returns the room left for the name. */
int tui_list_fit_columns(const struct tui_list_column *c, int n, int width, int name_min,
                         unsigned hidden, int *show);
/* The cells of row, each right-aligned in its column's width, the name column left out. */
void tui_list_cells(struct model *m, const struct tui_list_column *c, int n, const int *show,
                    const void *rows, int row, char *buf, size_t len);

/* The headings of the n columns c that a click sorts by, with their sort orders, into map (max
 * entries); the count. */
int tui_list_sort_map(const struct tui_list_column *c, int n, struct tui_sort_column *map, int max);

/* What the layer needs to know of a list view's rows (st: the view's state). */
struct tui_list_class {
    size_t lv_offset; /* offsetof(the view's state, its struct tui_lv) */
    int nsorts;       /* the sort orders s and F6 cycle through (0: none) */
    const struct tui_sort_column *sort_columns; /* a click on a heading: its sort order */
    int nsort_columns;
    /* The columns (NULL: columns or heading() and sort_columns describe the headings). */
    const struct tui_list_column *cols;
    int ncols;
    /* The columns of cols the last draw showed (show[i] 1 or 0); NULL: every one. */
    const int *(*shown)(const void *st);
    const char *columns; /* the column headings as drawn; NULL: heading() gives them */
    void (*heading)(const void *st, char *buf, size_t n);
    int (*count)(const void *st); /* rows of the list */
    /* Order the rows by the view's sort (lv->sort); NULL: they need no sorting. */
    void (*sort)(struct tui *t, void *st);
    /* Identity of a row, kept selected across sorts and rebuilds; NULL: the selection stays on
     * its row number. */
    long (*row_id)(const void *st, int row);
    /* The same for a row whose identity is no number (the Kernels view's kernel name): keep
     * row's identity in the view's state; whether row is the one kept. Used without row_id. */
    void (*remember)(void *st, int row);
    int (*remembered)(const void *st, int row);
    /* 1: remember the selected row again after every resort (where the selection landed when
     * its row is gone: the call tree). */
    int renote;
    /* The selection when row_id finds no row with the remembered id: -1 stays where it is. */
    int missing_row;
    /* Whether row matches a search needle; NULL: the view has no search. */
    int (*match)(struct tui *t, const void *st, int row, const char *needle);
    /* The view's key callback: a click on the selected row acts as Enter there. */
    int (*key)(struct tui *t, void *st, int key);
};

/* The struct tui_lv of a view's state. */
struct tui_lv *tui_lv_of(const struct tui_list_class *c, void *st);
/* A new list's state: nothing selected yet. */
void tui_lv_init(struct tui_lv *lv);
/* Sort the rows and put the selection back on the same row (by row_id). */
void tui_lv_resort(struct tui *t, const struct tui_list_class *c, void *st);
/* Remember the row under the selection (after the selection moved). */
void tui_lv_note(const struct tui_list_class *c, void *st);
/* s / F6 cycle the sort, navigation keys move the selection; 1 when key was taken. */
int tui_lv_key(struct tui *t, const struct tui_list_class *c, void *st, int key);
/* A click in the body (the list's rows on screen: lv->rows, else the body below the headings):
 * a heading sorts, a row is selected, the selected row again acts as Enter; 1 when taken. */
int tui_lv_click(struct tui *t, const struct tui_list_class *c, void *st,
                 const struct tui_mouse *ev);
/* Select the next row after the selection (wrapping) that matches needle; 1 if found. */
int tui_lv_search(struct tui *t, const struct tui_list_class *c, void *st, const char *needle);
/* The settings' sort order of the view (set >= 0 and < nsorts: choose it); the order now. */
int tui_lv_sort_setting(const struct tui_list_class *c, void *st, int set);

#endif
