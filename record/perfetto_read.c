/* Reader and checker of rocsys-top's Perfetto traces: framing (tag 0x0A, varint length per
 * packet; a truncated tail ends the read cleanly), the TracePacket fields the writer uses, and
 * their meaning as trace_processor would see it: each sequence starts by clearing its
 * incremental state; interned ids (callstacks, frames, function names, mappings, paths)
 * resolve on the packet's sequence; every frame has a mapping; every perf_sample's thread has
 * a descriptor; track uuids are not reused for another process or thread. Timestamps are
 * resolved in file order the way trace_processor's tokenizer does it (packet clock, else the
 * sequence's TracePacketDefaults clock, else BOOTTIME; sequence-scoped incremental clocks
 * accumulate deltas from their ClockSnapshot anchor): a timestamp on a sequence-scoped clock
 * without an anchor is a violation. */
#define _GNU_SOURCE
#include "perfetto_read.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "model/model.h"
#include "pb.h"
#include "perfetto_proto.h"

enum {
    K_NAME = 1,
    K_PATH,
    K_MAPPING,
    K_FRAME,
    K_STACK,
    K_SUMSTACK,
    K_THREAD,
    K_PROC,
    K_TRACK,
    K_UUID,    /* uuid -> UUID_THREAD/UUID_NAMED << 32 | index, UUID_PROCESS << 32 | pid */
    K_OPENTOP, /* uuid -> 1 + index of the innermost open slice on it */
};
#define UUID_THREAD  1ull
#define UUID_NAMED   2ull
#define UUID_PROCESS 3ull

/* Key (kind, a, b) -> val in one open-addressing table. */
struct rent {
    uint64_t a, b, val;
    uint32_t kind;
    int used;
};

struct rmap {
    struct rent *e;
    size_t cap, count;
};

struct rframe {
    uint64_t name, mapping, rel_pc;
};

/* A sequence-scoped clock (ids 64..127) as trace_processor keeps it. */
struct rclock {
    int anchored;     /* a ClockSnapshot on the sequence gave it a value */
    int incremental;  /* timestamps are deltas from last_ns */
    int linked;       /* boot_minus_clock is known (BOOTTIME or MONOTONIC in its snapshot) */
    uint64_t unit_ns; /* unit_multiplier_ns */
    int64_t last_ns;  /* its latest value (an incremental clock's running sum) */
    int64_t snap_ns;  /* its value in the latest snapshot */
    int64_t boot_minus_clock;
};

#define SEQ_CLOCK_FIRST PF_CLOCK_SEQ_FIRST
#define SEQ_CLOCKS      PF_CLOCK_SEQ_COUNT

struct rseq {
    uint32_t id;
    uint64_t gen; /* globally unique per incremental-state generation; 0 = never cleared */
    int have_clock;
    int64_t boot_minus_mono;
    uint32_t default_clock; /* TracePacketDefaults.timestamp_clock_id of this generation */
    uint64_t snap_boot;     /* BOOTTIME of the latest snapshot (it must not go back) */
    struct rclock clocks[SEQ_CLOCKS];
};

struct reader {
    struct perfetto_summary *out;
    char *err;
    size_t errlen;
    struct rmap map;
    struct rseq *seqs;
    size_t nseqs;
    uint64_t gen;
    char **strs; /* interned strings of all generations */
    size_t nstrs, capstrs;
    uint64_t *pool; /* [n, id...] lists of mappings' paths and callstacks' frames */
    size_t npool, cappool;
    struct rframe *frames;
    size_t nframes, capframes;
    size_t capthreads, capprocs, capstacks, capsamples;
    size_t captracks, capcounters, capslices;
    int nested; /* reading the packets of a compressed bundle */
};

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The entry of (kind, a, b): existing (used) or the free slot to fill. */
static struct rent *rmap_slot(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b)
{
    if (m->count * 2 >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        struct rent *e = xcalloc(cap, sizeof(*e));
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].used)
                continue;
            size_t j = mix(m->e[i].a ^ mix(m->e[i].b ^ m->e[i].kind)) & (cap - 1);
            while (e[j].used)
                j = (j + 1) & (cap - 1);
            e[j] = m->e[i];
        }
        free(m->e);
        m->e = e;
        m->cap = cap;
    }
    size_t j = mix(a ^ mix(b ^ kind)) & (m->cap - 1);
    while (m->e[j].used && !(m->e[j].kind == kind && m->e[j].a == a && m->e[j].b == b))
        j = (j + 1) & (m->cap - 1);
    return &m->e[j];
}

static void rmap_put(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b, uint64_t val)
{
    struct rent *e = rmap_slot(m, kind, a, b);
    if (!e->used)
        m->count++;
    *e = (struct rent){.a = a, .b = b, .val = val, .kind = kind, .used = 1};
}

/* Value of (kind, a, b) in *val; 0 if found, -1 if not. */
static int rmap_get(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b, uint64_t *val)
{
    struct rent *e = rmap_slot(m, kind, a, b);
    if (!e->used)
        return -1;
    *val = e->val;
    return 0;
}

/* Record a failed meaning check; the first one becomes the error message. */
__attribute__((format(printf, 2, 3))) static void violation(struct reader *r, const char *fmt, ...)
{
    va_list ap;

    if (r->out->violations++ == 0 && r->errlen) {
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
}

static uint64_t add_str(struct reader *r, const uint8_t *p, size_t n)
{
    xgrow(&r->strs, &r->capstrs, r->nstrs + 1, sizeof(*r->strs));
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    r->strs[r->nstrs] = s;
    return r->nstrs++;
}

static char *dup_bytes(const uint8_t *p, size_t n)
{
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

static void pool_push(struct reader *r, uint64_t v)
{
    xgrow(&r->pool, &r->cappool, r->npool + 1, sizeof(*r->pool));
    r->pool[r->npool++] = v;
}

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
        violation(r, "interned string with iid 0");
    else
        rmap_put(&r->map, kind, gen, iid, add_str(r, s ? s : (const uint8_t *)"", s ? sn : 0));
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
        pool_push(r, 0); /* count, filled below */
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
                violation(r, "packed or mistyped repeated id list in interned data");
                continue;
            }
            pool_push(r, f.v);
            r->pool[start]++;
        }
    }
    if (k < 0)
        return -1;
    if (iid == 0) {
        violation(r, "interned entry with iid 0");
        return 0;
    }
    if (kind == K_FRAME) {
        xgrow(&r->frames, &r->capframes, r->nframes + 1, sizeof(*r->frames));
        r->frames[r->nframes] = fr;
        rmap_put(&r->map, K_FRAME, gen, iid, r->nframes++);
    } else {
        rmap_put(&r->map, kind, gen, iid, start);
    }
    return 0;
}

static int parse_interned(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n)
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

/* Sub-message fields (varints and strings) by number; returns -1 if malformed. */
static int parse_flat(const uint8_t *p, size_t n, uint64_t *v, int *has, const uint8_t **s,
                      size_t *sn, uint32_t max)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    int k;

    if (!p) /* a sub-message's field number sent as a varint: no fields */
        return 0;
    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.field >= max)
            continue;
        if (f.wire == 0) {
            v[f.field] = f.v;
            has[f.field] = 1;
        } else if (f.wire == 2 && s) {
            s[f.field] = f.data;
            sn[f.field] = f.len;
            has[f.field] = 1;
        }
    }
    return k;
}

static void set_name(char **dst, const uint8_t *p, size_t n)
{
    free(*dst);
    *dst = dup_bytes(p ? p : (const uint8_t *)"", p ? n : 0);
}

/* A named track (slices) or a counter track: its parent must be a declared process. */
static int parse_named_track(struct reader *r, uint64_t uuid, uint64_t parent, const uint8_t *name,
                             size_t name_n, const uint8_t *counter, size_t counter_n,
                             int is_counter)
{
    struct perfetto_summary *o = r->out;
    uint64_t info = 0, cv[8] = {0}, idx;
    int ch[8] = {0};
    const uint8_t *cs[8] = {0};
    size_t csn[8] = {0};

    if (is_counter && parse_flat(counter, counter_n, cv, ch, cs, csn, 8) < 0)
        return -1;
    if (rmap_get(&r->map, K_UUID, uuid, 0, &info) == 0) {
        if (info >> 32 != UUID_NAMED) {
            violation(r, "track uuid %llu reused for another track", (unsigned long long)uuid);
            return 0;
        }
        idx = (uint32_t)info;
    } else {
        xgrow(&o->tracks, &r->captracks, o->ntracks + 1, sizeof(*o->tracks));
        idx = o->ntracks++;
        o->tracks[idx] = (struct perfetto_read_track){.uuid = uuid};
        set_name(&o->tracks[idx].name, NULL, 0);
        set_name(&o->tracks[idx].unit, NULL, 0);
        rmap_put(&r->map, K_UUID, uuid, 0, UUID_NAMED << 32 | idx);
    }
    struct perfetto_read_track *t = &o->tracks[idx];
    if (name)
        set_name(&t->name, name, name_n);
    if (parent) {
        if (rmap_get(&r->map, K_UUID, parent, 0, &info) < 0 || info >> 32 != UUID_PROCESS)
            violation(r, "track %s: parent uuid %llu is not a declared process", t->name,
                      (unsigned long long)parent);
        else
            t->pid = (uint32_t)info;
    }
    t->counter = is_counter;
    if (is_counter && ch[PF_COUNTER_UNIT_NAME])
        set_name(&t->unit, cs[PF_COUNTER_UNIT_NAME], csn[PF_COUNTER_UNIT_NAME]);
    else if (is_counter && ch[PF_COUNTER_UNIT]) {
        uint64_t u = cv[PF_COUNTER_UNIT];
        const char *text = u == PF_UNIT_SIZE_BYTES ? "bytes" : u == PF_UNIT_TIME_NS ? "ns" : "";
        set_name(&t->unit, (const uint8_t *)text, strlen(text));
    }
    return 0;
}

/* A TrackDescriptor: declares a process or thread track. */
/* The writer's process label, "host=NAME rank=N" (each part optional), into proc. */
static void parse_process_label(struct perfetto_read_process *proc, const uint8_t *p, size_t n)
{
    char text[160];
    const char *h, *rk;

    if (!p || n >= sizeof(text)) /* (a label sent as a varint has no bytes) */
        return;
    memcpy(text, p, n);
    text[n] = '\0';
    if ((h = strstr(text, "host=")) != NULL && (h == text || h[-1] == ' '))
        sscanf(h + 5, "%63[^ ]", proc->host);
    if ((rk = strstr(text, "rank=")) != NULL && (rk == text || rk[-1] == ' ')) {
        int v;
        if (sscanf(rk + 5, "%d", &v) == 1 && v >= 0)
            proc->rank = v;
    }
}

static int parse_track(struct reader *r, const uint8_t *p, size_t n)
{
    struct perfetto_summary *o = r->out;
    uint64_t v[16] = {0}, tv[9] = {0}, key, idx;
    int has[16] = {0}, th[9] = {0};
    const uint8_t *s[16] = {0}, *ts[9] = {0};
    size_t sn[16] = {0}, tsn[9] = {0};

    if (parse_flat(p, n, v, has, s, sn, 16) < 0)
        return -1;
    if (!has[PF_TRACK_UUID]) {
        violation(r, "track descriptor without uuid");
        return 0;
    }
    if (has[PF_TRACK_THREAD]) {
        if (parse_flat(s[PF_TRACK_THREAD], sn[PF_TRACK_THREAD], tv, th, ts, tsn, 8) < 0)
            return -1;
        if (!th[PF_THREAD_PID] || !th[PF_THREAD_TID]) {
            violation(r, "thread descriptor without pid or tid");
            return 0;
        }
        uint64_t pid = tv[PF_THREAD_PID], tid = tv[PF_THREAD_TID];
        key = pid << 32 | (uint32_t)tid;
        if (rmap_get(&r->map, K_THREAD, pid, tid, &idx) < 0) {
            xgrow(&o->threads, &r->capthreads, o->nthreads + 1, sizeof(*o->threads));
            idx = o->nthreads++;
            o->threads[idx] = (struct perfetto_read_thread){(uint32_t)pid, (uint32_t)tid};
            set_name(&o->threads[idx].name, NULL, 0);
            rmap_put(&r->map, K_THREAD, pid, tid, idx);
        }
        if (th[PF_THREAD_NAME])
            set_name(&o->threads[idx].name, ts[PF_THREAD_NAME], tsn[PF_THREAD_NAME]);
        rmap_put(&r->map, K_UUID, v[PF_TRACK_UUID], 0, UUID_THREAD << 32 | idx);
    } else if (has[PF_TRACK_PROCESS]) {
        if (parse_flat(s[PF_TRACK_PROCESS], sn[PF_TRACK_PROCESS], tv, th, ts, tsn, 9) < 0)
            return -1;
        if (!th[PF_PROCESS_PID]) {
            violation(r, "process descriptor without pid");
            return 0;
        }
        uint64_t pid = tv[PF_PROCESS_PID];
        key = pid << 32;
        if (rmap_get(&r->map, K_PROC, pid, 0, &idx) < 0) {
            xgrow(&o->processes, &r->capprocs, o->nprocesses + 1, sizeof(*o->processes));
            idx = o->nprocesses++;
            o->processes[idx] = (struct perfetto_read_process){.pid = (uint32_t)pid, .rank = -1};
            set_name(&o->processes[idx].name, NULL, 0);
            rmap_put(&r->map, K_PROC, pid, 0, idx);
        }
        if (th[PF_PROCESS_NAME])
            set_name(&o->processes[idx].name, ts[PF_PROCESS_NAME], tsn[PF_PROCESS_NAME]);
        if (th[PF_PROCESS_LABELS])
            parse_process_label(&o->processes[idx], ts[PF_PROCESS_LABELS], tsn[PF_PROCESS_LABELS]);
        rmap_put(&r->map, K_UUID, v[PF_TRACK_UUID], 0, UUID_PROCESS << 32 | (uint32_t)pid);
    } else {
        key = UINT64_MAX; /* a named or counter track */
        if (parse_named_track(
                r, v[PF_TRACK_UUID], has[PF_TRACK_PARENT_UUID] ? v[PF_TRACK_PARENT_UUID] : 0,
                s[PF_TRACK_NAME], has[PF_TRACK_NAME] ? sn[PF_TRACK_NAME] : 0, s[PF_TRACK_COUNTER],
                has[PF_TRACK_COUNTER] ? sn[PF_TRACK_COUNTER] : 0, has[PF_TRACK_COUNTER]) < 0)
            return -1;
    }
    if (rmap_get(&r->map, K_TRACK, v[PF_TRACK_UUID], 0, &idx) == 0 && idx != key)
        violation(r, "track uuid %llu reused for another track",
                  (unsigned long long)v[PF_TRACK_UUID]);
    rmap_put(&r->map, K_TRACK, v[PF_TRACK_UUID], 0, key);
    return 0;
}

/* A ClockSnapshot: remember BOOTTIME - MONOTONIC for the sequence. */
/* A ClockSnapshot on sequence sq: BOOTTIME - MONOTONIC, and the anchors of sequence-scoped
 * clocks (their value, unit, incremental flag, offset to BOOTTIME), checked the way
 * trace_processor's ClockSynchronizer::AddSnapshot checks them. */
static int parse_clocks(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    uint64_t boot = 0, mono = 0, id[SEQ_CLOCKS], val[SEQ_CLOCKS], unit[SEQ_CLOCKS];
    int hb = 0, hm = 0, incr[SEQ_CLOCKS], k, nseq = 0;

    while ((k = pb_next(&c, cend, &f)) > 0) {
        uint64_t v[5] = {0};
        int has[5] = {0};
        if (f.field != PF_SNAPSHOT_CLOCKS || f.wire != 2)
            continue;
        if (parse_flat(f.data, f.len, v, has, NULL, NULL, 5) < 0)
            return -1;
        uint64_t clk = v[PF_CLOCK_ID], ts = v[PF_CLOCK_TIMESTAMP];
        if (clk >= SEQ_CLOCK_FIRST && clk < SEQ_CLOCK_FIRST + SEQ_CLOCKS) {
            if (nseq == SEQ_CLOCKS)
                continue;
            id[nseq] = clk;
            val[nseq] = ts;
            unit[nseq] = v[PF_CLOCK_UNIT_NS] ? v[PF_CLOCK_UNIT_NS] : 1;
            incr[nseq++] = v[PF_CLOCK_INCREMENTAL] != 0;
            continue;
        }
        if (v[PF_CLOCK_INCREMENTAL])
            violation(r, "clock %llu in a ClockSnapshot is incremental but not sequence-scoped",
                      (unsigned long long)clk);
        if (clk == PF_BUILTIN_BOOTTIME)
            boot = ts, hb = 1;
        else if (clk == PF_BUILTIN_MONOTONIC)
            mono = ts, hm = 1;
    }
    if (k < 0)
        return -1;
    if (hb && hm) {
        sq->have_clock = 1;
        sq->boot_minus_mono = (int64_t)(boot - mono);
    }
    if (hb) {
        if (boot < sq->snap_boot)
            violation(r, "sequence %u: BOOTTIME goes back between ClockSnapshots", sq->id);
        sq->snap_boot = boot;
    }
    for (int i = 0; i < nseq; i++) {
        struct rclock *ck = &sq->clocks[id[i] - SEQ_CLOCK_FIRST];
        int64_t ns = (int64_t)(val[i] * unit[i]);
        if (ck->anchored && (ck->unit_ns != unit[i] || ck->incremental != incr[i]))
            violation(r, "sequence %u: clock %llu changes unit or incremental flag", sq->id,
                      (unsigned long long)id[i]);
        if (ck->anchored && ns < ck->snap_ns)
            violation(r, "sequence %u: clock %llu goes back between ClockSnapshots", sq->id,
                      (unsigned long long)id[i]);
        ck->anchored = 1;
        ck->incremental = incr[i];
        ck->unit_ns = unit[i];
        ck->last_ns = ck->snap_ns = ns;
        if (hb) {
            ck->linked = 1;
            ck->boot_minus_clock = (int64_t)boot - ns;
        } else if (hm && sq->have_clock) {
            ck->linked = 1;
            ck->boot_minus_clock = (int64_t)mono + sq->boot_minus_mono - ns;
        }
    }
    return 0;
}

/* The packet's time in BOOTTIME and MONOTONIC, resolved like trace_processor's tokenizer: the
 * packet's timestamp_clock_id, else the sequence's default, else BOOTTIME; a sequence-scoped
 * incremental clock adds the delta to its running value. Returns -1 (a violation) when the
 * clock has no anchor on the sequence. */
static int resolve_time(struct reader *r, struct rseq *sq, uint64_t ts, uint64_t clock_id,
                        uint64_t *boot, uint64_t *mono)
{
    uint64_t clk = clock_id ? clock_id : sq->default_clock;

    if (clk >= SEQ_CLOCK_FIRST && clk < SEQ_CLOCK_FIRST + SEQ_CLOCKS) {
        struct rclock *ck = &sq->clocks[clk - SEQ_CLOCK_FIRST];
        if (!ck->anchored || !ck->linked) {
            violation(r, "sequence %u: timestamp on clock %llu %s", sq->id, (unsigned long long)clk,
                      ck->anchored ? "that no ClockSnapshot links to BOOTTIME"
                                   : "before any ClockSnapshot anchors it");
            return -1;
        }
        int64_t ns = (int64_t)(ts * ck->unit_ns); /* wraps like trace_processor's int64 */
        if (ck->incremental)
            ns = ck->last_ns += ns;
        *boot = (uint64_t)(ns + ck->boot_minus_clock);
    } else if (clk == PF_BUILTIN_MONOTONIC) {
        *mono = ts;
        *boot = sq->have_clock ? ts + (uint64_t)sq->boot_minus_mono : ts;
        return 0;
    } else {
        *boot = ts; /* BOOTTIME, or a clock this reader does not convert */
    }
    *mono = (clk == 0 || clk == PF_BUILTIN_BOOTTIME || clk >= SEQ_CLOCK_FIRST) && sq->have_clock
                ? *boot - (uint64_t)sq->boot_minus_mono
                : *boot;
    return 0;
}

/* Resolve callstack iid on generation gen into a summary stack; returns its index or -1. */
static int64_t resolve_stack(struct reader *r, uint64_t gen, uint64_t cs)
{
    struct perfetto_summary *o = r->out;
    uint64_t off, val, nf;
    struct perfetto_read_stack st = {0};

    if (rmap_get(&r->map, K_SUMSTACK, gen, cs, &val) == 0)
        return (int64_t)val;
    if (cs == 0 || rmap_get(&r->map, K_STACK, gen, cs, &off) < 0) {
        violation(r, "callstack iid %llu does not resolve", (unsigned long long)cs);
        return -1;
    }
    nf = r->pool[off];
    if (nf == 0)
        violation(r, "callstack iid %llu has no frames", (unsigned long long)cs);
    st.functions = xcalloc(nf ? nf : 1, sizeof(char *));
    for (uint64_t i = 0; i < nf; i++) {
        uint64_t fid = r->pool[off + 1 + i], fi, si, mo;
        const char *name = "?";
        if (rmap_get(&r->map, K_FRAME, gen, fid, &fi) < 0) {
            violation(r, "frame iid %llu does not resolve", (unsigned long long)fid);
        } else {
            struct rframe fr = r->frames[fi];
            if (fr.name == 0 || rmap_get(&r->map, K_NAME, gen, fr.name, &si) < 0)
                violation(r, "function_name_id %llu of frame %llu does not resolve",
                          (unsigned long long)fr.name, (unsigned long long)fid);
            else
                name = r->strs[si];
            if (fr.mapping == 0)
                violation(r, "frame %llu has no mapping", (unsigned long long)fid);
            else if (rmap_get(&r->map, K_MAPPING, gen, fr.mapping, &mo) < 0)
                violation(r, "mapping_id %llu does not resolve", (unsigned long long)fr.mapping);
            else
                for (uint64_t j = 0; j < r->pool[mo]; j++)
                    if (rmap_get(&r->map, K_PATH, gen, r->pool[mo + 1 + j], &si) < 0)
                        violation(r, "path string id %llu does not resolve",
                                  (unsigned long long)r->pool[mo + 1 + j]);
        }
        st.functions[st.n++] = xstrdup(name);
    }
    xgrow(&o->stacks, &r->capstacks, o->nstacks + 1, sizeof(*o->stacks));
    o->stacks[o->nstacks] = st;
    rmap_put(&r->map, K_SUMSTACK, gen, cs, o->nstacks);
    return (int64_t)o->nstacks++;
}

static int parse_sample(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n, int has_ts,
                        uint64_t boot, uint64_t mono)
{
    struct perfetto_summary *o = r->out;
    uint64_t v[8] = {0}, ti;
    int has[8] = {0};
    int64_t st;

    if (parse_flat(p, n, v, has, NULL, NULL, 8) < 0)
        return -1;
    uint64_t pid = v[PF_SAMPLE_PID], tid = v[PF_SAMPLE_TID];
    if (!has[PF_SAMPLE_PID] || !has[PF_SAMPLE_TID] || !has[PF_SAMPLE_CALLSTACK_IID]) {
        violation(r, "perf_sample without pid, tid or callstack_iid");
        return 0;
    }
    if (!has_ts)
        violation(r, "perf_sample packet without timestamp");
    if (rmap_get(&r->map, K_THREAD, pid, tid, &ti) < 0) {
        violation(r, "perf_sample of pid %llu tid %llu has no thread track",
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

/* Append the debug annotation {name, string/int/uint value} as a "key=value" line. */
static int append_annotation(char **args, const uint8_t *p, size_t n)
{
    uint64_t v[12] = {0};
    int has[12] = {0};
    const uint8_t *s[12] = {0};
    size_t sn[12] = {0}, old = strlen(*args);
    char val[32];
    const char *vp = val;
    size_t vn;

    if (parse_flat(p, n, v, has, s, sn, 12) < 0)
        return -1;
    const uint8_t *key = s[PF_ANNOTATION_NAME];
    size_t kn = sn[PF_ANNOTATION_NAME];
    if (!has[PF_ANNOTATION_NAME] || !key)
        return 0;
    if (has[PF_ANNOTATION_STRING] && s[PF_ANNOTATION_STRING]) {
        vp = (const char *)s[PF_ANNOTATION_STRING];
        vn = sn[PF_ANNOTATION_STRING];
    } else {
        vn = (size_t)snprintf(
            val, sizeof(val), "%lld",
            (long long)v[has[PF_ANNOTATION_INT] ? PF_ANNOTATION_INT : PF_ANNOTATION_UINT]);
    }
    *args = xrealloc(*args, old + kn + vn + 3);
    memcpy(*args + old, key, kn);
    (*args)[old + kn] = '=';
    memcpy(*args + old + kn + 1, vp, vn);
    (*args)[old + kn + 1 + vn] = '\n';
    (*args)[old + kn + 2 + vn] = '\0';
    return 0;
}

/* A TrackEvent: a counter value, a slice begin/end or an instant on a declared track. */
static int parse_track_event(struct reader *r, const uint8_t *p, size_t n, int has_ts,
                             uint64_t mono)
{
    struct perfetto_summary *o = r->out;
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f;
    uint64_t type = 0, uuid = 0, info, top, flow_out = 0, flow_in = 0, ival = 0;
    const uint8_t *name = NULL, *cat = NULL;
    size_t name_n = 0, cat_n = 0;
    double value = 0;
    int have_value = 0, k;
    char *args = xstrdup("");

    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.field == PF_EVENT_TYPE && f.wire == 0)
            type = f.v;
        else if (f.field == PF_EVENT_TRACK_UUID && f.wire == 0)
            uuid = f.v;
        else if (f.field == PF_EVENT_NAME && f.wire == 2)
            name = f.data, name_n = f.len;
        else if (f.field == PF_EVENT_CATEGORIES && f.wire == 2)
            cat = f.data, cat_n = f.len;
        else if (f.field == PF_EVENT_DOUBLE_COUNTER_VALUE && f.wire == 1) {
            memcpy(&value, &f.v, sizeof(value));
            have_value = 1;
        } else if (f.field == PF_EVENT_COUNTER_VALUE && f.wire == 0) {
            ival = f.v;
            value = (double)(int64_t)ival;
            have_value = 1;
        } else if (f.field == PF_EVENT_FLOW_IDS && f.wire == 1)
            flow_out = f.v;
        else if (f.field == PF_EVENT_TERMINATING_FLOW_IDS && f.wire == 1)
            flow_in = f.v;
        else if (f.field == PF_EVENT_DEBUG_ANNOTATIONS && f.wire == 2 &&
                 append_annotation(&args, f.data, f.len) < 0)
            k = -1;
        if (k < 0)
            break;
    }
    if (k < 0) {
        free(args);
        return -1;
    }
    if (!has_ts)
        violation(r, "track event without timestamp");
    if (rmap_get(&r->map, K_UUID, uuid, 0, &info) < 0 || info >> 32 == UUID_PROCESS) {
        violation(r, "track event on undeclared track uuid %llu", (unsigned long long)uuid);
        goto out;
    }
    int named = info >> 32 == UUID_NAMED;
    uint32_t idx = (uint32_t)info;
    if (type == PF_TYPE_COUNTER) {
        if (!named || !o->tracks[idx].counter || !have_value) {
            violation(r, "counter value on a non-counter track or without a value");
            goto out;
        }
        xgrow(&o->counters, &r->capcounters, o->ncounters + 1, sizeof(*o->counters));
        o->counters[o->ncounters++] = (struct perfetto_read_counter){idx, mono, value};
        goto out;
    }
    if (named && o->tracks[idx].counter) {
        violation(r, "slice on counter track %s", o->tracks[idx].name);
        goto out;
    }
    if (type == PF_TYPE_SLICE_END) { /* closes the innermost open slice of the track */
        if (rmap_get(&r->map, K_OPENTOP, uuid, 0, &top) < 0 || top == 0) {
            violation(r, "slice end without a begin on track uuid %llu", (unsigned long long)uuid);
            goto out;
        }
        struct perfetto_read_slice *sl = &o->slices[top - 1];
        sl->end_ns = mono;
        if (mono < sl->start_ns)
            violation(r, "slice %s ends before it begins", sl->name);
        rmap_put(&r->map, K_OPENTOP, uuid, 0, (uint64_t)(sl->parent_open + 1));
        goto out;
    }
    if (type != PF_TYPE_SLICE_BEGIN && type != PF_TYPE_INSTANT) {
        violation(r, "track event of unknown type %llu", (unsigned long long)type);
        goto out;
    }
    xgrow(&o->slices, &r->capslices, o->nslices + 1, sizeof(*o->slices));
    struct perfetto_read_slice *sl = &o->slices[o->nslices];
    *sl = (struct perfetto_read_slice){.track = named ? (int32_t)idx : -1,
                                       .start_ns = mono,
                                       .flow_out = flow_out,
                                       .flow_in = flow_in,
                                       .instant = type == PF_TYPE_INSTANT,
                                       .parent_open = -1};
    if (!named) {
        sl->pid = o->threads[idx].pid;
        sl->tid = o->threads[idx].tid;
    } else {
        sl->pid = o->tracks[idx].pid;
    }
    set_name(&sl->name, name, name_n);
    set_name(&sl->category, cat, cat_n);
    if (!name)
        violation(r, "slice without a name");
    sl->args = args;
    args = NULL;
    if (type == PF_TYPE_SLICE_BEGIN) {
        if (rmap_get(&r->map, K_OPENTOP, uuid, 0, &top) == 0)
            sl->parent_open = (int32_t)top - 1;
        rmap_put(&r->map, K_OPENTOP, uuid, 0, o->nslices + 1);
    } else {
        sl->end_ns = mono;
    }
    o->nslices++;
out:
    free(args);
    return 0;
}

static struct rseq *seq_of(struct reader *r, uint32_t id, int *is_new)
{
    for (size_t i = 0; i < r->nseqs; i++)
        if (r->seqs[i].id == id) {
            *is_new = 0;
            return &r->seqs[i];
        }
    r->seqs = xrealloc(r->seqs, (r->nseqs + 1) * sizeof(*r->seqs));
    r->seqs[r->nseqs] = (struct rseq){.id = id};
    r->out->sequences++;
    *is_new = 1;
    return &r->seqs[r->nseqs++];
}

/* One TracePacket. Returns -1 if it is malformed protobuf. */
static int parse_packets(struct reader *r, const uint8_t *data, size_t len, int nested);

/* Inflate a compressed_packets field (zlib of a Trace: more packets) and read its packets. */
static int parse_compressed(struct reader *r, const uint8_t *p, size_t n)
{
    enum { MAX_INFLATED = 256 << 20 }; /* a bundle never comes near this; a bomb stops here */
    z_stream z = {0};
    uint8_t *out = NULL;
    size_t cap = 0, len = 0;
    int rc = -1, zr = Z_OK;

    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    while (zr != Z_STREAM_END) {
        if (len == cap) {
            if (cap >= MAX_INFLATED)
                goto cleanup;
            cap = cap ? cap * 2 : 4 * n + 4096;
            out = xrealloc(out, cap);
        }
        z.next_out = out + len;
        z.avail_out = (uInt)(cap - len);
        zr = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        if (zr != Z_OK && zr != Z_STREAM_END)
            goto cleanup;
    }
    r->nested = 1;
    rc = parse_packets(r, out, len, 1);
    r->nested = 0;
cleanup:
    inflateEnd(&z);
    free(out);
    return rc;
}

static int parse_packet(struct reader *r, const uint8_t *p, size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f, in = {0}, td = {0}, ps = {0}, cl = {0}, te = {0}, df = {0}, zp = {0};
    uint64_t ts = 0, clock_id = 0, seq = 0, flags = 0, boot = 0, mono = 0;
    int has_ts = 0, k, is_new = 0;
    struct rseq *sq = NULL;

    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.wire == 0 && f.field == PF_PACKET_TIMESTAMP)
            ts = f.v, has_ts = 1;
        else if (f.wire == 0 && f.field == PF_PACKET_TIMESTAMP_CLOCK)
            clock_id = f.v;
        else if (f.wire == 0 && f.field == PF_PACKET_SEQUENCE_ID)
            seq = f.v;
        else if (f.wire == 0 && f.field == PF_PACKET_SEQUENCE_FLAGS)
            flags = f.v;
        else if (f.wire == 2 && f.field == PF_PACKET_INTERNED_DATA)
            in = f;
        else if (f.wire == 2 && f.field == PF_PACKET_TRACK_DESCRIPTOR)
            td = f;
        else if (f.wire == 2 && f.field == PF_PACKET_PERF_SAMPLE)
            ps = f;
        else if (f.wire == 2 && f.field == PF_PACKET_CLOCK_SNAPSHOT)
            cl = f;
        else if (f.wire == 2 && f.field == PF_PACKET_TRACK_EVENT)
            te = f;
        else if (f.wire == 2 && f.field == PF_PACKET_DEFAULTS)
            df = f;
        else if (f.wire == 2 && f.field == PF_PACKET_COMPRESSED)
            zp = f;
    }
    if (k < 0)
        return -1;
    if (zp.data && r->nested) {
        snprintf(r->err, r->errlen, "a compressed bundle inside a compressed bundle");
        return -1;
    }
    if (zp.data) /* a bundle of packets, deflated: nothing else of this packet is read */
        return parse_compressed(r, zp.data, zp.len);
    r->out->packets++;
    if (seq == 0) {
        if (in.data || ps.data || te.data)
            violation(r, "interned data, perf_sample or track event without a sequence id");
        if (td.data && parse_track(r, td.data, td.len) < 0)
            return -1;
        return 0;
    }
    sq = seq_of(r, (uint32_t)seq, &is_new);
    if (is_new && !(flags & PF_SEQ_CLEARED))
        violation(r, "sequence %llu: first packet does not clear incremental state",
                  (unsigned long long)seq);
    if (flags & PF_SEQ_CLEARED) { /* a new generation: interned data and defaults start empty */
        sq->gen = ++r->gen;
        sq->default_clock = 0;
    }
    if (df.data) { /* TracePacketDefaults: only timestamp_clock_id matters here */
        uint64_t v[PF_DEFAULTS_TIMESTAMP_CLOCK + 1] = {0};
        int has[PF_DEFAULTS_TIMESTAMP_CLOCK + 1] = {0};
        if (parse_flat(df.data, df.len, v, has, NULL, NULL, PF_DEFAULTS_TIMESTAMP_CLOCK + 1) < 0)
            return -1;
        sq->default_clock = (uint32_t)v[PF_DEFAULTS_TIMESTAMP_CLOCK];
    }
    if (sq->gen == 0 && (flags & PF_SEQ_NEEDS || in.data || ps.data)) {
        violation(r, "sequence %llu: packet needs incremental state before it is cleared",
                  (unsigned long long)seq);
        return 0; /* trace_processor drops it */
    }
    if (in.data && parse_interned(r, sq, in.data, in.len) < 0)
        return -1;
    if (cl.data) { /* trace_processor reads nothing else of a ClockSnapshot packet */
        if (td.data || ps.data || te.data)
            violation(r,
                      "sequence %llu: a ClockSnapshot packet carries content that "
                      "trace_processor ignores",
                      (unsigned long long)seq);
        return parse_clocks(r, sq, cl.data, cl.len);
    }
    if (has_ts && resolve_time(r, sq, ts, clock_id, &boot, &mono) < 0)
        return 0; /* trace_processor cannot place it */
    if (td.data && parse_track(r, td.data, td.len) < 0)
        return -1;
    if (ps.data && parse_sample(r, sq, ps.data, ps.len, has_ts, boot, mono) < 0)
        return -1;
    if (te.data && parse_track_event(r, te.data, te.len, has_ts, mono) < 0)
        return -1;
    return 0;
}

static void reader_free(struct reader *r)
{
    for (size_t i = 0; i < r->nstrs; i++)
        free(r->strs[i]);
    free(r->strs);
    free(r->pool);
    free(r->frames);
    free(r->seqs);
    free(r->map.e);
}

/* Read the packets of a Trace in data: the file (a torn last packet ends it: truncated) or a
 * compressed bundle (nested: every packet must be whole). Returns 0, or -1 (err set). */
static int parse_packets(struct reader *r, const uint8_t *data, size_t len, int nested)
{
    struct perfetto_summary *out = r->out;
    const uint8_t *c = data, *end = data + len;

    while (c < end) {
        const uint8_t *start = c;
        uint64_t n;
        if (*c != PB_TAG(PF_TRACE_PACKET, 2)) {
            snprintf(r->err, r->errlen, "byte 0x%02x at offset %zu%s is not a packet tag", *c,
                     (size_t)(c - data), nested ? " of a compressed bundle" : "");
            return -1;
        }
        c++;
        if (pb_read_varint(&c, end, &n) < 0 || n > (uint64_t)(end - c)) {
            if (nested) {
                snprintf(r->err, r->errlen, "a packet of a compressed bundle is cut short");
                return -1;
            }
            out->truncated = 1;
            break;
        }
        if (parse_packet(r, c, (size_t)n) < 0) {
            snprintf(r->err, r->errlen, "malformed packet at offset %zu%s", (size_t)(start - data),
                     nested ? " of a compressed bundle" : "");
            return -1;
        }
        c += n;
        if (!nested)
            out->valid_bytes = (uint64_t)(c - data);
    }
    return 0;
}

int perfetto_read_buffer(const uint8_t *data, size_t len, struct perfetto_summary *out, char *err,
                         size_t errlen)
{
    struct reader r = {.out = out, .err = err, .errlen = errlen};
    char none[1];
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (!errlen) { /* parse_packets writes its reason somewhere */
        r.err = none;
        r.errlen = sizeof(none);
    }
    r.err[0] = '\0';
    if (parse_packets(&r, data, len, 0) < 0)
        goto cleanup;
    if (!out->truncated)
        for (size_t i = 0; i < out->nslices; i++)
            if (!out->slices[i].instant && out->slices[i].end_ns == 0) {
                violation(&r, "slice %s never ends", out->slices[i].name);
                break;
            }
    rc = out->violations ? -1 : 0;
cleanup:
    reader_free(&r);
    return rc;
}

struct perfetto_stream {
    struct reader r;
    struct perfetto_summary out;
    uint64_t offset;
};

struct perfetto_stream *perfetto_stream_new(void)
{
    struct perfetto_stream *st = xcalloc(1, sizeof(*st));
    st->r.out = &st->out;
    return st;
}

long perfetto_stream_feed(struct perfetto_stream *st, const uint8_t *data, size_t len, char *err,
                          size_t errlen)
{
    char none[1];

    st->r.err = errlen ? err : none;
    st->r.errlen = errlen ? errlen : sizeof(none);
    st->r.err[0] = '\0';
    st->out.valid_bytes = 0;
    st->out.truncated = 0;
    if (parse_packets(&st->r, data, len, 0) < 0)
        return -1;
    st->offset += st->out.valid_bytes;
    return (long)st->out.valid_bytes;
}

struct perfetto_summary *perfetto_stream_summary(struct perfetto_stream *st)
{
    return &st->out;
}

uint64_t perfetto_stream_offset(const struct perfetto_stream *st)
{
    return st->offset;
}

void perfetto_stream_free(struct perfetto_stream *st)
{
    if (!st)
        return;
    reader_free(&st->r);
    perfetto_read_free(&st->out);
    free(st);
}

int perfetto_read_file(const char *path, struct perfetto_summary *out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    uint8_t *data = NULL;
    long size;
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot seek %s", path);
        goto cleanup;
    }
    data = xmalloc((size_t)size + 1);
    if (fread(data, 1, (size_t)size, f) != (size_t)size) {
        snprintf(err, errlen, "short read on %s", path);
        goto cleanup;
    }
    rc = perfetto_read_buffer(data, (size_t)size, out, err, errlen);
cleanup:
    if (f)
        fclose(f);
    free(data);
    return rc;
}

void perfetto_read_free(struct perfetto_summary *s)
{
    for (size_t i = 0; i < s->nthreads; i++)
        free(s->threads[i].name);
    for (size_t i = 0; i < s->nprocesses; i++)
        free(s->processes[i].name);
    for (size_t i = 0; i < s->nstacks; i++) {
        for (uint32_t j = 0; j < s->stacks[i].n; j++)
            free(s->stacks[i].functions[j]);
        free(s->stacks[i].functions);
    }
    for (size_t i = 0; i < s->ntracks; i++) {
        free(s->tracks[i].name);
        free(s->tracks[i].unit);
    }
    for (size_t i = 0; i < s->nslices; i++) {
        free(s->slices[i].name);
        free(s->slices[i].category);
        free(s->slices[i].args);
    }
    free(s->tracks);
    free(s->counters);
    free(s->slices);
    free(s->threads);
    free(s->processes);
    free(s->stacks);
    free(s->samples);
    memset(s, 0, sizeof(*s));
}

static int count_cmp(const void *a, const void *b)
{
    const struct perfetto_read_count *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return strcmp(x->function, y->function);
}

size_t perfetto_read_self_counts(const struct perfetto_summary *s, uint32_t tid,
                                 struct perfetto_read_count **out)
{
    struct perfetto_read_count *c = NULL;
    size_t n = 0, cap = 0;
    uint64_t *per_stack = xcalloc(s->nstacks ? s->nstacks : 1, sizeof(*per_stack));

    for (size_t i = 0; i < s->nsamples; i++)
        if (tid == 0 || s->samples[i].tid == tid)
            per_stack[s->samples[i].stack]++;
    for (size_t i = 0; i < s->nstacks; i++) {
        if (!per_stack[i] || s->stacks[i].n == 0)
            continue;
        const char *leaf = s->stacks[i].functions[s->stacks[i].n - 1];
        size_t j;
        for (j = 0; j < n && strcmp(c[j].function, leaf) != 0; j++)
            ;
        if (j == n) {
            xgrow(&c, &cap, n + 1, sizeof(*c));
            c[n++] = (struct perfetto_read_count){leaf, 0};
        }
        c[j].self += per_stack[i];
    }
    free(per_stack);
    if (n)
        qsort(c, n, sizeof(*c), count_cmp);
    *out = c;
    return n;
}

const struct perfetto_read_thread *perfetto_read_thread_find(const struct perfetto_summary *s,
                                                             uint32_t pid, uint32_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i].pid == pid && s->threads[i].tid == tid)
            return &s->threads[i];
    return NULL;
}

int perfetto_read_track_find(const struct perfetto_summary *s, uint32_t pid, const char *name)
{
    for (size_t i = 0; i < s->ntracks; i++)
        if ((!pid || s->tracks[i].pid == pid) && strcmp(s->tracks[i].name, name) == 0)
            return (int)i;
    return -1;
}
