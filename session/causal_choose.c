/* Causal profiling: what the experiments run on (session/causal.h). The recent samples' leaves
 * and innermost Python frames; a function of the executable, or a Python function (its code
 * object: the function and the C it calls), that carries CAUSAL_MIN_SHARE of them becomes a
 * candidate (a model entry), and the one with the fewest experiments is chosen; the hot source
 * lines of the top functions (native, or Python: their instructions) that show a gain get
 * experiments of their own. */
#include "session/causal.h"
#include "session/session_internal.h"

#include "model/causal.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t causal_rand(struct session_causal *c)
{
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return c->rng * 0x2545f4914f6cdd1dull;
}

void session_causal_sample(struct session *s, uint32_t pid, const uint64_t *frames, uint32_t n)
{
    struct session_causal *c = s->causal;

    if (!c || pid != c->pid || n == 0 || ROCSYS_IS_PY_FRAME(frames[0]))
        return;
    uint32_t in = rocsys_py_innermost(frames, n); /* (1: Python frames, their code not known) */
    c->pys[c->next_pc] = in == n ? 0 : rocsys_py_code_known(frames[in]) ? frames[in] : 1;
    c->pcs[c->next_pc] = frames[0];
    c->next_pc = (c->next_pc + 1) % CAUSAL_PCS;
    if (c->npcs < CAUSAL_PCS)
        c->npcs++;
}

/* The cache slot of the function holding pc (native, in the scope), SIZE_MAX when out of the
 * scope or unknown yet. */
static size_t slot_of(struct session *s, uint64_t pc)
{
    struct session_causal *c = s->causal;
    char name[8], loc[8]; /* (named when it becomes a candidate: promote) */
    uint64_t lo, hi;

    for (size_t i = 0; i < c->ncache; i++)
        if (!c->cache[i].python && pc >= c->cache[i].lo && pc < c->cache[i].hi)
            return i;
    if (c->ncache == CAUSAL_RANGE_CACHE ||
        model_causal_func_range(s->m, c->pid, pc, c->exe, &lo, &hi, name, sizeof(name), loc,
                                sizeof(loc)) != 1)
        return SIZE_MAX;
    c->cache[c->ncache] = (struct causal_range){lo, hi, SIZE_MAX, 0};
    return c->ncache++;
}

/* The cache slot of the Python function of a sample's innermost Python frame py (its code
 * object: the function and the C it calls), SIZE_MAX when its description is not known yet. */
static size_t py_slot_of(struct session *s, uint64_t py)
{
    struct session_causal *c = s->causal;
    uint32_t id = ROCSYS_PY_FRAME_CODE(py);
    char name[8], loc[8];

    for (size_t i = 0; i < c->ncache; i++)
        if (c->cache[i].python && c->cache[i].lo >> 24 == id)
            return i;
    if (c->ncache == CAUSAL_RANGE_CACHE ||
        !model_causal_python_func(s->m, c->pid, id, name, sizeof(name), loc, sizeof(loc)))
        return SIZE_MAX;  /* (it may be described in a ring not drained yet) */
    c->cache[c->ncache] = /* its instructions: ROCSYS_PY_AT_KEY */
        (struct causal_range){(uint64_t)id << 24, (uint64_t)(id + 1) << 24, SIZE_MAX, 1};
    return c->ncache++;
}

/* The cache slot a recent sample i counts for: its innermost Python frame's function, else
 * its leaf's. */
static size_t sample_slot(struct session *s, size_t i)
{
    uint64_t py = s->causal->pys[i];
    if (py == 1) /* Python frames not known: neither theirs nor the interpreter's */
        return SIZE_MAX;
    return py ? py_slot_of(s, py) : slot_of(s, s->causal->pcs[i]);
}

/* Cache slot k's function becomes a candidate: its model entry (made now, named by its
 * symbol or, for Python, its qualified name; where it is defined), SIZE_MAX if not known. */
static size_t promote(struct session *s, size_t k)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;
    struct causal_range *e = &c->cache[k];
    char name[512], loc[600];
    uint64_t lo, hi;

    if (e->func != SIZE_MAX)
        return e->func;
    if (e->python ? !model_causal_python_func(s->m, c->pid, (uint32_t)(e->lo >> 24), name,
                                              sizeof(name), loc, sizeof(loc))
                  : model_causal_func_range(s->m, c->pid, e->lo, c->exe, &lo, &hi, name,
                                            sizeof(name), loc, sizeof(loc)) != 1)
        return SIZE_MAX;
    e->func = (size_t)(model_causal_func(mc, name, loc) - mc->f);
    return e->func;
}

/* Room in the cache: the slots that never became candidates go when it is 3/4 full (a Python
 * program's start samples hundreds of functions of its imports once). */
static void trim_cache(struct session_causal *c)
{
    size_t w = 0;

    if (c->ncache < CAUSAL_RANGE_CACHE / 4 * 3)
        return;
    for (size_t i = 0; i < c->ncache; i++)
        if (c->cache[i].func != SIZE_MAX)
            c->cache[w++] = c->cache[i];
    c->ncache = w;
}

/* The code of model entry idx, a function (from the cache) or a line, into the running
 * experiment's ranges; 0 if unknown. */
int causal_range_of(struct session_causal *c, size_t idx)
{
    for (size_t i = 0; i < c->nlines; i++)
        if (c->lines[i].entry == idx) {
            c->nr = c->lines[i].nr;
            c->python = c->lines[i].python;
            memcpy(c->lo, c->lines[i].lo, sizeof(c->lo));
            memcpy(c->hi, c->lines[i].hi, sizeof(c->hi));
            return c->nr > 0;
        }
    for (size_t i = 0; i < c->ncache; i++)
        if (c->cache[i].func == idx) {
            c->nr = 1;
            c->lo[0] = c->cache[i].lo;
            c->hi[0] = c->cache[i].hi;
            c->python = c->cache[i].python;
            return 1;
        }
    return 0;
}

/* Whether function f's experiments show a gain: a fitted line whose 95 % interval is above 0,
 * among the CAUSAL_LINE_FUNCS functions with the best gain at 20 %, after CAUSAL_LINE_AFTER
 * experiments of its own at least (its own prediction comes first: its lines take half of the
 * experiments from then on). */
static int shows_gain(const struct model_causal *mc, size_t f)
{
    struct model_causal_curve cv;
    int rank = 0, top = 0;

    if (mc->f[f].nexp < CAUSAL_LINE_AFTER)
        return 0;
    size_t *order = model_causal_order(mc);

    for (size_t i = 0; i < mc->n && rank < CAUSAL_LINE_FUNCS; i++) {
        if (mc->f[order[i]].parent >= 0)
            continue;
        if (order[i] == f)
            top = 1;
        rank++;
    }
    free(order);
    if (!top)
        return 0;
    model_causal_curve(mc, &mc->f[f], &cv);
    return cv.valid && cv.slope - cv.slope_ci > 0;
}

/* Function f shows a gain: its hot source lines (those of its recent samples, CAUSAL_LINE_SHARE
 * of them at least) become entries of their own, under it, with their code ranges. */
static void find_lines(struct session *s, size_t f)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;
    struct {
        char file[512];
        int line;
        size_t n;
        uint64_t pc;
    } hot[16];
    size_t nhot = 0, total = 0;
    uint64_t flo = 0, fhi = 0;
    int python = 0;

    for (size_t i = 0; i < c->ncache; i++)
        if (c->cache[i].func == f) {
            flo = c->cache[i].lo;
            fhi = c->cache[i].hi;
            python = c->cache[i].python;
        }
    if (fhi <= flo)
        return;
    for (size_t i = 0; i < c->npcs; i++) {
        /* the sample's place: its leaf, or for a Python function its innermost Python frame */
        uint64_t at = python ? ROCSYS_PY_AT_KEY(c->pys[i]) : c->pcs[i];
        char file[512];
        int line;
        size_t k;
        if ((python ? c->pys[i] <= 1 : c->pys[i] != 0) || at < flo || at >= fhi)
            continue;
        total++;
        if (python ? !model_causal_python_line(s->m, c->pid, c->pys[i], file, sizeof(file), &line)
                   : !model_causal_pc_line(s->m, c->pid, at, file, sizeof(file), &line))
            continue;
        for (k = 0; k < nhot; k++)
            if (hot[k].line == line && strcmp(hot[k].file, file) == 0)
                break;
        if (k == nhot) {
            if (nhot == sizeof(hot) / sizeof(hot[0]))
                continue;
            snprintf(hot[k].file, sizeof(hot[k].file), "%s", file);
            hot[k].line = line;
            hot[k].n = 0;
            hot[k].pc = at;
            nhot++;
        }
        hot[k].n++;
    }
    for (int picked = 0; picked < CAUSAL_LINES_PER_FUNC && c->nlines < CAUSAL_LINES; picked++) {
        size_t best = SIZE_MAX;
        for (size_t k = 0; k < nhot; k++)
            if (hot[k].n >= 3 && (double)hot[k].n >= CAUSAL_LINE_SHARE * (double)total &&
                (best == SIZE_MAX || hot[k].n > hot[best].n))
                best = k;
        if (best == SIZE_MAX)
            break;
        struct causal_line *l = &c->lines[c->nlines];
        l->python = python;
        l->nr = (uint32_t)(python ? model_causal_python_line_ranges(
                                        s->m, c->pid, (uint32_t)(flo >> 24), hot[best].line, l->lo,
                                        l->hi, ROCSYS_CAUSAL_RANGES)
                                  : model_causal_line_ranges(s->m, c->pid, hot[best].pc, flo, fhi,
                                                             hot[best].file, hot[best].line, l->lo,
                                                             l->hi, ROCSYS_CAUSAL_RANGES));
        if (l->nr > 0) {
            char name[600], loc[600];
            const char *base = strrchr(hot[best].file, '/');
            snprintf(name, sizeof(name), "%s:%d", base ? base + 1 : hot[best].file, hot[best].line);
            snprintf(loc, sizeof(loc), "%s:%d", hot[best].file, hot[best].line);
            l->entry = (size_t)(model_causal_line(mc, f, name, loc) - mc->f);
            l->func = f;
            c->nlines++;
        }
        hot[best].n = 0; /* (picked) */
    }
}

/* The scope: the executable the process runs, as its PROC_START named it. */
void causal_learn_exe(struct session *s)
{
    struct session_causal *c = s->causal;
    const struct model_process *p = model_process_find(s->m, c->pid);

    if (c->exe_known || !p || !p->exe || !p->exe[0])
        return;
    const char *base = strrchr(p->exe, '/');
    snprintf(c->exe, sizeof(c->exe), "%s", base ? base + 1 : p->exe);
    c->exe_known = 1;
    c->ncache = 0; /* (ranges found under the other name: none were) */
}

/* Choose the next experiment's function, or every other time (once there are some) one of the
 * hot lines of the functions that show a gain, so that the functions' own predictions keep
 * half of the experiments: SIZE_MAX when none qualifies yet. */
size_t causal_choose(struct session *s)
{
    struct session_causal *c = s->causal;
    struct model_causal *mc = model_session(s->m)->causal;
    size_t *count = xcalloc(CAUSAL_RANGE_CACHE, sizeof(*count)), total = 0, best = SIZE_MAX;
    size_t *in_slot = xcalloc(CAUSAL_RANGE_CACHE, sizeof(*in_slot));
    size_t best_line = SIZE_MAX;

    trim_cache(c);
    for (size_t i = 0; i < c->npcs; i++) {
        size_t k = sample_slot(s, i);
        if (k != SIZE_MAX) {
            in_slot[k]++;
            total++;
        }
    }
    for (size_t k = 0; k < c->ncache; k++) { /* the candidates: model entries */
        size_t f = in_slot[k] >= 3 && (double)in_slot[k] >= CAUSAL_MIN_SHARE * (double)total
                       ? promote(s, k)
                       : c->cache[k].func;
        if (f < CAUSAL_RANGE_CACHE)
            count[f] += in_slot[k];
    }
    free(in_slot);
    for (size_t f = 0; f < mc->n && f < CAUSAL_RANGE_CACHE; f++) {
        if (mc->f[f].parent >= 0 || count[f] < 3 ||
            (double)count[f] < CAUSAL_MIN_SHARE * (double)total)
            continue;
        if (!c->lines_tried[f] && shows_gain(mc, f)) { /* its lines, from now on */
            c->lines_tried[f] = 1;
            find_lines(s, f);
        }
        if (best == SIZE_MAX || mc->f[f].nexp < mc->f[best].nexp ||
            (mc->f[f].nexp == mc->f[best].nexp && (causal_rand(c) & 1)))
            best = f;
        for (size_t i = 0; i < c->nlines; i++) { /* its lines, as candidates of their own */
            size_t e = c->lines[i].entry;
            if (c->lines[i].func == f &&
                (best_line == SIZE_MAX || mc->f[e].nexp < mc->f[best_line].nexp ||
                 (mc->f[e].nexp == mc->f[best_line].nexp && (causal_rand(c) & 1))))
                best_line = e;
        }
    }
    free(count);
    if (best_line != SIZE_MAX && (c->line_turn = !c->line_turn)) /* every other one */
        return best_line;
    return best;
}
