/* Whole stacks from outside (the perf engine): a sample whose unwinding reached the thread's
 * start is kept as its thread's last whole stack; a stack cut where the kernel's copy of the
 * user stack ended is joined to that last whole stack where the frame at the cut (its return
 * address and the stack pointer it was read at) is one of its frames, the same call in the
 * same place; a stack that stays cut gets one "[truncated]" root, so that it never shows as a
 * top-level function. */
#include "session/perf_stacks.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "model/model.h"

/* A thread's last whole stack: its frames, innermost first, and their stack pointers. */
struct last_stack {
    uint32_t pid, tid, n, cap;
    uint64_t *frames, *sps;
};

struct perf_stacks {
    int join;
    struct hashmap by_tid; /* (pid, tid) -> 1 + index in last */
    struct last_stack *last;
    size_t nlast, lastcap;
    uint64_t whole, joined, cut;
};

struct perf_stacks *perf_stacks_new(int join)
{
    struct perf_stacks *ps = xcalloc(1, sizeof(*ps));

    ps->join = join;
    return ps;
}

void perf_stacks_free(struct perf_stacks *ps)
{
    if (!ps)
        return;
    for (size_t i = 0; i < ps->nlast; i++) {
        free(ps->last[i].frames);
        free(ps->last[i].sps);
    }
    free(ps->last);
    hashmap_free(&ps->by_tid);
    free(ps);
}

/* The last whole stack of (pid, tid), created empty when create and missing; NULL if none. */
static struct last_stack *last_of(struct perf_stacks *ps, uint32_t pid, uint32_t tid, int create)
{
    uint32_t *slot = hashmap_slot(&ps->by_tid, hashmap_mix((uint64_t)pid << 32 | tid), create);

    if (!slot)
        return NULL;
    if (*slot == 0) {
        if (!create)
            return NULL;
        xgrow(&ps->last, &ps->lastcap, ps->nlast + 1, sizeof(*ps->last));
        ps->last[ps->nlast] = (struct last_stack){.pid = pid, .tid = tid};
        *slot = (uint32_t)++ps->nlast;
    }
    return &ps->last[*slot - 1];
}

/* Keep frames and sps (n) as the thread's last whole stack. */
static void keep(struct perf_stacks *ps, uint32_t pid, uint32_t tid, const uint64_t *frames,
                 const uint64_t *sps, uint32_t n)
{
    struct last_stack *l = last_of(ps, pid, tid, 1);

    if (n > l->cap) {
        l->frames = xrealloc(l->frames, n * sizeof(*l->frames));
        l->sps = xrealloc(l->sps, n * sizeof(*l->sps));
        l->cap = n;
    }
    memcpy(l->frames, frames, n * sizeof(*frames));
    memcpy(l->sps, sps, n * sizeof(*sps));
    l->n = n;
}

/* Join a stack cut after frame n - 1 to the thread's last whole stack: the frames above the
 * one with the same return address at the same stack pointer. The new count, or 0. */
static uint32_t join(struct perf_stacks *ps, uint32_t pid, uint32_t tid, uint64_t *frames,
                     uint64_t *sps, uint32_t n, uint32_t max)
{
    struct last_stack *l = last_of(ps, pid, tid, 0);
    uint32_t lo = 0, hi;

    if (!l || l->n == 0 || n < 2)
        return 0;
    /* the stack pointers of a stack grow from the leaf to the root: a binary search */
    hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->sps[mid] < sps[n - 1])
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= l->n || l->sps[lo] != sps[n - 1] || l->frames[lo] != frames[n - 1] || lo == 0)
        return 0;
    uint32_t add = l->n - 1 - lo;
    if (n + add > max)
        return 0;
    memcpy(frames + n, l->frames + lo + 1, add * sizeof(*frames));
    memcpy(sps + n, l->sps + lo + 1, add * sizeof(*sps));
    return n + add;
}

uint32_t perf_stacks_finish(struct perf_stacks *ps, struct model *m, uint32_t pid, uint32_t tid,
                            uint64_t *frames, uint64_t *sps, uint32_t n, uint32_t max, int end)
{
    uint32_t joined;

    if (end == SYMBOLIZER_END_UNKNOWN)
        return n; /* a process none of whose modules is known: [unknown], not cut */
    if (end == SYMBOLIZER_END_OUTERMOST) {
        ps->whole++;
        if (ps->join)
            keep(ps, pid, tid, frames, sps, n);
        return n;
    }
    if (ps->join && end == SYMBOLIZER_END_COPY &&
        (joined = join(ps, pid, tid, frames, sps, n, max)) > 0) {
        ps->joined++;
        keep(ps, pid, tid, frames, sps, joined); /* the thread's newest whole stack */
        return joined;
    }
    ps->cut++;
    frames[n++] = model_state_frame(m, MODEL_TRUNCATED_FRAME); /* room: max + 1 */
    return n;
}

void perf_stacks_counts(const struct perf_stacks *ps, uint64_t *whole, uint64_t *joined,
                        uint64_t *cut)
{
    *whole = ps ? ps->whole : 0;
    *joined = ps ? ps->joined : 0;
    *cut = ps ? ps->cut : 0;
}
