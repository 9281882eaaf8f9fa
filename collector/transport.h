/* Lock-free shared-memory transport: per-thread single-producer rings, one consumer.
 * The producer half runs inside the target (async-signal-safe, never blocks, never allocates;
 * transport_write_wait is the one exception: normal context only, a bounded wait); the consumer
 * half runs in the front end. Both halves are built from transport.c. Flow control (doorbell,
 * waiting for room): see protocol.h. */
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
    uint32_t ring_count;     /* all rings: thread rings, then GPU rings */
    uint32_t ring_bytes;     /* size of a thread ring */
    uint32_t gpu_ring_count; /* the last gpu_ring_count of the ring_count rings ... */
    uint32_t gpu_ring_bytes; /* ... have this size */
};

/* Producer-side handle of one claimed ring. */
struct transport_ring {
    struct rocsys_shm_header *hdr; /* doorbell and flow-control words */
    struct rocsys_ring_ctl *ctl;
    uint8_t *data;
    uint32_t mask; /* ring_bytes - 1 */
    /* producer: when its running wait for room began (0: none), for --causal's own clock (a
     * sample inside the wait leaves it out of the program's time) */
    volatile uint64_t wait_t0;
};

/* Consumer: create the shared file at path with ring_count thread rings of ring_bytes each
 * and gpu_ring_count GPU rings of gpu_ring_bytes (sizes powers of two >= 4096). Returns 0 or
 * -errno. */
int transport_create(struct transport *t, const char *path, uint32_t ring_count,
                     uint32_t ring_bytes, uint32_t gpu_ring_count, uint32_t gpu_ring_bytes);
/* Producer: map an existing session file. Returns 0 or -errno. Async-signal-safe. */
int transport_attach(struct transport *t, const char *path);
/* Unmap (both sides). */
void transport_detach(struct transport *t);

/* Producer: claim a free ring for (pid, tid, instance). Returns 0, or -EBUSY when none is free.
 * Async-signal-safe (a scan of the ring states and one CAS). */
int transport_claim(struct transport *t, uint32_t pid, uint32_t tid, uint32_t instance,
                    struct transport_ring *out);
/* Producer: claim a free GPU ring (normal context). Returns 0, or -EBUSY when none is free. */
int transport_claim_gpu(struct transport *t, uint32_t pid, uint32_t tid, uint32_t instance,
                        struct transport_ring *out);
/* Producer: hand the ring back to the consumer for a final drain. */
void transport_release(struct transport_ring *r);
/* Producer: copy one record (h->size bytes, h->size a multiple of 8) into the ring.
 * Returns 0, or -ENOSPC when the consumer is behind (nothing written). When the ring passes
 * half full it rings the doorbell. Async-signal-safe, never blocks. */
int transport_write(struct transport_ring *r, const void *rec);
/* Producer: room for a record of up to size bytes (a multiple of 8), written in place: returns
 * where to write it, or NULL when it does not fit (nothing is published). The record becomes
 * visible with transport_commit(r, actual size <= size); nothing else may be written to the ring
 * in between. Async-signal-safe, never blocks. */
void *transport_reserve(struct transport_ring *r, uint32_t size);
/* Producer: bytes free in the ring now (async-signal-safe). */
uint64_t transport_room(const struct transport_ring *r);
void transport_commit(struct transport_ring *r, uint32_t size);
/* Producer, normal context only: as transport_write, but when the ring is full, ring the
 * doorbell and wait for the consumer to make room: while it keeps draining, up to 4 x
 * max_wait_ns in all; after max_wait_ns without a drain pass it is marked stalled and nobody
 * waits again until it drains (nor while it is gone). Returns 0 or -ENOSPC. */
int transport_write_wait(struct transport_ring *r, const void *rec, uint64_t max_wait_ns);
/* Producer, normal context only: wait until ring ctl (any thread's) holds at most max_used
 * bytes, ringing the doorbell, at most max_wait_ns in all (stall rules as above: a consumer
 * that drains while the level stays high is behind, not stalled). The
 * wait is counted in the caller's ring r. Returns 0 or -ETIMEDOUT. */
int transport_wait_room(struct transport_ring *r, const struct rocsys_ring_ctl *ctl,
                        uint64_t max_used, uint64_t max_wait_ns);
/* Producer: wake the consumer now (async-signal-safe). */
void transport_ring_doorbell(struct rocsys_shm_header *hdr);

/* Consumer callback for one record; ctl identifies the ring (pid, tid, instance). */
typedef void (*transport_record_fn)(void *ctx, const struct rocsys_ring_ctl *ctl,
                                    const struct rocsys_rec_header *rec);
/* Consumer: deliver every committed record of ring i to fn, in order; returns records read. Room
 * is returned to the producer (and waiting producers woken) every 256 records, not only at the
 * end. */
size_t transport_drain_ring(struct transport *t, uint32_t i, transport_record_fn fn, void *ctx);
/* Consumer: mark ring i free after its owner released it (or died) and it was drained. */
void transport_free_ring(struct transport *t, uint32_t i);
/* Consumer: a drain pass over every ring is complete: wake producers waiting for room. */
void transport_drained(struct transport *t);
/* Consumer: sleep until the doorbell word differs from *seen or timeout_ms passed; updates
 * *seen and returns 1 when it rang, else 0. */
int transport_doorbell_wait(struct transport *t, uint32_t *seen, int timeout_ms);
/* Consumer: the doorbell's value now (to start waiting from). */
uint32_t transport_doorbell_value(const struct transport *t);
/* Consumer: no more drains will come (producers stop waiting for room); wake any waiter. */
void transport_consumer_gone(struct transport *t);

#endif
