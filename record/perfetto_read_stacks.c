/* The Perfetto reader's call stacks (perfetto_read_internal.h): interned data (function names,
 * mapping paths, mappings, frames, callstacks) per sequence generation, callstacks resolved into
 * the summary's stacks of function names, and the PerfSamples that use them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "perfetto_read_internal.h"

/* An InternedString {iid, str} of kind K_NAME or K_PATH on generation gen. */
static int parse_interned_string(struct reader *r, uint32_t kind, uint64_t gen, const uint8_t *p,
                                 size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    uint64_t iid = 0;
    const uint8_t *s = NULL;
    size_t sn = 0;
    int k;

    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.field == PF_STRING_IID && f.wire == 0)
            iid = f.v;
        else if (f.field == PF_STRING_STR && f.wire == 2)
            s = f.data, sn = f.len;
    }
    if (k < 0)
        return -1;
    if (iid == 0)
        pfr_violation(r, "interned string with iid 0");
    else
        pfr_rmap_put(&r->map, kind, gen, iid,
                     pfr_add_str(r, s ? s : (const uint8_t *)"", s ? sn : 0));
    return 0;
}

/* A Mapping, Frame or Callstack entry of the interned data. */
static int parse_interned_entry(struct reader *r, uint32_t kind, uint64_t gen, const uint8_t *p,
                                size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    uint64_t iid = 0;
    struct rframe fr = {0};
    size_t start = r->npool;
    int k;

    if (kind != K_FRAME)
        pfr_pool_push(r, 0); /* count, filled below */
    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.field == PF_FRAME_IID && f.wire == 0) /* (the iid of all three) */
            iid = f.v;
        else if (kind == K_FRAME && f.wire == 0 && f.field == PF_FRAME_FUNCTION_NAME_ID)
            fr.name = f.v;
        else if (kind == K_FRAME && f.wire == 0 && f.field == PF_FRAME_MAPPING_ID)
            fr.mapping = f.v;
        else if (kind == K_FRAME && f.wire == 0 && f.field == PF_FRAME_REL_PC)
            fr.rel_pc = f.v;
        else if ((kind == K_MAPPING && f.field == PF_MAPPING_PATH_STRING_IDS) ||
                 (kind == K_STACK && f.field == PF_CALLSTACK_FRAME_IDS)) {
            if (f.wire != 0) {
                pfr_violation(r, "packed or mistyped repeated id list in interned data");
                continue;
            }
            pfr_pool_push(r, f.v);
            r->pool[start]++;
        }
    }
    if (k < 0)
        return -1;
    if (iid == 0) {
        pfr_violation(r, "interned entry with iid 0");
        return 0;
    }
    if (kind == K_FRAME) {
        xgrow(&r->frames, &r->capframes, r->nframes + 1, sizeof(*r->frames));
        r->frames[r->nframes] = fr;
        pfr_rmap_put(&r->map, K_FRAME, gen, iid, r->nframes++);
    } else {
        pfr_rmap_put(&r->map, kind, gen, iid, start);
    }
    return 0;
}

/* (perfetto_read_internal.h) An InternedData message on sq's current generation. */
int pfr_parse_interned(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    int k;

    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.wire != 2)
            continue;
        int rc = 0;
        if (f.field == PF_INTERNED_FUNCTION_NAMES)
            rc = parse_interned_string(r, K_NAME, sq->gen, f.data, f.len);
        else if (f.field == PF_INTERNED_MAPPING_PATHS)
            rc = parse_interned_string(r, K_PATH, sq->gen, f.data, f.len);
        else if (f.field == PF_INTERNED_MAPPINGS)
            rc = parse_interned_entry(r, K_MAPPING, sq->gen, f.data, f.len);
        else if (f.field == PF_INTERNED_FRAMES)
            rc = parse_interned_entry(r, K_FRAME, sq->gen, f.data, f.len);
        else if (f.field == PF_INTERNED_CALLSTACKS)
            rc = parse_interned_entry(r, K_STACK, sq->gen, f.data, f.len);
        if (rc < 0)
            return -1;
    }
    return k;
}

/* Resolve callstack iid on generation gen into a summary stack; returns its index or -1. */
static int64_t resolve_stack(struct reader *r, uint64_t gen, uint64_t cs)
{
    struct perfetto_summary *o = r->out;
    uint64_t off, val, nf;
    struct perfetto_read_stack st = {0};

    if (pfr_rmap_get(&r->map, K_SUMSTACK, gen, cs, &val) == 0)
        return (int64_t)val;
    if (cs == 0 || pfr_rmap_get(&r->map, K_STACK, gen, cs, &off) < 0) {
        pfr_violation(r, "callstack iid %llu does not resolve", (unsigned long long)cs);
        return -1;
    }
    nf = r->pool[off];
    if (nf == 0)
        pfr_violation(r, "callstack iid %llu has no frames", (unsigned long long)cs);
    st.functions = xcalloc(nf ? nf : 1, sizeof(char *));
    for (uint64_t i = 0; i < nf; i++) {
        uint64_t fid = r->pool[off + 1 + i], fi, si, mo;
        const char *name = "?";
        if (pfr_rmap_get(&r->map, K_FRAME, gen, fid, &fi) < 0) {
            pfr_violation(r, "frame iid %llu does not resolve", (unsigned long long)fid);
        } else {
            struct rframe fr = r->frames[fi];
            if (fr.name == 0 || pfr_rmap_get(&r->map, K_NAME, gen, fr.name, &si) < 0)
                pfr_violation(r, "function_name_id %llu of frame %llu does not resolve",
                              (unsigned long long)fr.name, (unsigned long long)fid);
            else
                name = r->strs[si];
            if (fr.mapping == 0)
                pfr_violation(r, "frame %llu has no mapping", (unsigned long long)fid);
            else if (pfr_rmap_get(&r->map, K_MAPPING, gen, fr.mapping, &mo) < 0)
                pfr_violation(r, "mapping_id %llu does not resolve",
                              (unsigned long long)fr.mapping);
            else
                for (uint64_t j = 0; j < r->pool[mo]; j++)
                    if (pfr_rmap_get(&r->map, K_PATH, gen, r->pool[mo + 1 + j], &si) < 0)
                        pfr_violation(r, "path string id %llu does not resolve",
                                      (unsigned long long)r->pool[mo + 1 + j]);
        }
        st.functions[st.n++] = xstrdup(name);
    }
    xgrow(&o->stacks, &r->capstacks, o->nstacks + 1, sizeof(*o->stacks));
    o->stacks[o->nstacks] = st;
    pfr_rmap_put(&r->map, K_SUMSTACK, gen, cs, o->nstacks);
    return (int64_t)o->nstacks++;
}

/* (perfetto_read_internal.h) A PerfSample: its thread and callstack must resolve. */
int pfr_parse_sample(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n, int has_ts,
                     uint64_t boot, uint64_t mono)
{
    struct perfetto_summary *o = r->out;
    uint64_t v[8] = {0}, ti;
    int has[8] = {0};
    int64_t st;

    if (pfr_parse_flat(p, n, v, has, NULL, NULL, 8) < 0)
        return -1;
    uint64_t pid = v[PF_SAMPLE_PID], tid = v[PF_SAMPLE_TID];
    if (!has[PF_SAMPLE_PID] || !has[PF_SAMPLE_TID] || !has[PF_SAMPLE_CALLSTACK_IID]) {
        pfr_violation(r, "perf_sample without pid, tid or callstack_iid");
        return 0;
    }
    if (!has_ts)
        pfr_violation(r, "perf_sample packet without timestamp");
    if (pfr_rmap_get(&r->map, K_THREAD, pid, tid, &ti) < 0) {
        pfr_violation(r, "perf_sample of pid %llu tid %llu has no thread track",
                      (unsigned long long)pid, (unsigned long long)tid);
        return 0;
    }
    if ((st = resolve_stack(r, sq->gen, v[PF_SAMPLE_CALLSTACK_IID])) < 0)
        return 0;
    o->threads[ti].samples++;
    xgrow(&o->samples, &r->capsamples, o->nsamples + 1, sizeof(*o->samples));
    struct perfetto_read_sample *s = &o->samples[o->nsamples++];
    s->time_ns = boot;
    s->mono_ns = mono;
    s->pid = (uint32_t)pid;
    s->tid = (uint32_t)tid;
    s->stack = (uint32_t)st;
    return 0;
}
