/* The view table and the model lookups the views share. Adding a view is one file,
 * tui/view_<v>.c (beginning with TUI_VIEW_DECLARE(v);), and one row of TUI_VIEW_LIST: the
 * tab's name, its key, the view's prefix <v>, and the short name the tab bar uses when the
 * full names do not fit. Its keys for the help (F1) and --help come from its tui_<v>_help. */
#include "tui/tui_internal.h"

#include <string.h>

/* The views in tab order, one TUI_VIEW_ROW(name, key, prefix, short name) each (the list is
 * expanded twice: declarations, then the table's rows). */
#define TUI_VIEW_LIST(TUI_VIEW_ROW)                                                                \
    TUI_VIEW_ROW("Call tree", '1', calltree, "Tree") /* TUI_VIEW_CALLTREE */                       \
    TUI_VIEW_ROW("Hot functions", '2', hot, "Hot")                                                 \
    TUI_VIEW_ROW("Threads", '3', threads, "Thr")                                                   \
    TUI_VIEW_ROW("Output", '4', output, "Out")                                                     \
    TUI_VIEW_ROW("GPU", '5', gpu, "GPU") /* gauges, history, processes (gpu/) */                   \
    TUI_VIEW_ROW("Regions", '6', regions, "Reg")                                                   \
    TUI_VIEW_ROW("Kernels", '7', kernels, "Kern") /* GPU kernels, queues idle (HSA dispatches) */  \
    TUI_VIEW_ROW("HIP API", '8', hipapi, "HIP")   /* HIP calls, errors, copies */                  \
    TUI_VIEW_ROW("Ranks", '9', ranks, "Rank")     /* MPI ranks of a multi-rank recording */        \
    TUI_VIEW_ROW("MPI", 'm', mpi, "MPI")          /* MPI calls (collector/mpi.c) */                \
    TUI_VIEW_ROW("Flame graph", '0', flame, "Flame") /* icicle graph of the call tree */           \
    TUI_VIEW_ROW("Diff", 'd', diff, "Diff")     /* --replay NEW --diff OLD: before and after */    \
    TUI_VIEW_ROW("Causal", 'x', causal, "Caus") /* --causal: predicted program speedups */

/* A view's callbacks; the optional ones weak: a view file that does not define one leaves
 * its field NULL. */
#define TUI_VIEW_EXTERN(label_, key_, v, brief_)                                                   \
    TUI_VIEW_DECLARE(v);                                                                           \
    int tui_##v##_click(struct tui *t, void *st, const struct tui_mouse *ev)                       \
        __attribute__((weak));                                                                     \
    extern const struct tui_key_help tui_##v##_help[] __attribute__((weak));                       \
    int tui_##v##_global(struct tui *t, int key) __attribute__((weak));                            \
    int tui_##v##_key(struct tui *t, void *st, int key) __attribute__((weak));                     \
    int tui_##v##_search(struct tui *t, void *st, const char *needle) __attribute__((weak));       \
    extern const struct tui_list_class tui_##v##_list __attribute__((weak));
TUI_VIEW_LIST(TUI_VIEW_EXTERN)

#define TUI_VIEW_INIT(label_, key_, v, brief_)                                                     \
    {.name = label_,                                                                               \
     .short_name = brief_,                                                                         \
     .hotkey = key_,                                                                               \
     .create = tui_##v##_create,                                                                   \
     .destroy = tui_##v##_destroy,                                                                 \
     .rebuild = tui_##v##_rebuild,                                                                 \
     .draw = tui_##v##_draw,                                                                       \
     .key = tui_##v##_key,                                                                         \
     .search = tui_##v##_search,                                                                   \
     .status = tui_##v##_status,                                                                   \
     .batch = tui_##v##_batch,                                                                     \
     .click = tui_##v##_click,                                                                     \
     .help = tui_##v##_help,                                                                       \
     .global_key = tui_##v##_global,                                                               \
     .list = &tui_##v##_list},
const struct tui_view tui_views[] = {TUI_VIEW_LIST(TUI_VIEW_INIT)};
const int tui_view_count = (int)(sizeof(tui_views) / sizeof(tui_views[0]));

_Static_assert(sizeof(tui_views) / sizeof(tui_views[0]) <= TUI_MAX_VIEWS, "too many views");

int tui_view_find(const char *name)
{
    for (int i = 0; i < tui_view_count; i++)
        if (strcmp(tui_views[i].name, name) == 0)
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
