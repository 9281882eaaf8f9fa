/* Unit test: the model's aggregation: stacks into call trees and hot lists, per thread and
 * merged, weights, recursion, the sliding window, reset, unknown addresses, thread lifecycle,
 * the output tail, and the /proc parsers. Uses this binary's own functions as the symbols. */
#define _GNU_SOURCE
#include <errno.h>
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "model_fixture.h"
#include "model/model.h"
#include "model/model_internal.h"

/* Function id of name, or -1. */
static int func_named(struct model *m, const char *name)
{
    for (int i = 0; i < model_func_count(m); i++)
        if (strcmp(model_func_at(m, i)->name, name) == 0)
            return i;
    return -1;
}

/* The tree node for a root-first path of function names, or -1. */
static int node_at(struct model *m, const struct model_tree *t, const char **path, int n)
{
    int node = 0;
    for (int k = 0; k < n; k++) {
        int f = func_named(m, path[k]), c;
        for (c = t->nodes[node].first_child; c >= 0; c = t->nodes[c].next_sibling)
            if (t->nodes[c].func == f)
                break;
        if (c < 0)
            return -1;
        node = c;
    }
    return node;
}

/* The hot-list entry of a function name, or NULL. */
static const struct model_hot *hot_of(struct model *m, const struct model_hot_list *h,
                                      const char *name)
{
    int f = func_named(m, name);
    for (int i = 0; i < h->count; i++)
        if (h->items[i].func == f)
            return &h->items[i];
    return NULL;
}

int main(void)
{
    struct model *m = model_new();
    uint64_t s_leaf[] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_mid[] = {fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_other[] = {fixture_at(fn_other), fixture_at(fn_outer)};
    uint64_t s_rec[] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_middle),
                        fixture_at(fn_outer)};

    /* an address before any module is known: deferred, then [unknown] on the final try */
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_leaf, 3, 0) == -EAGAIN);
    CHECK(model_session(m)->samples == 0);

    model_proc_start(m, FIXTURE_PID, 1, "/bin/test", "test --flag", FIXTURE_SEC);
    model_set_root_pid(m, FIXTURE_PID);
    dl_iterate_phdr(fixture_add_self, m);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID, "main", FIXTURE_SEC);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID + 1, "worker", FIXTURE_SEC);
    model_tick(m, 1 * FIXTURE_SEC);

    for (int i = 0; i < 3; i++)
        CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_leaf, 3, 0) == 0);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_mid, 2, 0) == 0);
    CHECK(model_sample_weighted(m, FIXTURE_PID, FIXTURE_PID + 1, FIXTURE_SEC, s_other, 2, 4, 0) ==
          0);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID + 1, FIXTURE_SEC, s_rec, 4, 0) == 0);
    CHECK(model_session(m)->samples == 3 + 1 + 4 + 1);
    CHECK(model_thread_count(m) == 2);
    CHECK(strcmp(model_thread_at(m, 0)->name, "main") == 0);
    CHECK(model_thread_at(m, 0)->samples == 4);
    CHECK(model_thread_at(m, 1)->samples == 5);

    /* merged tree */
    struct model_filter all = {.thread = -1, .window = 0};
    struct model_tree *t = model_tree_build(m, &all);
    const char *p_outer[] = {"fn_outer"};
    const char *p_mid[] = {"fn_outer", "fn_middle"};
    const char *p_leaf[] = {"fn_outer", "fn_middle", "fn_leaf"};
    const char *p_rec[] = {"fn_outer", "fn_middle", "fn_middle", "fn_leaf"};
    const char *p_other[] = {"fn_outer", "fn_other"};
    CHECK(t->total == 9);
    int n;
    CHECK((n = node_at(m, t, p_outer, 1)) > 0 && t->nodes[n].inclusive == 9 &&
          t->nodes[n].self == 0);
    CHECK((n = node_at(m, t, p_mid, 2)) > 0 && t->nodes[n].inclusive == 5 && t->nodes[n].self == 1);
    CHECK((n = node_at(m, t, p_leaf, 3)) > 0 && t->nodes[n].self == 3 && t->nodes[n].depth == 3);
    CHECK((n = node_at(m, t, p_rec, 4)) > 0 && t->nodes[n].self == 1);
    CHECK((n = node_at(m, t, p_other, 2)) > 0 && t->nodes[n].self == 4);
    /* path hashes identify the same path across rebuilds */
    struct model_tree *t2 = model_tree_build(m, &all);
    int n2 = node_at(m, t2, p_leaf, 3);
    CHECK(n2 > 0 && t2->nodes[n2].path_hash == t->nodes[node_at(m, t, p_leaf, 3)].path_hash);
    CHECK(t->nodes[node_at(m, t, p_leaf, 3)].path_hash !=
          t->nodes[node_at(m, t, p_rec, 4)].path_hash);
    model_tree_free(t2);
    model_tree_free(t);

    /* paths below a share are left out with all under them, counted as hidden; the counts
     * of what stays are unchanged. 9 samples: 200000 ppm = 1.8 -> at least 2 samples */
    struct model_filter big = {.thread = -1, .window = 0, .min_ppm = 200000};
    t = model_tree_build(m, &big);
    CHECK(t->total == 9 && node_at(m, t, p_rec, 4) < 0 && node_at(m, t, p_mid, 2) > 0);
    CHECK((n = node_at(m, t, p_mid, 2)) > 0 && t->nodes[n].inclusive == 5 &&
          t->nodes[n].self == 1 && t->nodes[n].hidden == 1); /* fn_middle;fn_middle: 1 sample */
    CHECK((n = node_at(m, t, p_leaf, 3)) > 0 && t->nodes[n].self == 3 && t->hidden == 1);
    model_tree_free(t);

    /* the trie: the stack of thread 0 and of thread 1 that share a prefix share its paths;
     * a stack record per (thread, path), in the order first seen */
    uint32_t paths = model_path_count(m); /* root, outer, middle, leaf, middle(2), leaf(2),
                                             other */
    CHECK_MSG(paths == 7, "%u paths", paths);
    CHECK(model_distinct_stacks(m) == 4);
    struct model_stack_info si;
    CHECK(model_stack_at(m, 0, &si) == 0 && si.thread == 0 && si.count == 3);
    CHECK(model_path_func(m, si.path) == (uint32_t)func_named(m, "fn_leaf") &&
          model_path_func(m, model_path_parent(m, si.path)) ==
              (uint32_t)func_named(m, "fn_middle"));
    CHECK(model_stack_at(m, 2, &si) == 0 && si.thread == 1 && si.count == 4);
    CHECK(model_stack_at(m, 4, &si) == -1);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID + 1, FIXTURE_SEC, s_leaf, 3, 0) == 0);
    CHECK(model_path_count(m) == paths && model_distinct_stacks(m) == 5);
    CHECK(model_stack_at(m, 4, &si) == 0 && si.thread == 1 && model_path_count(m) == paths);
    model_reset_counts(m);
    CHECK(model_stack_at(m, 0, &si) == 0 && si.count == 0);
    for (int i = 0; i < 3; i++)
        CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_leaf, 3, 0) == 0);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, FIXTURE_SEC, s_mid, 2, 0) == 0);
    CHECK(model_sample_weighted(m, FIXTURE_PID, FIXTURE_PID + 1, FIXTURE_SEC, s_other, 2, 4, 0) ==
          0);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID + 1, FIXTURE_SEC, s_rec, 4, 0) == 0);

    /* per-thread tree */
    struct model_filter th1 = {.thread = 1, .window = 0};
    t = model_tree_build(m, &th1);
    CHECK(t->total == 5);
    CHECK(node_at(m, t, p_leaf, 3) < 0);
    CHECK((n = node_at(m, t, p_other, 2)) > 0 && t->nodes[n].self == 4);
    model_tree_free(t);

    /* ranks: the process is rank 3; a filter on rank 3 keeps its samples, on rank 2 none */
    model_proc_set_rank(m, FIXTURE_PID, 3, "node7", 4242);
    CHECK(model_process_find(m, FIXTURE_PID)->rank == 3 &&
          strcmp(model_process_find(m, FIXTURE_PID)->host, "node7") == 0 &&
          model_process_find(m, FIXTURE_PID)->real_pid == 4242);
    struct model_filter r3 = {.thread = -1, .only_rank = 4}, r2 = {.thread = -1, .only_rank = 3};
    t = model_tree_build(m, &r3);
    CHECK(t->total == 9);
    model_tree_free(t);
    t = model_tree_build(m, &r2);
    CHECK(t->total == 0 && t->count == 1);
    model_tree_free(t);
    struct model_hot_list *hr = model_hot_build(m, &r2);
    CHECK(hr->total == 0 && hr->count == 0);
    model_hot_free(hr);

    /* hot list: self at the leaf, inclusive once per stack even with recursion */
    struct model_hot_list *h = model_hot_build(m, &all);
    const struct model_hot *x;
    CHECK(h->total == 9);
    CHECK((x = hot_of(m, h, "fn_leaf")) && x->self == 4 && x->inclusive == 4);
    CHECK((x = hot_of(m, h, "fn_middle")) && x->self == 1 && x->inclusive == 5);
    CHECK((x = hot_of(m, h, "fn_other")) && x->self == 4 && x->inclusive == 4);
    CHECK((x = hot_of(m, h, "fn_outer")) && x->self == 0 && x->inclusive == 9);
    model_hot_free(h);

    /* function metadata comes from debug info */
    int f = func_named(m, "fn_leaf");
    CHECK(f >= 0 && model_func_at(m, f)->file &&
          strstr(model_func_at(m, f)->file, "model_fixture.h"));

    /* sliding window of 2 s: samples of second 1 leave it at second 3 */
    model_set_window(m, 2);
    model_tick(m, 2 * FIXTURE_SEC);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, 2 * FIXTURE_SEC, s_mid, 2, 0) == 0);
    struct model_filter win = {.thread = -1, .window = 1};
    h = model_hot_build(m, &win);
    CHECK(h->total == 10);
    model_hot_free(h);
    model_tick(m, 3 * FIXTURE_SEC);
    h = model_hot_build(m, &win);
    CHECK_MSG(h->total == 1, "window total %llu", (unsigned long long)h->total);
    CHECK((x = hot_of(m, h, "fn_middle")) && x->self == 1);
    model_hot_free(h);
    CHECK(model_thread_at(m, 0)->window_samples == 1);
    CHECK(model_thread_at(m, 1)->window_samples == 0);
    model_tick(m, 10 * FIXTURE_SEC);
    h = model_hot_build(m, &win);
    CHECK(h->total == 0);
    model_hot_free(h);
    /* since-start counts are untouched by the window */
    h = model_hot_build(m, &all);
    CHECK(h->total == 10);
    model_hot_free(h);

    /* reset */
    model_reset_counts(m);
    h = model_hot_build(m, &all);
    CHECK(h->total == 0 && model_session(m)->samples == 0);
    model_hot_free(h);
    size_t distinct = model_distinct_stacks(m);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, 10 * FIXTURE_SEC, s_leaf, 3, 0) == 0);
    CHECK(model_distinct_stacks(m) == distinct); /* memory grows with distinct stacks only */

    /* unknown addresses on the final try */
    uint64_t bogus[] = {0x10, fixture_at(fn_outer)};
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, 10 * FIXTURE_SEC, bogus, 2, 0) == -EAGAIN);
    CHECK(model_sample(m, FIXTURE_PID, FIXTURE_PID, 10 * FIXTURE_SEC, bogus, 2, 1) == 0);
    CHECK(func_named(m, "[unknown]") >= 0);

    /* thread lifecycle: exit keeps the entry; a reused tid after exit is a new entry; late
     * names and samples of an ended thread do not resurrect it */
    model_thread_exit(m, FIXTURE_PID, FIXTURE_PID + 1, 11 * FIXTURE_SEC);
    CHECK(!model_thread_at(m, 1)->alive);
    model_thread_seen(m, FIXTURE_PID, FIXTURE_PID + 1, "late-name", 11 * FIXTURE_SEC);
    CHECK(model_thread_count(m) == 2);
    CHECK(strcmp(model_thread_at(m, 1)->name, "late-name") == 0);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID + 1, "reused", 12 * FIXTURE_SEC);
    CHECK(model_thread_count(m) == 3);
    CHECK(model_thread_at(m, 2)->alive);

    /* process end: precise status wins over "ended, status unknown" */
    model_proc_end(m, FIXTURE_PID, MODEL_PROC_KILLED, 11, 13 * FIXTURE_SEC);
    model_proc_end(m, FIXTURE_PID, MODEL_PROC_EXITED, -1, 14 * FIXTURE_SEC);
    const struct model_process *pr = model_process_find(m, FIXTURE_PID);
    CHECK(pr && pr->state == MODEL_PROC_KILLED && pr->term_signal == 11 && pr->is_root);
    CHECK(pr && pr->end_ns == 13 * FIXTURE_SEC);
    CHECK(!model_thread_at(m, 0)->alive && !model_thread_at(m, 2)->alive);

    /* output tail: lines split across writes, both streams, a last line without newline */
    model_output_append(m, 1, "hel", 3);
    model_output_append(m, 1, "lo\nwor", 6);
    model_output_append(m, 2, "oops\r\n", 6);
    model_output_append(m, 1, "ld", 2);
    int stream = 0;
    CHECK(model_output_lines(m) == 2);
    CHECK(strcmp(model_output_line(m, 0, &stream), "hello") == 0 && stream == 1);
    CHECK(strcmp(model_output_line(m, 1, &stream), "oops") == 0 && stream == 2);
    model_output_flush(m);
    CHECK(model_output_lines(m) == 3 && strcmp(model_output_line(m, 2, NULL), "world") == 0);
    for (int i = 0; i < 20000; i++)
        model_output_append(m, 1, "x\n", 2);
    CHECK(model_output_lines(m) == 5000); /* bounded tail */

    /* /proc parsers, including a comm with spaces and parentheses */
    struct model_procfs_stat st;
    const char *stat = "123 (my (odd) name) S 1 123 123 0 -1 4194560 1500 0 7 0 250 30 0 0 20 0 "
                       "5 0 100 1000 200 18446744073709551615\n";
    CHECK(model_procfs_parse_stat(stat, &st) == 0);
    CHECK(strcmp(st.comm, "my (odd) name") == 0);
    CHECK(st.state == 'S' && st.minflt == 1500 && st.majflt == 7 && st.utime_ticks == 250 &&
          st.stime_ticks == 30 && st.num_threads == 5);
    CHECK(model_procfs_parse_stat("garbage", &st) == -1);
    CHECK(model_procfs_parse_stat("1 (x) R 1 2", &st) == -1);
    struct model_procfs_status ss;
    model_procfs_parse_status("Name:\tx\nVmHWM:\t  2048 kB\nVmRSS:\t  1024 kB\n"
                              "SigBlk:\t0000000000010000\n"
                              "voluntary_ctxt_switches:\t10\nnonvoluntary_ctxt_switches:\t3\n",
                              &ss);
    CHECK(ss.sig_blocked == 0x10000); /* signal 17 */
    CHECK(ss.rss_bytes == 1024 * 1024 && ss.peak_rss_bytes == 2048 * 1024 && ss.vol_ctx == 10 &&
          ss.invol_ctx == 3);

    model_free(m);
    return check_summary();
}
