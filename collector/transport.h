/* Lock-free shared-memory transport: per-thread single-producer rings, one consumer.
 * The producer half runs inside the target (async-signal-safe, never blocks, never allocates);
 * the consumer half runs in the front end. Both halves are built from transport.c. */
#ifndef ROCSYS_COLLECTOR_TRANSPORT_H
#define ROCSYS_COLLECTOR_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "protocol.h"

struct transport {
    struct rocsys_shm_header *hdr;
    struct rocsys_ring_ctl *rings;
    uint8_t *data;
    size_t map_bytes;
    /* the layout, copied when mapped: the consumer never re-reads it from shared memory that
     * a target could overwrite */
    uint32_t ring_count;
    uint32_t ring_bytes;
};

/* Producer-side handle of one claimed ring. */
struct transport_ring {
    struct rocsys_ring_ctl *ctl;
    uint8_t *data;
    uint32_t mask; /* ring_bytes - 1 */
};

/* Consumer: create the shared file at path with ring_count rings of ring_bytes each
 * (a power of two >= 4096). Returns 0 or -errno. */
int transport_create(struct transport *t, const char *path, uint32_t ring_count,
                     uint32_t ring_bytes);
/* Producer: map an existing session file. Returns 0 or -errno. Async-signal-safe. */
int transport_attach(struct transport *t, const char *path);
/* Unmap (both sides). */
void transport_detach(struct transport *t);

/* Producer: claim a free ring for (pid, tid, instance). Returns 0, or -EBUSY when none is free.
 * Async-signal-safe (a scan of the ring states and one CAS). */
int transport_claim(struct transport *t, uint32_t pid, uint32_t tid, uint32_t instance,
                    struct transport_ring *out);
/* Producer: hand the ring back to the consumer for a final drain. */
void transport_release(struct transport_ring *r);
/* Producer: copy one record (h->size bytes, h->size a multiple of 8) into the ring.
 * Returns 0, or -ENOSPC when the consumer is behind (nothing written). */
int transport_write(struct transport_ring *r, const void *rec);

/* Consumer callback for one record; ctl identifies the ring (pid, tid, instance). */
typedef void (*transport_record_fn)(void *ctx, const struct rocsys_ring_ctl *ctl,
                                    const struct rocsys_rec_header *rec);
/* Consumer: deliver every committed record of ring i to fn, in order; returns records read. */
size_t transport_drain_ring(struct transport *t, uint32_t i, transport_record_fn fn, void *ctx);
/* Consumer: mark ring i free after its owner released it (or died) and it was drained. */
void transport_free_ring(struct transport *t, uint32_t i);

#endif
