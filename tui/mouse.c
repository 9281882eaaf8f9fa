/* The mouse, as in htop: ncurses reports clicks and wheel turns (xterm's SGR 1006 mode where the
 * terminal has it); a click on a tab switches the view, a click in the body goes to the view's
 * click callback (column headings sort, rows select, the selected row acts as Enter), the
 * wheel moves the selection. Hit-testing is in hittest.c; --no-mouse leaves all of this off. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include <curses.h>

#define WHEEL_ROWS 3 /* rows one wheel notch moves */

void tui_mouse_enable(int on)
{
    if (!on) {
        mousemask(0, NULL);
        return;
    }
    /* Every button event, though only presses are acted on (a press, not a click: a click
     * would wait mouseinterval() for the release, and the wheel has no release). ncurses
     * swallows an event outside the mask with a blocking read for the next key, which would
     * freeze the display until then: releases must be in the mask. */
    mousemask(ALL_MOUSE_EVENTS, NULL);
    mouseinterval(0);
}

int tui_mouse_read(struct tui_mouse *ev)
{
    MEVENT me;

    if (getmouse(&me) != OK)
        return -1;
    if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
        ev->kind = TUI_MOUSE_CLICK;
    else if (me.bstate & BUTTON4_PRESSED)
        ev->kind = TUI_MOUSE_WHEEL_UP;
    else if (me.bstate & BUTTON5_PRESSED)
        ev->kind = TUI_MOUSE_WHEEL_DOWN;
    else
        return -1;
    ev->y = me.y;
    ev->x = me.x;
    ev->h = LINES;
    ev->w = COLS;
    return 0;
}

/* Is the screen cell (y, x) inside r? */
static int in_rect(const struct tui_rect *r, int y, int x)
{
    return y >= r->y && y < r->y + r->h && x >= r->x && x < r->x + r->w;
}

void tui_mouse_dispatch(struct tui *t, const struct tui_mouse *ev)
{
    const struct tui_view *v = tui_views[t->view];
    const struct tui_rect *body = &t->lay.body;
    struct tui_mouse rel;

    if (t->lay.too_small)
        return;
    if (ev->kind == TUI_MOUSE_CLICK && in_rect(&t->lay.tabs, ev->y, ev->x)) {
        int tab =
            tui_tab_at(tui_views, tui_view_count, t->view, ev->x - t->lay.tabs.x, t->lay.tabs.w);
        if (tab >= 0)
            tui_switch_view(t, tab);
        return;
    }
    if (!in_rect(body, ev->y, ev->x))
        return;
    rel = (struct tui_mouse){
        .kind = ev->kind, .y = ev->y - body->y, .x = ev->x - body->x, .h = body->h, .w = body->w};
    if (tui_view_click(t, v, t->state[t->view], &rel))
        return;
    if (ev->kind != TUI_MOUSE_CLICK)
        for (int i = 0; i < WHEEL_ROWS; i++)
            tui_view_key(t, v, t->state[t->view],
                         ev->kind == TUI_MOUSE_WHEEL_UP ? KEY_UP : KEY_DOWN);
}
