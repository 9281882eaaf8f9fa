/* Unit tests of launch call paths (model/launch_paths.c): launches counted per call path of a
 * kernel, each dispatch's GPU time charged to its launch's path whichever record comes first,
 * processes merged by path, a stack key that stands for a path, and clearing the counts while
 * the stacks stay known. */
#include "check.h"

#include <string.h>

#include "collector/protocol.h"
#include "model/model.h"

/* A launch of kernel name id 1 (named "k(int)") by pid from stack key with correlation id. */
static void launch(struct model *m, uint32_t pid, uint64_t key, uint64_t corr)
{
    struct model_hip_call c = {.pid = pid,
                               .tid = pid,
                               .api = 1, /* hipLaunchKernel */
                               .start_ns = 100,
                               .end_ns = 200,
                               .name_id = 1,
                               .copy_kind = -1,
                               .stack_key = key,
                               .correlation = corr};
    CHECK(rocsys_hip_api_launch(c.api) == 1);
    model_hip_call(m, &c);
}

/* The launch path row of path in l, or NULL. */
static const struct model_launch_path *row(const struct model_launch_path_list *l, uint32_t path)
{
    for (int i = 0; i < l->count; i++)
        if (l->items[i].path == path)
            return &l->items[i];
    return NULL;
}

/* The node of tree t whose function is named name (first found), or NULL. */
static const struct model_node *node_named(struct model *m, const struct model_tree *t,
                                           const char *name)
{
    for (int i = 1; i < t->count; i++) {
        const struct model_func *f = model_func_at(m, t->nodes[i].func);
        if (f && f->name && strcmp(f->name, name) == 0)
            return &t->nodes[i];
    }
    return NULL;
}

static void test_paths_and_gpu_time(void)
{
    struct model *m = model_new();
    const char *a[] = {"main", "forward", "launch"}, *b[] = {"main", "backward", "launch"};
    uint32_t pa = model_names_path(m, a, 3), pb = model_names_path(m, b, 3);
    struct model_launch_path_list *l;
    char text[256];

    CHECK(pa && pb && pa != pb);
    model_path_names(m, pb, ";", 0, text, sizeof(text));
    CHECK_STR(text, "main;backward;launch");
    model_path_names(m, pb, " < ", 1, text, sizeof(text));
    CHECK_STR(text, "launch < backward < main");
    model_path_names(m, pb, ";", 0, text, sizeof(text));
    CHECK_STR(text, "main;backward;launch");
    for (uint32_t pid = 10; pid <= 11; pid++) {
        model_kernel_name(m, pid, 0, 1, "_Z1ki");
        model_launch_stack_set_path(m, pid, 0xa, pa); /* the same key stands for ... */
        model_launch_stack_set_path(m, pid, 0xb, pb);
    }
    CHECK(model_launch_stack_path(m, 10, 0xa) == pa && model_launch_stack_path(m, 11, 0xb) == pb);
    CHECK(model_launch_stack_path(m, 12, 0xa) == 0 && !model_launch_stack_pending(m, 12, 0xa));
    launch(m, 10, 0xa, 1);
    launch(m, 10, 0xa, 2);
    launch(m, 10, 0xb, 3);
    launch(m, 11, 0xb, 1); /* another process: the same correlation ids mean other launches */
    launch(m, 10, 0, 4);   /* no stack captured */
    model_launch_dispatch(m, 10, 1, 1000);
    model_launch_dispatch(m, 10, 2, 1000);
    model_launch_dispatch(m, 10, 3, 5000);
    model_launch_dispatch(m, 11, 7, 9000);       /* its launch comes after it ... */
    launch(m, 11, 0xa, 7);                       /* ... and finds it */
    model_launch_dispatch(m, 11, 1, UINT64_MAX); /* not timed: a dispatch, no time */
    model_launch_dispatch(m, 10, 99, 777);       /* no such launch: charged to nothing */
    l = model_launch_paths(m, "k(int)");
    CHECK(l->count == 3 && l->launches == 6);
    CHECK_MSG(l->gpu_ns == 16000, "gpu %llu", (unsigned long long)l->gpu_ns);
    const struct model_launch_path *ra = row(l, pa), *rb = row(l, pb), *rn = row(l, 0);
    CHECK(ra && ra->launches == 3 && ra->dispatches == 3 && ra->gpu_ns == 11000);
    CHECK(rb && rb->launches == 2 && rb->dispatches == 2 && rb->gpu_ns == 5000);
    CHECK(rn && rn->launches == 1 && rn->dispatches == 0 && rn->gpu_ns == 0);
    CHECK(l->items[0].path == pa); /* by GPU time */
    /* the caller tree: the launching function, then its callers */
    struct model_tree *t = model_launch_tree(m, l);
    model_launch_paths_free(l);
    const struct model_node *ln = node_named(m, t, "launch");
    CHECK(t->total == 6 && t->gpu_ns == 16000);
    CHECK(ln && ln->parent == 0 && ln->inclusive == 5 && ln->gpu_ns == 16000);
    const struct model_node *fw = node_named(m, t, "forward"), *bw = node_named(m, t, "backward");
    CHECK(fw && &t->nodes[fw->parent] == ln && fw->inclusive == 3 && fw->gpu_ns == 11000);
    CHECK(bw && &t->nodes[bw->parent] == ln && bw->inclusive == 2 && bw->gpu_ns == 5000);
    const struct model_node *none = node_named(m, t, "(call path not captured)");
    CHECK(none && none->parent == 0 && none->inclusive == 1);
    CHECK(node_named(m, t, "main") && node_named(m, t, "main")->self > 0); /* outermost */
    model_tree_free(t);
    l = model_launch_paths(m, "other");
    CHECK(l->count == 0);
    model_launch_paths_free(l);
    /* cleared (a replay range, a reset): the counts go, the stacks stay known */
    model_gpu_clear(m);
    l = model_launch_paths(m, "k(int)");
    CHECK(l->count == 0 && l->gpu_ns == 0);
    model_launch_paths_free(l);
    launch(m, 10, 0xb, 20);
    model_launch_dispatch(m, 10, 20, 300);
    l = model_launch_paths(m, NULL);
    CHECK(l->count == 1 && l->items[0].path == pb && l->items[0].gpu_ns == 300);
    CHECK(l->items[0].name && strcmp(l->items[0].name, "k(int)") == 0);
    model_launch_paths_free(l);
    model_free(m);
}

/* Call trees with_gpu: each node's GPU time is that of the kernels launched from it and below,
 * launch paths without samples become nodes, the thread filter applies. */
static void test_tree_gpu(void)
{
    struct model *m = model_new();
    const char *a[] = {"main", "forward", "launch"}, *b[] = {"main", "backward", "launch"};
    const char *cpu[] = {"main", "work"};
    uint32_t pa = model_names_path(m, a, 3), pb = model_names_path(m, b, 3);
    struct model_filter f = {.thread = -1, .with_gpu = 1};
    struct model_tree *t;
    const struct model_node *n;

    model_sample_symbolized(m, 10, 10, 100, cpu, 2, 4);
    model_sample_symbolized(m, 10, 11, 100, cpu, 2, 1);
    model_kernel_name(m, 10, 0, 1, "_Z1ki");
    model_launch_stack_set_path(m, 10, 0xa, pa);
    model_launch_stack_set_path(m, 10, 0xb, pb);
    launch(m, 10, 0xa, 1); /* thread 10 */
    launch(m, 10, 0xb, 2);
    model_launch_dispatch(m, 10, 1, 3000);
    model_launch_dispatch(m, 10, 2, 1000);
    t = model_tree_build(m, &f);
    CHECK(t->gpu_ns == 4000 && t->total == 5);
    n = node_named(m, t, "main");
    CHECK(n && n->gpu_ns == 4000 && n->inclusive == 5);
    n = node_named(m, t, "forward");
    CHECK(n && n->gpu_ns == 3000 && n->inclusive == 0); /* a node without samples */
    n = node_named(m, t, "backward");
    CHECK(n && n->gpu_ns == 1000);
    n = node_named(m, t, "work");
    CHECK(n && n->gpu_ns == 0 && n->inclusive == 5);
    model_tree_free(t);
    f.with_gpu = 0; /* without: no launch-only nodes, no GPU */
    t = model_tree_build(m, &f);
    CHECK(t->gpu_ns == 0 && !node_named(m, t, "forward"));
    model_tree_free(t);
    f.with_gpu = 1; /* the thread that did not launch: its tree has no GPU time */
    for (int i = 0; i < model_thread_count(m); i++)
        if (model_thread_at(m, i)->tid == 11)
            f.thread = i;
    CHECK(f.thread >= 0);
    t = model_tree_build(m, &f);
    CHECK(t->gpu_ns == 0 && t->total == 1);
    model_tree_free(t);
    model_free(m);
}

int main(void)
{
    test_paths_and_gpu_time();
    test_tree_gpu();
    return check_summary();
}
