/* The view table and the model lookups the views share. Adding a view is one file,
 * tui/view_<v>.c (beginning with TUI_VIEW_DECLARE(v); and ending with its row,
 * TUI_VIEW_DEFINE(v, name, key, short name, its optional callbacks)), and one TUI_VIEW_ROW(v)
 * here, where the tab order is. Its keys for the help (F1) and --help come from its .help. */
#include "tui/tui_internal.h"

#include <string.h>

/* The views in tab order, a row each: the TUI_VIEW_DEFINE of tui/view_<v>.c. */
#define TUI_VIEW_LIST(TUI_VIEW_ROW)                                                                \
    TUI_VIEW_ROW(calltree) /* TUI_VIEW_CALLTREE */                                                 \
    TUI_VIEW_ROW(hot)                                                                              \
    TUI_VIEW_ROW(threads)                                                                          \
    TUI_VIEW_ROW(output)                                                                           \
    TUI_VIEW_ROW(gpu) /* gauges, history, processes (gpu/) */                                      \
    TUI_VIEW_ROW(regions)                                                                          \
    TUI_VIEW_ROW(kernels) /* GPU kernels, queues idle (HSA dispatches) */                          \
    TUI_VIEW_ROW(hipapi)  /* HIP calls, errors, copies */                                          \
    TUI_VIEW_ROW(ranks)   /* MPI ranks of a multi-rank recording */                                \
    TUI_VIEW_ROW(mpi)     /* MPI calls (collector/mpi.c) */                                        \
    TUI_VIEW_ROW(flame)   /* icicle graph of the call tree */                                      \
    TUI_VIEW_ROW(diff)    /* --replay NEW --diff OLD: before and after */                          \
    TUI_VIEW_ROW(causal)  /* --causal: predicted program speedups */

#define TUI_VIEW_EXTERN(v) extern const struct tui_view tui_view_##v;
TUI_VIEW_LIST(TUI_VIEW_EXTERN)
#define TUI_VIEW_POINTER(v) &tui_view_##v,
const struct tui_view *const tui_views[] = {TUI_VIEW_LIST(TUI_VIEW_POINTER)};
const int tui_view_count = (int)(sizeof(tui_views) / sizeof(tui_views[0]));

_Static_assert(sizeof(tui_views) / sizeof(tui_views[0]) <= TUI_MAX_VIEWS, "too many views");

int tui_view_find(const char *name)
{
    for (int i = 0; i < tui_view_count; i++)
        if (strcmp(tui_views[i]->name, name) == 0)
            return i;
    return -1;
}

const char *tui_model_func_name(const void *ctx, int func)
{
    const struct model_func *f;

    if (func < 0)
        return "[all]";
    f = model_func_at(ctx, func);
    return f && f->name ? f->name : "?";
}

void tui_func_location(struct model *m, int func, char *buf, size_t n)
{
    const struct model_func *f = func >= 0 ? model_func_at(m, func) : NULL;
    const char *mod = f && f->module ? f->module : "";

    if (!f) {
        snprintf(buf, n, "%s", "");
        return;
    }
    if (f->file && f->line > 0)
        snprintf(buf, n, "%s%s%s:%d", mod, *mod ? " " : "", tui_basename(f->file), f->line);
    else if (f->file)
        snprintf(buf, n, "%s%s%s", mod, *mod ? " " : "", tui_basename(f->file));
    else
        snprintf(buf, n, "%s", mod);
}

int tui_replay_no_data(struct model *m, const char *what, char *buf, size_t n)
{
    const struct model_session *s = model_session(m);

    if (!s->replay)
        return 0;
    if (s->range_start_ns <= s->start_ns && s->range_end_ns >= s->end_ns)
        snprintf(buf, n, "no %s data in this recording", what);
    else
        snprintf(buf, n, "no %s data in this recording between %.3f s and %.3f s", what,
                 (double)(s->range_start_ns - s->start_ns) / 1e9,
                 (double)(s->range_end_ns - s->start_ns) / 1e9);
    return 1;
}

void tui_filter_desc(struct model *m, const struct model_filter *f, char *buf, size_t n)
{
    const struct model_thread *th = NULL;
    const struct model_session *s = model_session(m);
    char win[48], rank[96] = "";

    if (s->replay)
        snprintf(win, sizeof(win), "%.1f-%.1f s of the run",
                 (double)(s->range_start_ns - s->start_ns) / 1e9,
                 (double)(s->range_end_ns - s->start_ns) / 1e9);
    else if (f->window)
        snprintf(win, sizeof(win), "last %us", (unsigned)model_session(m)->window_seconds);
    else
        snprintf(win, sizeof(win), "since start");
    if (f->thread >= 0 && f->thread < model_thread_count(m))
        th = model_thread_at(m, f->thread);
    if (f->only_rank > 0) { /* "rank 3 (node2), " */
        const char *host = "";
        for (int i = 0; i < model_process_count(m) && !*host; i++)
            if (model_process_at(m, i)->rank == f->only_rank - 1)
                host = model_process_at(m, i)->host;
        snprintf(rank, sizeof(rank), "rank %d%s%s%s, ", f->only_rank - 1, *host ? " (" : "", host,
                 *host ? ")" : "");
    }
    if (th)
        snprintf(buf, n, "%sthread %s (tid %u), %s", rank, th->name[0] ? th->name : "?",
                 (unsigned)th->tid, win);
    else
        snprintf(buf, n, "%sall threads, %s", rank, win);
}
