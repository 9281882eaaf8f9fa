/* The keys, for the help overlay (F1) and for --help: the common keys of every view, then each
 * view's own from its row of the view table (struct tui_view's help), so that a new view's keys
 * show up in both without an edit here. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <string.h>

#ifndef ROCSYS_VERSION
#define ROCSYS_VERSION "?"
#endif

#define HELP_LINES 96  /* at most, views' lines included */
#define HELP_WIDTH 160 /* bytes of a line (the overlay cuts at its width) */

/* What the keys depend on: where they are shown. */
struct help_ctx {
    int replay;   /* 1: a replay's time-range keys; 0: the live window; -1: both (--help) */
    int mouse;    /* the mouse is on */
    int indent;   /* blanks before each line */
    int cont_col; /* column of a wrapped line of the views list */
};

/* The help's lines into lines[]; returns their number. */
static int help_lines(const struct help_ctx *c, char lines[][HELP_WIDTH], int max)
{
    static const struct tui_key_help common[] = {
        {"Up Down PgUp PgDn Home End", "move the selection"},
        {"F6 s", "cycle the sort order"},
        {"t", "thread: all threads, then each thread in turn"},
        {"/ n", "search function names (the call tree opens the path,"},
        {"", "the flame graph highlights the matches and their share)"},
        {"p", "pause: freeze the displayed data"},
        {"r", "reset the sample counts"},
        {"F1 ? h", "this help (any key closes it)"},
        {"F2", "setup: view, sort orders, columns, window, rate, mouse"},
        {"Mouse", "tab: view; heading: sort; row: select, again: Enter"},
        {"Esc", "cancel search or help"},
        {"F10 q", "quit"},
    };
    int n = 0;
    size_t o;

#define LINE(...) (n < max ? snprintf(lines[n++], HELP_WIDTH, __VA_ARGS__) : 0)
    LINE("%*s%-14s next / previous view", c->indent, "", "Tab S-Tab");
    /* the views with their keys, wrapped */
    o = (size_t)snprintf(lines[n], HELP_WIDTH, "%*s%-14s ", c->indent, "", "view keys");
    for (int i = 0, first = 1; i < tui_view_count && n < max; i++, first = 0) {
        char item[48];
        snprintf(item, sizeof(item), "%c %s", tui_views[i]->hotkey, tui_views[i]->name);
        if (!first && o + 2 + strlen(item) > 76) {
            if (++n == max)
                break;
            o = (size_t)snprintf(lines[n], HELP_WIDTH, "%*s", c->cont_col, "");
            first = 1;
        }
        o += (size_t)snprintf(lines[n] + o, HELP_WIDTH - o, "%s%s", first ? "" : ", ", item);
    }
    n += n < max;
    for (size_t i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
        if (i == 3 && c->replay != 1)
            LINE("%*s%-14s since start <-> sliding window (last N seconds)", c->indent, "", "w");
        if (i == 3 && c->replay != 0) {
            LINE("%*s%-14s replay: whole run <-> a time window of the run", c->indent, "", "w");
            LINE("%*s%-14s replay: move the window back / forward (half its width)", c->indent, "",
                 "[ ]");
            LINE("%*s%-14s replay: halve / double the window's width", c->indent, "", "{ }");
        }
        if (strcmp(common[i].keys, "Mouse") != 0 || c->mouse)
            LINE("%*s%-14s %s", c->indent, "", common[i].keys, common[i].what);
    }
    for (int i = 0; i < tui_view_count; i++) {
        const struct tui_view *v = tui_views[i];
        if (v->help)
            for (const struct tui_key_help *h = v->help; h->keys; h++)
                LINE("%*s%-14s %s", c->indent, "", h->keys, h->what);
    }
#undef LINE
    return n;
}

void tui_help_draw(struct tui *t)
{
    /* frame pieces: Unicode box drawing, or ASCII (no ACS: some terminals lack it) */
    const char *h = t->utf8 ? "\xe2\x94\x80" : "-", *v = t->utf8 ? "\xe2\x94\x82" : "|";
    const char *c[4] = {"+", "+", "+", "+"};
    static char lines[HELP_LINES][HELP_WIDTH];
    struct help_ctx ctx = {.replay = model_session(t->m)->replay != 0,
                           .mouse = !t->opt.no_mouse,
                           .indent = 1,
                           .cont_col = 16};
    char rule[1024];
    unsigned int frame = tui_style(t, TUI_S_LABEL);
    int n = 0, bw, bh, by, bx;
    size_t o = 0;

    if (t->utf8) {
        c[0] = "\xe2\x94\x8c"; /* corners: top left, top right, bottom left, bottom right */
        c[1] = "\xe2\x94\x90";
        c[2] = "\xe2\x94\x94";
        c[3] = "\xe2\x94\x98";
    }
    snprintf(lines[n++], HELP_WIDTH, " rocsys-top " ROCSYS_VERSION " - keys");
    lines[n++][0] = '\0';
    n += help_lines(&ctx, lines + n, HELP_LINES - n - 2);
    lines[n++][0] = '\0';
    snprintf(lines[n++], HELP_WIDTH, " refresh every %.1fs, %s, %s glyphs",
             t->opt.delay_tenths > 0 ? t->opt.delay_tenths / 10.0 : 1.0,
             t->color ? "colour" : "monochrome", t->utf8 ? "Unicode" : "ASCII");

    bw = t->cols - 4 < 78 ? t->cols - 4 : 78;
    bh = t->rows - 2 < n + 2 ? t->rows - 2 : n + 2;
    by = (t->rows - bh) / 2;
    bx = (t->cols - bw) / 2;
    if (bw < 10 || bh < 3)
        return;
    for (int i = 0; i < bw - 2 && o + strlen(h) < sizeof(rule); i++, o += strlen(h))
        memcpy(rule + o, h, strlen(h));
    rule[o] = '\0';
    for (int i = 0; i < bh; i++) {
        int y = by + i, top = i == 0, bottom = i == bh - 1;
        tui_put(t, y, bx, 1, frame, top ? c[0] : bottom ? c[2] : v, 0);
        if (top || bottom)
            tui_put(t, y, bx + 1, bw - 2, frame, rule, 1);
        else
            tui_put(t, y, bx + 1, bw - 2, i == 1 ? tui_style(t, TUI_S_TITLE) : A_NORMAL,
                    i - 1 < n ? lines[i - 1] : "", 1);
        tui_put(t, y, bx + bw - 1, 1, frame, top ? c[1] : bottom ? c[3] : v, 0);
    }
}

void tui_help_keys(FILE *out)
{
    static char lines[HELP_LINES][HELP_WIDTH];
    struct help_ctx ctx = {.replay = -1, .mouse = 1, .indent = 2, .cont_col = 4};
    int n = help_lines(&ctx, lines, HELP_LINES);

    fprintf(out, "\nKeys (every view, then each view's own; see rocsys-top(1)):\n");
    for (int i = 0; i < n; i++)
        fprintf(out, "%s\n", lines[i]);
}
