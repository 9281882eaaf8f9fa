/* The Perfetto writer's encoding (perfetto_write.h): packets framed as Trace.packet records with
 * their timestamp, clock and sequence fields, buffered and written out a chunk at a time, each
 * chunk deflated into one compressed_packets packet. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_write.h"

#include "base/ostream.h"

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
void pfw_flush_out(struct record_writer *w)
{
    const uint8_t *p = w->out.p;
    size_t n = w->out.n, total;

    if (n == 0)
        return;
    if (w->z_ok && !(p = compress_out(w, &n))) {
        p = w->out.p; /* deflate failed: the chunk as it is */
        n = w->out.n;
    }
    total = n;
    int err = w->failed ? 0 : ostream_write_all(w->fd, p, n, NULL);
    if (err) {
        w->failed = 1;
        w->err = err;
    }
    w->out.n = 0;
    if (w->nchunks && !w->failed)
        pfw_roll_written(w, total);
}

/* A rolling trace: the current chunk's span grows to mono_ns. */
static inline void chunk_time(struct record_writer *w, uint64_t mono_ns)
{
    if (w->nchunks) {
        struct pf_chunk *c = &w->chunks[w->nchunks - 1];
        if (mono_ns < c->first_ns)
            c->first_ns = mono_ns;
        if (mono_ns > c->last_ns)
            c->last_ns = mono_ns;
    }
}

/* Start a packet at an absolute time: BOOTTIME with its clock id, sequence id and flags. */
void pfw_packet_begin(struct record_writer *w, uint64_t mono_ns, uint32_t flags)
{
    if (mono_ns > w->pkt_ns)
        w->pkt_ns = mono_ns;
    chunk_time(w, mono_ns);
    w->pkt.n = 0;
    pb_uint(&w->pkt, PF_PACKET_TIMESTAMP, (uint64_t)((int64_t)mono_ns + w->boot_offset));
    pb_uint(&w->pkt, PF_PACKET_TIMESTAMP_CLOCK, PF_BUILTIN_BOOTTIME);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_ID, w->seq);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_FLAGS, flags);
}

/* Start a sample packet: a delta on the sequence's incremental clock, or an absolute time when
 * the sample is older than the clock's last packet (a negative delta is never written). */
void pfw_packet_begin_delta(struct record_writer *w, uint64_t mono_ns)
{
    uint64_t boot = (uint64_t)((int64_t)mono_ns + w->boot_offset);

    if (boot < w->delta_base_ns) {
        pfw_packet_begin(w, mono_ns, PF_SEQ_NEEDS);
        return;
    }
    if (mono_ns > w->pkt_ns)
        w->pkt_ns = mono_ns;
    chunk_time(w, mono_ns);
    w->pkt.n = 0;
    pb_uint(&w->pkt, PF_PACKET_TIMESTAMP, boot - w->delta_base_ns);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_ID, w->seq);
    pb_uint(&w->pkt, PF_PACKET_SEQUENCE_FLAGS, PF_SEQ_NEEDS);
    w->delta_base_ns = boot;
}

/* Frame the packet as a Trace.packet record into the output buffer. */
void pfw_packet_end(struct record_writer *w)
{
    pb_bytes(&w->out, PF_TRACE_PACKET, w->pkt.p, w->pkt.n);
    if (!w->flushed_ns)
        w->flushed_ns = w->pkt_ns;
    if (w->out.n >= PF_CHUNK || w->pkt_ns >= w->flushed_ns + PF_FLUSH_NS) {
        pfw_flush_out(w);
        w->flushed_ns = w->pkt_ns;
    }
}

void pfw_packet_anchor(struct record_writer *w, uint64_t mono, uint64_t boot, int first)
{
    pfw_packet_begin(w, mono, PF_SEQ_CLEARED | PF_SEQ_NEEDS);
    if (first) /* (a later chunk of a rolling trace follows others: not the first) */
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
    pfw_packet_end(w);
    w->delta_base_ns = boot;
    w->anchor_ns = mono;
}
