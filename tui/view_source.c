/* The Source view: a function's source file over the body of the view it was opened from (S
 * in the call tree and hot functions, Enter in hot functions), each line with its share of the
 * function's self samples (model/lines.c), the hottest lines highlighted, n / N to the next /
 * previous hot line, Esc or q back. A file that is not on this machine is named, with the
 * --source-path rule that would find it; a function without line counts says why. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOURCE_MAX_BYTES (64u << 20) /* larger files are not shown */
#define COLUMNS          "  SELF%  SAMPLES   LINE  SOURCE"
#define KEY_ESC          27
#define SOURCE_MSG       4400 /* bytes of a line that explains what is missing */

struct tui_source {
    int func;
    const char *file; /* the build path of the file shown (the debug info's), NULL: none */
    char local[4096]; /* where it was looked for (after --source-path) */
    int mapped;       /* a --source-path rule applied */
    int read_err;     /* errno of reading it, 0 when read */
    char *buf;        /* the file's bytes, cut into lines */
    char **text;      /* its lines */
    int ntext;
    uint64_t *counts; /* samples per line index */
    int ncounts;
    int *rows; /* line index of each row: every line, or the lines with samples */
    int nrows;
    uint64_t total; /* the function's samples on lines (every file) */
    uint64_t max;   /* of the hottest line of this file */
    uint64_t other; /* on lines of other files */
    uint64_t self;  /* the function's self samples (all threads) */
    struct tui_list list;
    int page; /* rows of the list at the last draw */
    unsigned built_gen, built_filter;
};

/* Read the file at s->local into lines (bounded by SOURCE_MAX_BYTES); sets s->read_err. */
static void read_file(struct tui_source *s)
{
    struct stat st;
    int fd = open(s->local, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    size_t got = 0, cap = 0;

    s->read_err = 0;
    if (fd < 0) {
        s->read_err = errno;
        return;
    }
    if (fstat(fd, &st) != 0) {
        s->read_err = errno;
        goto out;
    }
    if (!S_ISREG(st.st_mode) || st.st_size > SOURCE_MAX_BYTES) {
        s->read_err = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
        goto out;
    }
    s->buf = xmalloc((size_t)st.st_size + 1);
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, s->buf + got, (size_t)st.st_size - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    s->buf[got] = '\0';
    for (char *p = s->buf; *p || p == s->buf;) {
        char *nl = strchr(p, '\n');
        xgrow(&s->text, &cap, (size_t)s->ntext + 1, sizeof(*s->text));
        s->text[s->ntext++] = p;
        if (!nl)
            break;
        *nl = '\0';
        if (nl > p && nl[-1] == '\r')
            nl[-1] = '\0';
        p = nl + 1;
        if (!*p)
            break;
    }
out:
    close(fd);
}

/* The self samples of func since start (or in the replay's range), all threads. */
static uint64_t func_self(struct model *m, int func)
{
    struct model_filter f = {.thread = -1, .window = 0};
    struct model_hot_list *h = model_hot_build(m, &f);
    uint64_t self = 0;

    for (int i = 0; i < h->count; i++)
        if (h->items[i].func == func)
            self = h->items[i].self;
    model_hot_free(h);
    return self;
}

/* Re-read the line counts from the model: rows, shares, the hottest line. */
static void recount(struct tui *t, struct tui_source *s)
{
    struct model_line_count *lc = NULL;
    int n = model_func_lines(t->m, s->func, &lc), nlines = s->ntext;

    for (int i = 0; i < n; i++)
        if (lc[i].file == s->file && lc[i].line > nlines)
            nlines = lc[i].line; /* a line past the end of the file read (another version) */
    free(s->counts);
    s->counts = xcalloc((size_t)nlines + 1, sizeof(*s->counts));
    s->ncounts = nlines;
    s->other = tui_source_line_counts(lc, n, s->file, s->counts, nlines);
    s->total = s->other;
    s->max = 0;
    for (int i = 0; i < nlines; i++) {
        s->total += s->counts[i];
        s->max = s->counts[i] > s->max ? s->counts[i] : s->max;
    }
    free(s->rows);
    s->rows = xcalloc((size_t)nlines + 1, sizeof(*s->rows));
    s->nrows = 0;
    for (int i = 0; i < nlines; i++) /* without the text: only the lines with samples */
        if (s->text || s->counts[i])
            s->rows[s->nrows++] = i;
    free(lc);
    s->self = func_self(t->m, s->func);
    s->built_gen = t->data_gen;
    s->built_filter = t->filter_gen;
}

/* The row of line index line, or -1. */
static int row_of(const struct tui_source *s, int line)
{
    for (int i = 0; i < s->nrows; i++)
        if (s->rows[i] == line)
            return i;
    return -1;
}

/* Select row (when it exists) and put it a third down the page. */
static void select_row(struct tui_source *s, int row)
{
    if (row < 0)
        return;
    s->list.sel = row;
    s->list.top = row - s->page / 3;
    tui_list_fit(&s->list, s->nrows, s->page);
}

/* Scroll up to the function's first line when the selected hot line stays on the page with it:
 * a function is read from its head, as perf annotate shows it. */
static void show_declaration(struct tui_source *s, const struct model_func *f)
{
    int decl = f->line > 0 && f->file == s->file ? row_of(s, f->line - 1) : -1;

    if (decl < 0 || decl >= s->list.top || s->list.sel - decl >= s->page)
        return;
    s->list.top = decl;
    tui_list_fit(&s->list, s->nrows, s->page);
}

void tui_source_close(struct tui *t)
{
    struct tui_source *s = t->source;

    if (!s)
        return;
    free(s->buf);
    free(s->text);
    free(s->counts);
    free(s->rows);
    free(s);
    t->source = NULL;
    t->overlay = NULL;
}

static const struct tui_overlay source_overlay;

int tui_source_open(struct tui *t, int func)
{
    const struct model_func *f = model_func_at(t->m, func);
    struct model_line_count *lc = NULL;
    struct tui_source *s;
    int n, hot = -1;

    if (!f) {
        tui_message(t, "no function selected");
        return 0;
    }
    tui_source_close(t);
    s = t->source = xcalloc(1, sizeof(*s));
    t->overlay = &source_overlay;
    s->func = func;
    n = model_func_lines(t->m, func, &lc);
    s->file = tui_source_main_file(lc, n);
    free(lc);
    if (!s->file)
        s->file = f->file; /* no samples on lines: where it is declared (Python: the line) */
    if (s->file) {
        s->mapped = tui_source_map_path(t->opt.source_path, s->file, s->local, sizeof(s->local));
        read_file(s);
    }
    s->page = tui_page_rows(t) > 4 ? tui_page_rows(t) - 2 : 1;
    recount(t, s);
    for (int i = 0; i < s->ncounts; i++) /* start at the hottest line, else the declaration */
        if (s->counts[i] && (hot < 0 || s->counts[i] > s->counts[hot]))
            hot = i;
    if (hot < 0 && f->line > 0 && f->file == s->file)
        hot = f->line - 1;
    select_row(s, row_of(s, hot));
    show_declaration(s, f);
    return 1;
}

/* The lines that explain what is missing, into msg (at most 3); returns how many. */
static int explain(struct tui *t, const struct tui_source *s, char msg[][SOURCE_MSG])
{
    const struct model_func *f = model_func_at(t->m, s->func);
    struct model_lines_summary sum;
    int n = 0;

    model_lines_summary(t->m, &sum);
    if (s->total == 0) {
        if (model_session(t->m)->replay && !sum.recorded)
            snprintf(msg[n++], SOURCE_MSG,
                     "this recording has no line counts (no lines.txt): shares per line cannot "
                     "be shown");
        else if (s->self == 0)
            snprintf(msg[n++], SOURCE_MSG,
                     "no self samples: the time of this function is spent in the functions it "
                     "calls");
        else if (f && f->module == model_python_module)
            snprintf(msg[n++], SOURCE_MSG,
                     "no line counts for Python functions: each line is an entry "
                     "of its own in the call tree and hot functions");
        else
            snprintf(msg[n++], SOURCE_MSG,
                     "no samples on a source line of this function (no line table: %s has no "
                     "debug info?)",
                     f && f->module ? f->module : "its module");
    }
    if (!s->file)
        snprintf(msg[n++], SOURCE_MSG, "no source file known for this function");
    else if (s->read_err)
        snprintf(msg[n++], SOURCE_MSG, "source not found: %.4000s (%.200s)", s->local,
                 strerror(s->read_err));
    if (s->file && s->read_err)
        snprintf(msg[n++], SOURCE_MSG,
                 s->mapped ? "the build path %.4000s, mapped by --source-path"
                           : "the build path %.4000s: --source-path OLD=NEW maps it to a copy here",
                 s->file);
    return n;
}

void tui_source_draw(struct tui *t, const struct tui_rect *r)
{
    struct tui_source *s = t->source;
    const struct model_func *f = model_func_at(t->m, s->func);
    char title[1024], nums[64], line[4096], msg[3][SOURCE_MSG];
    unsigned int dim = tui_style(t, TUI_S_DIM);
    int page, nmsg, y;

    if (s->built_gen != t->data_gen || s->built_filter != t->filter_gen)
        recount(t, s);
    snprintf(title, sizeof(title), "Source: %s  %s  (%llu samples on its lines%s, %s)",
             f && f->name ? f->name : "?", s->file ? s->file : "", (unsigned long long)s->total,
             s->other ? ", some in other files" : "",
             model_session(t->m)->replay ? "whole recording" : "since start");
    page = tui_draw_frame(t, r, title, COLUMNS);
    nmsg = explain(t, s, msg);
    y = r->y + 2;
    for (int i = 0; i < nmsg && page > 1; i++, y++, page--)
        tui_put(t, y, r->x + 2, r->w - 2, tui_style(t, TUI_S_NOTICE), msg[i], 0);
    s->page = page;
    tui_list_fit(&s->list, s->nrows, page);
    for (int i = 0; i < page && s->list.top + i < s->nrows; i++, y++) {
        int row = s->list.top + i, ln = s->rows[row], sel = row == s->list.sel, x = r->x;
        uint64_t c = ln < s->ncounts ? s->counts[ln] : 0;
        int hot = tui_source_is_hot(c, s->max, s->total);
        unsigned int a = sel ? tui_style(t, TUI_S_SELECTED) : hot ? tui_style(t, TUI_S_HOT) : 0;

        if (c)
            snprintf(nums, sizeof(nums), "%7.1f%9llu %6d  ", tui_pct(c, s->total),
                     (unsigned long long)c, ln + 1);
        else
            snprintf(nums, sizeof(nums), "%7s%9s %6d  ", "", "", ln + 1);
        if (sel)
            tui_put(t, y, r->x, r->w, a, "", 1);
        x += tui_put(t, y, x, r->w, a ? a : dim, nums, 0);
        tui_sanitize(line, sizeof(line), ln < s->ntext ? s->text[ln] : "");
        tui_put(t, y, x, r->x + r->w - x, a, line, 0);
    }
}

int tui_source_key(struct tui *t, int key)
{
    struct tui_source *s = t->source;
    enum tui_nav nav = tui_key_nav(key);
    int cur = s->list.sel >= 0 && s->list.sel < s->nrows ? s->rows[s->list.sel] : -1, next;
    uint64_t min = s->total / 100 ? s->total / 100 : 1; /* a hot line: 1 % of the samples */

    switch (key) {
    case KEY_ESC:
    case 'q':
    case KEY_BACKSPACE:
    case 127:
    case 8:
    case KEY_LEFT:
        tui_source_close(t);
        return 1;
    case 'n':
    case 'N':
        next = tui_source_next_hot(s->counts, s->ncounts, cur, key == 'n' ? 1 : -1, min);
        if (next < 0)
            tui_message(t, "no hot line %s", key == 'n' ? "below" : "above");
        select_row(s, row_of(s, next));
        return 1;
    /* the keys of the whole display: help, quit, pause, reset, views, filters */
    case '?':
    case 'h':
    case 'p':
    case 'r':
    case 't':
    case 'w':
    case 'R':
    case '[':
    case ']':
    case '{':
    case '}':
    case '\t':
    case KEY_BTAB:
    case KEY_F(1):
    case KEY_F(10):
        return 0;
    default:
        break;
    }
    if (nav != TUI_NAV_NONE) {
        tui_list_nav(&s->list, nav, s->nrows, s->page);
        return 1;
    }
    for (int i = 0; i < tui_view_count; i++)
        if (key == tui_views[i]->hotkey)
            return 0; /* switches the view (and closes this one) */
    return 1;
}

int tui_source_mouse(struct tui *t, const struct tui_mouse *ev)
{
    struct tui_source *s = t->source;
    const struct tui_rect *b = &t->lay.body;
    int first = b->y + b->h - s->page; /* the list's first row on the screen */

    if (ev->y < b->y || ev->y >= b->y + b->h)
        return 0; /* the tabs: switch the view */
    if (ev->kind == TUI_MOUSE_WHEEL_UP || ev->kind == TUI_MOUSE_WHEEL_DOWN) {
        for (int i = 0; i < 3; i++)
            tui_list_nav(&s->list, ev->kind == TUI_MOUSE_WHEEL_UP ? TUI_NAV_UP : TUI_NAV_DOWN,
                         s->nrows, s->page);
    } else if (ev->y >= first && s->list.top + ev->y - first < s->nrows) {
        s->list.sel = s->list.top + ev->y - first;
    }
    return 1;
}

void tui_source_status(struct tui *t, char *buf, size_t n)
{
    const struct tui_source *s = t->source;
    int ln = s->list.sel >= 0 && s->list.sel < s->nrows ? s->rows[s->list.sel] : -1;

    if (ln < 0)
        snprintf(buf, n, "n/N next/previous hot line, Esc/q back");
    else
        snprintf(buf, n, "line %d: %.1f%% | n/N next/previous hot line, Esc/q back", ln + 1,
                 tui_pct(ln < s->ncounts ? s->counts[ln] : 0, s->total));
}

/* The Source view as an overlay of the body (struct tui_overlay). */
static const struct tui_overlay source_overlay = {
    .draw = tui_source_draw,
    .key = tui_source_key,
    .mouse = tui_source_mouse,
    .status = tui_source_status,
    .close = tui_source_close,
};
