/* Writer "perfetto": the session's processes, threads and call-stack samples as a Perfetto
 * protobuf trace (open it in ui.perfetto.dev: per-process/per-thread "Perf Callstacks" tracks
 * and flamegraphs). Written incrementally: packets go to a 64 KiB buffer that is written out
 * whenever it fills, so memory stays bounded and a killed run leaves a readable prefix (all
 * but the last buffer and the samples still in the reorder window). Interning tables grow with
 * distinct addresses, functions, modules and stacks only, never with run time.
 *
 * File format: back-to-back Trace.packet records (tag 0x0A, varint length, TracePacket), no
 * header, no terminator. All packets are on one trusted_packet_sequence_id (1..16383, derived
 * from the writer's pid and clock, so that concatenated recordings do not collide; 1 + rank
 * under MPI). docs/formats.md "Timestamps" has the Perfetto sources for what follows.
 *  - Packet 1 (the anchor): sequence_flags = 3 (INCREMENTAL_STATE_CLEARED |
 *    NEEDS_INCREMENTAL_STATE), first_packet_on_sequence = true, trace_packet_defaults
 *    {timestamp_clock_id = 64}, and a ClockSnapshot {BOOTTIME (6) = B0, MONOTONIC (3) = M0,
 *    clock 64 = B0 with is_incremental} read together at open (B0 - M0 is the offset below).
 *    Every later packet: sequence_flags = 2. The sequence's incremental state is never
 *    cleared again, so there is one anchor per sequence.
 *  - Timestamps: the session's CLOCK_MONOTONIC ns converted to BOOTTIME by adding the
 *    snapshot's BOOTTIME - MONOTONIC offset (a suspend during the run would shift later
 *    samples by the suspended time). Sample packets use the default clock 64, a
 *    sequence-scoped incremental clock: their timestamp is the ns delta from the previous
 *    packet on clock 64 (from B0 for the first). A sample earlier than that previous packet,
 *    and every other packet, carries its absolute BOOTTIME with timestamp_clock_id = 6 (3
 *    bytes more), which does not move clock 64; this is what Perfetto's own SDK does.
 *  - Sample order: the session hands samples over thread by thread (a drain visits one ring
 *    after the other), so they are held in a reorder window (PF_REORDER_NS behind the newest
 *    sample, at most PF_REORDER_MAX) and written in time order; only a sample older than what
 *    was already written (a deferred one) needs an absolute timestamp.
 *  - PROCESS: TrackDescriptor {uuid, ProcessDescriptor {pid, process_name = basename of the
 *    executable}}, re-emitted on exec. THREAD: TrackDescriptor {uuid, ThreadDescriptor {pid,
 *    tid, thread_name}}, re-emitted when the name changes; a sample of a thread never declared
 *    first emits its descriptor (with the model's name, if any). Track uuids are a bijective
 *    mix of (pid << 32 | tid) (tid 0 = the process), so they are unique.
 *  - SAMPLE: TracePacket {timestamp, perf_sample {pid, tid, callstack_iid}}; interned data
 *    new with a sample (function_names, mapping_paths, mappings {iid, path_string_ids},
 *    frames {iid, function_name_id, mapping_id, rel_pc}, callstacks {iid, frame_ids root
 *    first, leaf last}) goes into the next sample packet written, which is never after the
 *    sample that uses it. A callstack is the model's call path of the sample (its iid is the
 *    path's number, a bit per path says it was written) and a frame is one model function
 *    (rel_pc 0), so the writer keeps no per-stack or per-address table; an inlined function
 *    is a frame of its own; a mapping is per module basename (Perfetto shows it as
 *    "/<basename>"). An address no module covers gets function
 *    "[unknown]" in mapping "[unknown]" (every frame has one). cpu and cpu_mode are not
 *    written (trace_processor reads them as 0 / unknown; nothing in the UI needs them).
 *  - Sample weight (periods a sample stands for; Perfetto has no weight): a sample of weight
 *    w is written min(w, 64) times (same time and stack), so counts stay exact for every
 *    weight a 1000 Hz timer gives in practice and the file cannot explode on a huge weight.
 *  A repeated stack costs one small packet: about 20-22 bytes with delta timestamps.
 *  - COUNTER: a counter TrackDescriptor {uuid, name, parent_uuid = the process track (none for
 *    pid 0, machine-wide), counter {unit SIZE_BYTES / TIME_NS, or unit_name "%", "W", ...}}
 *    once per (pid, name), then TrackEvent {type COUNTER, track_uuid, double_counter_value}.
 *  - SLICE: TrackEvent SLICE_BEGIN {track_uuid, name, categories, debug_annotations (string
 *    values from the "key=value" lines), flow_ids / terminating_flow_ids} at the start and
 *    SLICE_END at the end, both written when the slice completes (Perfetto sorts by time). The
 *    track is the thread's, or a named TrackDescriptor {uuid, name, parent_uuid = process}
 *    (e.g. a GPU queue). INSTANT: one TrackEvent of type INSTANT. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "model/model.h"
#include "collector/protocol.h"
#include "pb.h"
#include "perfetto_proto.h"
#include "record.h"

#define PF_CHUNK       65536 /* write the buffer out once it holds this much */
#define PF_ZLIB_LEVEL  1     /* deflate level of each chunk (fast; see docs/performance.md) */
#define PF_FLUSH_NS    1000000000ull      /* and at least once a second of trace time */
#define PF_MAX_REPEAT  64                 /* heaviest weight written as repeated samples */
#define PF_CLOCK_DELTA PF_CLOCK_SEQ_FIRST /* sequence-scoped incremental clock of samples */
#define PF_REORDER_NS  250000000u         /* samples held back this far behind the newest one */
#define PF_REORDER_MAX 65536              /* ... and never more than this many */

/* One slot of an open-addressing table; the meaning of k, a, b, c, d depends on the table. */
struct ient {
    uint64_t h, k;
    uint32_t a, b, c, d;
    int used;
};

struct itab {
    struct ient *e;
    size_t cap, count;
};

/* A sample waiting in the reorder window. */
struct pf_pending {
    uint64_t mono_ns, order; /* order: arrival, to keep equal times in arrival order */
    uint32_t pid, tid, stack, repeat;
};

struct record_writer {
    int fd;
    int failed; /* a write failed: the rest is dropped */
    int err;    /* its errno */
    struct model *m;
    uint32_t seq;
    int64_t boot_offset; /* BOOTTIME - MONOTONIC at open */
    struct pb out;       /* packets waiting to be written */
    z_stream z;          /* deflates each chunk of out into one compressed_packets packet */
    int z_ok;            /* z is set up (else chunks are written as they are) */
    struct pb zout;      /* a compressed chunk with its packet header in front */
    char label[128];     /* every process's label: "host=NAME" and " rank=N" under MPI */
    uint64_t pkt_ns;     /* the latest packet time so far */
    uint64_t flushed_ns; /* pkt_ns at the last flush */
    struct pb pkt, tmp, sub;
    struct pb in_fn, in_path, in_map, in_frame, in_stack; /* new interned entries */
    struct itab names;   /* function name -> iid a (string strs[k]) */
    struct itab modules; /* module basename -> mapping iid a == path iid (strs[k]) */
    struct itab threads; /* (pid, tid) -> declared name strs[k] */
    struct itab procs;   /* pid a: its process track is declared */
    struct itab tracks;  /* (pid a, kind b, name strs[k]) -> a named or counter track */
    char **strs;
    size_t nstrs, capstrs;
    uint32_t *func_frames; /* model function f -> its frame iid, 0 until written */
    size_t cap_func_frames;
    uint64_t *stack_written; /* bit p: the callstack of model path p (iid p) is written */
    size_t cap_stack_written, nstacks;
    uint32_t *stack; /* scratch: the current sample's frame iids */
    size_t capstack;
    uint32_t next_name, next_module, next_frame;
    uint64_t delta_base_ns;  /* BOOTTIME of the last packet written on PF_CLOCK_DELTA */
    struct pf_pending *heap; /* the reorder window: a min-heap on (mono_ns, order) */
    size_t nheap, capheap;
    uint64_t newest_ns, arrivals; /* latest sample time seen; samples seen */
    struct pb pend_in;            /* interned data for the next sample packet written */
};

/* ---- hash tables ---- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    x ^= x >> 31;
    return x;
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return mix64(h);
}

/* Double the table when half full (slots are placed by hash only). */
static void itab_grow(struct itab *t)
{
    if (t->count * 2 < t->cap)
        return;
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct ient *e = xcalloc(cap, sizeof(*e));
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].used)
            continue;
        size_t j = t->e[i].h & (cap - 1);
        while (e[j].used)
            j = (j + 1) & (cap - 1);
        e[j] = t->e[i];
    }
    free(t->e);
    t->e = e;
    t->cap = cap;
}

/* The slot with hash h for which eq says yes, or the free slot where it would go. */
static struct ient *itab_slot(struct itab *t, uint64_t h,
                              int (*eq)(const struct record_writer *, const struct ient *,
                                        const void *),
                              const struct record_writer *w, const void *key)
{
    itab_grow(t);
    size_t j = h & (t->cap - 1);
    while (t->e[j].used && !(t->e[j].h == h && eq(w, &t->e[j], key)))
        j = (j + 1) & (t->cap - 1);
    return &t->e[j];
}

static void itab_free(struct itab *t)
{
    free(t->e);
}

/* Keep a copy of s; returns its index. */
static uint32_t str_add(struct record_writer *w, const char *s)
{
    if (w->nstrs == w->capstrs) {
        w->capstrs = w->capstrs ? w->capstrs * 2 : 64;
        w->strs = xrealloc(w->strs, w->capstrs * sizeof(*w->strs));
    }
    w->strs[w->nstrs] = xstrdup(s);
    return (uint32_t)w->nstrs++;
}

static int eq_str(const struct record_writer *w, const struct ient *e, const void *key)
{
    return strcmp(w->strs[e->k], key) == 0;
}

static int eq_thread(const struct record_writer *w, const struct ient *e, const void *key)
{
    (void)w;
    return e->a == ((const uint32_t *)key)[0] && e->b == ((const uint32_t *)key)[1];
}

/* ---- output ---- */

/* The chunk of packets in out as one TracePacket {compressed_packets = zlib(out)}: Perfetto's
 * own form (a compressed Trace, trace_processor inflates it); NULL when deflate fails. */
static const uint8_t *compress_out(struct record_writer *w, size_t *len)
{
    enum { HEAD = 16 }; /* room for the packet's tag and two lengths */
    uLong bound = deflateBound(&w->z, (uLong)w->out.n);
    uint8_t head[HEAD];
    size_t h = 0, zlen;
    uint64_t inner;

    w->zout.n = 0;
    pb_reserve(&w->zout, HEAD + (size_t)bound);
    if (deflateReset(&w->z) != Z_OK)
        return NULL;
    w->z.next_in = w->out.p;
    w->z.avail_in = (uInt)w->out.n;
    w->z.next_out = w->zout.p + HEAD;
    w->z.avail_out = (uInt)bound;
    if (deflate(&w->z, Z_FINISH) != Z_STREAM_END)
        return NULL;
    zlen = (size_t)bound - w->z.avail_out;
    inner = pb_varint_len(PB_TAG(PF_PACKET_COMPRESSED, 2)) + pb_varint_len(zlen) + zlen;
    h += pb_put_varint(head + h, PB_TAG(PF_TRACE_PACKET, 2));
    h += pb_put_varint(head + h, inner);
    h += pb_put_varint(head + h, PB_TAG(PF_PACKET_COMPRESSED, 2));
    h += pb_put_varint(head + h, zlen);
    memcpy(w->zout.p + HEAD - h, head, h);
    *len = h + zlen;
    return w->zout.p + HEAD - h;
}

/* Write the packets buffered in out (compressed when zlib is set up) with one write. */
static void flush_out(struct record_writer *w)
{
    const uint8_t *p = w->out.p;
    size_t n = w->out.n;

    if (n == 0)
        return;
    if (w->z_ok && !(p = compress_out(w, &n))) {
        p = w->out.p; /* deflate failed: the chunk as it is */
        n = w->out.n;
    }
    while (n > 0 && !w->failed) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            w->failed = 1;
            w->err = k < 0 ? errno : EIO;
            break;
        }
        p += k;
        n -= (size_t)k;
    }
    w->out.n = 0;
}

/* Start a packet at an absolute time: BOOTTIME with its clock id, sequence id and flags. */
static void packet_begin(struct record_writer *w, uint64_t mono_ns, uint32_t flags)
{
    if (mono_ns > w->pkt_ns)
        w->pkt_ns = mono_ns;
    w->pkt.n = 0;
    pb_uint(&w->pkt, PF_PACKET_TIMESTAMP, (uint64_t)((int64_t)mono_ns + w->boot_offset));
    pb_uint(&w->pkt, PF_PACKET_TIMESTAMP_CLOCK, PF_BUILTIN_BOOTTIME);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_ID, w->seq);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_FLAGS, flags);
}

/* Start a sample packet: a delta on the sequence's incremental clock, or an absolute time when
 * the sample is older than the clock's last packet (a negative delta is never written). */
static void packet_begin_delta(struct record_writer *w, uint64_t mono_ns)
{
    uint64_t boot = (uint64_t)((int64_t)mono_ns + w->boot_offset);

    if (boot < w->delta_base_ns) {
        packet_begin(w, mono_ns, PF_SEQ_NEEDS);
        return;
    }
    if (mono_ns > w->pkt_ns)
        w->pkt_ns = mono_ns;
    w->pkt.n = 0;
    pb_uint(&w->pkt, PF_PACKET_TIMESTAMP, boot - w->delta_base_ns);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_ID, w->seq);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_FLAGS, PF_SEQ_NEEDS);
    w->delta_base_ns = boot;
}

/* Frame the packet as a Trace.packet record into the output buffer. */
static void packet_end(struct record_writer *w)
{
    pb_bytes(&w->out, PF_TRACE_PACKET, w->pkt.p, w->pkt.n);
    if (!w->flushed_ns)
        w->flushed_ns = w->pkt_ns;
    if (w->out.n >= PF_CHUNK || w->pkt_ns >= w->flushed_ns + PF_FLUSH_NS) {
        flush_out(w);
        w->flushed_ns = w->pkt_ns;
    }
}

static uint64_t track_uuid(uint32_t pid, uint32_t tid)
{
    return mix64(((uint64_t)pid << 32 | tid) ^ 0x726f637379730000ull);
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int eq_pid(const struct record_writer *w, const struct ient *e, const void *key)
{
    (void)w;
    return e->a == *(const uint32_t *)key;
}

static void emit_process(struct record_writer *w, uint64_t t, uint32_t pid, const char *exe)
{
    struct ient *e = itab_slot(&w->procs, mix64(pid), eq_pid, w, &pid);

    if (!e->used) {
        *e = (struct ient){.h = mix64(pid), .a = pid, .used = 1};
        w->procs.count++;
    }
    w->sub.n = 0;
    pb_uint(&w->sub, PF_PROCESS_PID, pid);
    if (exe && *exe)
        pb_bytes(&w->sub, PF_PROCESS_NAME, base_name(exe), strlen(base_name(exe)));
    pb_bytes(&w->sub, PF_PROCESS_LABELS, w->label, strlen(w->label)); /* host (and MPI rank) */
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_TRACK_UUID, track_uuid(pid, 0));
    pb_bytes(&w->tmp, PF_TRACK_PROCESS, w->sub.p, w->sub.n);
    packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_DESCRIPTOR, w->tmp.p, w->tmp.n);
    packet_end(w);
}

/* Declare thread (pid, tid) with name unless it is already declared with that name. */
static void declare_thread(struct record_writer *w, uint64_t t, uint32_t pid, uint32_t tid,
                           const char *name)
{
    uint32_t key[2] = {pid, tid};
    struct ient *e = itab_slot(&w->threads, mix64((uint64_t)pid << 32 | tid), eq_thread, w, key);

    if (!name)
        name = "";
    if (e->used && strcmp(w->strs[e->k], name) == 0)
        return;
    if (e->used) {
        free(w->strs[e->k]);
        w->strs[e->k] = xstrdup(name);
    } else {
        *e = (struct ient){.h = mix64((uint64_t)pid << 32 | tid), .a = pid, .b = tid, .used = 1};
        e->k = str_add(w, name);
        w->threads.count++;
    }
    w->sub.n = 0;
    pb_uint(&w->sub, PF_THREAD_PID, pid);
    pb_uint(&w->sub, PF_THREAD_TID, tid);
    if (*name)
        pb_bytes(&w->sub, PF_THREAD_NAME, name, strlen(name));
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_TRACK_UUID, track_uuid(pid, tid));
    pb_bytes(&w->tmp, PF_TRACK_THREAD, w->sub.p, w->sub.n);
    packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_DESCRIPTOR, w->tmp.p, w->tmp.n);
    packet_end(w);
}

/* Whether thread (pid, tid) has a descriptor in the file. */
static int thread_declared(struct record_writer *w, uint32_t pid, uint32_t tid)
{
    uint32_t key[2] = {pid, tid};
    return itab_slot(&w->threads, mix64((uint64_t)pid << 32 | tid), eq_thread, w, key)->used;
}

/* The model's latest name of thread (pid, tid), or NULL. */
static const char *model_thread_name(struct model *m, uint32_t pid, uint32_t tid)
{
    for (int i = model_thread_count(m) - 1; i >= 0; i--) {
        const struct model_thread *th = model_thread_at(m, i);
        if (th->pid == pid && th->tid == tid)
            return th->name;
    }
    return NULL;
}

/* Interned string s in table t (new ones appended to buf as InternedData field); returns iid. */
static uint32_t intern_string(struct record_writer *w, struct itab *t, uint32_t *next,
                              struct pb *buf, uint32_t field, const char *s)
{
    uint64_t h = hash_str(s);
    struct ient *e = itab_slot(t, h, eq_str, w, s);

    if (e->used)
        return e->a;
    *e = (struct ient){.h = h, .a = ++*next, .used = 1};
    e->k = str_add(w, s);
    t->count++;
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_STRING_IID, e->a);
    pb_bytes(&w->tmp, PF_STRING_STR, s, strlen(s));
    pb_bytes(buf, field, w->tmp.p, w->tmp.n);
    return e->a;
}

/* Mapping iid of a module basename (its path string gets the same iid). */
static uint32_t intern_module(struct record_writer *w, const char *module)
{
    uint32_t before = w->next_module;
    uint32_t iid = intern_string(w, &w->modules, &w->next_module, &w->in_path,
                                 PF_INTERNED_MAPPING_PATHS, module);

    if (w->next_module != before) {
        w->tmp.n = 0;
        pb_uint(&w->tmp, PF_MAPPING_IID, iid);
        pb_uint(&w->tmp, PF_MAPPING_PATH_STRING_IDS, iid);
        pb_bytes(&w->in_map, PF_INTERNED_MAPPINGS, w->tmp.p, w->tmp.n);
    }
    return iid;
}

/* A new frame entry in the interned data; returns its iid. */
static uint32_t new_frame(struct record_writer *w, const char *function, const char *module,
                          uint64_t rel_pc)
{
    uint32_t name =
        intern_string(w, &w->names, &w->next_name, &w->in_fn, PF_INTERNED_FUNCTION_NAMES, function);
    uint32_t map = intern_module(w, module);
    uint32_t iid = ++w->next_frame;

    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_FRAME_IID, iid);
    pb_uint(&w->tmp, PF_FRAME_FUNCTION_NAME_ID, name);
    pb_uint(&w->tmp, PF_FRAME_MAPPING_ID, map);
    pb_uint(&w->tmp, PF_FRAME_REL_PC, rel_pc);
    pb_bytes(&w->in_frame, PF_INTERNED_FRAMES, w->tmp.p, w->tmp.n);
    return iid;
}

/* xgrow, the new elements zeroed. */
static void grow_zeroed(void *pp, size_t *cap, size_t need, size_t elem)
{
    size_t old = *cap;

    xgrow(pp, cap, need, elem);
    if (*cap > old)
        memset((char *)*(void **)pp + old * elem, 0, (*cap - old) * elem);
}

/* The frame iid of model function f: one frame per function (an inlined one is a function of
 * its own), written on first use. */
static uint32_t func_frame(struct record_writer *w, uint32_t f)
{
    const struct model_func *fn;
    char label[MODEL_LABEL_MAX];

    grow_zeroed(&w->func_frames, &w->cap_func_frames, (size_t)f + 1, sizeof(*w->func_frames));
    if (w->func_frames[f])
        return w->func_frames[f];
    fn = model_func_at(w->m, (int)f);
    model_python_label(fn, label, sizeof(label));
    w->func_frames[f] =
        new_frame(w, fn ? label : "[unknown]", fn && fn->module ? fn->module : "[unknown]", 0);
    return w->func_frames[f];
}

/* ---- tracks of counters and slices ---- */

#define PF_TRACK_KIND_NAMED   0 /* a named track of slices (e.g. a GPU queue) */
#define PF_TRACK_KIND_COUNTER 1

struct track_key {
    uint32_t pid, kind;
    const char *name;
};

static int eq_track(const struct record_writer *w, const struct ient *e, const void *key)
{
    const struct track_key *k = key;
    return e->a == k->pid && e->b == k->kind && strcmp(w->strs[e->k], k->name) == 0;
}

/* Declare pid's process track unless it is (a named track's parent must exist). */
static void ensure_process(struct record_writer *w, uint64_t t, uint32_t pid)
{
    const struct model_process *p;

    if (itab_slot(&w->procs, mix64(pid), eq_pid, w, &pid)->used)
        return;
    p = model_process_find(w->m, pid);
    emit_process(w, t, pid, p ? p->exe : NULL);
}

/* Counter unit: Perfetto's enum for bytes and nanoseconds, else free text in unit_name. */
static void put_counter_unit(struct pb *b, const char *unit)
{
    if (!unit || !*unit)
        return;
    if (strcmp(unit, "bytes") == 0)
        pb_uint(b, PF_COUNTER_UNIT, PF_UNIT_SIZE_BYTES);
    else if (strcmp(unit, "ns") == 0)
        pb_uint(b, PF_COUNTER_UNIT, PF_UNIT_TIME_NS);
    else
        pb_bytes(b, PF_COUNTER_UNIT_NAME, unit, strlen(unit));
}

/* The uuid of pid's track called name (kind PF_TRACK_KIND_*), declared on first use: a child of
 * the process track, or a top-level track for pid 0. */
static uint64_t named_track(struct record_writer *w, uint64_t t, uint32_t pid, uint32_t kind,
                            const char *name, const char *unit)
{
    struct track_key key = {pid, kind, name};
    uint64_t h = mix64(hash_str(name) ^ ((uint64_t)pid << 8 | kind));
    struct ient *e = itab_slot(&w->tracks, h, eq_track, w, &key);
    uint64_t uuid = mix64(h ^ 0x747261636b000000ull) | 1ull << 63;

    if (e->used)
        return uuid;
    *e = (struct ient){.h = h, .a = pid, .b = kind, .used = 1};
    e->k = str_add(w, name);
    w->tracks.count++;
    if (pid)
        ensure_process(w, t, pid);
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_TRACK_UUID, uuid);
    pb_bytes(&w->tmp, PF_TRACK_NAME, name, strlen(name));
    if (pid)
        pb_uint(&w->tmp, PF_TRACK_PARENT_UUID, track_uuid(pid, 0));
    if (kind == PF_TRACK_KIND_COUNTER) {
        w->sub.n = 0;
        put_counter_unit(&w->sub, unit);
        pb_bytes(&w->tmp, PF_TRACK_COUNTER, w->sub.p, w->sub.n);
    }
    packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_DESCRIPTOR, w->tmp.p, w->tmp.n);
    packet_end(w);
    return uuid;
}

/* Write a TrackEvent (already encoded in w->sub) at time t. */
static void emit_track_event(struct record_writer *w, uint64_t t)
{
    packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_EVENT, w->sub.p, w->sub.n);
    packet_end(w);
}

/* One counter reading. */
static void emit_counter(struct record_writer *w, const struct record_event *ev)
{
    uint64_t uuid, bits;
    double v = ev->value;

    if (!ev->track)
        return;
    uuid = named_track(w, ev->time_ns, ev->pid, PF_TRACK_KIND_COUNTER, ev->track, ev->unit);
    memcpy(&bits, &v, sizeof(bits));
    w->sub.n = 0;
    pb_uint(&w->sub, PF_EVENT_TYPE, PF_TYPE_COUNTER);
    pb_uint(&w->sub, PF_EVENT_TRACK_UUID, uuid);
    pb_fixed64(&w->sub, PF_EVENT_DOUBLE_COUNTER_VALUE, bits);
    emit_track_event(w, ev->time_ns);
}

/* The args "key=value\n..." as debug annotations (string values). */
static void put_args(struct record_writer *w, const char *args)
{
    while (args && *args) {
        const char *nl = strchr(args, '\n'), *eq;
        size_t len = nl ? (size_t)(nl - args) : strlen(args);
        eq = memchr(args, '=', len);
        if (eq && eq > args) {
            w->tmp.n = 0;
            pb_bytes(&w->tmp, PF_ANNOTATION_NAME, args, (size_t)(eq - args));
            pb_bytes(&w->tmp, PF_ANNOTATION_STRING, eq + 1, len - (size_t)(eq - args) - 1);
            pb_bytes(&w->sub, PF_EVENT_DEBUG_ANNOTATIONS, w->tmp.p, w->tmp.n);
        }
        args = nl ? nl + 1 : NULL;
    }
}

/* A slice (begin and end events) or an instant, on a thread's track or a named track. */
static void emit_slice(struct record_writer *w, const struct record_event *ev)
{
    uint64_t uuid;
    const char *name = ev->name ? ev->name : "?";

    if (ev->track) {
        uuid = named_track(w, ev->time_ns, ev->pid, PF_TRACK_KIND_NAMED, ev->track, NULL);
    } else {
        if (!thread_declared(w, ev->pid, ev->tid))
            declare_thread(w, ev->time_ns, ev->pid, ev->tid,
                           model_thread_name(w->m, ev->pid, ev->tid));
        uuid = track_uuid(ev->pid, ev->tid);
    }
    w->sub.n = 0;
    pb_uint(&w->sub, PF_EVENT_TYPE,
            ev->type == RECORD_EV_SLICE ? PF_TYPE_SLICE_BEGIN : PF_TYPE_INSTANT);
    pb_uint(&w->sub, PF_EVENT_TRACK_UUID, uuid);
    pb_bytes(&w->sub, PF_EVENT_NAME, name, strlen(name));
    if (ev->category)
        pb_bytes(&w->sub, PF_EVENT_CATEGORIES, ev->category, strlen(ev->category));
    put_args(w, ev->args);
    if (ev->type == RECORD_EV_SLICE && ev->flow_out)
        pb_fixed64(&w->sub, PF_EVENT_FLOW_IDS, ev->flow_out);
    if (ev->type == RECORD_EV_SLICE && ev->flow_in)
        pb_fixed64(&w->sub, PF_EVENT_TERMINATING_FLOW_IDS, ev->flow_in);
    emit_track_event(w, ev->time_ns);
    if (ev->type != RECORD_EV_SLICE)
        return;
    w->sub.n = 0;
    pb_uint(&w->sub, PF_EVENT_TYPE, PF_TYPE_SLICE_END);
    pb_uint(&w->sub, PF_EVENT_TRACK_UUID, uuid);
    emit_track_event(w, ev->end_ns > ev->time_ns ? ev->end_ns : ev->time_ns);
}

/* Append a frame iid to the scratch stack. */
static void stack_push(struct record_writer *w, size_t *n, uint32_t iid)
{
    if (*n == w->capstack) {
        w->capstack = w->capstack ? w->capstack * 2 : 256;
        w->stack = xrealloc(w->stack, w->capstack * sizeof(*w->stack));
    }
    w->stack[(*n)++] = iid;
}

/* The callstack iid of model path p (iid p; UINT32_MAX for a sample without frames), its
 * frames and callstack written to the interned data on first use. */
static uint32_t intern_path(struct record_writer *w, uint32_t p)
{
    size_t n = 0;

    if (p == 0)
        p = UINT32_MAX;
    size_t bit = p == UINT32_MAX ? 0 : p;
    grow_zeroed(&w->stack_written, &w->cap_stack_written, bit / 64 + 1, sizeof(*w->stack_written));
    if (w->stack_written[bit / 64] >> (bit % 64) & 1)
        return p;
    w->stack_written[bit / 64] |= 1ull << (bit % 64);
    w->nstacks++;
    if (p == UINT32_MAX) {
        stack_push(w, &n, new_frame(w, "[unknown]", "[unknown]", 0));
    } else {
        for (uint32_t q = p; q; q = model_path_parent(w->m, q)) /* leaf first */
            stack_push(w, &n, func_frame(w, model_path_func(w->m, q)));
        for (size_t i = 0; i < n / 2; i++) { /* root first */
            uint32_t x = w->stack[i];
            w->stack[i] = w->stack[n - 1 - i];
            w->stack[n - 1 - i] = x;
        }
    }
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_CALLSTACK_IID, p);
    for (size_t i = 0; i < n; i++)
        pb_uint(&w->tmp, PF_CALLSTACK_FRAME_IDS, w->stack[i]); /* repeated, not packed */
    pb_bytes(&w->in_stack, PF_INTERNED_CALLSTACKS, w->tmp.p, w->tmp.n);
    return p;
}

/* Whether pending sample a goes before b. */
static int pending_before(const struct pf_pending *a, const struct pf_pending *b)
{
    return a->mono_ns != b->mono_ns ? a->mono_ns < b->mono_ns : a->order < b->order;
}

/* Add a sample to the reorder window (a min-heap). */
static void heap_push(struct record_writer *w, const struct pf_pending *e)
{
    size_t i;

    if (w->nheap == w->capheap) {
        w->capheap = w->capheap ? w->capheap * 2 : 256;
        w->heap = xrealloc(w->heap, w->capheap * sizeof(*w->heap));
    }
    i = w->nheap++;
    while (i > 0 && pending_before(e, &w->heap[(i - 1) / 2])) {
        w->heap[i] = w->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    w->heap[i] = *e;
}

/* Take the earliest sample out of the reorder window. */
static struct pf_pending heap_pop(struct record_writer *w)
{
    struct pf_pending top = w->heap[0], last = w->heap[--w->nheap];
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= w->nheap)
            break;
        if (c + 1 < w->nheap && pending_before(&w->heap[c + 1], &w->heap[c]))
            c++;
        if (!pending_before(&w->heap[c], &last))
            break;
        w->heap[i] = w->heap[c];
        i = c;
    }
    if (w->nheap)
        w->heap[i] = last;
    return top;
}

/* Write one sample's packet(s); the first carries the interned data still waiting. */
static void write_sample(struct record_writer *w, const struct pf_pending *e)
{
    for (uint32_t r = 0; r < e->repeat; r++) {
        packet_begin_delta(w, e->mono_ns);
        if (w->pend_in.n) {
            pb_bytes(&w->pkt, PF_PACKET_INTERNED_DATA, w->pend_in.p, w->pend_in.n);
            w->pend_in.n = 0;
        }
        w->tmp.n = 0;
        pb_uint(&w->tmp, PF_SAMPLE_PID, e->pid);
        pb_uint(&w->tmp, PF_SAMPLE_TID, e->tid);
        pb_uint(&w->tmp, PF_SAMPLE_CALLSTACK_IID, e->stack);
        pb_bytes(&w->pkt, PF_PACKET_PERF_SAMPLE, w->tmp.p, w->tmp.n);
        packet_end(w);
    }
}

/* Write the samples that left the reorder window (all of them when all is set). */
static void reorder_flush(struct record_writer *w, int all)
{
    while (w->nheap > 0 && (all || w->nheap > PF_REORDER_MAX ||
                            w->heap[0].mono_ns + PF_REORDER_NS <= w->newest_ns)) {
        struct pf_pending e = heap_pop(w);
        write_sample(w, &e);
    }
}

/* One sample: symbolize what is new, intern the stack, queue it in the reorder window. */
static void emit_sample(struct record_writer *w, const struct record_event *ev)
{
    struct pb *in[] = {&w->in_fn, &w->in_path, &w->in_map, &w->in_frame, &w->in_stack};
    struct pf_pending e = {
        .mono_ns = ev->time_ns, .order = w->arrivals++, .pid = ev->pid, .tid = ev->tid};

    if (!thread_declared(w, ev->pid, ev->tid))
        declare_thread(w, ev->time_ns, ev->pid, ev->tid, model_thread_name(w->m, ev->pid, ev->tid));
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        in[i]->n = 0;
    uint32_t path = ev->path;
    if (!path && ev->nframes) /* a sample the session did not count first (tests) */
        path = model_sample_path(w->m, ev->pid, ev->frames, ev->nframes);
    e.stack = intern_path(w, path);
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        pb_append(&w->pend_in, in[i]);
    e.repeat = ev->weight <= 1 ? 1 : ev->weight <= PF_MAX_REPEAT ? ev->weight : PF_MAX_REPEAT;
    heap_push(w, &e);
    if (ev->time_ns > w->newest_ns)
        w->newest_ns = ev->time_ns;
    reorder_flush(w, 0);
}

static struct record_writer *perfetto_open(const char *path, struct model *m, char *err,
                                           size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));
    uint64_t mono, boot;

    w->fd = record_open(path, 1);
    if (w->fd < 0) {
        snprintf(err, errlen, "cannot write the Perfetto trace %s: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    w->m = m;
    pb_reserve(&w->out, 2 * PF_CHUNK); /* the buffer never grows past this */
    w->z_ok = deflateInit(&w->z, PF_ZLIB_LEVEL) == Z_OK;
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    for (char *c = host; *c; c++)
        if (*c == ' ' || *c == '=')
            *c = '_';
    int rank = model_session(m)->rank;
    if (rank >= 0)
        snprintf(w->label, sizeof(w->label), "host=%s rank=%d", host, rank);
    else
        snprintf(w->label, sizeof(w->label), "host=%s", host);
    mono = model_clock_ns(CLOCK_MONOTONIC);
    boot = model_clock_ns(CLOCK_BOOTTIME);
    w->boot_offset = (int64_t)(boot - mono);
    w->seq = 1 + (uint32_t)(mix64((uint64_t)getpid() << 40 ^ boot) % 16383);
    if (model_session(m)->rank >= 0) /* MPI ranks: distinct ids, so merged traces stay valid */
        w->seq = 1 + (uint32_t)model_session(m)->rank % 16383;
    /* first packet: clears the incremental state, makes clock 64 the default and anchors it
     * (and MONOTONIC) to BOOTTIME */
    packet_begin(w, mono, PF_SEQ_CLEARED | PF_SEQ_NEEDS);
    pb_uint(&w->pkt, PF_PACKET_FIRST_ON_SEQUENCE, 1);
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_DEFAULTS_TIMESTAMP_CLOCK, PF_CLOCK_DELTA);
    pb_bytes(&w->pkt, PF_PACKET_DEFAULTS, w->tmp.p, w->tmp.n);
    w->sub.n = 0;
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_CLOCK_ID, PF_BUILTIN_BOOTTIME);
    pb_uint(&w->tmp, PF_CLOCK_TIMESTAMP, boot);
    pb_bytes(&w->sub, PF_SNAPSHOT_CLOCKS, w->tmp.p, w->tmp.n);
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_CLOCK_ID, PF_BUILTIN_MONOTONIC);
    pb_uint(&w->tmp, PF_CLOCK_TIMESTAMP, mono);
    pb_bytes(&w->sub, PF_SNAPSHOT_CLOCKS, w->tmp.p, w->tmp.n);
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_CLOCK_ID, PF_CLOCK_DELTA);
    pb_uint(&w->tmp, PF_CLOCK_TIMESTAMP, boot);
    pb_uint(&w->tmp, PF_CLOCK_INCREMENTAL, 1);
    pb_bytes(&w->sub, PF_SNAPSHOT_CLOCKS, w->tmp.p, w->tmp.n);
    pb_bytes(&w->pkt, PF_PACKET_CLOCK_SNAPSHOT, w->sub.p, w->sub.n);
    packet_end(w);
    w->delta_base_ns = boot;
    return w;
}

static void perfetto_event(struct record_writer *w, const struct record_event *ev)
{
    switch (ev->type) {
    case RECORD_EV_PROCESS:
        emit_process(w, ev->time_ns, ev->pid, ev->data);
        break;
    case RECORD_EV_THREAD:
        declare_thread(w, ev->time_ns, ev->pid, ev->tid, ev->data);
        break;
    case RECORD_EV_SAMPLE:
        emit_sample(w, ev);
        break;
    case RECORD_EV_COUNTER:
        emit_counter(w, ev);
        break;
    case RECORD_EV_SLICE:
    case RECORD_EV_INSTANT:
        emit_slice(w, ev);
        break;
    default:
        break;
    }
}

static int perfetto_error(struct record_writer *w)
{
    return w->err;
}

static int perfetto_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    struct pb *bufs[] = {&w->out,     &w->pkt,    &w->tmp,      &w->sub,      &w->in_fn,
                         &w->in_path, &w->in_map, &w->in_frame, &w->in_stack, &w->pend_in};

    (void)m;
    (void)end;
    reorder_flush(w, 1);
    flush_out(w);
    if (close(w->fd) != 0 && !w->err)
        w->err = errno;
    int err = w->err;
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]->p);
    free(w->zout.p);
    if (w->z_ok)
        deflateEnd(&w->z);
    itab_free(&w->names);
    itab_free(&w->modules);
    itab_free(&w->threads);
    itab_free(&w->procs);
    itab_free(&w->tracks);
    for (size_t i = 0; i < w->nstrs; i++)
        free(w->strs[i]);
    free(w->strs);
    free(w->func_frames);
    free(w->stack_written);
    free(w->stack);
    free(w->heap);
    free(w);
    return err;
}

/* Sizes of the interning tables (frames, callstacks written) and heap buffers, for tests. */
void record_perfetto_stats(const struct record_writer *w, size_t *frames, size_t *stacks,
                           size_t *heap_bytes)
{
    *frames = w->next_frame;
    *stacks = w->nstacks;
    *heap_bytes = (w->names.cap + w->modules.cap + w->threads.cap + w->procs.cap + w->tracks.cap) *
                      sizeof(struct ient) +
                  w->cap_func_frames * sizeof(uint32_t) + w->cap_stack_written * sizeof(uint64_t) +
                  w->capstrs * sizeof(char *) + w->out.cap + w->pkt.cap +
                  w->capstack * sizeof(uint32_t) + w->capheap * sizeof(struct pf_pending) +
                  w->pend_in.cap;
}

const struct record_writer_class record_perfetto = {
    .name = "perfetto",
    .open = perfetto_open,
    .event = perfetto_event,
    .close = perfetto_close,
    .error = perfetto_error,
};
