/* View x (eXperiments), causal profile (--causal): per function, the program speedup predicted if
 * it were 0, 10, ..., 100 % faster (measured by virtual speedups, model/causal.h), sorted by the
 * gain at 20 %, with the 95 % interval of the fitted line; the selected function's curve below. */
#define _XOPEN_SOURCE_EXTENDED 1
#include "tui/tui_internal.h"

#include "model/causal.h"

#include <curses.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

TUI_VIEW_DECLARE(causal);

#define COLUMNS    "  GAIN@20  +-95%  @100%  EXPS  at 0 10 20 30 40 50 60 70 80 90 100 %  FUNCTION"
#define CURVE_ROWS 8 /* the selected function's curve, under the list */

struct causal_view {
    size_t *order; /* functions, best first */
    size_t count;
    struct tui_list list;
};

void *tui_causal_create(void)
{
    return xcalloc(1, sizeof(struct causal_view));
}

void tui_causal_destroy(void *st)
{
    struct causal_view *v = st;

    if (v)
        free(v->order);
    free(v);
}

void tui_causal_rebuild(struct tui *t, void *st)
{
    struct causal_view *v = st;
    const struct model_causal *c = model_session(t->m)->causal;

    free(v->order);
    v->order = c ? model_causal_order(c) : NULL;
    v->count = c ? c->n : 0;
}

/* One function's row (a line's: indented, under its function). */
static void row_text(const struct model_causal *c, const struct model_causal_func *f, char *buf,
                     size_t n)
{
    struct model_causal_curve cv;
    char steps[MODEL_CAUSAL_STEPS * 4 + 1] = "";

    model_causal_curve(c, f, &cv);
    for (int k = 0; k < MODEL_CAUSAL_STEPS; k++) {
        size_t len = strlen(steps);
        if (isnan(cv.gain[k]))
            snprintf(steps + len, sizeof(steps) - len, "  .");
        else
            snprintf(steps + len, sizeof(steps) - len, "%3.0f", 100 * cv.gain[k]);
    }
    if (cv.valid) {
        double g20 = cv.slope * 0.2; /* the fitted line's (model_causal_order's key) */
        snprintf(buf, n, "  %6.1f%% %6.1f %5.0f%% %5d %s    %s%s", 100 * g20,
                 100 * cv.slope_ci * 0.2, 100 * cv.slope, cv.experiments, steps,
                 f->parent >= 0 ? "  " : "", f->name);
    } else {
        snprintf(buf, n, "  %7s %6s %6s %5zu %s    %s%s", "-", "-", "-", f->nexp, steps,
                 f->parent >= 0 ? "  " : "", f->name);
    }
}

/* The selected function's curve: a column per 10 % step, height the predicted speedup. */
static void draw_curve(struct tui *t, const struct model_causal *c,
                       const struct model_causal_func *f, int y, int x, int w)
{
    struct model_causal_curve cv;
    char line[256];

    model_causal_curve(c, f, &cv);
    snprintf(line, sizeof(line), "%s  %s: %d experiments, %d at 0 %%", f->name, f->location,
             (int)f->nexp, cv.baselines);
    tui_put(t, y, x, w, tui_style(t, TUI_S_TITLE), line, 1);
    if (!cv.valid) {
        tui_put(t, y + 1, x, w, tui_style(t, TUI_S_DIM),
                "  no curve yet: it needs 0 % experiments and two other speedups", 1);
        return;
    }
    double top = 0.05;
    for (int k = 0; k < MODEL_CAUSAL_STEPS; k++)
        if (!isnan(cv.gain[k]) && fabs(cv.gain[k]) > top)
            top = fabs(cv.gain[k]);
    for (int r = 0; r < CURVE_ROWS - 2; r++) {
        double level = top * (CURVE_ROWS - 3 - r) / (CURVE_ROWS - 3);
        int len = snprintf(line, sizeof(line), "%5.0f%% |", 100 * level);
        for (int k = 0; k < MODEL_CAUSAL_STEPS && len < (int)sizeof(line) - 5; k++) {
            double g = cv.gain[k], fit = cv.slope * k / 10.0;
            const char *cell = "    ";
            if (!isnan(g) && g >= level && level > 0)
                cell = "  # ";
            else if (!isnan(g) && r == CURVE_ROWS - 3 && g < 0)
                cell = "  - ";
            else if (fabs(fit - level) < top / (CURVE_ROWS - 3) / 2)
                cell = "  . ";
            len += snprintf(line + len, sizeof(line) - (size_t)len, "%s", cell);
        }
        tui_put(t, y + 1 + r, x, w, A_NORMAL, line, 1);
    }
    tui_put(t, y + CURVE_ROWS - 1, x, w, tui_style(t, TUI_S_DIM),
            "        0   10  20  30  40  50  60  70  80  90  100 % faster   (# measured, . fit)",
            1);
}

void tui_causal_draw(struct tui *t, void *st, const struct tui_rect *r)
{
    struct causal_view *v = st;
    const struct model_causal *c = model_session(t->m)->causal;
    char title[600], line[1024];
    int page;

    if (!c) {
        tui_draw_frame(t, r, "Causal profile", "");
        tui_put(t, r->y + 3, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM),
                "causal profiling is off: rocsys-top --causal -- PROGRAM", 0);
        return;
    }
    snprintf(title, sizeof(title),
             "Causal profile: progress %s; %llu experiments (%llu counted, %llu dropped: a half "
             "stalled)",
             c->progress[0] ? c->progress : "(none yet)", (unsigned long long)c->experiments,
             (unsigned long long)c->kept, (unsigned long long)c->stalled);
    page = tui_draw_frame(t, r, title, COLUMNS);
    int rows = page > CURVE_ROWS + 4 ? page - CURVE_ROWS - 2 : page - 1;
    if (rows < 1)
        rows = 1;
    tui_list_fit(&v->list, (int)v->count, rows);
    for (int i = 0; i < rows && v->list.top + i < (int)v->count; i++) {
        int idx = v->list.top + i;
        row_text(c, &c->f[v->order[idx]], line, sizeof(line));
        tui_put(t, r->y + 2 + i, r->x, r->w,
                idx == v->list.sel ? tui_style(t, TUI_S_SELECTED) : A_NORMAL, line, 1);
    }
    tui_put(t, r->y + 2 + rows, r->x + 2, r->w - 2, tui_style(t, TUI_S_DIM), c->note, 1);
    if (page > CURVE_ROWS + 4 && v->list.sel >= 0 && v->list.sel < (int)v->count)
        draw_curve(t, c, &c->f[v->order[v->list.sel]], r->y + 4 + rows, r->x + 2, r->w - 2);
}

int tui_causal_key(struct tui *t, void *st, int key)
{
    struct causal_view *v = st;

    return tui_list_nav(&v->list, tui_key_nav(key), (int)v->count, tui_page_rows(t));
}

int tui_causal_search(struct tui *t, void *st, const char *needle)
{
    struct causal_view *v = st;
    const struct model_causal *c = model_session(t->m)->causal;

    for (size_t k = 1; c && k <= v->count; k++) {
        size_t i = ((size_t)(v->list.sel < 0 ? 0 : v->list.sel) + k) % v->count;
        if (tui_match(c->f[v->order[i]].name, needle)) {
            v->list.sel = (int)i;
            return 1;
        }
    }
    return 0;
}

void tui_causal_status(struct tui *t, void *st, char *buf, size_t n)
{
    (void)t;
    (void)st;
    snprintf(buf, n, "predicted program speedup if the function were faster");
}

void tui_causal_batch(FILE *out, struct model *m, int max_rows)
{
    const struct model_causal *c = model_session(m)->causal;

    if (c) /* only with --causal */
        model_causal_print(out, c, max_rows);
}

/* The view's row of the view table (tui/views.c). */
TUI_VIEW_DEFINE(causal, "Causal", 'x', "Caus", .key = tui_causal_key, .search = tui_causal_search);
