/* Screen layout: where the header, tabs, body and status line go for a terminal size.
 * Pure arithmetic, separate from drawing. */
#include "tui/tui_internal.h"

#include <string.h>

/* The most rows the header may take: more room, more processes shown. */
static int header_rows(int rows)
{
    if (rows >= 40)
        return 7;
    if (rows >= 24)
        return 5;
    if (rows >= 14)
        return 3;
    return 2;
}

void tui_layout_compute(int rows, int cols, int header_want, struct tui_layout *out)
{
    int hh;

    memset(out, 0, sizeof(*out));
    if (rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS) {
        out->too_small = 1;
        return;
    }
    hh = header_rows(rows);
    if (header_want > 0 && header_want < hh) /* no blank lines under a short header */
        hh = header_want < 2 ? 2 : header_want;
    out->header = (struct tui_rect){.y = 0, .x = 0, .h = hh, .w = cols};
    out->tabs = (struct tui_rect){.y = hh, .x = 0, .h = 1, .w = cols};
    out->body = (struct tui_rect){.y = hh + 1, .x = 0, .h = rows - hh - 2, .w = cols};
    out->status = (struct tui_rect){.y = rows - 1, .x = 0, .h = 1, .w = cols};
}
