/* The terminal front end: ncursesw views of the model (interactive), and plain-text frames of
 * the same views (batch mode, -b). Views are rows of a const table (tui/views.c). */
#ifndef ROCSYS_TUI_TUI_H
#define ROCSYS_TUI_TUI_H

#include <stdio.h>

struct model;
struct tui;

/* The keys as text for --help: every view's, then each view's own (from the view table). */
void tui_help_keys(FILE *out);

struct tui_options {
    int color;               /* 0: monochrome even if the terminal has colours */
    int delay_tenths;        /* refresh delay, shown in the help */
    int initial_view;        /* index into the view table */
    int no_mouse;            /* 1: no mouse reporting (--no-mouse) */
    const char *source_path; /* --source-path "OLD=NEW[,OLD=NEW...]" for the Source view, or NULL */
};

/* Take over the terminal (initscr, keypad, non-blocking input). NULL if it cannot. */
struct tui *tui_open(struct model *m, const struct tui_options *o);
/* Give the terminal back. */
void tui_close(struct tui *t);
/* Read every pending key (never blocks). Returns 1 when the user asked to quit. */
int tui_input(struct tui *t);
/* --attach-gpu: the pid of the process the user chose to profile (Enter in the GPU view's
 * process list), once tui_input returned 1 for it; 0 otherwise. */
int tui_profile_pid(const struct tui *t);
/* Rebuild view data from the model (unless paused) and draw. Called once per refresh. */
void tui_refresh(struct tui *t);

/* Layout math, separate from drawing so that it is unit-testable without a terminal. */
struct tui_rect {
    int y, x, h, w;
};
struct tui_layout {
    struct tui_rect header; /* process metrics */
    struct tui_rect tabs;   /* view tabs */
    struct tui_rect body;   /* the current view */
    struct tui_rect status; /* key hints / status line */
    int too_small;          /* the terminal cannot show anything useful */
};
/* header_want: the lines the header has to show (0: as many as the size allows); it gets that
 * many, at least 2, at most what the terminal's height allows. */
void tui_layout_compute(int rows, int cols, int header_want, struct tui_layout *out);

/* Batch mode: write one plain-text frame of every view to out (like top -b).
 * max_rows bounds each view's rows (0 = no bound). */
void tui_batch_frame(FILE *out, struct model *m, int frame_no, int max_rows);

/* --source-path: 0 when every rule of spec ("OLD=NEW[,OLD=NEW...]") has an OLD, else -1 with
 * a one-line message in err. */
int tui_source_spec_check(const char *spec, char *err, size_t n);

/* ---- settings (tui/settings.c): $XDG_CONFIG_HOME/rocsys-top/rocsys-toprc, like htop's ---- */
#define TUI_SETTINGS_SORTS 6 /* views whose sort order is kept: see the key table */
struct tui_settings {
    int view;                       /* index into the view table */
    int delay_tenths;               /* refresh delay */
    int window_s;                   /* the sliding window's length */
    int mouse;                      /* 1: mouse reporting on */
    int sort[TUI_SETTINGS_SORTS];   /* per view of the key table: the view's sort order */
    unsigned kernel_columns_hidden; /* Kernels view: bit i hides optional column i */
};
/* The defaults (every key of the table). */
void tui_settings_defaults(struct tui_settings *s);
/* Parse a settings file's text (len bytes, any bytes): 0 with every key in range, or -1 with a
 * one-line reason in err and the defaults in s. */
int tui_settings_parse(const char *text, size_t len, struct tui_settings *s, char *err, size_t n);
/* The file's text for s (NUL-terminated, in buf of cap bytes); its length. */
size_t tui_settings_format(const struct tui_settings *s, char *buf, size_t cap);
/* The settings file's path ($XDG_CONFIG_HOME or ~/.config); 0, or -1 (no home). */
int tui_settings_path(char *buf, size_t cap);
/* Read path into s: 1 read, 0 no file (defaults), -1 unreadable or invalid (defaults, with a
 * one-line reason in err: the file is then left as it is). */
int tui_settings_load(const char *path, struct tui_settings *s, char *err, size_t n);
/* Write s to path (directories made, replaced atomically); 0 or -1 with err. */
int tui_settings_save(const char *path, const struct tui_settings *s, char *err, size_t n);
/* The TUI opened from now on starts from s and, when path is not NULL, writes its settings
 * there when it closes (NULL: --no-config, or a file that was not ours). */
void tui_settings_use(const struct tui_settings *s, const char *path);
/* The refresh delay the TUI's settings ask for now (F2 may change it), tenths of a second. */
int tui_delay_tenths(const struct tui *t);

/* Index of the view named name in the view table (for tui_options.initial_view), or -1. */
int tui_view_find(const char *name);

#endif
