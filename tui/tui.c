/* The interactive front end: terminal setup, key dispatch, and the parts of the screen every
 * view shares (header with process metrics, tabs, status line, help overlay, search prompt).
 * Each frame is drawn into stdscr after erase() and shown with one refresh(): no flicker. */
#define _GNU_SOURCE            1
#define _XOPEN_SOURCE_EXTENDED 1
#include "collector/protocol.h"
#include "tui/tui_internal.h"
#include "gpu/gpu.h"
#include "base/stderr_route.h"

#include <curses.h>
#include <math.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define KEY_ESC 27

/* Colour pair numbers (0 is the terminal's default). */
enum {
    PAIR_LABEL = 1,
    PAIR_TAB_ACTIVE,
    PAIR_COLUMNS,
    PAIR_SELECTED,
    PAIR_STDERR,
    PAIR_NOTICE,
    PAIR_STATUS_KEY,
    PAIR_GOOD,
    PAIR_BAD,
    PAIR_MATCH,
};

/* Set up the colour pairs; background -1 (the terminal's) when supported. */
static void init_colors(void)
{
    short bg = COLOR_BLACK;

    start_color();
    if (use_default_colors() == OK)
        bg = -1;
    init_pair(PAIR_LABEL, COLOR_CYAN, bg);
    init_pair(PAIR_TAB_ACTIVE, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_COLUMNS, COLOR_BLACK, COLOR_GREEN);
    init_pair(PAIR_SELECTED, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_STDERR, COLOR_RED, bg);
    init_pair(PAIR_NOTICE, COLOR_BLACK, COLOR_YELLOW);
    init_pair(PAIR_STATUS_KEY, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_GOOD, COLOR_GREEN, bg);
    init_pair(PAIR_BAD, COLOR_RED, bg);
    init_pair(PAIR_MATCH, COLOR_BLACK, COLOR_YELLOW);
}

unsigned int tui_style(const struct tui *t, enum tui_style s)
{
    if (!t->color) {
        switch (s) {
        case TUI_S_LABEL:
        case TUI_S_TITLE:
        case TUI_S_STDERR:
        case TUI_S_HOT:
        case TUI_S_BAD:
            return A_BOLD;
        case TUI_S_TAB_ACTIVE:
        case TUI_S_NOTICE:
            return A_REVERSE | A_BOLD;
        case TUI_S_COLUMNS:
        case TUI_S_SELECTED:
        case TUI_S_STATUS_KEY:
            return A_REVERSE;
        case TUI_S_MATCH:
            return A_UNDERLINE | A_BOLD;
        case TUI_S_DIM:
            return A_DIM;
        default:
            return A_NORMAL;
        }
    }
    switch (s) {
    case TUI_S_LABEL:
        return COLOR_PAIR(PAIR_LABEL);
    case TUI_S_VALUE:
    case TUI_S_TITLE:
        return A_BOLD;
    case TUI_S_TAB_ACTIVE:
        return COLOR_PAIR(PAIR_TAB_ACTIVE) | A_BOLD;
    case TUI_S_COLUMNS:
        return COLOR_PAIR(PAIR_COLUMNS);
    case TUI_S_SELECTED:
        return COLOR_PAIR(PAIR_SELECTED);
    case TUI_S_DIM:
        return A_DIM;
    case TUI_S_STDERR:
        return COLOR_PAIR(PAIR_STDERR);
    case TUI_S_NOTICE:
        return COLOR_PAIR(PAIR_NOTICE) | A_BOLD;
    case TUI_S_STATUS_KEY:
        return COLOR_PAIR(PAIR_STATUS_KEY);
    case TUI_S_HOT:
        return COLOR_PAIR(PAIR_BAD) | A_BOLD;
    case TUI_S_GOOD:
        return COLOR_PAIR(PAIR_GOOD);
    case TUI_S_BAD:
        return COLOR_PAIR(PAIR_BAD) | A_BOLD;
    case TUI_S_MATCH:
        return COLOR_PAIR(PAIR_MATCH);
    default:
        return A_NORMAL;
    }
}

const char *tui_glyph_open(const struct tui *t)
{
    return t->utf8 ? "\xe2\x96\xbe" : "-"; /* ▾ */
}

const char *tui_glyph_closed(const struct tui *t)
{
    return t->utf8 ? "\xe2\x96\xb8" : "+"; /* ▸ */
}

int tui_put(struct tui *t, int y, int x, int w, unsigned int attr, const char *s, int pad)
{
    char buf[4096];
    int used;

    if (w <= 0)
        return 0;
    if (w > 1000)
        w = 1000; /* 4 bytes per column fit buf */
    used = tui_fit(buf, sizeof(buf), s ? s : "", w, t->utf8);
    attrset(attr);
    mvaddstr(y, x, buf);
    if (pad)
        for (int i = used; i < w; i++)
            addch(' ');
    attrset(A_NORMAL);
    return pad ? w : used;
}

void tui_seg(struct tui *t, int y, int *x, int xmax, unsigned int attr, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    *x += tui_put(t, y, *x, xmax - *x, attr, buf, 0);
}

int tui_draw_frame(struct tui *t, const struct tui_rect *r, const char *title, const char *columns)
{
    if (r->h >= 1)
        tui_put(t, r->y, r->x, r->w, tui_style(t, TUI_S_TITLE), title, 1);
    if (r->h >= 2)
        tui_put(t, r->y + 1, r->x, r->w, tui_style(t, TUI_S_COLUMNS), columns, 1);
    return r->h > 2 ? r->h - 2 : 0;
}

enum tui_nav tui_key_nav(int key)
{
    switch (key) {
    case KEY_UP:
    case 'k':
        return TUI_NAV_UP;
    case KEY_DOWN:
    case 'j':
        return TUI_NAV_DOWN;
    case KEY_PPAGE:
        return TUI_NAV_PGUP;
    case KEY_NPAGE:
        return TUI_NAV_PGDN;
    case KEY_HOME:
    case 'g':
        return TUI_NAV_HOME;
    case KEY_END:
    case 'G':
        return TUI_NAV_END;
    default:
        return TUI_NAV_NONE;
    }
}

int tui_page_rows(const struct tui *t)
{
    return t->lay.body.h > 3 ? t->lay.body.h - 2 : 1;
}

void tui_message(struct tui *t, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(t->message, sizeof(t->message), fmt, ap);
    va_end(ap);
}

void tui_filter_changed(struct tui *t)
{
    t->filter_gen++;
}

void tui_switch_view(struct tui *t, int view)
{
    if (t->overlay)
        t->overlay->close(t);
    if (view >= 0 && view < tui_view_count)
        t->view = view;
}

/* The tabs line: every view with its key, the current one highlighted, the labels as long as
 * the width allows (tui_tabs_layout, which tui_tab_at uses for clicks too). */
static void draw_tabs(struct tui *t, const struct tui_rect *r)
{
    struct tui_tab_place tabs[TUI_MAX_VIEWS];
    int x = 0, n = tui_tabs_layout(tui_views, tui_view_count, t->view, r->w, tabs);
    char desc[160];

    for (int i = 0; i < n; i++) {
        unsigned int a = tui_style(t, i == t->view ? TUI_S_TAB_ACTIVE : TUI_S_TAB);
        x = tabs[i].x;
        if (*tabs[i].label)
            tui_seg(t, r->y, &x, r->w, a, " %c %s ", tui_views[i]->hotkey, tabs[i].label);
        else
            tui_seg(t, r->y, &x, r->w, a, " %c ", tui_views[i]->hotkey);
        tui_seg(t, r->y, &x, r->w, A_NORMAL, " ");
    }
    tui_filter_desc(t->m, &t->filter, desc, sizeof(desc));
    if (r->w - x > 10) {
        int dw = tui_text_width(desc, t->utf8);
        int dx = r->w - dw - 1 > x ? r->w - dw - 1 : x;
        tui_put(t, r->y, dx, r->w - dx, tui_style(t, TUI_S_LABEL), desc, 0);
    }
}

/* The status line: search prompt, message, or PAUSED + view text + key hints. */
static void draw_status(struct tui *t, const struct tui_rect *r)
{
    static const char *const hints[][2] = {
        {"F1", "Help"},  {"F2", "Setup"}, {"/", "Search"}, {"n", "Next"},  {"F6", "Sort"},
        {"t", "Thread"}, {"w", "Window"}, {"p", "Pause"},  {"r", "Reset"}, {"F10", "Quit"},
    };
    const struct tui_view *v = tui_views[t->view];
    unsigned int key = tui_style(t, TUI_S_STATUS_KEY), txt = tui_style(t, TUI_S_STATUS);
    int x = 0, y = r->y, w = r->w;
    char buf[640];

    if (t->searching) {
        tui_seg(t, y, &x, w, key, "Search:");
        tui_seg(t, y, &x, w, txt, " %s_", t->search);
        tui_seg(t, y, &x, w, tui_style(t, TUI_S_DIM), "   Enter: find  Esc: cancel");
        return;
    }
    if (t->paused)
        tui_seg(t, y, &x, w, tui_style(t, TUI_S_NOTICE), "PAUSED");
    if (t->message[0]) {
        tui_seg(t, y, &x, w, txt, "%s%s", t->paused ? " " : "", t->message);
        return;
    }
    buf[0] = '\0';
    if (t->overlay)
        t->overlay->status(t, buf, sizeof(buf));
    else if (v->status)
        v->status(t, t->state[t->view], buf, sizeof(buf));
    if (buf[0])
        tui_seg(t, y, &x, w, txt, "%s%s ", t->paused ? " " : "", buf);
    else if (t->paused)
        tui_seg(t, y, &x, w, txt, " ");
    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++) {
        int need = (int)(strlen(hints[i][0]) + strlen(hints[i][1]) + 1);
        if (x + need > w)
            break;
        tui_seg(t, y, &x, w, key, "%s", hints[i][0]);
        tui_seg(t, y, &x, w, txt, "%s ", hints[i][1]);
    }
}

/* Replay: move or resize the shown part of the recorded run (the replay recounts). */
static void replay_range_key(struct tui *t, int ch)
{
    struct model_session *s = model_session(t->m);
    uint64_t run = s->end_ns > s->start_ns ? s->end_ns - s->start_ns : 0;
    uint64_t width = s->range_end_ns - s->range_start_ns, start = s->range_start_ns - s->start_ns;

    if (run == 0)
        return;
    if (ch == 'w')
        width = width >= run ? (run / 10 > 100000000ull ? run / 10 : run) : run;
    else if (ch == '{')
        width = width / 2 > 10000000ull ? width / 2 : width;
    else if (ch == '}')
        width = width * 2 < run ? width * 2 : run;
    else if (ch == '[')
        start = start > width / 2 ? start - width / 2 : 0;
    else if (ch == ']')
        start += width / 2;
    if (ch == 'w' && width >= run)
        start = 0;
    if (start + width > run)
        start = run - width;
    s->range_start_ns = s->start_ns + start;
    s->range_end_ns = s->range_start_ns + width;
    s->range_changed = 1;
    tui_message(t, "range %.1f-%.1f s of %.1f s", (double)start / 1e9,
                (double)(start + width) / 1e9, (double)run / 1e9);
}

/* Bring the current view's data up to date: after a filter change always, otherwise only
 * when new model data was announced by an unpaused refresh. */
static void ensure_built(struct tui *t)
{
    int v = t->view;

    if (t->built_filter[v] != t->filter_gen || (!t->paused && t->built_data[v] != t->data_gen)) {
        tui_views[v]->rebuild(t, t->state[v]);
        t->built_filter[v] = t->filter_gen;
        t->built_data[v] = t->data_gen;
    }
}

/* Follow a terminal size change even when no key (KEY_RESIZE) was read since. */
static void check_resize(const struct tui *t)
{
    struct winsize ws;

    if (ioctl(fileno((FILE *)t->tty), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0 &&
        is_term_resized(ws.ws_row, ws.ws_col))
        resizeterm(ws.ws_row, ws.ws_col);
}

/* Draw one complete frame. */
static void draw(struct tui *t)
{
    check_resize(t);
    getmaxyx(stdscr, t->rows, t->cols);
    tui_layout_compute(t->rows, t->cols, tui_header_prepare(t), &t->lay);
    ensure_built(t);
    erase();
    if (t->lay.too_small) {
        char msg[80];
        snprintf(msg, sizeof(msg), "too small: need %dx%d (q quits)", TUI_MIN_COLS, TUI_MIN_ROWS);
        if (t->rows > 0)
            tui_put(t, 0, 0, t->cols, A_BOLD, msg, 0);
        refresh();
        return;
    }
    tui_header_draw(t, &t->lay.header);
    draw_tabs(t, &t->lay.tabs);
    if (t->setup)
        tui_setup_draw(t, &t->lay.body);
    else if (t->overlay)
        t->overlay->draw(t, &t->lay.body);
    else
        tui_views[t->view]->draw(t, t->state[t->view], &t->lay.body);
    draw_status(t, &t->lay.status);
    if (t->help)
        tui_help_draw(t);
    refresh();
}

/* Run the current search in the current view. */
static void do_search(struct tui *t)
{
    const struct tui_view *v = tui_views[t->view];

    if (!t->search[0]) {
        tui_message(t, "no search yet: press / first");
        return;
    }
    ensure_built(t);
    switch (tui_view_search(t, v, t->state[t->view], t->search)) {
    case -1:
        tui_message(t, "no search in the %s view", v->name);
        break;
    case 0:
        tui_message(t, "no match for \"%s\"", t->search);
        break;
    }
}

/* A key while the search prompt is open. */
static void search_key(struct tui *t, int ch)
{
    size_t n = strlen(t->search);

    switch (ch) {
    case KEY_ESC:
        t->searching = 0;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        t->searching = 0;
        do_search(t);
        break;
    case KEY_BACKSPACE:
    case 127:
    case 8:
        while (n > 0 && ((unsigned char)t->search[n - 1] & 0xc0) == 0x80)
            n--; /* continuation bytes of a UTF-8 character */
        if (n > 0)
            n--;
        t->search[n] = '\0';
        break;
    default:
        if (ch >= 32 && ch < 256 && ch != 127 && n + 1 < sizeof(t->search)) {
            t->search[n] = (char)ch;
            t->search[n + 1] = '\0';
        }
        break;
    }
}

/* A mouse event (mouse.c): a click closes the help; the search prompt ignores it. */
static int mouse_key(struct tui *t)
{
    struct tui_mouse ev;

    if (tui_mouse_read(&ev) != 0 || t->searching)
        return 0;
    t->message[0] = '\0';
    if (t->help) {
        t->help = ev.kind != TUI_MOUSE_CLICK;
        return 0;
    }
    ensure_built(t);
    if (t->overlay && t->overlay->mouse(t, &ev))
        return 0;
    tui_mouse_dispatch(t, &ev);
    return t->profile_pid > 0;
}

/* Handle one key; returns 1 to quit. */
static int handle_key(struct tui *t, int ch)
{
    const struct tui_view *v = tui_views[t->view];
    int n;

    if (ch == KEY_RESIZE)
        return 0; /* the next draw reads the new size */
    if (ch == KEY_MOUSE)
        return mouse_key(t);
    t->message[0] = '\0';
    if (t->help) {
        if (ch == KEY_F(10))
            return 1;
        t->help = 0;
        return 0;
    }
    if (t->searching) {
        search_key(t, ch);
        return 0;
    }
    if (t->setup && tui_setup_key(t, ch))
        return 0;
    if (t->overlay && t->overlay->key(t, ch))
        return 0;
    switch (ch) {
    case KEY_F(2):
        t->setup = 1;
        return 0;
    case 'q':
    case KEY_F(10):
        return 1;
    case '\t':
        tui_switch_view(t, (t->view + 1) % tui_view_count);
        return 0;
    case KEY_BTAB:
        tui_switch_view(t, (t->view + tui_view_count - 1) % tui_view_count);
        return 0;
    case '?':
    case 'h':
    case KEY_F(1):
        t->help = 1;
        return 0;
    case '/':
        t->searching = 1;
        t->search[0] = '\0';
        return 0;
    case 'n':
        do_search(t);
        return 0;
    case 'p':
        t->paused = !t->paused;
        return 0;
    case 'r':
        model_reset_counts(t->m);
        tui_filter_changed(t);
        tui_message(t, "sample counts reset");
        return 0;
    case 'w':
    case '[':
    case ']':
    case '{':
    case '}':
        if (model_session(t->m)->replay)
            replay_range_key(t, ch);
        else if (ch == 'w')
            t->filter.window = !t->filter.window;
        tui_filter_changed(t);
        return 0;
    case 't':
        n = model_thread_count(t->m);
        t->filter.thread = t->filter.thread + 1 >= n ? -1 : t->filter.thread + 1;
        tui_filter_changed(t);
        return 0;
    case KEY_ESC: /* the view's (the flame graph zooms out) */
    default:
        break;
    }
    for (int i = 0; i < tui_view_count; i++) {
        if (tui_views[i]->global_key && tui_views[i]->global_key(t, ch))
            return 0; /* a view's key in every view (the Ranks view's R) */
        if (ch == tui_views[i]->hotkey) {
            tui_switch_view(t, i);
            return 0;
        }
    }
    ensure_built(t);
    tui_view_key(t, v, t->state[t->view], ch);
    return t->profile_pid > 0; /* a view chose a process to profile: leave */
}

int tui_profile_pid(const struct tui *t)
{
    return t ? t->profile_pid : 0;
}

/* While the display is open, point stdout and stderr away from the terminal: a library in our
 * process (librocm_smi64 prints "Unable to open queues directory ..." on some calls) would
 * otherwise write over the screen. What lands there is shown after the display closes. */
static void stray_output_capture(struct tui *t)
{
    const char *tmp = getenv("TMPDIR");
    char path[512];
    int fd;

    t->saved_stdout = t->stray_fd = t->stderr_route = -1;
    snprintf(path, sizeof(path), "%s/rocsys-top-stray.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        snprintf(path, sizeof(path), "/tmp/rocsys-top-stray.XXXXXX");
        fd = mkostemp(path, O_CLOEXEC);
    }
    if (fd < 0)
        return; /* then stray output may show on screen, as before */
    unlink(path);
    fflush(stdout);
    fflush(stderr);
    t->saved_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    t->stray_fd = fd;
    dup2(fd, STDOUT_FILENO);
    t->stderr_route = stderr_route_push(fd); /* the GPU monitor's thread may move fd 2 too */
}

/* Give stdout and stderr back and show (the end of) what was printed while the display was
 * open, so that a library's complaint is not lost. */
#define STRAY_LINES 8 /* lines of stray output shown after the display closes */
static void stray_output_release(struct tui *t)
{
    char buf[2048];
    off_t size;
    ssize_t n;

    if (t->stray_fd < 0)
        return;
    fflush(stdout);
    fflush(stderr);
    if (t->saved_stdout >= 0) {
        dup2(t->saved_stdout, STDOUT_FILENO);
        close(t->saved_stdout);
    }
    if (t->stderr_route > 0)
        stderr_route_pop(t->stderr_route);
    size = lseek(t->stray_fd, 0, SEEK_END);
    n = size > 0 ? pread(t->stray_fd, buf, sizeof(buf) - 1,
                         size > (off_t)sizeof(buf) - 1 ? size - (off_t)sizeof(buf) + 1 : 0)
                 : 0;
    if (n > 0) {
        /* the last STRAY_LINES whole lines */
        const char *p = buf + n;
        int lines = 0;
        buf[n] = '\0';
        if (p > buf && p[-1] == '\n')
            p--;
        while (p > buf && lines < STRAY_LINES)
            if (*--p == '\n')
                lines++;
        if (*p == '\n')
            p++;
        fprintf(stderr,
                "rocsys-top: printed by libraries while the display was open (%lld bytes%s):\n",
                (long long)size, p > buf || size > n ? "; the last lines" : "");
        fputs(p, stderr);
        if (buf[n - 1] != '\n')
            fputc('\n', stderr);
    }
    close(t->stray_fd);
    t->stray_fd = -1;
}

struct tui *tui_open(struct model *m, const struct tui_options *o)
{
    struct tui *t = NULL;
    SCREEN *scr = NULL;
    FILE *tty = NULL;
    const char *cs;
    const char *cup;
    int fd;

    setlocale(LC_ALL, "");
    if (!isatty(fileno(stdin)) || !isatty(fileno(stdout)))
        goto out; /* not a terminal: the caller prints text frames instead */
    fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    tty = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!tty) {
        if (fd >= 0)
            close(fd);
        goto out;
    }
    scr = newterm(NULL, tty, stdin);
    if (!scr)
        goto out;
    set_term(scr);
    cup = tigetstr("cup");
    if (cup == NULL || cup == (char *)-1)
        goto out; /* without cursor addressing a full-screen display is garbage */
    t = xcalloc(1, sizeof(*t));
    t->m = m;
    t->opt = *o;
    t->screen = scr;
    t->tty = tty;
    stray_output_capture(t);
    cs = nl_langinfo(CODESET);
    t->utf8 = cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
    cbreak();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    if (!o->no_mouse)
        tui_mouse_enable(1);
    if (o->color && has_colors()) {
        init_colors();
        t->color = 1;
    }
    for (int i = 0; i < tui_view_count; i++)
        t->state[i] = tui_views[i]->create();
    t->view = o->initial_view >= 0 && o->initial_view < tui_view_count ? o->initial_view : 0;
    t->filter = (struct model_filter){.thread = -1, .window = 0};
    t->filter_gen = 1;
    t->data_gen = 1;
    tui_settings_open(t); /* the saved view, sort orders, columns, window, mouse */
out:
    if (!t && scr) {
        endwin();
        delscreen(scr);
    }
    if (!t && tty)
        fclose(tty);
    return t;
}

void tui_close(struct tui *t)
{
    if (!t)
        return;
    tui_settings_close(t); /* written on quit, like htop */
    endwin();
    delscreen(t->screen);
    fclose(t->tty);
    stray_output_release(t);
    if (t->set_error[0])
        fprintf(stderr, "rocsys-top: %s\n", t->set_error);
    if (t->overlay)
        t->overlay->close(t);
    for (int i = 0; i < tui_view_count; i++)
        tui_views[i]->destroy(t->state[i]);
    free(t);
}

int tui_input(struct tui *t)
{
    int ch, any = 0;

    while ((ch = getch()) != ERR) {
        any = 1;
        if (handle_key(t, ch))
            return 1;
    }
    if (any)
        draw(t); /* show the effect of the keys now, not at the next refresh */
    return 0;
}

void tui_refresh(struct tui *t)
{
    if (!t->paused)
        t->data_gen++;
    draw(t);
}
