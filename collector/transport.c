/* Shared-memory ring transport (see transport.h and protocol.h). */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Byte offsets of the parts of a session file with ring_count rings. */
static void layout(uint32_t ring_count, uint32_t ring_bytes, uint64_t *rings_off,
                   uint64_t *data_off, uint64_t *total)
{
    uint64_t r = (sizeof(struct rocsys_shm_header) + 63) & ~(uint64_t)63;
    uint64_t d = r + (uint64_t)ring_count * sizeof(struct rocsys_ring_ctl);
    d = (d + 4095) & ~(uint64_t)4095;
    *rings_off = r;
    *data_off = d;
    *total = d + (uint64_t)ring_count * ring_bytes;
}

/* Point t's fields into a mapping of map_bytes at base. */
static void bind(struct transport *t, void *base, size_t map_bytes)
{
    t->hdr = base;
    t->rings = (struct rocsys_ring_ctl *)((uint8_t *)base + t->hdr->rings_offset);
    t->data = (uint8_t *)base + t->hdr->data_offset;
    t->map_bytes = map_bytes;
    t->ring_count = t->hdr->ring_count;
    t->ring_bytes = t->hdr->ring_bytes;
}

int transport_create(struct transport *t, const char *path, uint32_t ring_count,
                     uint32_t ring_bytes)
{
    int rc = 0;
    int fd = -1;
    int created = 0;
    uint64_t rings_off, data_off, total;
    void *base = MAP_FAILED;

    memset(t, 0, sizeof(*t));
    if (ring_count == 0 || ring_bytes < 4096 || (ring_bytes & (ring_bytes - 1)) != 0)
        return -EINVAL;
    layout(ring_count, ring_bytes, &rings_off, &data_off, &total);
    fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    created = 1;
    if (ftruncate(fd, (off_t)total) != 0) {
        rc = -errno;
        goto out;
    }
    base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        rc = -errno;
        goto out;
    }
    struct rocsys_shm_header *h = base;
    h->version = ROCSYS_PROTOCOL_VERSION;
    h->ring_count = ring_count;
    h->ring_bytes = ring_bytes;
    h->rings_offset = rings_off;
    h->data_offset = data_off;
    atomic_store(&h->next_instance, 1);
    bind(t, base, total);
    /* magic last: a producer that sees it sees a complete header */
    atomic_thread_fence(memory_order_release);
    h->magic = ROCSYS_SHM_MAGIC;
out:
    if (fd >= 0)
        close(fd);
    if (rc != 0 && created)
        unlink(path); /* only a file this call made */
    return rc;
}

int transport_attach(struct transport *t, const char *path)
{
    int rc = 0;
    int fd = -1;
    struct stat st;
    void *base = MAP_FAILED;

    memset(t, 0, sizeof(*t));
    fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    if (fstat(fd, &st) != 0) {
        rc = -errno;
        goto out;
    }
    if ((size_t)st.st_size < sizeof(struct rocsys_shm_header)) {
        rc = -EINVAL;
        goto out;
    }
    base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED) {
        rc = -errno;
        goto out;
    }
    const struct rocsys_shm_header *h = base;
    uint64_t rings_off, data_off, total;
    if (h->magic != ROCSYS_SHM_MAGIC || h->version != ROCSYS_PROTOCOL_VERSION ||
        h->ring_count == 0 || h->ring_bytes < 4096) {
        rc = -EPROTO;
        goto out;
    }
    layout(h->ring_count, h->ring_bytes, &rings_off, &data_off, &total);
    if (total > (uint64_t)st.st_size || rings_off != h->rings_offset ||
        data_off != h->data_offset) {
        rc = -EPROTO;
        goto out;
    }
    bind(t, base, (size_t)st.st_size);
    base = MAP_FAILED;
out:
    if (base != MAP_FAILED)
        munmap(base, (size_t)st.st_size);
    if (fd >= 0)
        close(fd);
    return rc;
}

void transport_detach(struct transport *t)
{
    if (t->hdr)
        munmap(t->hdr, t->map_bytes);
    memset(t, 0, sizeof(*t));
}

int transport_claim(struct transport *t, uint32_t pid, uint32_t tid, uint32_t instance,
                    struct transport_ring *out)
{
    uint32_t n = t->ring_count;
    /* start at a tid-dependent ring so that concurrent claims rarely collide */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = (tid + k) % n;
        struct rocsys_ring_ctl *c = &t->rings[i];
        uint32_t expect = ROCSYS_RING_FREE;
        if (atomic_load_explicit(&c->state, memory_order_relaxed) != ROCSYS_RING_FREE)
            continue;
        /* a transient state value nobody else uses while we fill in the owner */
        if (!atomic_compare_exchange_strong(&c->state, &expect, 0xffffffffu))
            continue;
        c->pid = pid;
        c->tid = tid;
        c->instance = instance;
        atomic_store_explicit(&c->dropped_samples, 0, memory_order_relaxed);
        atomic_store_explicit(&c->dropped_records, 0, memory_order_relaxed);
        atomic_store_explicit(&c->sample_cost_ns, 0, memory_order_relaxed);
        atomic_store_explicit(&c->cost_measured, 0, memory_order_relaxed);
        /* the consumer left head == tail when it freed the ring */
        atomic_store_explicit(&c->state, ROCSYS_RING_OWNED, memory_order_release);
        out->ctl = c;
        out->data = t->data + (uint64_t)i * t->ring_bytes;
        out->mask = t->ring_bytes - 1;
        return 0;
    }
    return -EBUSY;
}

void transport_release(struct transport_ring *r)
{
    if (r->ctl)
        atomic_store_explicit(&r->ctl->state, ROCSYS_RING_RELEASED, memory_order_release);
    r->ctl = NULL;
}

int transport_write(struct transport_ring *r, const void *rec)
{
    const struct rocsys_rec_header *h = rec;
    uint32_t size = h->size;
    uint64_t cap = (uint64_t)r->mask + 1;
    uint64_t head = atomic_load_explicit(&r->ctl->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
    uint64_t off = head & r->mask;
    uint64_t pad = (off + size > cap) ? cap - off : 0;

    if (size < sizeof(*h) || (size & 7) != 0 || size > cap / 2)
        return -EINVAL;
    if ((head - tail) + pad + size > cap)
        return -ENOSPC;
    if (pad != 0) {
        struct rocsys_rec_header p = {.type = ROCSYS_REC_PAD, .flags = 0, .size = (uint32_t)pad};
        memcpy(r->data + off, &p, sizeof(p));
        head += pad;
        off = 0;
    }
    memcpy(r->data + off, rec, size);
    atomic_store_explicit(&r->ctl->head, head + size, memory_order_release);
    return 0;
}

size_t transport_drain_ring(struct transport *t, uint32_t i, transport_record_fn fn, void *ctx)
{
    struct rocsys_ring_ctl *c = &t->rings[i];
    uint8_t *data = t->data + (uint64_t)i * t->ring_bytes;
    uint64_t mask = t->ring_bytes - 1;
    uint64_t tail = atomic_load_explicit(&c->tail, memory_order_relaxed);
    uint64_t head = atomic_load_explicit(&c->head, memory_order_acquire);
    /* the producer may have scribbled anything: a private copy of the ring's owner, and of
     * each record before it is validated and used */
    struct rocsys_ring_ctl owner;
    static uint64_t rec[65536 / 8]; /* records are far smaller (a sample: about 1 KiB) */
    size_t n = 0;

    owner.pid = c->pid;
    owner.tid = c->tid;
    owner.instance = c->instance;
    if (head - tail > mask + 1)
        tail = head; /* impossible distance: a corrupt ring, skip what is there */
    while (tail < head) {
        const uint8_t *src = data + (tail & mask);
        struct rocsys_rec_header h;
        uint64_t room = mask + 1 - (tail & mask);
        memcpy(&h, src, sizeof(h));
        if (h.size < sizeof(h) || (h.size & 7) != 0 || h.size > room || h.size > head - tail ||
            h.size > sizeof(rec)) {
            tail = head; /* a corrupt record: skip the rest */
            break;
        }
        if (h.type != ROCSYS_REC_PAD) {
            memcpy(rec, src, h.size);
            memcpy(rec, &h, sizeof(h)); /* the header as validated, not as re-read */
            fn(ctx, &owner, (const struct rocsys_rec_header *)rec);
            n++;
        }
        tail += h.size;
    }
    atomic_store_explicit(&c->tail, tail, memory_order_release);
    return n;
}

void transport_free_ring(struct transport *t, uint32_t i)
{
    struct rocsys_ring_ctl *c = &t->rings[i];
    uint64_t head = atomic_load_explicit(&c->head, memory_order_acquire);
    atomic_store_explicit(&c->tail, head, memory_order_relaxed);
    atomic_store_explicit(&c->state, ROCSYS_RING_FREE, memory_order_release);
}
