/* The settings in an open TUI: applied when it opens (view, sort orders, columns, window,
 * mouse), collected and written when it closes, and changed on the F2 setup screen (rows from
 * the key table in settings.c; a column list is one row per column). */
#include "tui/tui_internal.h"

#include <curses.h>
#include <stdlib.h>
#include <string.h>

#define KEY_ESC 27

/* One row of the setup screen: a table row, and for a column list the column. */
struct setup_row {
    const struct tui_setting_def *d;
    int column; /* TUI_SET_COLUMNS: the column (bit); else -1 */
};

/* The setup screen's rows (at most max); their number. */
static int setup_rows(struct setup_row *out, int max)
{
    int n = 0;
    for (int i = 0; i < tui_settings_count; i++) {
        const struct tui_setting_def *d = &tui_settings_table[i];
        if (d->type != TUI_SET_COLUMNS) {
            if (n < max)
                out[n++] = (struct setup_row){d, -1};
            continue;
        }
        for (int c = 0; d->choices[0] && c < 32; c++) {
            int words = 1;
            for (const char *p = d->choices; *p; p++)
                words += *p == ' ';
            if (c >= words)
                break;
            if (n < max)
                out[n++] = (struct setup_row){d, c};
        }
    }
    return n;
}

/* The state of the view named name, or NULL. */
static void *view_state(struct tui *t, const char *name)
{
    int v = tui_view_find(name);
    return v >= 0 ? t->state[v] : NULL;
}

/* Make the TUI follow setting d of t->set now. */
static void apply(struct tui *t, const struct tui_setting_def *d)
{
    void *st = d->sort ? view_state(t, d->view) : NULL;
    int *f = tui_setting_field(&t->set, d);

    if (st)
        d->sort(st, *f);
    else if (f == &t->set.window_s)
        model_set_window(t->m, (uint32_t)t->set.window_s);
    else if (f == &t->set.mouse && t->opt.no_mouse == t->set.mouse) {
        t->opt.no_mouse = !t->set.mouse;
        tui_mouse_enable(t->set.mouse);
    } else if (f == &t->set.delay_tenths)
        t->opt.delay_tenths = t->set.delay_tenths;
    tui_filter_changed(t);
}

void tui_settings_open(struct tui *t)
{
    const char *path = tui_settings_current(&t->set);

    t->set_path = path[0] ? xstrdup(path) : NULL;
    /* delay, window and mouse run as the options say (main gave them the file's values where
     * the command line did not); the file keeps its own unless F2 changes them */
    if (t->opt.initial_view == 0 && t->set.view > 0 && t->set.view < tui_view_count)
        t->view = t->set.view; /* a mode that asks for a view of its own keeps it */
    for (int i = 0; i < tui_settings_count; i++)
        if (tui_settings_table[i].sort)
            apply(t, &tui_settings_table[i]);
}

void tui_settings_close(struct tui *t)
{
    const struct model_session *ms = model_session(t->m);

    if (!t->set_path)
        return; /* --no-config, -b, or a file that was not ours */
    if (!ms->attach_gpu && !ms->diff_old)
        t->set.view = t->view;
    for (int i = 0; i < tui_settings_count; i++) {
        const struct tui_setting_def *d = &tui_settings_table[i];
        void *st = d->sort ? view_state(t, d->view) : NULL;
        if (st)
            *tui_setting_field(&t->set, d) = d->sort(st, -1);
    }
    char err[200];
    if (tui_settings_save(t->set_path, &t->set, err, sizeof(err)) != 0)
        snprintf(t->set_error, sizeof(t->set_error), "cannot write the settings %s: %s",
                 t->set_path, err);
    free(t->set_path);
    t->set_path = NULL;
}

/* Step row's value by delta (Left/Right), or toggle it (delta 0). */
static void change(struct tui *t, const struct setup_row *r, int delta)
{
    int *f = tui_setting_field(&t->set, r->d);
    int lo = r->d->min, hi = r->d->max;

    if (r->column >= 0) {
        *f = (int)((unsigned)*f ^ (1u << r->column));
    } else {
        if (r->d->type == TUI_SET_VIEW)
            lo = 0, hi = tui_view_count - 1;
        if (r->d->type == TUI_SET_BOOL)
            delta = 1;
        int span = hi - lo + 1, v = *f + (delta ? delta : 1);
        if (r->d->type == TUI_SET_INT) /* numbers stop at their ends */
            v = v < lo ? lo : v > hi ? hi : v;
        else
            v = lo + ((v - lo) % span + span) % span;
        *f = v;
    }
    apply(t, r->d);
}

int tui_setup_key(struct tui *t, int ch)
{
    struct setup_row rows[64];
    int n = setup_rows(rows, 64);

    if (!t->setup)
        return 0;
    switch (ch) {
    case KEY_F(2):
    case KEY_ESC:
    case 'q':
        t->setup = 0;
        tui_message(t, "settings: %s", t->set_path ? "written when rocsys-top ends" : "not saved");
        return 1;
    case KEY_UP:
    case 'k':
        t->setup_sel = t->setup_sel > 0 ? t->setup_sel - 1 : 0;
        return 1;
    case KEY_DOWN:
    case 'j':
        t->setup_sel = t->setup_sel + 1 < n ? t->setup_sel + 1 : n - 1;
        return 1;
    case KEY_LEFT:
    case '-':
        change(t, &rows[t->setup_sel], -1);
        return 1;
    case KEY_RIGHT:
    case '+':
        change(t, &rows[t->setup_sel], 1);
        return 1;
    case ' ':
    case '\n':
    case '\r':
    case KEY_ENTER:
        change(t, &rows[t->setup_sel], 0);
        return 1;
    case KEY_F(10):
        return 0; /* quits */
    default:
        return 1; /* the screen keeps every other key */
    }
}

void tui_setup_draw(struct tui *t, const struct tui_rect *r)
{
    struct setup_row rows[64];
    int n = setup_rows(rows, 64);
    char title[256], line[512], val[256];

    snprintf(title, sizeof(title),
             "Setup (F2): Up Down choose, Left Right - + Space change, Esc done; %s",
             t->set_path ? "saved when rocsys-top ends" : "not saved (--no-config)");
    int left = tui_draw_frame(t, r, title, "  SETTING                                VALUE");
    int top = t->setup_sel >= left && left > 0 ? t->setup_sel - left + 1 : 0; /* scrolled */
    for (int k = 0; k < left && top + k < n; k++) {
        int i = top + k;
        const struct setup_row *row = &rows[i];
        int v = *tui_setting_field(&t->set, row->d);
        if (row->column >= 0) {
            char w[32] = "";
            const char *p = row->d->choices;
            for (int c = 0; c < row->column && *p; c++)
                p += strcspn(p, " ") + (p[strcspn(p, " ")] ? 1 : 0);
            snprintf(w, sizeof(w), "%.*s", (int)strcspn(p, " "), p);
            snprintf(line, sizeof(line), "  %s %-*s %s", row->d->label,
                     (int)(37 - strlen(row->d->label)), w,
                     ((unsigned)v >> row->column & 1u) ? "hidden" : "shown");
        } else {
            tui_setting_text(row->d, v, val, sizeof(val));
            snprintf(line, sizeof(line), "  %-38s %s", row->d->label, val);
        }
        tui_put(t, r->y + 2 + k, r->x, r->w,
                i == t->setup_sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL, line, 1);
    }
}

int tui_delay_tenths(const struct tui *t)
{
    return t && t->opt.delay_tenths > 0 ? t->opt.delay_tenths : 10;
}
