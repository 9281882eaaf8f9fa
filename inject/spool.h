/* The spool: a front-end thread that empties the collector's rings into memory as they fill, so
 * that the target never loses a sample while the front end's main loop is busy (symbolizing a
 * new library, drawing, writing a recording). The main loop takes what was spooled in one swap
 * and decodes it at its own pace. */
#ifndef ROCSYS_INJECT_SPOOL_H
#define ROCSYS_INJECT_SPOOL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/transport.h"

/* One spooled record: its ring's owner, then the record itself (8-byte aligned). */
struct spool_rec {
    uint32_t pid, tid, instance, pad;
};

/* Called with the spool locked when a ring is about to be freed (its counters are final). */
typedef void (*spool_release_fn)(void *ctx, const struct rocsys_ring_ctl *ring);

/* Spooled bytes: spool_rec + record, one after the other. */
struct spool_buf {
    uint8_t *data;
    size_t len, cap;
};

struct spool {
    struct transport *tr;
    pthread_mutex_t lock;
    struct spool_buf buf; /* what the thread spooled since the last spool_take */
    size_t limit_bytes;   /* past this, rings are left to fill (their drops are counted) */
    uint64_t bytes_total; /* spooled since the start */
    size_t peak_bytes;    /* the most ever waiting for the main loop */
    spool_release_fn release;
    void *ctx;
    int wake_fd; /* eventfd: a ring passed half full (the main loop decodes now) */
    pthread_t thread;
    int running;
    _Atomic int stop;
};

/* Prepare the spool over tr (no thread yet). release is called for every ring freed. */
void spool_init(struct spool *sp, struct transport *tr, spool_release_fn release, void *ctx);
/* Start the thread; without it spool_pass in the main loop still works. 0 or -errno. */
int spool_start(struct spool *sp);
/* Stop the thread (returns within one poll interval) and close the eventfd. */
void spool_stop(struct spool *sp);
/* Free the buffers (after spool_stop). */
void spool_free(struct spool *sp);

void spool_lock(struct spool *sp);
void spool_unlock(struct spool *sp);
/* With the spool locked: drain every ring into the spool and free the released ones. */
void spool_pass(struct spool *sp);
/* With the spool locked: drain ring i into the spool and free it (its owner is gone). */
void spool_reap(struct spool *sp, uint32_t i);
/* With the spool locked: hand the spooled bytes to *out (whose old buffer, emptied, the spool
 * reuses). */
void spool_take(struct spool *sp, struct spool_buf *out);

#endif
