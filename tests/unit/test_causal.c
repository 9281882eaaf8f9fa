/* Unit tests of causal profiling's results (model/causal.c) on hand-made experiments whose
 * truth is known: a function whose virtual speedup s makes the program 0.6 s faster gets the
 * line 0.6 and the measured gains at each step; an experiment is compared with its own 0 %
 * slices (same start) even when the machine's speed changed between experiments; without its
 * own, with the nearest 0 % experiments of any function; a function without a baseline or with
 * one speedup only has no curve; the order is by the gain at 20 %; experiments with fewer than 5
 * progress points do not count; the text table; latency points: the latency (area under the
 * count in flight / arrivals) against its own 0 % slices, whatever the durations; source lines
 * listed under their function. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/causal.h"
#include "model/model.h"

#define SEC 1000000000ull

/* An experiment of f at time t (s): speedup pct, progress per second rate at 0 % (the machine's
 * speed then), the program sped up by gain (fraction) by the speedup. With its own baseline
 * (own): the 0 % half at the same start. */
static void experiment(struct model_causal *c, struct model_causal_func *f, int t, int pct,
                       double rate, double gain, int own)
{
    /* effective period p = p0 (1 - gain): delta = duration / p */
    struct model_causal_exp e = {.start_ns = (uint64_t)t * SEC,
                                 .speedup_pct = pct,
                                 .duration_ns = SEC / 2,
                                 .delta = (uint64_t)llround(rate * 0.5 / (1 - gain))};
    model_causal_add(c, f, &e);
    if (own && pct) {
        struct model_causal_exp b = {.start_ns = (uint64_t)t * SEC,
                                     .speedup_pct = 0,
                                     .duration_ns = SEC / 2,
                                     .delta = (uint64_t)llround(rate * 0.5)};
        model_causal_add(c, f, &b);
    }
}

static int near(double a, double b, double tol)
{
    return fabs(a - b) <= tol;
}

/* The truth comes back, whatever the machine's speed was at each experiment. */
static void test_linear(void)
{
    struct model_causal *c = model_causal_new();
    struct model_causal_func *f = model_causal_func(c, "stage_a", "a.c:10");
    struct model_causal_curve cv;

    for (int k = 1; k <= 20; k++) /* 5 .. 100 %; the machine's speed varies 2x */
        experiment(c, f, k, k * 5, k % 2 ? 10000 : 20000, 0.6 * k * 5 / 100.0, 1);
    model_causal_curve(c, f, &cv);
    CHECK(cv.valid);
    CHECK_MSG(near(cv.slope, 0.6, 0.002), "slope %.4f", cv.slope);
    CHECK_MSG(cv.slope_ci < 0.01, "interval %.4f", cv.slope_ci);
    CHECK(cv.gain[0] == 0);
    CHECK_MSG(near(cv.gain[2], 0.12, 0.005), "gain at 20 %%: %.4f", cv.gain[2]);
    CHECK_MSG(near(cv.gain[10], 0.6 * 0.975, 0.01), "gain at 100 %%: %.4f", cv.gain[10]);
    CHECK(cv.experiments == 40 && cv.baselines == 20);
    model_causal_free(c);
}

/* Without their own halves: the nearest 0 % experiments, of any function. */
static void test_nearest_baseline(void)
{
    struct model_causal *c = model_causal_new();
    struct model_causal_func *a = model_causal_func(c, "a", NULL);
    struct model_causal_func *b = model_causal_func(c, "b", NULL);
    struct model_causal_curve cv;

    for (int t = 0; t < 40; t += 4) {
        experiment(c, b, t, 0, 10000, 0, 0);         /* baselines, selecting b */
        experiment(c, a, t + 1, 50, 10000, 0.25, 0); /* a: 50 % -> 25 % */
        experiment(c, a, t + 2, 100, 10000, 0.5, 0); /* a: 100 % -> 50 % */
        experiment(c, b, t + 3, 100, 10000, 0.0, 0); /* b: flat */
        experiment(c, b, t + 3, 100, 10000, 0.0, 0); /* (twice) */
        experiment(c, a, t + 2, 60, 10000, 0.3, 0);  /* a: 60 % -> 30 % */
    }
    model_causal_curve(c, a, &cv);
    CHECK(cv.valid && near(cv.slope, 0.5, 0.002));
    model_causal_curve(c, b, &cv);
    CHECK(cv.valid == 0); /* one speedup only */
    experiment(c, b, 41, 40, 10000, 0.0, 0);
    model_causal_curve(c, b, &cv);
    CHECK(cv.valid && near(cv.slope, 0, 0.002));
    size_t *order = model_causal_order(c);
    CHECK(order[0] == 0 && order[1] == 1); /* a (10 % at 20 %) before b (0) */
    free(order);
    model_causal_free(c);
}

/* No baseline, too little progress: no curve; the table still lists the function. */
static void test_no_curve(void)
{
    struct model_causal *c = model_causal_new();
    struct model_causal_func *f = model_causal_func(c, "lonely", "x.c:1");
    struct model_causal_curve cv;
    char *text = NULL;
    size_t len = 0;

    experiment(c, f, 1, 50, 10000, 0.2, 0);
    experiment(c, f, 2, 80, 10000, 0.3, 0);
    model_causal_curve(c, f, &cv);
    CHECK(!cv.valid);
    experiment(c, f, 3, 0, 4, 0, 0); /* 2 progress points: does not count */
    model_causal_curve(c, f, &cv);
    CHECK(!cv.valid && c->nbase == 0);
    CHECK(model_causal_func(c, "lonely", NULL) == f && c->n == 1);
    snprintf(c->progress, sizeof(c->progress), "marks");
    FILE *out = open_memstream(&text, &len);
    model_causal_print(out, c, 0);
    fclose(out);
    CHECK(strstr(text, "== Causal profile: progress marks (0 reached)") != NULL);
    CHECK(strstr(text, "lonely  x.c:1") != NULL);
    free(text);
    model_causal_free(c);
}

/* Latency points: the prediction is the latency's reduction (area / arrivals), not the rate's:
 * a function that cuts 0.4 s of latency per unit of speedup out of 1 s gets the line 0.4,
 * though its experiments' durations say nothing of it (all the same). */
static void test_latency(void)
{
    struct model_causal *c = model_causal_new();
    struct model_causal_func *f = model_causal_func(c, "serve", "x.c:1");
    struct model_causal_curve cv;

    c->latency = 1;
    for (int i = 0; i < 20; i++) {
        int pct = 5 * (1 + i % 20);
        double arrivals = 100 + 10 * i; /* the arrival rate changes: it must not matter */
        struct model_causal_exp e = {
            .start_ns = (uint64_t)i * SEC,
            .speedup_pct = pct,
            .duration_ns = SEC / 2,
            .delta = (uint64_t)arrivals,
            .departures = (uint64_t)arrivals,
            .area_ns = (uint64_t)llround(arrivals * 1e6 * (1 - 0.4 * pct / 100.0))};
        struct model_causal_exp b = e;
        b.speedup_pct = 0;
        b.area_ns = (uint64_t)llround(arrivals * 1e6); /* 1 ms per request at 0 % */
        model_causal_add(c, f, &e);
        model_causal_add(c, f, &b);
    }
    model_causal_curve(c, f, &cv);
    CHECK(cv.valid);
    CHECK_MSG(near(cv.slope, 0.4, 0.002), "latency slope %.4f", cv.slope);
    model_causal_free(c);
}

/* Lines: listed right under their function (each function's lines by their own gain), the
 * functions still by theirs; printed indented, named file:line; a line does not shadow a
 * function of the same name. */
static void test_lines_under_function(void)
{
    struct model_causal *c = model_causal_new();
    struct model_causal_func *f;
    char *text = NULL;
    size_t len = 0;

    model_causal_func(c, "low", "l.c:1");                      /* 0: gains 10 % at 100 % */
    model_causal_func(c, "high", "h.c:1");                     /* 1: gains 50 % */
    model_causal_line(c, 1, "h.c:5", "/src/h.c:5");            /* 2: high's, flat */
    model_causal_line(c, 1, "h.c:4", "/src/h.c:4");            /* 3: high's, 40 % */
    model_causal_line(c, 0, "l.c:2", "/src/l.c:2");            /* 4: low's, 10 % */
    CHECK(model_causal_line(c, 1, "h.c:4", NULL) == &c->f[3]); /* found again */
    CHECK(model_causal_func(c, "h.c:4", NULL) != &c->f[3]);    /* a function: another entry */
    c->n--;                                                    /* (drop that one) */
    free(c->f[c->n].name);
    free(c->f[c->n].location);
    const double gain[] = {0.1, 0.5, 0.0, 0.4, 0.1};
    for (int t = 0; t < 20; t++)
        for (size_t i = 0; i < 5; i++)
            experiment(c, &c->f[i], t * 5 + (int)i, 20 + 40 * (t % 3), 10000,
                       gain[i] * (20 + 40 * (t % 3)) / 100.0, 1);
    size_t *order = model_causal_order(c);
    CHECK_MSG(order[0] == 1 && order[1] == 3 && order[2] == 2 && order[3] == 0 && order[4] == 4,
              "order %zu %zu %zu %zu %zu", order[0], order[1], order[2], order[3], order[4]);
    free(order);
    f = &c->f[3];
    CHECK(f->parent == 1 && c->f[1].parent == -1);
    FILE *out = open_memstream(&text, &len);
    model_causal_print(out, c, 0);
    fclose(out);
    CHECK(strstr(text, "  high  h.c:1\n") != NULL);
    CHECK(strstr(text, "      h.c:4  /src/h.c:4\n") != NULL); /* indented under high */
    CHECK(strstr(text, "high") < strstr(text, "h.c:4") &&
          strstr(text, "h.c:5") < strstr(text, "low"));
    free(text);
    model_causal_free(c);
}

int main(void)
{
    test_linear();
    test_lines_under_function();
    test_latency();
    test_nearest_baseline();
    test_no_curve();
    return check_summary();
}
