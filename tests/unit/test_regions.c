/* User regions in the model: names per process, nesting from BEGIN/END, time statistics
 * (count, total, mean, min, max, standard deviation), lost records, regions closed when their
 * thread ends or the session ends, the span sink, and region pseudo-frames becoming call-tree
 * nodes above the sampled code. */
#define _GNU_SOURCE 1
#include "model/model.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "collector/protocol.h"
#include "model_fixture.h"

#define MS 1000000ull

struct spans {
    int n;
    int at_exit;
    int ranges;
    char last[64];
    uint64_t last_ns;
};

/* Span sink: count what the session would record. */
static void on_span(void *ctx, const struct model_region_span *s)
{
    struct spans *sp = ctx;
    sp->n++;
    sp->at_exit += s->closed_at_exit;
    sp->ranges += s->range;
    snprintf(sp->last, sizeof(sp->last), "%s", s->name);
    sp->last_ns = s->end_ns - s->begin_ns;
}

/* The statistics row of (name, tid), or NULL. */
static const struct model_region_stats *row(struct model *m, const char *name, uint32_t tid)
{
    int n;
    const struct model_region_stats *s = model_regions_stats(m, &n);
    for (int i = 0; i < n; i++)
        if (strcmp(s[i].name, name) == 0 && model_thread_at(m, s[i].thread)->tid == tid)
            return &s[i];
    return NULL;
}

static void test_stats_and_nesting(void)
{
    struct model *m = model_new();
    struct spans sp = {0};
    const struct model_region_stats *s;
    struct model_regions_summary sum;

    model_regions_set_sink(m, on_span, &sp);
    model_region_name(m, 1, 1, "solve");
    model_region_name(m, 1, 2, "halo \"exchange\" ✓");
    /* solve: 10, 20, 30 ms; halo nested in the first */
    model_region_begin(m, 1, 1, 1, 0, 100 * MS);
    model_region_begin(m, 1, 1, 2, 1, 101 * MS);
    model_region_end(m, 1, 1, 2, 1, 105 * MS);
    model_region_end(m, 1, 1, 1, 0, 110 * MS);
    model_region_begin(m, 1, 1, 1, 0, 200 * MS);
    model_region_end(m, 1, 1, 1, 0, 220 * MS);
    model_region_begin(m, 1, 1, 1, 0, 300 * MS);
    model_region_end(m, 1, 1, 1, 0, 330 * MS);
    s = row(m, "solve", 1);
    CHECK(s && s->count == 3);
    CHECK(s && s->total_ns == 60 * MS);
    CHECK(s && s->min_ns == 10 * MS && s->max_ns == 30 * MS);
    CHECK(s && fabs(s->mean_ns - 20.0 * MS) < 1.0);
    CHECK(s && fabs(model_region_stddev_ns(s) - sqrt(200.0 / 3.0) * MS) < 10.0);
    s = row(m, "halo \"exchange\" ✓", 1);
    CHECK(s && s->count == 1 && s->total_ns == 4 * MS);
    CHECK(sp.n == 4 && sp.at_exit == 0);
    /* the same name on another thread of another process: its own row */
    model_region_name(m, 2, 7, "solve");
    model_region_begin(m, 2, 9, 7, 0, 400 * MS);
    model_region_end(m, 2, 9, 7, 0, 401 * MS);
    s = row(m, "solve", 9);
    CHECK(s && s->count == 1 && s->total_ns == 1 * MS);
    /* an END whose BEGIN was lost completes nothing; a lost END is completed by the outer END */
    model_region_end(m, 1, 1, 1, 0, 500 * MS);
    CHECK(row(m, "solve", 1)->count == 3);
    model_region_begin(m, 1, 1, 1, 0, 600 * MS);
    model_region_begin(m, 1, 1, 2, 1, 601 * MS);
    model_region_end(m, 1, 1, 1, 0, 610 * MS);
    CHECK(row(m, "solve", 1)->count == 4);
    CHECK(row(m, "halo \"exchange\" ✓", 1)->count == 2);
    model_regions_summary(m, &sum);
    CHECK(sum.open == 0);
    /* an unknown id gets a placeholder name */
    CHECK_STR(model_region_name_of(m, 1, 99), "#99");
    model_region_error(m, ROCSYS_REGION_ERR_UNBALANCED);
    model_region_error(m, ROCSYS_REGION_ERR_UNBALANCED);
    model_regions_summary(m, &sum);
    CHECK(sum.unbalanced_pops == 2);
    model_free(m);
}

static void test_close_at_exit(void)
{
    struct model *m = model_new();
    struct spans sp = {0};
    struct model_regions_summary sum;

    model_regions_set_sink(m, on_span, &sp);
    model_thread_start(m, 5, 5, "main", 0);
    model_thread_start(m, 5, 6, "worker", 0);
    model_region_name(m, 5, 1, "run");
    model_region_begin(m, 5, 5, 1, 0, 10 * MS);
    model_region_begin(m, 5, 6, 1, 0, 20 * MS);
    model_regions_summary(m, &sum);
    CHECK(sum.open == 2);
    CHECK(row(m, "run", 5)->open == 1);
    /* the worker ends: its region is closed at its end */
    model_regions_thread_end(m, 5, 6, 50 * MS);
    CHECK(sp.n == 1 && sp.at_exit == 1 && sp.last_ns == 30 * MS);
    /* a refresh leaves the live thread's region open; the end of the session closes it */
    model_regions_close(m, 60 * MS, 0);
    CHECK(sp.n == 1);
    model_regions_close(m, 70 * MS, 1);
    CHECK(sp.n == 2 && sp.at_exit == 2 && sp.last_ns == 60 * MS);
    CHECK(row(m, "run", 5)->closed_at_exit == 1);
    model_regions_summary(m, &sum);
    CHECK(sum.open == 0 && sum.closed_at_exit == 2);
    /* a start/stop range */
    model_region_range(m, 5, 5, 1, 100 * MS, 103 * MS);
    CHECK(sp.ranges == 1 && sp.last_ns == 3 * MS);
    CHECK(row(m, "run", 5)->count == 2);
    model_free(m);
}

static void test_tree_nodes(void)
{
    struct model *m = model_new();
    struct model_filter all = {.thread = -1, .window = 0};
    uint64_t frames[4];
    int seen_outer = -1, seen_inner = -1, seen_leaf = -1;

    dl_iterate_phdr(fixture_add_self, m);
    /* a sample in fn_leaf < fn_outer, inside outer > inner (innermost region first) */
    frames[0] = fixture_at(fn_leaf);
    frames[1] = fixture_at(fn_outer);
    frames[2] = ROCSYS_REGION_FRAME(2);
    frames[3] = ROCSYS_REGION_FRAME(1);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, frames, 4, 0) == -EAGAIN);
    model_region_name(m, FIXTURE_PID, 1, "outer");
    model_region_name(m, FIXTURE_PID, 2, "inner");
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, frames, 4, 0) == 0);
    struct model_tree *t = model_tree_build(m, &all);
    for (int i = 1; i < t->count; i++) {
        const struct model_func *f = model_func_at(m, t->nodes[i].func);
        if (strcmp(f->name, "[region] outer") == 0)
            seen_outer = t->nodes[i].depth;
        else if (strcmp(f->name, "[region] inner") == 0)
            seen_inner = t->nodes[i].depth;
        else if (strcmp(f->name, "fn_leaf") == 0)
            seen_leaf = t->nodes[i].depth;
    }
    CHECK(seen_outer == 1 && seen_inner == 2 && seen_leaf > seen_inner);
    model_tree_free(t);
    /* an unknown region id on the final try: a placeholder node, not a lost sample */
    frames[2] = ROCSYS_REGION_FRAME(3);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, frames, 3, 1) == 0);
    int found = 0;
    for (int i = 0; i < model_func_count(m); i++)
        found |= strcmp(model_func_at(m, i)->name, "[region] #3") == 0;
    CHECK(found);
    model_free(m);
}

int main(void)
{
    test_stats_and_nesting();
    test_close_at_exit();
    test_tree_nodes();
    return check_summary();
}
