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
 *    cleared again, so there is one anchor per sequence, except in a rolling trace (--keep,
 *    perfetto_write_roll.c): each chunk starts with such an anchor (flags 3, a ClockSnapshot at
 *    its start; not first_packet_on_sequence), declares again every process, thread and
 *    named/counter track, and writes again every interned entry it uses (same iids), so that
 *    it reads alone once the chunks before it are gone.
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
 *    w is written min(w, 60000) times (same time and stack), so counts stay exact up to a
 *    minute of a 1000 Hz timer's periods (a thread blocked in wall mode between two drains of
 *    a loaded front end, a target starved of CPU: at 64, under ASan at load 20 a replay
 *    counted 7,380 of 14,993 samples), no more than the sampled time would have written, and
 *    a huge (bogus) weight costs at most ~1.2 MB.
 *  A repeated stack costs one small packet: about 20-22 bytes with delta timestamps.
 *  - COUNTER: a counter TrackDescriptor {uuid, name, parent_uuid = the process track (none for
 *    pid 0, machine-wide), counter {unit SIZE_BYTES / TIME_NS, or unit_name "%", "W", ...}}
 *    once per (pid, name), then TrackEvent {type COUNTER, track_uuid, double_counter_value}.
 *  - SLICE: TrackEvent SLICE_BEGIN {track_uuid, name, categories, debug_annotations (string
 *    values from the "key=value" lines), flow_ids / terminating_flow_ids} at the start and
 *    SLICE_END at the end, both written when the slice completes (Perfetto sorts by time). The
 *    track is the thread's, or a named TrackDescriptor {uuid, name, parent_uuid = process}
 *    (e.g. a GPU queue). INSTANT: one TrackEvent of type INSTANT.
 * This file turns events into packets; perfetto_write_encode.c frames and writes them,
 * perfetto_write_intern.c keeps the interning tables (perfetto_write.h); field numbers are
 * perfetto_proto.h's. */
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
#include "perfetto_write.h"

/* The last component of path. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Declare (or declare again, after an exec) pid's process track: its executable's basename and
 * the label. */
static void emit_process(struct record_writer *w, uint64_t t, uint32_t pid, const char *exe)
{
    pfw_process_mark(w, pid);
    w->sub.n = 0;
    pb_uint(&w->sub, PF_PROCESS_PID, pid);
    if (exe && *exe)
        pb_bytes(&w->sub, PF_PROCESS_NAME, base_name(exe), strlen(base_name(exe)));
    pb_bytes(&w->sub, PF_PROCESS_LABELS, w->label, strlen(w->label)); /* host (and MPI rank) */
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_TRACK_UUID, pfw_track_uuid(pid, 0));
    pb_bytes(&w->tmp, PF_TRACK_PROCESS, w->sub.p, w->sub.n);
    pfw_packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_DESCRIPTOR, w->tmp.p, w->tmp.n);
    pfw_packet_end(w);
}

/* Thread (pid, tid)'s TrackDescriptor with name. */
static void thread_descriptor(struct record_writer *w, uint64_t t, uint32_t pid, uint32_t tid,
                              const char *name)
{
    w->sub.n = 0;
    pb_uint(&w->sub, PF_THREAD_PID, pid);
    pb_uint(&w->sub, PF_THREAD_TID, tid);
    if (*name)
        pb_bytes(&w->sub, PF_THREAD_NAME, name, strlen(name));
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_TRACK_UUID, pfw_track_uuid(pid, tid));
    pb_bytes(&w->tmp, PF_TRACK_THREAD, w->sub.p, w->sub.n);
    pfw_packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_DESCRIPTOR, w->tmp.p, w->tmp.n);
    pfw_packet_end(w);
}

/* Declare thread (pid, tid) with name unless it is already declared with that name. */
static void declare_thread(struct record_writer *w, uint64_t t, uint32_t pid, uint32_t tid,
                           const char *name)
{
    if (!name)
        name = "";
    if (pfw_thread_set_name(w, pid, tid, name))
        thread_descriptor(w, t, pid, tid, name);
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

/* Declare pid's process track unless it is (a named track's parent must exist). */
static void ensure_process(struct record_writer *w, uint64_t t, uint32_t pid)
{
    const struct model_process *p;

    if (pfw_process_declared(w, pid))
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

/* The TrackDescriptor of pid's track uuid called name (kind PF_TRACK_KIND_*): a child of the
 * process track, or a top-level track for pid 0. */
static void track_descriptor(struct record_writer *w, uint64_t t, uint32_t pid, uint32_t kind,
                             const char *name, const char *unit, uint64_t uuid)
{
    w->tmp.n = 0;
    pb_uint(&w->tmp, PF_TRACK_UUID, uuid);
    pb_bytes(&w->tmp, PF_TRACK_NAME, name, strlen(name));
    if (pid)
        pb_uint(&w->tmp, PF_TRACK_PARENT_UUID, pfw_track_uuid(pid, 0));
    if (kind == PF_TRACK_KIND_COUNTER) {
        w->sub.n = 0;
        put_counter_unit(&w->sub, unit);
        pb_bytes(&w->tmp, PF_TRACK_COUNTER, w->sub.p, w->sub.n);
    }
    pfw_packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_DESCRIPTOR, w->tmp.p, w->tmp.n);
    pfw_packet_end(w);
}

/* The uuid of pid's track called name (kind PF_TRACK_KIND_*), declared on first use. */
static uint64_t named_track(struct record_writer *w, uint64_t t, uint32_t pid, uint32_t kind,
                            const char *name, const char *unit)
{
    uint64_t uuid;

    if (!pfw_track_intern(w, pid, kind, name, unit, &uuid))
        return uuid;
    if (pid)
        ensure_process(w, t, pid);
    track_descriptor(w, t, pid, kind, name, unit, uuid);
    return uuid;
}

/* Write a TrackEvent (already encoded in w->sub) at time t. */
static void emit_track_event(struct record_writer *w, uint64_t t)
{
    pfw_packet_begin(w, t, PF_SEQ_NEEDS);
    pb_bytes(&w->pkt, PF_PACKET_TRACK_EVENT, w->sub.p, w->sub.n);
    pfw_packet_end(w);
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
        if (!pfw_thread_declared(w, ev->pid, ev->tid))
            declare_thread(w, ev->time_ns, ev->pid, ev->tid,
                           model_thread_name(w->m, ev->pid, ev->tid));
        uuid = pfw_track_uuid(ev->pid, ev->tid);
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
        pfw_packet_begin_delta(w, e->mono_ns);
        if (w->pend_in.n) {
            pb_bytes(&w->pkt, PF_PACKET_INTERNED_DATA, w->pend_in.p, w->pend_in.n);
            w->pend_in.n = 0;
        }
        w->tmp.n = 0;
        pb_uint(&w->tmp, PF_SAMPLE_PID, e->pid);
        pb_uint(&w->tmp, PF_SAMPLE_TID, e->tid);
        pb_uint(&w->tmp, PF_SAMPLE_CALLSTACK_IID, e->stack);
        pb_bytes(&w->pkt, PF_PACKET_PERF_SAMPLE, w->tmp.p, w->tmp.n);
        pfw_packet_end(w);
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

    if (!pfw_thread_declared(w, ev->pid, ev->tid))
        declare_thread(w, ev->time_ns, ev->pid, ev->tid, model_thread_name(w->m, ev->pid, ev->tid));
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        in[i]->n = 0;
    uint32_t path = ev->path;
    if (!path && ev->nframes) /* a sample the session did not count first (tests) */
        path = model_sample_path(w->m, ev->pid, ev->frames, ev->nframes);
    e.stack = pfw_intern_path(w, path);
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
        pb_append(&w->pend_in, in[i]);
    e.repeat = ev->weight <= 1 ? 1 : ev->weight <= PF_MAX_REPEAT ? ev->weight : PF_MAX_REPEAT;
    heap_push(w, &e);
    if (ev->time_ns > w->newest_ns)
        w->newest_ns = ev->time_ns;
    reorder_flush(w, 0);
}

/* A rolling trace (--keep): close the chunk and start the next one, readable on its own: the
 * incremental state cleared and the clocks anchored again, every process, thread and named
 * track declared again, the interned data of the samples still in the reorder window written
 * again (with the next sample). */
static void roll(struct record_writer *w)
{
    struct pb *in[] = {&w->in_fn, &w->in_path, &w->in_map, &w->in_frame, &w->in_stack};
    uint64_t t = w->pkt_ns > w->anchor_ns ? w->pkt_ns : w->anchor_ns;

    w->roll_due = 0;
    if (pfw_roll_next_file(w) != 0)
        return;
    pfw_intern_new_gen(w);
    pfw_packet_anchor(w, t, (uint64_t)((int64_t)t + w->boot_offset), 0);
    w->chunks[w->nchunks - 1].start_ns = t;
    for (size_t i = 0; i < w->ndecl_procs; i++) {
        const struct model_process *p = model_process_find(w->m, w->decl_procs[i]);
        emit_process(w, t, w->decl_procs[i], p ? p->exe : NULL);
    }
    for (size_t i = 0; i < w->ndecl_threads; i++) {
        uint32_t pid = (uint32_t)(w->decl_threads[i] >> 32), tid = (uint32_t)w->decl_threads[i];
        thread_descriptor(w, t, pid, tid, pfw_thread_name(w, pid, tid));
    }
    for (size_t i = 0; i < w->tracks.cap; i++) {
        const struct ient *e = &w->tracks.e[i];
        if (!e->used)
            continue;
        const char *name = w->strs[e->k], *unit = e->c ? w->strs[e->c - 1] : NULL;
        track_descriptor(w, t, e->a, e->b, name, unit, pfw_track_uuid_of(e));
    }
    w->pend_in.n = 0; /* the interned data of the old chunk, for the samples below */
    for (size_t h = 0; h < w->nheap; h++) {
        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
            in[i]->n = 0;
        pfw_intern_path(w, w->heap[h].stack);
        for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
            pb_append(&w->pend_in, in[i]);
    }
}

static struct record_writer *perfetto_open(const char *path, struct model *m, char *err,
                                           size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));
    uint64_t mono, boot;

    w->m = m;
    if (pfw_roll_open(w, path) != 0) {
        snprintf(err, errlen, "cannot write the Perfetto trace %s: %s", path, strerror(errno));
        free(w->chunks);
        free(w->chunk_dir);
        free(w->final_path);
        free(w);
        return NULL;
    }
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
    w->seq = 1 + (uint32_t)(hash_mix64((uint64_t)getpid() << 40 ^ boot) % 16383);
    if (model_session(m)->rank >= 0) /* MPI ranks: distinct ids, so merged traces stay valid */
        w->seq = 1 + (uint32_t)model_session(m)->rank % 16383;
    pfw_packet_anchor(w, mono, boot, 1);
    if (w->nchunks)
        w->chunks[0].start_ns = mono;
    return w;
}

static void perfetto_event(struct record_writer *w, const struct record_event *ev)
{
    if (w->keep_ns && w->pkt_ns >= w->chunks[w->nchunks - 1].start_ns + w->keep_ns / PF_KEEP_PARTS)
        w->roll_due = 1; /* DURATION: a chunk spans a quarter of it ... */
    if (w->keep_ns && w->nchunks > 1 && w->chunks[0].last_ns + w->keep_ns <= w->pkt_ns)
        pfw_roll_drop(w); /* ... and goes as soon as the newer ones span it */
    if (w->roll_due && !w->failed)
        roll(w);
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
    pfw_flush_out(w);
    pfw_roll_close(w); /* (a rolling trace: its kept chunks into the file) */
    int err = w->err;
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        free(bufs[i]->p);
    free(w->zout.p);
    if (w->z_ok)
        deflateEnd(&w->z);
    pfw_intern_free(w);
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
    *heap_bytes = (w->names.cap + w->modules.cap + w->tracks.cap) * sizeof(struct ient) +
                  (w->threads.cap + w->procs.cap) * (sizeof(uint64_t) + sizeof(uint32_t)) +
                  w->cap_func_frames * sizeof(uint32_t) + w->cap_stack_written * sizeof(uint64_t) +
                  w->capstrs * sizeof(char *) + w->out.cap + w->pkt.cap +
                  w->capstack * sizeof(uint32_t) + w->capheap * sizeof(struct pf_pending) +
                  w->pend_in.cap + w->capchunks * sizeof(struct pf_chunk) +
                  w->capdecl_threads * sizeof(uint64_t) + w->capdecl_procs * sizeof(uint32_t) +
                  (w->func_gen ? w->cap_func_frames * sizeof(uint32_t) : 0);
}

const struct record_writer_class record_perfetto = {
    .name = "perfetto",
    .open = perfetto_open,
    .event = perfetto_event,
    .close = perfetto_close,
    .error = perfetto_error,
};
