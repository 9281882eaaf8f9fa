/* Unit test: the ranks table (model_ranks_write: merged-profile.txt, the Ranks batch section) over
 * a model of four processes of three MPI ranks on two hosts: samples summed per rank, each rank's
 * hottest function and its share, recorded CPU %, GPU time and share, the time of the region with
 * the most time, the imbalance against the mean; the rank filter of hot lists and the filter's
 * description; a model without ranks prints nothing. Uses this binary's own functions. */
#define _GNU_SOURCE
#include <link.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"
#include "model/model.h"
#include "model/ranks.h"
#include "tui/tui.h"
#include "tui/tui_internal.h"
#include "model/mpi.h"

#define MS 1000000ull

/* A process of rank on host with one thread (tid = pid) named "main". */
static void add_rank_proc(struct model *m, uint32_t pid, int rank, const char *host,
                          uint32_t real_pid)
{
    model_proc_start(m, pid, 1, "/bin/solver", "solver --n 64", FIXTURE_SEC);
    model_proc_set_rank(m, pid, rank, host, real_pid);
    fixture_module_pid = pid;
    dl_iterate_phdr(fixture_add_self, m);
    model_thread_start(m, pid, pid, "main", FIXTURE_SEC);
}

/* n samples of thread pid of the stack frames (innermost first). */
static void samples(struct model *m, uint32_t pid, const uint64_t *frames, uint32_t nframes, int n)
{
    for (int i = 0; i < n; i++)
        CHECK(model_sample(m, pid, pid, 2 * FIXTURE_SEC, frames, nframes, 1) == 0);
}

/* A completed instance of region id of pid (on its main thread) of ms milliseconds. */
static void region(struct model *m, uint32_t pid, uint32_t id, uint64_t ms)
{
    model_region_begin(m, pid, pid, id, 0, 3 * FIXTURE_SEC);
    model_region_end(m, pid, pid, id, 0, 3 * FIXTURE_SEC + ms * MS);
}

/* A timed dispatch of pid lasting ms milliseconds. */
static void dispatch(struct model *m, uint32_t pid, uint64_t ms)
{
    const uint32_t grid[3] = {64, 1, 1};
    const uint16_t block[3] = {64, 1, 1};

    model_gpu_dispatch(m, pid, 0, 1, 0x1000, 4 * FIXTURE_SEC, 4 * FIXTURE_SEC + ms * MS, 0, grid,
                       block);
}

/* The whitespace-separated fields of the line of text that starts with rank (after blanks),
 * into f (at most max); returns how many. */
static int row_fields(const char *text, int rank, char f[][128], int max)
{
    char want[16], line[1024];
    const char *p = text;

    snprintf(want, sizeof(want), "%d", rank);
    while (*p) {
        size_t len = strcspn(p, "\n");
        int n = 0;
        snprintf(line, sizeof(line), "%.*s", (int)len, p);
        for (char *tok = strtok(line, " "); tok && n < max; tok = strtok(NULL, " "))
            snprintf(f[n++], sizeof(f[0]), "%s", tok);
        if (n > 0 && strcmp(f[0], want) == 0)
            return n;
        p += len + (p[len] == '\n');
    }
    return 0;
}

/* What fn writes for model m, as a string (free it). */
static char *capture(void (*fn)(FILE *, struct model *), struct model *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    fn(f, m);
    fclose(f);
    return buf;
}

static void batch_frame(FILE *out, struct model *m)
{
    tui_batch_frame(out, m, 1, 0);
}

/* The hot-list entry of the function named name, or NULL. */
static const struct model_hot *hot_of(struct model *m, const struct model_hot_list *h,
                                      const char *name)
{
    for (int i = 0; i < h->count; i++)
        if (strcmp(tui_model_func_name(m, h->items[i].func), name) == 0)
            return &h->items[i];
    return NULL;
}

int main(void)
{
    struct model *m = model_new();
    struct model_session *s = model_session(m);
    uint64_t s_leaf[] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_mid[] = {fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_other[] = {fixture_at(fn_other), fixture_at(fn_outer)};
    char f[16][128], desc[160], *text;
    int n;

    s->start_ns = FIXTURE_SEC; /* a 10 s run: GPU% is of 10 s */
    s->end_ns = 11 * FIXTURE_SEC;
    add_rank_proc(m, 100, 0, "nodeA", 5000);
    add_rank_proc(m, 200, 1, "nodeA", 5001);
    add_rank_proc(m, 300, 2, "nodeB", 7000);
    add_rank_proc(m, 301, 2, "nodeB", 7001); /* a second process of rank 2: summed */
    /* rank 0: 8 samples, fn_leaf 6; rank 1: 4, fn_other 3; rank 2: 10 + 2, fn_middle 10 */
    samples(m, 100, s_leaf, 3, 6);
    samples(m, 100, s_other, 2, 2);
    samples(m, 200, s_other, 2, 3);
    samples(m, 200, s_mid, 2, 1);
    samples(m, 300, s_mid, 2, 10);
    samples(m, 301, s_leaf, 3, 2);
    /* recorded CPU %: rank 1 has none */
    model_proc_set_recorded(m, 100, 95.5, 1 << 20, 1 << 20);
    model_proc_set_recorded(m, 300, 50.0, 1 << 20, 1 << 20);
    model_proc_set_recorded(m, 301, 25.0, 1 << 20, 1 << 20);
    /* GPU: rank 0 100 + 150 ms, rank 2 1000 ms (its second process), rank 1 none */
    dispatch(m, 100, 100);
    dispatch(m, 100, 150);
    dispatch(m, 301, 1000);
    /* regions: "solve" on ranks 0 (200 ms) and 2 (300 + 100 ms); "halo" on rank 1 (50 ms) */
    model_region_name(m, 100, 1, "solve");
    model_region_name(m, 300, 1, "solve");
    model_region_name(m, 301, 1, "solve");
    model_region_name(m, 200, 2, "halo");
    region(m, 100, 1, 200);
    region(m, 300, 1, 300);
    region(m, 301, 1, 100);
    region(m, 200, 2, 50);
    /* MPI on rank 1: Init 100 ms, Barrier 400 ms, Finalize 100 ms over a 2 s span: 30% */
    {
        static const struct {
            int call;
            double start_s, end_s;
        } calls[] = {{1, 1.0, 1.1}, {14, 2.0, 2.4}, {3, 2.9, 3.0}};
        for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
            struct model_mpi_input c = {.pid = 200,
                                        .tid = 200,
                                        .call = calls[i].call,
                                        .start_ns = (uint64_t)(calls[i].start_s * 1e9),
                                        .end_ns = (uint64_t)(calls[i].end_s * 1e9),
                                        .peer = -1};
            model_mpi_call(m, &c);
        }
    }

    text = capture(model_ranks_write, m);
    printf("%s", text);
    CHECK(strstr(text, "3 ranks on 2 hosts; load (IMBAL): samples; REGION: solve; most loaded: "
                       "rank 2 +50.0%") == text);
    CHECK(strstr(text, "RANK  HOST") != NULL);
    /* RANK HOST PID CPU% SAMPLES GPU_MS GPU% MPI% MPI_TOP REGION_MS IMBAL HOT% HOT; mean load 8
     * samples; no MPI call: MPI% and MPI_TOP are - */
    n = row_fields(text, 0, f, 16);
    CHECK(n == 13);
    CHECK_STR(f[1], "nodeA");
    CHECK_STR(f[2], "5000");
    CHECK_STR(f[3], "95.5");
    CHECK_STR(f[4], "8");
    CHECK_STR(f[5], "250.000");
    CHECK_STR(f[6], "2.5");
    CHECK_STR(f[7], "-"); /* no MPI call */
    CHECK_STR(f[8], "-");
    CHECK_STR(f[9], "200.000");
    CHECK_STR(f[10], "+0.0%");
    CHECK_STR(f[11], "75.0");
    CHECK_STR(f[12], "fn_leaf");
    n = row_fields(text, 1, f, 16);
    CHECK(n == 13);
    CHECK_STR(f[1], "nodeA");
    CHECK_STR(f[2], "5001");
    CHECK_STR(f[3], "-"); /* no CPU reading */
    CHECK_STR(f[4], "4");
    CHECK_STR(f[5], "-"); /* no dispatch */
    CHECK_STR(f[6], "-");
    CHECK_STR(f[7], "30.0"); /* 600 ms of MPI calls in its 2 s MPI span */
    CHECK_STR(f[8], "MPI_Barrier");
    CHECK_STR(f[9], "0.000"); /* "solve" never ran there */
    CHECK_STR(f[10], "-50.0%");
    CHECK_STR(f[11], "75.0");
    CHECK_STR(f[12], "fn_other");
    n = row_fields(text, 2, f, 16);
    CHECK(n == 13);
    CHECK_STR(f[1], "nodeB");
    CHECK_STR(f[2], "7000"); /* its first process */
    CHECK_STR(f[3], "75.0");
    CHECK_STR(f[4], "12");
    CHECK_STR(f[5], "1000.000");
    CHECK_STR(f[6], "10.0");
    CHECK_STR(f[9], "400.000");
    CHECK_STR(f[10], "+50.0%");
    CHECK_STR(f[11], "83.3");
    CHECK_STR(f[12], "fn_middle");
    n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    CHECK(n == 5); /* summary, column names, 3 ranks */
    free(text);

    /* the batch frame has the same table under a section title */
    text = capture(batch_frame, m);
    CHECK(strstr(text, "\n== Ranks: 3 ranks on 2 hosts;") != NULL);
    CHECK(row_fields(strstr(text, "== Ranks"), 2, f, 16) == 13 && strcmp(f[12], "fn_middle") == 0);
    free(text);

    /* only_rank: hot lists and trees count that rank's processes alone */
    {
        struct model_filter all = {.thread = -1}, r1 = {.thread = -1, .only_rank = 2},
                            r2 = {.thread = -1, .only_rank = 3};
        struct model_hot_list *h = model_hot_build(m, &all);
        CHECK(h->total == 24);
        model_hot_free(h);
        h = model_hot_build(m, &r1);
        CHECK(h->total == 4);
        CHECK(hot_of(m, h, "fn_other") && hot_of(m, h, "fn_other")->self == 3);
        CHECK(hot_of(m, h, "fn_leaf") == NULL);
        model_hot_free(h);
        h = model_hot_build(m, &r2);
        CHECK(h->total == 12);
        CHECK(hot_of(m, h, "fn_middle") && hot_of(m, h, "fn_middle")->self == 10);
        CHECK(hot_of(m, h, "fn_leaf") && hot_of(m, h, "fn_leaf")->self == 2);
        model_hot_free(h);
        struct model_tree *t = model_tree_build(m, &r2);
        CHECK(t->total == 12);
        model_tree_free(t);
        tui_filter_desc(m, &r2, desc, sizeof(desc));
        CHECK_STR(desc, "rank 2 (nodeB), all threads, since start");
        tui_filter_desc(m, &all, desc, sizeof(desc));
        CHECK_STR(desc, "all threads, since start");
    }
    /* the global rank key's order: all, 0, 1, 2, all */
    CHECK(model_ranks_next(m, 0) == 1);
    CHECK(model_ranks_next(m, 1) == 2);
    CHECK(model_ranks_next(m, 3) == 0);
    model_free(m);

    /* no ranks: no table, no batch section */
    m = model_new();
    model_proc_start(m, FIXTURE_PID, 1, "/bin/test", "test", FIXTURE_SEC);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID, "main", FIXTURE_SEC);
    text = capture(model_ranks_write, m);
    CHECK_STR(text, "");
    free(text);
    text = capture(batch_frame, m);
    CHECK(strstr(text, "== Ranks") == NULL);
    CHECK(strstr(text, "== Hot functions") != NULL);
    free(text);
    CHECK(model_ranks_next(m, 0) == -1);
    model_free(m);
    return check_summary();
}
