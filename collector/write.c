/* Records that must not be lost, written from normal context on any thread (HIP, HSA, exec,
 * regions, launch stacks): a thread the collector never set up claims a ring first. */
#define _GNU_SOURCE
#include "collector.h"

#include <errno.h>
#include <string.h>

int collector_write_any(const void *rec)
{
    struct collector_thread *ts = &collector_tls;
    int rc;

    if (!collector_g.enabled)
        return -ENODEV;
    if (!ts->ring.ctl) {
        if (!ts->tid)
            ts->tid = collector_gettid();
        ts->busy = 1;
        rc = collector_thread_claim_late(ts);
        ts->busy = 0;
        if (rc != 0) { /* counted: the thread is reported as one without a ring */
            ts->lost_no_ring = 1;
            atomic_fetch_add_explicit(&collector_g.transport.hdr->dropped_no_ring, 1,
                                      memory_order_relaxed);
            atomic_fetch_add_explicit(&collector_g.transport.hdr->records_no_ring, 1,
                                      memory_order_relaxed);
            return rc;
        }
    }
    return collector_write_normal(rec);
}

/* Write a HIP_NAME record for id (normal context). */
void collector_write_name(uint32_t type, uint64_t key, const char *name, size_t len)
{
    union {
        struct rocsys_rec_name rec;
        uint8_t bytes[sizeof(struct rocsys_rec_name) + ROCSYS_KERNEL_NAME_MAX + 8];
    } u;

    if (len > ROCSYS_KERNEL_NAME_MAX)
        len = ROCSYS_KERNEL_NAME_MAX;
    memset(&u.rec, 0, sizeof(u.rec));
    u.rec.h.type = type;
    u.rec.h.size = rocsys_rec_align((uint32_t)(sizeof(u.rec) + len));
    u.rec.pid = collector_g.pid;
    u.rec.name_len = (uint32_t)len;
    u.rec.key = key;
    memcpy(u.bytes + sizeof(u.rec), name, len);
    collector_write_any(&u.rec);
}
