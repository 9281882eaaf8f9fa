/* The GPU view's geometry and glyphs: where 1 to 16 GPU panels and the process list go for a
 * body size, and the cells of gauges and history graphs. Pure (no terminal, no monitor). */
#include "tui/tui_internal.h"

#include <math.h>
#include <string.h>

#define PANEL_INFO_LINES 5  /* name, 2 gauge lines, temperatures/clocks/fan, history label */
#define PANEL_MIN_W      50 /* narrower panels are not put side by side */
#define GRAPH_MAX_ROWS   8  /* taller graphs add nothing: the rest goes to the process list */
#define PANEL_MAX_COLS   4

/* Panel height for rows of panels in avail lines (0 if they do not fit). */
static int panel_height(int avail, int rows)
{
    int ph = rows > 0 ? avail / rows : 0;
    return ph > PANEL_INFO_LINES + GRAPH_MAX_ROWS ? PANEL_INFO_LINES + GRAPH_MAX_ROWS : ph;
}

void tui_gpu_layout_compute(const struct tui_rect *body, int ngpu, int nproc,
                            struct tui_gpu_layout *out)
{
    int avail, procs_h = 0, cols = 0, ph = 0, best_ph = 0, best_cols = 0, used;

    memset(out, 0, sizeof(*out));
    if (body->h <= 0 || body->w <= 0)
        return;
    out->title = (struct tui_rect){.y = body->y, .x = body->x, .h = 1, .w = body->w};
    if (ngpu > TUI_GPU_MAX_PANELS)
        ngpu = TUI_GPU_MAX_PANELS;
    avail = body->h - 1;
    if (ngpu <= 0 || avail <= 0)
        return;
    /* the process list: its heading and rows, at most a third of the space, 2 lines at least
     * when there is room for anything else */
    if (avail >= 6) {
        procs_h = nproc + 1;
        if (procs_h > avail / 3)
            procs_h = avail / 3;
        if (procs_h < 2)
            procs_h = 2;
    }
    avail -= procs_h;
    /* the fewest columns that give every panel a graph of 2 rows; else the tallest panels */
    for (int c = 1; c <= PANEL_MAX_COLS && c <= ngpu; c++) {
        int pw = (body->w - (c - 1)) / c;
        if (c > 1 && pw < PANEL_MIN_W)
            break;
        int h = panel_height(avail, (ngpu + c - 1) / c);
        if (h >= PANEL_INFO_LINES + 2) {
            cols = c;
            ph = h;
            break;
        }
        if (h > best_ph) {
            best_ph = h;
            best_cols = c;
        }
    }
    if (!cols && best_ph >= PANEL_INFO_LINES + 1) {
        cols = best_cols;
        ph = best_ph;
    }
    if (cols) {
        int pw = (body->w - (cols - 1)) / cols;
        out->columns = cols;
        out->graph_rows = ph - PANEL_INFO_LINES;
        out->npanels = ngpu;
        for (int i = 0; i < ngpu; i++) {
            int r = i / cols, c = i % cols;
            int x = body->x + c * (pw + 1);
            int w = c == cols - 1 ? body->x + body->w - x : pw;
            out->panel[i] = (struct tui_rect){.y = body->y + 1 + r * ph, .x = x, .h = ph, .w = w};
        }
        used = ((ngpu + cols - 1) / cols) * ph;
    } else { /* a table: one line per GPU, as many as fit */
        out->compact = 1;
        out->columns = 1;
        out->npanels = ngpu < avail ? ngpu : avail;
        for (int i = 0; i < out->npanels; i++)
            out->panel[i] =
                (struct tui_rect){.y = body->y + 1 + i, .x = body->x, .h = 1, .w = body->w};
        used = out->npanels;
    }
    /* the process list takes every line the panels leave */
    int py = body->y + 1 + used, ph_left = body->y + body->h - py;
    if (procs_h > 0 && ph_left > 0)
        out->procs = (struct tui_rect){.y = py, .x = body->x, .h = ph_left, .w = body->w};
}

const char *tui_graph_cell(double fraction, int row, int rows, int utf8)
{
    static const char *const eighths[] = {" ",
                                          "\xe2\x96\x81",
                                          "\xe2\x96\x82",
                                          "\xe2\x96\x83",
                                          "\xe2\x96\x84",
                                          "\xe2\x96\x85",
                                          "\xe2\x96\x86",
                                          "\xe2\x96\x87",
                                          "\xe2\x96\x88"}; /* " ▁▂▃▄▅▆▇█" */
    int total, fill;

    if (isnan(fraction) || rows <= 0)
        return " ";
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    total = (int)lround(fraction * rows * 8);
    if (total == 0 && fraction > 0)
        total = 1; /* a small non-zero value stays visible */
    fill = total - row * 8;
    fill = fill < 0 ? 0 : fill > 8 ? 8 : fill;
    if (utf8)
        return eighths[fill];
    return fill == 0 ? " " : fill < 4 ? "." : fill < 8 ? ":" : "#";
}

void tui_gauge(char *buf, size_t n, double fraction, int width, int utf8)
{
    static const char *const part[] = {"",
                                       "\xe2\x96\x8f",
                                       "\xe2\x96\x8e",
                                       "\xe2\x96\x8d",
                                       "\xe2\x96\x8c",
                                       "\xe2\x96\x8b",
                                       "\xe2\x96\x8a",
                                       "\xe2\x96\x89"}; /* ▏▎▍▌▋▊▉ */
    size_t o = 0;
    int eighths, cells = 0;

    if (n == 0)
        return;
    buf[0] = '\0';
    if (width <= 0)
        return;
    if (isnan(fraction))
        fraction = 0;
    fraction = fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
    eighths = (int)lround(fraction * width * 8);
    for (; cells < eighths / 8 && o + 4 < n; cells++) {
        const char *s = utf8 ? "\xe2\x96\x88" : "|";
        memcpy(buf + o, s, strlen(s));
        o += strlen(s);
    }
    if (utf8 && eighths % 8 && cells < width && o + 4 < n) {
        memcpy(buf + o, part[eighths % 8], strlen(part[eighths % 8]));
        o += strlen(part[eighths % 8]);
        cells++;
    }
    for (; cells < width && o + 1 < n; cells++)
        buf[o++] = utf8 ? ' ' : '.';
    buf[o] = '\0';
}
