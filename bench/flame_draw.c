/* The flame graph's cost at many distinct stacks (bench/flame.sh builds and runs it against a
 * build's librocsys_core.a). A model gets DISTINCT distinct stacks shaped like
 * tests/programs/tp_many_stacks' (path i: the base-16 digits of i, each choosing one of 16
 * functions at its level, under main > many_thread; weights 1-13) through
 * model_sample_symbolized, then each step of the view is timed, REPS times, median and max:
 *   tree    model_tree_build (the view's filter: all threads, since start, 10 ppm)
 *   merge   tui_flame_merge (a function's entries become one frame)
 *   layout  tui_flame_layout of the whole graph at COLS columns, and zoomed into the hottest
 *           child of the top function
 *   match   tui_flame_match_samples of a needle that matches a function at every level
 *   text    the batch rendering of every row (tui_flame_text_row, 100 columns)
 * Usage: flame_draw [DISTINCT [COLS [REPS]]] (defaults 100000 200 21) */
#include "tui/tui_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Monotonic time in ms. */
static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Print the median and the maximum of n timings. */
static void report(const char *what, double *ms, int n)
{
    qsort(ms, (size_t)n, sizeof(*ms), cmp_double);
    printf("%-28s median %8.3f ms   max %8.3f ms\n", what, ms[n / 2], ms[n - 1]);
}

/* tui_key_fn: the name (replayed functions have names only). */
static uint64_t name_key(const void *ctx, int func)
{
    const char *s = tui_model_func_name(ctx, func);
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

int main(int argc, char **argv)
{
    long distinct = argc > 1 ? atol(argv[1]) : 100000;
    int cols = argc > 2 ? atoi(argv[2]) : 200, reps = argc > 3 ? atoi(argv[3]) : 21;
    struct model *m = model_new();
    struct model_filter f = {.thread = -1, .window = 0, .min_ppm = 10};
    static char names[8][16][24];
    double *t_tree, *t_merge, *t_lay, *t_zoom, *t_match, *t_text;
    struct tui_flame lay = {0};
    char line[4096];
    int levels = 1, boxes = 0, rows = 0;
    long nodes = 0;

    if (distinct < 1 || cols < 1 || reps < 1) {
        fprintf(stderr, "usage: flame_draw [DISTINCT [COLS [REPS]]]\n");
        return 2;
    }
    for (long p = 16; p < distinct && levels < 8; p *= 16)
        levels++;
    for (int l = 0; l < 8; l++)
        for (int d = 0; d < 16; d++)
            snprintf(names[l][d], sizeof(names[l][d]), "many_f%d", d);
    for (long i = 0; i < distinct; i++) {
        const char *stack[2 + 8];
        long v = i;
        int n = 0;
        stack[n++] = "main";
        stack[n++] = "many_thread";
        for (int l = 0; l < levels; l++, v /= 16)
            stack[n++] = names[l][v % 16];
        model_sample_symbolized(m, 1, 1, 1000, stack, (uint32_t)n, (uint32_t)(1 + i * 7919 % 13));
    }
    t_tree = calloc((size_t)reps, sizeof(double));
    t_merge = calloc((size_t)reps, sizeof(double));
    t_lay = calloc((size_t)reps, sizeof(double));
    t_zoom = calloc((size_t)reps, sizeof(double));
    t_match = calloc((size_t)reps, sizeof(double));
    t_text = calloc((size_t)reps, sizeof(double));
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms(), t1, t2;
        struct model_tree *raw = model_tree_build(m, &f);
        t1 = now_ms();
        struct model_tree *tree = tui_flame_merge(raw, name_key, m);
        t2 = now_ms();
        struct tui_tree_order o = {tree, TUI_SORT_INCL, tui_model_func_name, m};
        int zoom;
        t_tree[r] = t1 - t0;
        t_merge[r] = t2 - t1;
        nodes = tree->count;

        t0 = now_ms();
        tui_flame_layout(&o, 0, cols, 0, &lay);
        t_lay[r] = now_ms() - t0;
        boxes = lay.count;
        rows = lay.rows;
        /* zoom: the widest box two rows below many_thread (a hot many_f subtree) */
        zoom = lay.count > 3 ? lay.boxes[3].node : 0;
        t0 = now_ms();
        tui_flame_layout(&o, zoom, cols, 0, &lay);
        t_zoom[r] = now_ms() - t0;

        t0 = now_ms();
        (void)tui_flame_match_samples(&o, "many_f7");
        t_match[r] = now_ms() - t0;

        t0 = now_ms();
        tui_flame_layout(&o, 0, 100, 0, &lay);
        for (int d = 0; d < lay.rows; d++)
            tui_flame_text_row(&lay, tree, d, tui_model_func_name, m, line, sizeof(line));
        t_text[r] = now_ms() - t0;
        model_tree_free(tree);
        model_tree_free(raw);
    }
    printf("flame graph: %zu distinct stacks (%d levels of 16 functions), %ld tree nodes, "
           "%d columns: %d boxes in %d rows; %d repetitions\n",
           model_distinct_stacks(m), levels, nodes, cols, boxes, rows, reps);
    report("tree (model_tree_build)", t_tree, reps);
    report("merge (tui_flame_merge)", t_merge, reps);
    report("layout (whole graph)", t_lay, reps);
    report("layout (zoomed)", t_zoom, reps);
    report("match (search share)", t_match, reps);
    report("text (batch, 100 columns)", t_text, reps);
    tui_flame_free(&lay);
    free(t_tree);
    free(t_merge);
    free(t_lay);
    free(t_zoom);
    free(t_match);
    free(t_text);
    model_free(m);
    return 0;
}
