/* Private header of the TUI module: the view table, the front end's state shared by the view
 * files, drawing helpers, and the pure helpers (layout, formatting, tree flattening, list
 * navigation) that the unit tests exercise without a terminal. No curses types here. */
#ifndef ROCSYS_TUI_TUI_INTERNAL_H
#define ROCSYS_TUI_TUI_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/model.h"
#include "tui/tui.h"

/* ---- layout limits (layout.c) ---- */
#define TUI_MIN_ROWS 8 /* below this the terminal is "too small" */
#define TUI_MIN_COLS 40
/* Call tree and flame graph: at most this many nodes (about 60 bytes each); past it only the
 * larger paths are kept and the view says from which share on (deep stacks that share little) */
#define TUI_TREE_MAX_NODES 200000

/* ---- formatting and text fitting (util.c; pure) ---- */

/* part as a percentage of total (0 when total is 0). */
double tui_pct(uint64_t part, uint64_t total);
/* part/total as a percentage with one decimal, e.g. "33.3" (no padding). */
void tui_format_pct(char *buf, size_t n, uint64_t part, uint64_t total);
/* A byte count for humans: "512 B", "2.1 KiB", "2.1 MiB", "1.5 GiB". */
void tui_format_bytes(char *buf, size_t n, uint64_t bytes);
/* A duration for humans: "3.0s", "2m05s", "1h02m". */
void tui_format_duration(char *buf, size_t n, uint64_t ns);
/* Display width of s (utf8: UTF-8 with wcwidth; else one column per byte). */
int tui_text_width(const char *s, int utf8);
/* Copy s into out so that it takes at most width columns, ending with an ellipsis ("…" when
 * utf8, "..." otherwise) if it had to be cut. Control characters become '?'; without utf8,
 * every non-ASCII byte becomes '?' too. Returns the columns used. */
int tui_fit(char *out, size_t outsz, const char *s, int width, int utf8);
/* The same, but a text that does not fit keeps its start and its end with the ellipsis in the
 * middle ("saxpy_kern…<float>"): for names whose end tells them apart (templates, paths). */
int tui_fit_middle(char *out, size_t outsz, const char *s, int width, int utf8);
/* Make a line of target output printable: drop ANSI escape sequences, expand tabs, keep the
 * text after the last carriage return, replace other control characters with '?'. */
void tui_sanitize(char *out, size_t outsz, const char *in);
/* The part of path after the last '/'. NULL stays NULL. */
const char *tui_basename(const char *path);
/* 1 if needle occurs in hay, ignoring ASCII case (an empty needle matches everything). */
int tui_match(const char *hay, const char *needle);

/* ---- list navigation (util.c; pure) ---- */
enum tui_nav {
    TUI_NAV_NONE,
    TUI_NAV_UP,
    TUI_NAV_DOWN,
    TUI_NAV_PGUP,
    TUI_NAV_PGDN,
    TUI_NAV_HOME,
    TUI_NAV_END,
};

/* A selection and scroll position over count rows, page rows visible at a time. */
struct tui_list {
    int sel; /* selected row */
    int top; /* first visible row */
};

/* Move the selection; returns 1 when nav is a movement. */
int tui_list_nav(struct tui_list *l, enum tui_nav nav, int count, int page);
/* Clamp the selection into [0, count) and scroll so that it is visible. */
void tui_list_fit(struct tui_list *l, int count, int page);

/* ---- call-tree flattening and sorting (treeflat.c; pure) ---- */
enum tui_sort { TUI_SORT_INCL, TUI_SORT_SELF, TUI_SORT_NAME, TUI_SORT_GPU };
const char *tui_sort_name(int sort);

/* Name of function func (-1: the tree's synthetic root). */
typedef const char *(*tui_name_fn)(const void *ctx, int func);

/* How children are ordered. */
struct tui_tree_order {
    const struct model_tree *tree;
    int sort; /* enum tui_sort */
    tui_name_fn name;
    const void *ctx;
};

/* The user's expand/collapse choices, keyed by model_node.path_hash. */
enum { TUI_EXP_DEFAULT = 0, TUI_EXP_OPEN = 1, TUI_EXP_CLOSED = 2 };
struct tui_expand {
    uint64_t *keys;
    unsigned char *vals; /* 0: empty slot */
    size_t cap, used;
};
int tui_expand_get(const struct tui_expand *e, uint64_t key);
void tui_expand_set(struct tui_expand *e, uint64_t key, int state);
void tui_expand_free(struct tui_expand *e);

/* One visible row of a flattened tree. */
struct tui_tree_row {
    int node;
    int depth;
    int has_children;
    int expanded;
};
struct tui_tree_rows {
    struct tui_tree_row *rows;
    int count, cap;
};

/* Children of node in display order into *buf (grown as needed); returns their number. */
int tui_tree_children(const struct tui_tree_order *o, int node, int **buf, int *cap);
/* The visible rows: depth-first, children in order; a node is open if the user opened it, or
 * if the user did not choose and it is the root or its parent's child with the largest
 * inclusive count, or GPU time when sorted by it (the hottest path is open by default). */
void tui_tree_flatten(const struct tui_tree_order *o, const struct tui_expand *e,
                      struct tui_tree_rows *out);
void tui_tree_rows_free(struct tui_tree_rows *r);
/* Row index of node in r, or -1. */
int tui_tree_row_of(const struct tui_tree_rows *r, int node);
/* The first node after node `after` (in full depth-first display order, wrapping, after
 * included last) whose name contains needle; -1 if none. */
int tui_tree_find(const struct tui_tree_order *o, int after, const char *needle);
/* Open every ancestor of node so that it becomes visible. */
void tui_tree_reveal(const struct model_tree *t, struct tui_expand *e, int node);
/* Sort a hot list by sort (self and inclusive descending, name ascending). */
void tui_hot_sort(struct model_hot *items, int count, int sort, tui_name_fn name, const void *ctx);

/* ---- the interactive front end's state (tui.c) ---- */
#define TUI_MAX_VIEWS 32

/* Visual roles; tui_style() maps them to colour pairs or to monochrome attributes. */
enum tui_style {
    TUI_S_NORMAL,
    TUI_S_LABEL, /* header labels */
    TUI_S_VALUE, /* header values */
    TUI_S_TAB,
    TUI_S_TAB_ACTIVE,
    TUI_S_TITLE,    /* a view's title line */
    TUI_S_COLUMNS,  /* column headings */
    TUI_S_SELECTED, /* the selected row */
    TUI_S_DIM,      /* module file:line */
    TUI_S_STDERR,   /* target's stderr lines */
    TUI_S_NOTICE,
    TUI_S_STATUS,
    TUI_S_STATUS_KEY,
    TUI_S_HOT,   /* large percentages */
    TUI_S_GOOD,  /* "running" */
    TUI_S_BAD,   /* "killed by ..." */
    TUI_S_MATCH, /* a search match (output view) */
    TUI_S_COUNT
};

struct tui {
    struct model *m;
    struct tui_options opt;
    void *screen;     /* SCREEN * */
    void *tty;        /* FILE * on a copy of the terminal: the screen is drawn there */
    int saved_stdout; /* stdout while the display is open */
    int stderr_route; /* stderr's redirection meanwhile (base/stderr_route.h) */
    int stray_fd;     /* an unlinked file that catches what others print meanwhile */
    int utf8;         /* the locale is UTF-8: Unicode glyphs */
    int color;        /* colour pairs in use */
    int view;         /* index into tui_views */
    void *state[TUI_MAX_VIEWS];
    unsigned built_filter[TUI_MAX_VIEWS]; /* filter_gen the view's data was built for */
    unsigned built_data[TUI_MAX_VIEWS];   /* data_gen the view's data was built at */
    struct model_filter filter; /* thread and window filter of the call tree and hot views */
    unsigned filter_gen;        /* bumped when the filter changes or counts are reset */
    unsigned data_gen;          /* bumped by every refresh that is not paused */
    int paused;
    int help;
    int searching;     /* the search prompt is open */
    char search[128];  /* the needle being typed, then the last one searched */
    char message[192]; /* one-shot message for the status line */
    int rows, cols;
    int gpu_line;              /* this frame's header has a line of GPU gauges */
    int profile_pid;           /* --attach-gpu: the process Enter chose to profile (0: none) */
    struct tui_source *source; /* the Source view's state, NULL when closed */
    const struct tui_overlay *overlay; /* a view open over the body (Source), NULL: none */
    struct tui_layout lay;
    struct tui_settings set; /* the settings in use (F2 changes them; written at close) */
    char *set_path;          /* where they are written at close, NULL: nowhere */
    int setup, setup_sel;    /* the F2 setup screen is open; its selected row */
    char set_error[300];     /* the settings could not be written: said after the display */
};

/* ---- settings (settings.c: the key table, parsing; setup.c: the F2 screen) ---- */
enum tui_set_type { TUI_SET_INT, TUI_SET_BOOL, TUI_SET_VIEW, TUI_SET_CHOICE, TUI_SET_COLUMNS };
/* The Kernels view's columns that may be hidden (bit i of kernel_columns_hidden: word i) */
#define TUI_KERNEL_OPTIONAL_COLUMNS "avg min max hip grid block"
struct tui_setting_def {
    const char *key;
    enum tui_set_type type;
    int min, max, def;              /* TUI_SET_INT: range; TUI_SET_CHOICE: 0..max; the default */
    const char *choices;            /* TUI_SET_CHOICE: the sort names; _COLUMNS: the column names */
    size_t offset;                  /* an int of struct tui_settings */
    const char *view;               /* TUI_SET_CHOICE: the view whose sort order it is ... */
    int (*sort)(void *st, int set); /* ... and its accessor */
    const char *label;              /* the F2 screen's */
};
extern const struct tui_setting_def tui_settings_table[];
extern const int tui_settings_count;
int *tui_setting_field(struct tui_settings *s, const struct tui_setting_def *d);
/* Value v of d as the file writes it ("on", "Call tree", "self", "avg,max"). */
void tui_setting_text(const struct tui_setting_def *d, int v, char *buf, size_t n);
/* The settings to start from (tui_settings_use) into out; the file to write ("": none). */
const char *tui_settings_current(struct tui_settings *out);
/* setup.c: apply the settings to an opened TUI; collect and write them at close; the F2
 * screen (drawn over the body; its keys: 1 when taken) */
void tui_settings_open(struct tui *t);
void tui_settings_close(struct tui *t);
void tui_setup_draw(struct tui *t, const struct tui_rect *r);
int tui_setup_key(struct tui *t, int ch);

/* ---- mouse (hittest.c: pure hit-testing; mouse.c: reading and dispatching events) ---- */
enum tui_mouse_kind { TUI_MOUSE_CLICK, TUI_MOUSE_WHEEL_UP, TUI_MOUSE_WHEEL_DOWN };
struct tui_mouse {
    int kind; /* enum tui_mouse_kind */
    int y, x; /* the cell, relative to the rectangle the event is given for (a view's body) */
    int h, w; /* that rectangle's size */
};
struct tui_view;
/* One tab of the tab bar: " K Label " at column x, w columns wide (label may be ""). */
struct tui_tab_place {
    int x, w;
    const char *label;
};
/* Lay out the tabs of views[0..count) in a bar width columns wide, a blank between two: the
 * full names when they all fit, else the short names, else the keys alone with the current
 * view's short name. Fills out[count]; returns how many tabs start inside the bar. */
int tui_tabs_layout(const struct tui_view *const *views, int count, int current, int width,
                    struct tui_tab_place *out);
/* Index of the tab drawn at column x of that tab bar, or -1. */
int tui_tab_at(const struct tui_view *const *views, int count, int current, int x, int width);
/* The heading of a column-headings line at column x (blanks before a heading belong to it,
 * right of the last one to the last) into label; 1, or 0 when the line has no heading. */
int tui_column_at(const char *columns, int x, char *label, size_t n);
/* A column heading and the sort order (the view's own number) a click on it chooses. */
struct tui_sort_column {
    const char *label;
    int sort;
};
/* The sort order of the heading at column x of columns per map, or -1. */
int tui_sort_at(const char *columns, int x, const struct tui_sort_column *map, int nmap);
enum tui_click {
    TUI_CLICK_NONE,
    TUI_CLICK_SORT,   /* a column heading that has a sort order */
    TUI_CLICK_SELECT, /* a row other than the selected one */
    TUI_CLICK_AGAIN,  /* the selected row: act as Enter does */
};
/* What a click hit in a list view drawn with tui_draw_frame (title, column headings, then
 * rows rows of l from l->top; count rows in all); *value is the sort order or the row. */
enum tui_click tui_list_click(const struct tui_mouse *ev, const struct tui_list *l, int count,
                              int rows, const char *columns, const struct tui_sort_column *map,
                              int nmap, int *value);
/* mouse.c: turn the terminal's mouse reporting on (clicks and the wheel) or off. */
void tui_mouse_enable(int on);
/* After getch() gave KEY_MOUSE: the event in screen cells; 0, or -1 for one the TUI ignores. */
int tui_mouse_read(struct tui_mouse *ev);
/* Act on an event in screen cells: a tab switches the view, the body goes to the view. */
void tui_mouse_dispatch(struct tui *t, const struct tui_mouse *ev);

/* A view over the body that a view opens (the Source view, tui_source_open): it takes the
 * keys, clicks, status line and the body until it closes. */
struct tui_overlay {
    void (*draw)(struct tui *t, const struct tui_rect *r);
    int (*key)(struct tui *t, int key); /* 1 when it took key */
    int (*mouse)(struct tui *t, const struct tui_mouse *ev);
    void (*status)(struct tui *t, char *buf, size_t n);
    void (*close)(struct tui *t);
};

/* help.c: the help overlay (F1) over the screen. */
void tui_help_draw(struct tui *t);

/* ---- the view table (views.c) ---- */
struct tui_list_class;
struct tui_view {
    const char *name;       /* tab label and section title */
    const char *short_name; /* tab label when the full names do not fit */
    int hotkey;             /* '1'..'9' */
    void *(*create)(void);
    void (*destroy)(void *st);
    /* Re-read the model into the view's own data (never while paused). */
    void (*rebuild)(struct tui *t, void *st);
    void (*draw)(struct tui *t, void *st, const struct tui_rect *r);
    /* A key the common dispatcher did not take; returns 1 if handled. */
    int (*key)(struct tui *t, void *st, int key);
    /* Select the next row after the selection matching needle; 1 if found. May be NULL. */
    int (*search)(struct tui *t, void *st, const char *needle);
    /* Extra text for the status line (e.g. the output log). May be NULL. */
    void (*status)(struct tui *t, void *st, char *buf, size_t n);
    /* The view as a plain-text section of a batch frame. */
    void (*batch)(FILE *out, struct model *m, int max_rows);
    /* A click or wheel turn in the view's body (ev relative to the body); 1 if handled. May
     * be NULL (no tui_<v>_click): a wheel turn then moves the selection as Up/Down do. */
    int (*click)(struct tui *t, void *st, const struct tui_mouse *ev);
    /* The view's own keys for the help (F1) and --help, {NULL, NULL}-ended; NULL: only the
     * common ones (no tui_<v>_help). */
    const struct tui_key_help *help;
    /* A key the view takes in every view (the Ranks view's R); 1 if taken. May be NULL (no
     * tui_<v>_global). */
    int (*global_key)(struct tui *t, int key);
    /* A list view's rows (tui/list.h, tui_<v>_list): the list layer takes the sort and
     * navigation keys, and the clicks and the search the view leaves to it (key, search and
     * click NULL); NULL: not a list view. */
    const struct tui_list_class *list;
};

/* A key, a search and a body click for view v (state st): its list's part (tui/list.c), then
 * the view's own callback; 1 when taken (search: found), -1 for a search it does not have. */
int tui_view_key(struct tui *t, const struct tui_view *v, void *st, int key);
int tui_view_search(struct tui *t, const struct tui_view *v, void *st, const char *needle);
int tui_view_click(struct tui *t, const struct tui_view *v, void *st, const struct tui_mouse *ev);

/* A line of the help: the keys, and what they do. */
struct tui_key_help {
    const char *keys; /* "Enter Space" */
    const char *what; /* "expand / collapse" */
};

extern const struct tui_view *const tui_views[];
extern const int tui_view_count;
#define TUI_VIEW_CALLTREE 0 /* index of the call tree view, where the threads view jumps */

/* What a view file defines (view_<v>.c begins with TUI_VIEW_DECLARE(v);): the callbacks of
 * its row in the view table; tui_<v>_key, _search, _click, _help, _global and _list are
 * optional (its TUI_VIEW_DEFINE names those it has). */
#define TUI_VIEW_DECLARE(v)                                                                        \
    void *tui_##v##_create(void);                                                                  \
    void tui_##v##_destroy(void *st);                                                              \
    void tui_##v##_rebuild(struct tui *t, void *st);                                               \
    void tui_##v##_draw(struct tui *t, void *st, const struct tui_rect *r);                        \
    int tui_##v##_key(struct tui *t, void *st, int key);                                           \
    int tui_##v##_search(struct tui *t, void *st, const char *needle);                             \
    void tui_##v##_status(struct tui *t, void *st, char *buf, size_t n);                           \
    void tui_##v##_batch(FILE *out, struct model *m, int max_rows);                                \
    int tui_##v##_click(struct tui *t, void *st, const struct tui_mouse *ev);                      \
    extern const struct tui_key_help tui_##v##_help[];                                             \
    int tui_##v##_global(struct tui *t, int key);                                                  \
    extern const struct tui_list_class tui_##v##_list;                                             \
    extern const struct tui_view tui_view_##v

/* A view's row of the view table, at the end of its file (tui/views.c lists the rows in tab
 * order): its tab's name, key and short name (when the full names do not fit), its callbacks,
 * then the optional ones it has (.key, .search, .click, .help, .global_key, .list). */
#define TUI_VIEW_DEFINE(v, label, key_, brief, ...)                                                \
    const struct tui_view tui_view_##v = {.name = label,                                           \
                                          .short_name = brief,                                     \
                                          .hotkey = key_,                                          \
                                          .create = tui_##v##_create,                              \
                                          .destroy = tui_##v##_destroy,                            \
                                          .rebuild = tui_##v##_rebuild,                            \
                                          .draw = tui_##v##_draw,                                  \
                                          .status = tui_##v##_status,                              \
                                          .batch = tui_##v##_batch,                                \
                                          __VA_ARGS__}

/* printf into a segment at (y, *x), at most up to column xmax; advances *x. */
void tui_seg(struct tui *t, int y, int *x, int xmax, unsigned int attr, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* header.c: read this frame's GPU status and return the header's lines; then draw it in r. */
int tui_header_prepare(struct tui *t);
void tui_header_draw(struct tui *t, const struct tui_rect *r);

/* The sort order of a view's state (set >= 0: choose it), for the settings (tui/settings.c) */
int tui_calltree_sort(void *st, int set);
int tui_hot_sort_order(void *st, int set);
int tui_threads_sort(void *st, int set);
int tui_regions_sort(void *st, int set);
int tui_kernels_sort(void *st, int set);
int tui_hipapi_sort(void *st, int set);

/* ---- a kernel's launch call paths (kernel_paths.c; opened from the Kernels view) ---- */
struct tui_kpaths {
    int open;
    char kernel[512];
    struct model_launch_path_list *list; /* the paths (v: a flat list of them) */
    struct model_tree *tree;             /* the same as a caller tree (the default) */
    struct tui_tree_rows trows;
    struct tui_expand exp;
    int flat; /* v: the flat list instead of the tree */
    struct tui_list nav;
    int sort; /* GPU time, launches */
    int rows; /* rows the last draw had room for */
};
/* Open (and read) the launch paths of kernel; re-read them; close (free) them. */
void tui_kpaths_open(struct tui_kpaths *kp, struct model *m, const char *kernel);
void tui_kpaths_rebuild(struct tui_kpaths *kp, struct model *m);
void tui_kpaths_close(struct tui_kpaths *kp);
void tui_kpaths_draw(struct tui *t, struct tui_kpaths *kp, const struct tui_rect *r);
/* Keys while open: navigation, s sort, Esc/Backspace/Left close; 1 if handled. */
int tui_kpaths_key(struct tui *t, struct tui_kpaths *kp, int key);
/* A click while open: a heading sorts, a row is selected, the selected row again acts as
 * Enter; 1 if handled. */
int tui_kpaths_click(struct tui *t, struct tui_kpaths *kp, const struct tui_mouse *ev);
/* Select the next path whose functions match needle; 1 if found. */
int tui_kpaths_search(struct tui_kpaths *kp, struct model *m, const char *needle);
/* Batch: the launch paths of kernel (nothing when it has none). */
void tui_kpaths_batch(FILE *out, struct model *m, const char *kernel, int max_rows);

/* ---- GPU view layout and graphs (gpu_layout.c; pure) ---- */
#define TUI_GPU_MAX_PANELS 16

/* Where the GPU view puts its parts inside the body rectangle. */
struct tui_gpu_layout {
    struct tui_rect title;                     /* one line: summary or the unavailable reason */
    struct tui_rect panel[TUI_GPU_MAX_PANELS]; /* one per GPU shown */
    int npanels;
    int columns;           /* panels side by side */
    int compact;           /* 1: panels of one line each (a table), no graphs */
    int graph_rows;        /* rows of history graph per panel (0: none) */
    struct tui_rect procs; /* process list: heading + rows (h 0: no room) */
};
/* Lay out ngpu GPU panels and a process list of nproc rows inside body. */
void tui_gpu_layout_compute(const struct tui_rect *body, int ngpu, int nproc,
                            struct tui_gpu_layout *out);
/* The glyph of row (0 = bottom) of a history graph rows high, for a value of fraction (0..1,
 * NAN = no reading) of the graph's full scale: block eighths with utf8, else ASCII. */
const char *tui_graph_cell(double fraction, int row, int rows, int utf8);
/* A horizontal gauge of width cells for fraction (0..1): "[|||||     ]" style, utf8 blocks. */
void tui_gauge(char *buf, size_t n, double fraction, int width, int utf8);

/* ---- flame graph layout (flame_layout.c; pure) ---- */

/* One frame of an icicle graph: a tree node drawn w columns wide from column x (0 = the graph's
 * left edge) on row depth (0 = the zoom root's row). */
struct tui_flame_box {
    int node; /* index into the tree's nodes */
    int x, w; /* columns */
    int depth;
};
struct tui_flame {
    struct tui_flame_box *boxes; /* depth first, children left to right (hottest first) */
    int count, cap;
    int rows; /* rows used (the deepest box's depth + 1) */
};
/* Lay out the subtree of node zoom across width columns: zoom spans them all, each child gets
 * the part of its parent's columns that its inclusive count is of the parent's, children side
 * by side in o's order from the parent's left edge; a child under one column is left out with
 * all below it. At most max_rows rows (<= 0: every depth). */
void tui_flame_layout(const struct tui_tree_order *o, int zoom, int width, int max_rows,
                      struct tui_flame *out);
void tui_flame_free(struct tui_flame *f);
/* Index of node's box in f, or -1. */
int tui_flame_box_of(const struct tui_flame *f, int node);
enum { TUI_FLAME_UP, TUI_FLAME_DOWN, TUI_FLAME_LEFT, TUI_FLAME_RIGHT };
/* The box a move from box goes to: UP the parent's, DOWN the widest child's, LEFT/RIGHT the
 * nearest box of the same row on that side; box itself when there is none. */
int tui_flame_move(const struct model_tree *t, const struct tui_flame *f, int box, int dir);
/* Samples under the frames whose name contains needle (ASCII case ignored), a match inside a
 * match counted once; 0 for an empty needle. */
uint64_t tui_flame_match_samples(const struct tui_tree_order *o, const char *needle);
/* What a frame is, for its colour: from its module, else (a replay knows names only) its name. */
enum tui_flame_kind {
    TUI_FLAME_NATIVE,
    TUI_FLAME_PYTHON,
    TUI_FLAME_REGION,
    TUI_FLAME_OTHER, /* GPU runtime, blocked/preempted, unknown, the root */
    TUI_FLAME_KINDS
};
enum tui_flame_kind tui_flame_kind(const char *name, const char *module);
/* Identity of function func for merging frames (equal keys: one frame). */
typedef uint64_t (*tui_key_fn)(const void *ctx, int func);
/* The tree with the children of each node that have the same key merged into one (their
 * counts summed, their children merged in turn): a Python function's one entry per line
 * becomes one frame. Free with model_tree_free. */
struct model_tree *tui_flame_merge(const struct model_tree *in, tui_key_fn key, const void *ctx);
/* Row depth of f as text: "[name-----]" per box ("|" one column wide, "[]" two), blanks
 * between; into buf (NUL-terminated, cut at n). Returns the boxes written. */
int tui_flame_text_row(const struct tui_flame *f, const struct model_tree *t, int depth,
                       tui_name_fn name, const void *ctx, char *buf, size_t n);

/* ---- Source view (source.c: pure helpers; view_source.c: the view over the body) ---- */

/* path with the first rule of spec ("OLD=NEW[,OLD=NEW...]") whose OLD is a prefix of it (up
 * to a '/') replaced by NEW, into out; 1 when a rule applied, else 0 (out = path). */
int tui_source_map_path(const char *spec, const char *path, char *out, size_t n);
/* The file that has most of the samples of lc (n lines of one function), NULL if none. */
const char *tui_source_main_file(const struct model_line_count *lc, int n);
/* The samples of lc on each line of file (counts[i]: line i + 1, nlines of them); returns
 * the samples on other files or past nlines. */
uint64_t tui_source_line_counts(const struct model_line_count *lc, int n, const char *file,
                                uint64_t *counts, int nlines);
/* Whether a line of count samples is highlighted: the hottest (max), or 10 % of total. */
int tui_source_is_hot(uint64_t count, uint64_t max, uint64_t total);
/* The next line index after from (dir > 0) or before it (dir < 0) with at least min_count
 * (and at least 1) samples, or -1. */
int tui_source_next_hot(const uint64_t *counts, int nlines, int from, int dir, uint64_t min_count);
/* Open the Source view of function func (1), or say why not in the status line (0). */
int tui_source_open(struct tui *t, int func);
void tui_source_close(struct tui *t);
void tui_source_draw(struct tui *t, const struct tui_rect *r);
/* A key for the open Source view: 1 when it took it (Esc and q close it). */
int tui_source_key(struct tui *t, int key);
/* A mouse event (screen cells) for the open Source view: 1 when it took it. */
int tui_source_mouse(struct tui *t, const struct tui_mouse *ev);
void tui_source_status(struct tui *t, char *buf, size_t n);

/* ---- helpers shared by the views (views.c) ---- */

/* tui_name_fn over a struct model (ctx): "[all]" for the root, "?" for unknown. */
const char *tui_model_func_name(const void *ctx, int func);
/* "module file:line" of function func ("" if unknown). */
void tui_func_location(struct model *m, int func, char *buf, size_t n);
/* Replay: "no WHAT data in this recording" (and the range when it is not the whole run) into
 * buf, returning 1; 0 (buf untouched) when the model is not a replay. */
int tui_replay_no_data(struct model *m, const char *what, char *buf, size_t n);
/* "all threads, since start" / "thread worker (tid 12), last 10s". */
void tui_filter_desc(struct model *m, const struct model_filter *f, char *buf, size_t n);
/* Whether thread (an index of the thread table) belongs to the rank f keeps (f->only_rank;
 * every thread when 0). */
int tui_thread_in_rank(struct model *m, const struct model_filter *f, int thread);

/* ---- drawing helpers (tui.c) ---- */

/* Attributes of a visual role in the current colour mode. */
unsigned int tui_style(const struct tui *t, enum tui_style s);
/* Draw s at (y, x) in at most w columns (cut with an ellipsis); pad: fill the rest of w
 * with blanks. Returns the columns used. */
int tui_put(struct tui *t, int y, int x, int w, unsigned int attr, const char *s, int pad);
/* A view's title (first body line) and column headings (second); returns rows left below. */
int tui_draw_frame(struct tui *t, const struct tui_rect *r, const char *title, const char *columns);
/* Map a navigation key (arrows, PgUp/PgDn, Home/End) to a list movement. */
enum tui_nav tui_key_nav(int key);
/* Rows of the list area of the body (below title and column headings). */
int tui_page_rows(const struct tui *t);
/* Switch the current view (rebuilding its data if it is stale). */
void tui_switch_view(struct tui *t, int view);
/* The filter changed (or counts were reset): views rebuild even while paused. */
void tui_filter_changed(struct tui *t);
/* Set the one-shot status message. */
void tui_message(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Tree glyphs for the current locale. */
const char *tui_glyph_open(const struct tui *t);
const char *tui_glyph_closed(const struct tui *t);

#endif
