/* The Source view's pure parts: the model's per-line self counts (filled from real samples of
 * this binary's functions, reset, written to lines.txt and read back as a replay does), the
 * --source-path mapping and its check, per-line counts of one file, which lines are hot and
 * the next / previous hot line. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/model.h"
#include "model_fixture.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"

/* Function id of name in m, or -1. */
static int func_named(struct model *m, const char *name)
{
    for (int i = 0; i < model_func_count(m); i++)
        if (strcmp(model_func_at(m, i)->name, name) == 0)
            return i;
    return -1;
}

/* Samples of this binary's functions: the leaf's line is counted, the callers' are not. */
static void test_model_lines(void)
{
    struct model *m = model_new(), *r = model_new();
    uint64_t s_leaf[] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_mid[] = {fixture_at(fn_middle), fixture_at(fn_outer)};
    struct model_line_count *lc = NULL;
    struct model_lines_summary sum;
    char *text = NULL, *p, *nl;
    size_t len = 0;
    FILE *f;
    int n, leaf, mid;

    model_proc_start(m, FIXTURE_PID, 1, "/bin/test", "test", FIXTURE_SEC);
    dl_iterate_phdr(fixture_add_self, m);
    model_tick(m, FIXTURE_SEC);
    for (int i = 0; i < 3; i++)
        CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_leaf, 3, 0) == 0);
    CHECK(model_sample_weighted(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_mid, 2, 5, 0) == 0);
    leaf = func_named(m, "fn_leaf");
    mid = func_named(m, "fn_middle");
    CHECK(leaf >= 0 && mid >= 0);

    n = model_func_lines(m, leaf, &lc);
    CHECK_MSG(n == 1, "fn_leaf: %d lines", n);
    if (n == 1) { /* the pc of fixture_at is in the function's one line of code */
        CHECK(lc[0].count == 3);
        CHECK(lc[0].line > 0);
        CHECK(lc[0].file && strstr(lc[0].file, "model_fixture.h") != NULL);
    }
    free(lc);
    n = model_func_lines(m, mid, &lc);
    CHECK(n == 1 && lc[0].count == 5); /* weighted: 5 periods; as a caller it counts nothing */
    free(lc);
    CHECK(model_func_lines(m, func_named(m, "fn_outer"), &lc) == 0 && lc == NULL);
    model_lines_summary(m, &sum);
    CHECK(sum.samples == 8 && sum.records == 2 && sum.full == 0 && !sum.recorded);

    /* lines.txt and back, as a replay reads it */
    f = open_memstream(&text, &len);
    CHECK(model_lines_write(m, f) == 0);
    fclose(f);
    CHECK(strncmp(text, "# rocsys-top lines 1\n", 21) == 0);
    model_lines_recorded(r);
    for (p = text; *p; p = nl + 1) {
        uint64_t count;
        int line;
        const char *file, *fn;
        nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (model_lines_parse(p, &count, &line, &file, &fn))
            model_lines_add(r, fn, file, line, count);
        if (!nl)
            break;
    }
    free(text);
    n = model_func_lines(r, func_named(r, "fn_leaf"), &lc);
    CHECK(n == 1 && lc[0].count == 3 && strstr(lc[0].file, "model_fixture.h"));
    free(lc);
    model_reset_counts(r); /* a replay's recount keeps the recorded counts */
    model_lines_summary(r, &sum);
    CHECK(sum.samples == 8 && sum.recorded);

    model_reset_counts(m); /* the 'r' key: live counts start again */
    model_lines_summary(m, &sum);
    CHECK(sum.samples == 0 && sum.records == 2);
    CHECK(model_func_lines(m, leaf, &lc) == 0);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_leaf, 3, 0) == 0);
    n = model_func_lines(m, leaf, &lc);
    CHECK(n == 1 && lc[0].count == 1);
    free(lc);
    model_free(m);
    model_free(r);
}

/* lines.txt's line parser: fields, comments, malformed lines. */
static void test_parse(void)
{
    char a[] = "12\t7\t/src/a b.c\tns::f(int) const", b[] = "# comment", c[] = "12\t0\tx.c\tf",
         d[] = "x\t7\tx.c\tf", e[] = "12\t7\tx.c", g[] = "12\t7\t\tf", h[] = "-1\t7\tx.c\tf";
    uint64_t count = 0;
    int line = 0;
    const char *file = NULL, *fn = NULL;

    CHECK(model_lines_parse(a, &count, &line, &file, &fn) == 1);
    CHECK(count == 12 && line == 7);
    CHECK_STR(file, "/src/a b.c");
    CHECK_STR(fn, "ns::f(int) const");
    CHECK(model_lines_parse(b, &count, &line, &file, &fn) == 0);
    CHECK(model_lines_parse(c, &count, &line, &file, &fn) == 0); /* line 0 */
    CHECK(model_lines_parse(d, &count, &line, &file, &fn) == 0); /* not a count */
    CHECK(model_lines_parse(e, &count, &line, &file, &fn) == 0); /* no function */
    CHECK(model_lines_parse(g, &count, &line, &file, &fn) == 0); /* no file */
    CHECK(model_lines_parse(h, &count, &line, &file, &fn) == 0);
}

static void test_map_path(void)
{
    char out[256], err[256];

    CHECK(tui_source_map_path("/build=/home/me/src", "/build/a/b.c", out, sizeof(out)) == 1);
    CHECK_STR(out, "/home/me/src/a/b.c");
    /* a prefix only at a directory boundary: /build does not map /buildbot */
    CHECK(tui_source_map_path("/build=/x", "/buildbot/a.c", out, sizeof(out)) == 0);
    CHECK_STR(out, "/buildbot/a.c");
    CHECK(tui_source_map_path("/build/=/x/", "/build/a.c", out, sizeof(out)) == 1);
    CHECK_STR(out, "/x/a.c");
    /* the first rule that applies wins; later ones are tried when earlier ones do not */
    CHECK(tui_source_map_path("/a=/one,/b=/two,/b/c=/three", "/b/c/d.c", out, sizeof(out)) == 1);
    CHECK_STR(out, "/two/c/d.c");
    CHECK(tui_source_map_path(NULL, "/b/c.c", out, sizeof(out)) == 0);
    CHECK_STR(out, "/b/c.c");
    CHECK(tui_source_map_path("", "/b/c.c", out, sizeof(out)) == 0);
    CHECK(tui_source_map_path("/b=", "/b/c.c", out, sizeof(out)) == 1); /* to a relative path */
    CHECK_STR(out, "/c.c");

    CHECK(tui_source_spec_check("/a=/b", err, sizeof(err)) == 0);
    CHECK(tui_source_spec_check("/a=/b,/c=/d", err, sizeof(err)) == 0);
    CHECK(tui_source_spec_check("/a", err, sizeof(err)) == -1);
    CHECK(strstr(err, "'/a' is not OLD=NEW") != NULL);
    CHECK(tui_source_spec_check("=/b", err, sizeof(err)) == -1);
    CHECK(tui_source_spec_check("/a=/b,,/c=/d", err, sizeof(err)) == -1);
}

static void test_counts_and_navigation(void)
{
    static const char fa[] = "/src/a.c", fb[] = "/src/b.h";
    struct model_line_count lc[] = {
        {fa, 3, 10}, {fa, 7, 60}, {fb, 2, 25}, {fa, 9, 4}, {fa, 12, 1}, {fa, 99, 5},
    };
    uint64_t counts[12];
    uint64_t other;

    CHECK(tui_source_main_file(lc, 6) == fa);
    CHECK(tui_source_main_file(lc, 0) == NULL);
    CHECK(tui_source_main_file(&lc[2], 1) == fb);
    other = tui_source_line_counts(lc, 6, fa, counts, 12);
    CHECK(other == 25 + 5); /* the other file, and a line past the 12 lines */
    CHECK(counts[2] == 10 && counts[6] == 60 && counts[8] == 4 && counts[11] == 1);
    CHECK(counts[0] == 0 && counts[1] == 0 && counts[10] == 0);

    /* hot: the hottest line, and lines with 10 % of the function's samples */
    CHECK(tui_source_is_hot(60, 60, 105));
    CHECK(tui_source_is_hot(25, 60, 105));
    CHECK(tui_source_is_hot(10, 60, 105) == 0);
    CHECK(tui_source_is_hot(11, 60, 105));
    CHECK(tui_source_is_hot(0, 0, 0) == 0);
    CHECK(tui_source_is_hot(1, 1, 1));

    /* next / previous line with samples (at least min_count) */
    CHECK(tui_source_next_hot(counts, 12, -1, 1, 1) == 2);
    CHECK(tui_source_next_hot(counts, 12, 2, 1, 1) == 6);
    CHECK(tui_source_next_hot(counts, 12, 6, 1, 1) == 8);
    CHECK(tui_source_next_hot(counts, 12, 8, 1, 1) == 11);
    CHECK(tui_source_next_hot(counts, 12, 11, 1, 1) == -1);
    CHECK(tui_source_next_hot(counts, 12, 11, -1, 1) == 8);
    CHECK(tui_source_next_hot(counts, 12, 6, -1, 1) == 2);
    CHECK(tui_source_next_hot(counts, 12, 2, -1, 1) == -1);
    CHECK(tui_source_next_hot(counts, 12, 2, 1, 5) == 6); /* 1 % of 500: lines under 5 skipped */
    CHECK(tui_source_next_hot(counts, 12, 6, 1, 5) == -1);
    CHECK(tui_source_next_hot(counts, 12, 12, -1, 5) == 6);
    CHECK(tui_source_next_hot(counts, 12, 0, 1, 0) == 2); /* 0: any line with samples */
    CHECK(tui_source_next_hot(counts, 0, -1, 1, 1) == -1);
}

int main(void)
{
    test_model_lines();
    test_parse();
    test_map_path();
    test_counts_and_navigation();
    return check_summary();
}
