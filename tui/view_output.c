/* View 4, output: the tail of the target's stdout and stderr, following the end unless the
 * user scrolled up; the status line shows where the full log is. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(output);

struct output_view {
    char **lines; /* snapshot of the model's kept lines (frozen while paused) */
    unsigned char *streams;
    int count, cap;
    int top;    /* first line shown when not following */
    int follow; /* keep the last line in view */
    int mark;   /* line of the last search match, -1 if none */
};

void *tui_output_create(void)
{
    struct output_view *v = xcalloc(1, sizeof(*v));

    v->follow = 1;
    v->mark = -1;
    return v;
}

/* Drop the snapshot's lines. */
static void clear_lines(struct output_view *v)
{
    for (int i = 0; i < v->count; i++)
        free(v->lines[i]);
    v->count = 0;
}

void tui_output_destroy(void *st)
{
    struct output_view *v = st;

    if (!v)
        return;
    clear_lines(v);
    free(v->lines);
    free(v->streams);
    free(v);
}

void tui_output_rebuild(struct tui *t, void *st)
{
    struct output_view *v = st;
    size_t n = model_output_lines(t->m);

    clear_lines(v);
    if ((int)n > v->cap) {
        v->cap = (int)n;
        v->lines = xrealloc(v->lines, n * sizeof(*v->lines));
        v->streams = xrealloc(v->streams, n);
    }
    for (size_t i = 0; i < n; i++) {
        int stream = 1;
        const char *s = model_output_line(t->m, i, &stream);
        v->lines[i] = xstrdup(s ? s : "");
        v->streams[i] = (unsigned char)stream;
    }
    v->count = (int)n;
    if (v->mark >= v->count)
        v->mark = -1;
}

/* Clamp the scroll position; reaching the end resumes following. */
static void clamp(struct output_view *v, int page)
{
    int last = v->count - page > 0 ? v->count - page : 0;

    if (v->follow || v->top >= last) {
        v->top = last;
        v->follow = 1;
    }
    if (v->top < 0)
        v->top = 0;
}

void tui_output_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct output_view *v = st;
    char title[200], line[4096];
    int page;

    snprintf(title, sizeof(title), "Output: %d line%s kept  (%s)", v->count,
             v->count == 1 ? "" : "s", v->follow ? "following the end" : "scrolled: End follows");
    page = tui_draw_frame(t, r, title,
                          t->color ? "  stdout, stderr in red" : "  stdout, stderr in bold");
    clamp(v, page);
    for (int i = 0; i < page && v->top + i < v->count; i++) {
        int idx = v->top + i;
        unsigned int a = v->streams[idx] == 2 ? tui_style(t, TUI_S_STDERR) : A_NORMAL;
        if (idx == v->mark)
            a = tui_style(t, TUI_S_MATCH);
        tui_sanitize(line, sizeof(line), v->lines[idx]);
        tui_put(t, r->y + 2 + i, r->x, r->w, a, line, idx == v->mark);
    }
    if (v->count == 0 && page >= 2)
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), "no output yet", 0);
}

int tui_output_key(struct tui *t, void *st, int key)
{
    struct output_view *v = st;
    int page = tui_page_rows(t);

    switch (tui_key_nav(key)) {
    case TUI_NAV_UP:
        v->follow = 0;
        v->top--;
        break;
    case TUI_NAV_DOWN:
        v->top++;
        break;
    case TUI_NAV_PGUP:
        v->follow = 0;
        v->top -= page;
        break;
    case TUI_NAV_PGDN:
        v->top += page;
        break;
    case TUI_NAV_HOME:
        v->follow = 0;
        v->top = 0;
        break;
    case TUI_NAV_END:
        v->follow = 1;
        break;
    default:
        return 0;
    }
    if (v->top < 0)
        v->top = 0;
    clamp(v, page);
    return 1;
}

int tui_output_search(struct tui *t, void *st, const char *needle)
{
    struct output_view *v = st;
    int page = tui_page_rows(t);
    int from = v->mark >= 0 ? v->mark : v->top;

    for (int i = 1; i <= v->count; i++) {
        int idx = (from + i) % v->count;
        char line[4096];
        tui_sanitize(line, sizeof(line), v->lines[idx]);
        if (tui_match(line, needle)) {
            v->mark = idx;
            v->follow = 0;
            v->top = idx - page / 2 > 0 ? idx - page / 2 : 0;
            if (v->top >= v->count - page) /* the match is on the last page: follow */
                v->follow = 1;
            clamp(v, page);
            return 1;
        }
    }
    return 0;
}

void tui_output_status(struct tui *t, void *st, char *buf, size_t n)
{
    const char *log = model_session(t->m)->output_log;

    (void)st;
    snprintf(buf, n, "log: %s", log[0] ? log : "(none)");
}

void tui_output_batch(FILE *out, struct model *m, int max_rows)
{
    size_t n = model_output_lines(m);
    size_t shown = max_rows > 0 && (size_t)max_rows < n ? (size_t)max_rows : n;
    char line[4096];

    fprintf(out, "== Output (last %zu of %zu lines) ==\n", shown, n);
    for (size_t i = n - shown; i < n; i++) {
        int stream = 1;
        const char *s = model_output_line(m, i, &stream);
        tui_sanitize(line, sizeof(line), s ? s : "");
        fprintf(out, "%s\n", line);
    }
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(output, "Output", '4', "Out", .key = tui_output_key, .search = tui_output_search);
