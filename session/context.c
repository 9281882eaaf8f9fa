/* What the target's threads were doing at a given time, for samples taken outside them (the
 * perf engine): their open user regions, whether the program had paused sampling, and whether
 * the thread waited inside a wrapped call (a wait leaf: the device in a HIP call, other ranks
 * in an MPI call). The
 * collector's region and sampling records are kept with their timestamps, so that a sample
 * decoded later is annotated as the in-target sampler would have annotated it then. */
#include "session/session.h"

#include <stdlib.h>
#include <string.h>

#include "collector/protocol.h"
#include "model/model.h"

/* One change: a region opened or closed at depth, or sampling turned on or off. */
struct ctx_event {
    uint64_t time_ns;
    uint32_t id;
    uint16_t depth;
    uint8_t kind; /* EV_BEGIN, EV_END, EV_PAUSE, EV_RESUME, EV_WAIT, EV_WAIT_END */
};
enum { EV_BEGIN, EV_END, EV_PAUSE, EV_RESUME, EV_WAIT, EV_WAIT_END };

/* A thread (tid != 0) or a process-wide pause state (tid == 0). */
struct ctx_thread {
    uint32_t pid, tid;
    /* the state before the first event kept */
    uint32_t ids[ROCSYS_REGION_DEPTH_MAX];
    uint32_t depth;
    int paused;
    uint64_t wait; /* the wait leaf frame (ROCSYS_WAIT_FRAME) of the call it waits in, 0: none */
    struct ctx_event *ev;
    size_t nev, cap;
};

struct session_context {
    struct ctx_thread *t;
    size_t n, cap;
};

struct session_context *session_context_new(void)
{
    return xcalloc(1, sizeof(struct session_context));
}

void session_context_free(struct session_context *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++)
        free(c->t[i].ev);
    free(c->t);
    free(c);
}

/* The entry of (pid, tid), created on first use when create. */
static struct ctx_thread *thread_of(struct session_context *c, uint32_t pid, uint32_t tid,
                                    int create)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->t[i].tid == tid && c->t[i].pid == pid)
            return &c->t[i];
    if (!create)
        return NULL;
    xgrow(&c->t, &c->cap, c->n + 1, sizeof(*c->t));
    struct ctx_thread *t = &c->t[c->n++];
    memset(t, 0, sizeof(*t));
    t->pid = pid;
    t->tid = tid;
    return t;
}

/* Add an event to t's list, in time order: after those of its time (a thread's own records
 * come in order; another thread's may come later with an earlier time: OpenMP's end of a
 * worker's wait, written by the encountering thread). */
static void add(struct ctx_thread *t, uint64_t time_ns, int kind, uint32_t depth, uint32_t id)
{
    size_t i = t->nev;

    xgrow(&t->ev, &t->cap, t->nev + 1, sizeof(*t->ev));
    while (i > 0 && t->ev[i - 1].time_ns > time_ns)
        i--;
    memmove(t->ev + i + 1, t->ev + i, (t->nev - i) * sizeof(*t->ev));
    t->ev[i] = (struct ctx_event){
        .time_ns = time_ns, .id = id, .depth = (uint16_t)depth, .kind = (uint8_t)kind};
    t->nev++;
}

void session_context_region(struct session_context *c, uint32_t pid, uint32_t tid, uint64_t time_ns,
                            int begin, uint32_t depth, uint32_t id)
{
    if (c)
        add(thread_of(c, pid, tid, 1), time_ns, begin ? EV_BEGIN : EV_END, depth, id);
}

void session_context_sampling(struct session_context *c, uint32_t pid, uint32_t tid,
                              uint64_t time_ns, int on, int thread_only)
{
    if (c)
        add(thread_of(c, pid, thread_only ? tid : 0, 1), time_ns, on ? EV_RESUME : EV_PAUSE, 0, 0);
}

void session_context_wait(struct session_context *c, uint32_t pid, uint32_t tid, uint64_t time_ns,
                          uint64_t frame)
{
    if (c) /* the kind in depth, the call's id in id */
        add(thread_of(c, pid, tid, 1), time_ns, frame ? EV_WAIT : EV_WAIT_END,
            frame ? (uint32_t)ROCSYS_WAIT_FRAME_KIND(frame) : 0,
            frame ? (uint32_t)ROCSYS_WAIT_FRAME_ID(frame) : 0);
}

/* Apply one event to a region stack, pause flag and wait. */
static void apply(const struct ctx_event *e, uint32_t *ids, uint32_t *depth, int *paused,
                  uint64_t *wait)
{
    switch (e->kind) {
    case EV_WAIT:
        *wait = ROCSYS_WAIT_FRAME(e->depth, e->id);
        break;
    case EV_WAIT_END:
        *wait = 0;
        break;
    case EV_BEGIN:
        if (e->depth < ROCSYS_REGION_DEPTH_MAX) {
            ids[e->depth] = e->id;
            *depth = e->depth + 1u;
        }
        break;
    case EV_END:
        *depth = e->depth < *depth ? e->depth : *depth;
        break;
    case EV_PAUSE:
        *paused = 1;
        break;
    default:
        *paused = 0;
        break;
    }
}

/* t's state at time_ns: its region stack, pause flag and wait. */
static void state_at(const struct ctx_thread *t, uint64_t time_ns, uint32_t *ids, uint32_t *depth,
                     int *paused, uint64_t *wait)
{
    memcpy(ids, t->ids, sizeof(t->ids));
    *depth = t->depth;
    *paused = t->paused;
    *wait = t->wait;
    for (size_t i = 0; i < t->nev && t->ev[i].time_ns <= time_ns; i++)
        apply(&t->ev[i], ids, depth, paused, wait);
}

uint64_t session_context_wait_at(struct session_context *c, uint32_t pid, uint32_t tid,
                                 uint64_t time_ns)
{
    uint32_t ids[ROCSYS_REGION_DEPTH_MAX], depth;
    uint64_t wait = 0;
    int paused;
    struct ctx_thread *t = c ? thread_of(c, pid, tid, 0) : NULL;

    if (t)
        state_at(t, time_ns, ids, &depth, &paused, &wait);
    return wait;
}

int session_context_at(struct session_context *c, uint32_t pid, uint32_t tid, uint64_t time_ns,
                       uint64_t *out, uint32_t room)
{
    uint32_t ids[ROCSYS_REGION_DEPTH_MAX], depth = 0, pdepth, pids[ROCSYS_REGION_DEPTH_MAX];
    uint64_t wait;
    int paused = 0, ppaused = 0;
    uint32_t n = 0;
    struct ctx_thread *t, *p;

    if (!c)
        return 0;
    p = thread_of(c, pid, 0, 0);
    if (p) {
        state_at(p, time_ns, pids, &pdepth, &ppaused, &wait);
        if (ppaused)
            return -1;
    }
    t = thread_of(c, pid, tid, 0);
    if (!t)
        return 0;
    state_at(t, time_ns, ids, &depth, &paused, &wait);
    if (paused)
        return -1;
    /* innermost first, as the collector appends them */
    for (uint32_t i = depth; i-- > 0 && n < room;)
        if (ids[i])
            out[n++] = ROCSYS_REGION_FRAME(ids[i]);
    return (int)n;
}

void session_context_prune(struct session_context *c, uint64_t before_ns)
{
    for (size_t i = 0; c && i < c->n; i++) {
        struct ctx_thread *t = &c->t[i];
        size_t k = 0;
        while (k < t->nev && t->ev[k].time_ns < before_ns)
            apply(&t->ev[k++], t->ids, &t->depth, &t->paused, &t->wait);
        if (k) {
            memmove(t->ev, t->ev + k, (t->nev - k) * sizeof(*t->ev));
            t->nev -= k;
        }
    }
}
