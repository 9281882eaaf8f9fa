/* Before and after: two models (an OLD and a NEW recording, --replay NEW --diff OLD) compared
 * entry by entry. Entries are matched by name (functions by name and module; call-tree nodes
 * by the path of names from the root), never by id: ids differ between recordings. Each row
 * has its share in both and the change in points (NEW % - OLD %); entries of one side only are
 * marked added or gone and still listed, with 0 on the other side. Pure: reads the models,
 * changes nothing. */
#ifndef ROCSYS_MODEL_DIFF_H
#define ROCSYS_MODEL_DIFF_H

#include <stdint.h>

struct model;

/* The two sides of a row's arrays. */
enum { MODEL_DIFF_OLD = 0, MODEL_DIFF_NEW = 1 };

/* Where an entry was found. */
enum model_diff_mark {
    MODEL_DIFF_BOTH,  /* in both recordings */
    MODEL_DIFF_ADDED, /* only in NEW */
    MODEL_DIFF_GONE,  /* only in OLD (vanished) */
};

/* Row order: largest absolute change first (the default; in tenths of a point as shown, ties
 * by the larger share), largest NEW share first, or name. */
enum model_diff_sort { MODEL_DIFF_SORT_CHANGE, MODEL_DIFF_SORT_NEW, MODEL_DIFF_SORT_NAME };

/* One compared entry. What the shares are depends on the table:
 *   functions: share = self samples, share2 = inclusive samples (of all samples);
 *   call tree: share = inclusive samples, share2 = self samples (of all samples);
 *   kernels:   share = GPU time (of all kernels' GPU time), count = dispatches (HIP launches
 *              when no dispatch of the kernel was seen: no GPU, or HSA not traced);
 *   HIP API:   share = host time (of all HIP calls' time), count = calls. */
struct model_diff_row {
    char *name;                /* function, kernel or HIP entry point (owned by the diff) */
    char *module;              /* functions and tree nodes: module, NULL if unknown */
    enum model_diff_mark mark; /* both, added or gone */
    double share[2];           /* % in OLD and NEW */
    double share2[2];          /* % in OLD and NEW (functions, call tree), else 0 */
    double delta;              /* share[NEW] - share[OLD], points */
    double delta2;             /* share2[NEW] - share2[OLD], points */
    uint64_t count[2];         /* samples (self; tree: inclusive), dispatches or calls */
    uint64_t time_ns[2];       /* kernels and HIP API: total time; else 0 */
    /* call tree: depth (1 = a child of the root), parent row (-1: none), rows below it, and a
     * hash of the path of names (stable across rebuilds, for the UI's state) */
    int depth;
    int parent;
    int descendants;
    uint64_t path_hash;
};

struct model_diff {
    struct model_diff_row *rows; /* call tree: depth-first, siblings in the sort order */
    int count;
    uint64_t total[2]; /* the base of the shares of each side: samples, GPU ns or HIP ns */
    int added, gone;   /* rows marked so */
    int left_out;      /* call tree: subtrees under min_pct on both sides, not listed */
};

/* Hot functions of both models (all threads, the counted range of each). */
struct model_diff *model_diff_funcs(struct model *old_m, struct model *new_m,
                                    enum model_diff_sort sort);
/* The call trees of both (all threads merged), matched by path of names; nodes whose inclusive
 * share is below min_pct % on both sides are left out with everything below them. */
struct model_diff *model_diff_tree(struct model *old_m, struct model *new_m,
                                   enum model_diff_sort sort, double min_pct);
/* GPU kernels by name (share of GPU time). */
struct model_diff *model_diff_kernels(struct model *old_m, struct model *new_m,
                                      enum model_diff_sort sort);
/* HIP API entry points by name (share of host time in HIP calls). */
struct model_diff *model_diff_hip(struct model *old_m, struct model *new_m,
                                  enum model_diff_sort sort);
void model_diff_free(struct model_diff *d);
/* "", "new" or "gone". */
const char *model_diff_mark_name(enum model_diff_mark mark);
/* "change", "new share" or "name". */
const char *model_diff_sort_name(enum model_diff_sort sort);

#endif
