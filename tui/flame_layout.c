/* Flame graph logic without a terminal: laying out the boxes of an icicle graph (a call tree's
 * zoomed subtree across a number of columns), moving between boxes, the kind of a frame that
 * picks its colour, the share of the frames a search matches, and a line of text per row for
 * batch mode. */
#include "tui/tui_internal.h"

#include "base/hash.h"

#include <stdlib.h>
#include <string.h>

/* A box still to be placed (its children not yet laid out). */
struct pending {
    int node, x, w, depth;
};

/* Append a box to f. */
static void box_push(struct tui_flame *f, struct tui_flame_box b)
{
    if (f->count == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 256;
        f->boxes = xrealloc(f->boxes, (size_t)f->cap * sizeof(*f->boxes));
    }
    f->boxes[f->count++] = b;
    if (b.depth + 1 > f->rows)
        f->rows = b.depth + 1;
}

/* Column of the boundary after `part` samples of `whole` in a box at x, w columns wide
 * (rounded to the nearest: the same sample count always maps to the same column). */
static int boundary(int x, int w, uint64_t part, uint64_t whole)
{
    if (whole == 0)
        return x;
    if (part >= whole)
        return x + w;
    return x + (int)((long double)w * (long double)part / (long double)whole + 0.5L);
}

void tui_flame_layout(const struct tui_tree_order *o, int zoom, int width, int max_rows,
                      struct tui_flame *out)
{
    const struct model_tree *t = o->tree;
    struct pending *stack = NULL;
    int *kids = NULL, kcap = 0, n = 0, cap = 0;

    out->count = 0;
    out->rows = 0;
    if (!t || t->count == 0 || width <= 0 || zoom < 0 || zoom >= t->count)
        goto out;
    cap = 64;
    stack = xmalloc((size_t)cap * sizeof(*stack));
    stack[n++] = (struct pending){zoom, 0, width, 0};
    while (n > 0) {
        struct pending p = stack[--n];
        const struct model_node *nd = &t->nodes[p.node];
        uint64_t cum = 0;
        int k, first;

        box_push(out, (struct tui_flame_box){.node = p.node, .x = p.x, .w = p.w, .depth = p.depth});
        if (max_rows > 0 && p.depth + 1 >= max_rows)
            continue;
        k = tui_tree_children(o, p.node, &kids, &kcap);
        if (n + k > cap) {
            cap = (n + k) * 2;
            stack = xrealloc(stack, (size_t)cap * sizeof(*stack));
        }
        /* push the children that get a column, then reverse them: the first is popped first */
        first = n;
        for (int i = 0; i < k; i++) {
            uint64_t inc = t->nodes[kids[i]].inclusive;
            int x0 = boundary(p.x, p.w, cum, nd->inclusive);
            int x1 = boundary(p.x, p.w, cum + inc, nd->inclusive);
            cum += inc;
            if (x1 > p.x + p.w)
                x1 = p.x + p.w;
            if (x1 - x0 >= 1)
                stack[n++] = (struct pending){kids[i], x0, x1 - x0, p.depth + 1};
        }
        for (int a = first, b = n - 1; a < b; a++, b--) {
            struct pending tmp = stack[a];
            stack[a] = stack[b];
            stack[b] = tmp;
        }
    }
out:
    free(stack);
    free(kids);
}

void tui_flame_free(struct tui_flame *f)
{
    free(f->boxes);
    memset(f, 0, sizeof(*f));
}

int tui_flame_box_of(const struct tui_flame *f, int node)
{
    for (int i = 0; i < f->count; i++)
        if (f->boxes[i].node == node)
            return i;
    return -1;
}

int tui_flame_move(const struct model_tree *t, const struct tui_flame *f, int box, int dir)
{
    const struct tui_flame_box *b;
    int best = -1;

    if (box < 0 || box >= f->count)
        return f->count > 0 ? 0 : -1;
    b = &f->boxes[box];
    switch (dir) {
    case TUI_FLAME_UP: {
        int p = t->nodes[b->node].parent;
        int i = p >= 0 ? tui_flame_box_of(f, p) : -1;
        return i >= 0 ? i : box;
    }
    case TUI_FLAME_DOWN: /* the widest child box (children follow their parent, first = hottest) */
        for (int i = box + 1; i < f->count && f->boxes[i].depth > b->depth; i++)
            if (f->boxes[i].depth == b->depth + 1 && (best < 0 || f->boxes[i].w > f->boxes[best].w))
                best = i;
        return best >= 0 ? best : box;
    case TUI_FLAME_LEFT:
    case TUI_FLAME_RIGHT: /* the nearest box of the same row on that side */
        for (int i = 0; i < f->count; i++) {
            const struct tui_flame_box *c = &f->boxes[i];
            if (c->depth != b->depth || i == box)
                continue;
            if (dir == TUI_FLAME_LEFT && c->x < b->x && (best < 0 || c->x > f->boxes[best].x))
                best = i;
            if (dir == TUI_FLAME_RIGHT && c->x > b->x && (best < 0 || c->x < f->boxes[best].x))
                best = i;
        }
        return best >= 0 ? best : box;
    default:
        return box;
    }
}

uint64_t tui_flame_match_samples(const struct tui_tree_order *o, const char *needle)
{
    const struct model_tree *t = o->tree;
    int *stack = NULL, n = 0;
    uint64_t sum = 0;

    if (!t || t->count == 0 || !needle || !*needle)
        return 0;
    /* depth first from the root; a match counts its samples and hides what is below it */
    stack = xmalloc((size_t)t->count * sizeof(*stack));
    stack[n++] = 0;
    while (n > 0) {
        int node = stack[--n];
        const struct model_node *nd = &t->nodes[node];
        if (node != 0 && tui_match(o->name(o->ctx, nd->func), needle)) {
            sum += nd->inclusive;
            continue;
        }
        for (int c = nd->first_child; c >= 0; c = t->nodes[c].next_sibling)
            stack[n++] = c;
    }
    free(stack);
    return sum;
}

/* Whether s starts with prefix. */
static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Whether a replayed name looks like a Python label: "qualname (file.py:LINE)". */
static int python_label(const char *name)
{
    const char *p = strrchr(name, '(');
    const char *q = p ? strstr(p, ".py:") : NULL;

    return q && name[strlen(name) - 1] == ')';
}

enum tui_flame_kind tui_flame_kind(const char *name, const char *module)
{
    const char *base = module ? tui_basename(module) : NULL;

    if (!name)
        return TUI_FLAME_OTHER; /* the root */
    if (module && strcmp(module, model_python_module) == 0)
        return TUI_FLAME_PYTHON;
    if ((module && strcmp(module, "[region]") == 0) || starts_with(name, "[region] "))
        return TUI_FLAME_REGION;
    if ((module && strcmp(module, "[state]") == 0) || starts_with(name, "[blocked]") ||
        starts_with(name, "[preempted]") || starts_with(name, "[unknown]"))
        return TUI_FLAME_OTHER;
    if (base && (starts_with(base, "libamdhip64") || starts_with(base, "libhsa-runtime") ||
                 starts_with(base, "libhsakmt") || starts_with(base, "librocprofiler")))
        return TUI_FLAME_OTHER; /* the GPU runtime: launching, copying, waiting for the GPU */
    if (!module && python_label(name)) /* a replay: names only */
        return TUI_FLAME_PYTHON;
    return TUI_FLAME_NATIVE;
}

int tui_flame_text_row(const struct tui_flame *f, const struct model_tree *t, int depth,
                       tui_name_fn name, const void *ctx, char *buf, size_t n)
{
    size_t o = 0;
    int col = 0, boxes = 0;

    if (n == 0)
        return 0;
    for (int i = 0; i < f->count; i++) { /* depth first: a row's boxes come left to right */
        const struct tui_flame_box *b = &f->boxes[i];
        char fit[1024] = "";
        int used = 0;
        size_t len;

        if (b->depth != depth)
            continue;
        if (b->w > 2)
            used = tui_fit(fit, sizeof(fit), name(ctx, t->nodes[b->node].func), b->w - 2, 1);
        len = strlen(fit);
        if (o + (size_t)(b->x - col) + len + (size_t)b->w + 1 > n)
            break; /* no room left in buf */
        for (; col < b->x; col++)
            buf[o++] = ' ';
        if (b->w == 1) {
            buf[o++] = '|';
        } else {
            buf[o++] = '[';
            memcpy(buf + o, fit, len);
            o += len;
            for (int k = used; k < b->w - 2; k++)
                buf[o++] = '-';
            buf[o++] = ']';
        }
        col = b->x + b->w;
        boxes++;
    }
    buf[o] = '\0';
    return boxes;
}

/* A child of the merged node being built: its key and its node in the input tree. */
struct keyed {
    uint64_t key;
    int node;
};

/* Order keyed children by key, then by input node (a stable result). */
static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

struct model_tree *tui_flame_merge(const struct model_tree *in, tui_key_fn key, const void *ctx)
{
    struct model_tree *out = xcalloc(1, sizeof(*out));
    struct keyed *kids = NULL;
    int *head = NULL, *next = NULL, kcap = 0;

    if (!in || in->count == 0)
        return out;
    out->nodes = xmalloc((size_t)in->count * sizeof(*out->nodes));
    head = xmalloc((size_t)in->count * sizeof(*head)); /* an output node's first input node */
    next = xmalloc((size_t)in->count * sizeof(*next)); /* the next input node of the same one */
    out->nodes[0] = in->nodes[0];
    out->nodes[0].first_child = out->nodes[0].next_sibling = -1;
    out->count = 1;
    head[0] = 0;
    next[0] = -1;
    /* breadth first: the children of output node j are the children of all its input nodes,
     * grouped by key */
    for (int j = 0; j < out->count; j++) {
        int k = 0;
        for (int m = head[j]; m >= 0; m = next[m])
            for (int c = in->nodes[m].first_child; c >= 0; c = in->nodes[c].next_sibling) {
                if (k == kcap) {
                    kcap = kcap ? kcap * 2 : 64;
                    kids = xrealloc(kids, (size_t)kcap * sizeof(*kids));
                }
                kids[k++] = (struct keyed){key(ctx, in->nodes[c].func), c};
            }
        if (k > 1)
            qsort(kids, (size_t)k, sizeof(*kids), keyed_cmp);
        for (int a = 0, b; a < k; a = b) {
            struct model_node *o = &out->nodes[out->count];
            const struct model_node *first = &in->nodes[kids[a].node];
            *o = (struct model_node){
                .func = first->func,
                .parent = j,
                .first_child = -1,
                .next_sibling = out->nodes[j].first_child,
                .depth = out->nodes[j].depth + 1,
                .path_hash = hash_mix64(out->nodes[j].path_hash * 0x100000001b3ull ^ kids[a].key)};
            head[out->count] = -1;
            for (b = a; b < k && kids[b].key == kids[a].key; b++) {
                const struct model_node *nd = &in->nodes[kids[b].node];
                o->inclusive += nd->inclusive;
                o->self += nd->self;
                o->gpu_ns += nd->gpu_ns;
                o->hidden += nd->hidden;
                next[kids[b].node] = head[out->count];
                head[out->count] = kids[b].node;
            }
            out->nodes[j].first_child = out->count++;
        }
    }
    out->total = in->total;
    out->gpu_ns = in->gpu_ns;
    out->hidden = in->hidden;
    free(kids);
    free(head);
    free(next);
    return out;
}
