/* Shared-memory ring transport (see transport.h and protocol.h). */
#include "transport.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_SLICE_NS         10000000ull /* a waiting producer re-checks its ring at least this often */
#define WAIT_TOTAL_FACTOR     4           /* a record waits at most this many max_wait_ns in all */
#define DRAIN_RELEASE_RECORDS 256         /* a drain returns room to the producer this often */

_Static_assert(offsetof(struct rocsys_ring_ctl, head) == 64, "ring cursors on their own lines");
_Static_assert(sizeof(struct rocsys_shm_header) == 408, "header size is part of the layout");
_Static_assert(sizeof(struct rocsys_causal_ctl) == 288, "causal block (version 11) size");
_Static_assert(sizeof(struct rocsys_ring_ctl) == 192, "ring control block size");

/* futex(2) on a word of the shared mapping (not FUTEX_PRIVATE: other processes use it too).
 * Returns the system call's result; errno is left as it was (signal handlers call this). */
static long futex_op(_Atomic uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
    int saved = errno;
    long rc = syscall(SYS_futex, (uint32_t *)word, op, val, timeout, NULL, 0);
    errno = saved;
    return rc;
}

/* CLOCK_MONOTONIC in ns. */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Byte offsets of the parts of a session file with ring_count thread rings and gpu_count GPU
 * rings (the sizes were checked: the total cannot overflow). */
static void layout(uint32_t ring_count, uint32_t ring_bytes, uint32_t gpu_count, uint32_t gpu_bytes,
                   uint64_t *rings_off, uint64_t *data_off, uint64_t *total)
{
    uint64_t r = (sizeof(struct rocsys_shm_header) + 63) & ~(uint64_t)63;
    uint64_t d = r + ((uint64_t)ring_count + gpu_count) * sizeof(struct rocsys_ring_ctl);
    d = (d + 4095) & ~(uint64_t)4095;
    *rings_off = r;
    *data_off = d;
    *total = d + (uint64_t)ring_count * ring_bytes + (uint64_t)gpu_count * gpu_bytes;
}

/* A ring size is usable: a power of two of at least 4096 bytes. */
static int size_ok(uint32_t bytes)
{
    return bytes >= 4096 && (bytes & (bytes - 1)) == 0;
}

/* Point t's fields into a mapping of map_bytes at base. */
static void bind(struct transport *t, void *base, size_t map_bytes)
{
    t->hdr = base;
    t->rings = (struct rocsys_ring_ctl *)((uint8_t *)base + t->hdr->rings_offset);
    t->data = (uint8_t *)base + t->hdr->data_offset;
    t->map_bytes = map_bytes;
    t->gpu_ring_count = t->hdr->gpu_ring_count;
    t->gpu_ring_bytes = t->hdr->gpu_ring_bytes;
    t->ring_count = t->hdr->ring_count + t->gpu_ring_count;
    t->ring_bytes = t->hdr->ring_bytes;
}

/* Data area and size of ring i (thread rings first, then GPU rings). */
static uint8_t *ring_data(const struct transport *t, uint32_t i, uint32_t *bytes)
{
    uint32_t threads = t->ring_count - t->gpu_ring_count;

    if (i < threads) {
        *bytes = t->ring_bytes;
        return t->data + (uint64_t)i * t->ring_bytes;
    }
    *bytes = t->gpu_ring_bytes;
    return t->data + (uint64_t)threads * t->ring_bytes +
           (uint64_t)(i - threads) * t->gpu_ring_bytes;
}

int transport_create(struct transport *t, const char *path, uint32_t ring_count,
                     uint32_t ring_bytes, uint32_t gpu_ring_count, uint32_t gpu_ring_bytes)
{
    int rc = 0;
    int fd = -1;
    int created = 0;
    uint64_t rings_off, data_off, total;
    void *base = MAP_FAILED;

    memset(t, 0, sizeof(*t));
    if (ring_count == 0 || ring_count > 65536 || !size_ok(ring_bytes) || gpu_ring_count > 256 ||
        (gpu_ring_count && !size_ok(gpu_ring_bytes)))
        return -EINVAL;
    layout(ring_count, ring_bytes, gpu_ring_count, gpu_ring_bytes, &rings_off, &data_off, &total);
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
    h->gpu_ring_count = gpu_ring_count;
    h->gpu_ring_bytes = gpu_ring_count ? gpu_ring_bytes : 0;
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
        h->ring_count == 0 || h->ring_count > 65536 || !size_ok(h->ring_bytes) ||
        h->gpu_ring_count > 256 || (h->gpu_ring_count && !size_ok(h->gpu_ring_bytes))) {
        rc = -EPROTO;
        goto out;
    }
    layout(h->ring_count, h->ring_bytes, h->gpu_ring_count, h->gpu_ring_bytes, &rings_off,
           &data_off, &total);
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

/* Claim a free ring among [first, first + n) for (pid, tid, instance). Async-signal-safe. */
static int claim_range(struct transport *t, uint32_t first, uint32_t n, uint32_t pid, uint32_t tid,
                       uint32_t instance, struct transport_ring *out)
{
    /* start at a tid-dependent ring so that concurrent claims rarely collide */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t i = first + (tid + k) % n;
        struct rocsys_ring_ctl *c = &t->rings[i];
        uint32_t expect = ROCSYS_RING_FREE, bytes;
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
        atomic_store_explicit(&c->waits, 0, memory_order_relaxed);
        atomic_store_explicit(&c->waited_ns, 0, memory_order_relaxed);
        /* the consumer left head == tail when it freed the ring */
        atomic_store_explicit(&c->state, ROCSYS_RING_OWNED, memory_order_release);
        out->hdr = t->hdr;
        out->ctl = c;
        out->data = ring_data(t, i, &bytes);
        out->mask = bytes - 1;
        return 0;
    }
    return -EBUSY;
}

int transport_claim(struct transport *t, uint32_t pid, uint32_t tid, uint32_t instance,
                    struct transport_ring *out)
{
    return claim_range(t, 0, t->ring_count - t->gpu_ring_count, pid, tid, instance, out);
}

int transport_claim_gpu(struct transport *t, uint32_t pid, uint32_t tid, uint32_t instance,
                        struct transport_ring *out)
{
    return claim_range(t, t->ring_count - t->gpu_ring_count, t->gpu_ring_count, pid, tid, instance,
                       out);
}

void transport_release(struct transport_ring *r)
{
    if (r->ctl)
        atomic_store_explicit(&r->ctl->state, ROCSYS_RING_RELEASED, memory_order_release);
    r->ctl = NULL;
}

void transport_ring_doorbell(struct rocsys_shm_header *hdr)
{
    atomic_fetch_add(&hdr->doorbell, 1);
    /* seq_cst with the consumer's store of doorbell_waiting before its FUTEX_WAIT: either we
     * see it waiting, or its FUTEX_WAIT sees the new doorbell value and does not sleep */
    if (atomic_load(&hdr->doorbell_waiting))
        futex_op(&hdr->doorbell, FUTEX_WAKE, 1, NULL);
}

int transport_write(struct transport_ring *r, const void *rec)
{
    uint32_t size = ((const struct rocsys_rec_header *)rec)->size;
    void *at;

    if (size < sizeof(struct rocsys_rec_header) || (size & 7) != 0 || size > (r->mask + 1u) / 2)
        return -EINVAL;
    at = transport_reserve(r, size);
    if (!at)
        return -ENOSPC;
    memcpy(at, rec, size);
    transport_commit(r, size);
    return 0;
}

void *transport_reserve(struct transport_ring *r, uint32_t size)
{
    uint64_t cap = (uint64_t)r->mask + 1;
    uint64_t head = atomic_load_explicit(&r->ctl->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
    uint64_t off = head & r->mask;
    uint64_t pad = (off + size > cap) ? cap - off : 0;

    if (size < sizeof(struct rocsys_rec_header) || (size & 7) != 0 || size > cap / 2 ||
        head - tail + pad + size > cap)
        return NULL;
    if (pad != 0) {
        /* the PAD is published now (a reservation given up leaves it for the next record) */
        struct rocsys_rec_header p = {.type = ROCSYS_REC_PAD, .flags = 0, .size = (uint32_t)pad};
        memcpy(r->data + off, &p, sizeof(p));
        atomic_store_explicit(&r->ctl->head, head + pad, memory_order_release);
        /* passing half full: wake the consumer now rather than at its next tick */
        if (r->hdr && head - tail < cap / 2 && head - tail + pad >= cap / 2)
            transport_ring_doorbell(r->hdr);
        off = 0;
    }
    return r->data + off;
}

uint64_t transport_room(const struct transport_ring *r)
{
    uint64_t head = atomic_load_explicit(&r->ctl->head, memory_order_relaxed);
    uint64_t tail = atomic_load_explicit(&r->ctl->tail, memory_order_acquire);
    return (uint64_t)r->mask + 1 - (head - tail);
}

void transport_commit(struct transport_ring *r, uint32_t size)
{
    uint64_t cap = (uint64_t)r->mask + 1;
    uint64_t head = atomic_load_explicit(&r->ctl->head, memory_order_relaxed);
    uint64_t used = head - atomic_load_explicit(&r->ctl->tail, memory_order_acquire);

    atomic_store_explicit(&r->ctl->head, head + size, memory_order_release);
    if (r->hdr && used < cap / 2 && used + size >= cap / 2)
        transport_ring_doorbell(r->hdr);
}

/* What a waiting producer waits for: room for its record, or a ring below a fill level. */
struct wait_goal {
    struct transport_ring *r;
    const void *rec;                   /* write this record into r ... */
    const struct rocsys_ring_ctl *ctl; /* ... or else wait until ctl holds <= max_used bytes */
    uint64_t max_used;
};

/* Reach the goal once: 0 when reached (the record written), -ENOSPC when not yet. */
static int goal_try(const struct wait_goal *g)
{
    uint64_t head, tail;

    if (g->rec)
        return transport_write(g->r, g->rec);
    head = atomic_load_explicit(&g->ctl->head, memory_order_relaxed);
    tail = atomic_load_explicit(&g->ctl->tail, memory_order_acquire);
    return head - tail <= g->max_used ? 0 : -ENOSPC;
}

/* Try the goal; while it is not reached, ring the doorbell and sleep until the consumer's next
 * drain pass. Gives up after max_wait_ns without a drain pass (the consumer is stalled: mark it
 * so, and nobody waits again until it drains), or after total_ns in all (the consumer is alive
 * but behind: give up this one goal, no mark). Returns 0 or -ENOSPC. */
static int wait_loop(const struct wait_goal *g, uint64_t max_wait_ns, uint64_t total_ns)
{
    struct rocsys_shm_header *hdr = g->r->hdr;
    int rc = goal_try(g);
    uint64_t t0, now, progress_t;
    uint32_t last_seq;

    if (rc != -ENOSPC || !hdr || max_wait_ns == 0 || atomic_load(&hdr->consumer_gone))
        return rc;
    if (atomic_load(&hdr->stalled_seq) == atomic_load(&hdr->drain_seq) + 1)
        return rc; /* an earlier wait timed out and the consumer has not drained since */
    t0 = now = progress_t = mono_ns();
    last_seq = atomic_load(&hdr->drain_seq);
    g->r->wait_t0 = t0;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_fetch_add(&hdr->space_waiters, 1);
    for (;;) {
        /* read the sequence before looking at the ring: a drain after this read changes it,
         * so FUTEX_WAIT below returns at once instead of missing the wake-up */
        uint32_t seq = atomic_load(&hdr->drain_seq);
        rc = goal_try(g);
        if (rc != -ENOSPC || atomic_load(&hdr->consumer_gone))
            break;
        if (seq != last_seq) { /* the consumer drained since: alive */
            last_seq = seq;
            progress_t = now;
        }
        if (now - progress_t >= max_wait_ns) {
            atomic_store(&hdr->stalled_seq, seq + 1);
            break;
        }
        if (now - t0 >= total_ns)
            break;
        transport_ring_doorbell(hdr);
        uint64_t left = max_wait_ns - (now - progress_t);
        uint64_t slice = left < WAIT_SLICE_NS ? left : WAIT_SLICE_NS;
        struct timespec to = {(time_t)(slice / 1000000000ull), (long)(slice % 1000000000ull)};
        futex_op(&hdr->drain_seq, FUTEX_WAIT, seq, &to);
        now = mono_ns();
    }
    atomic_fetch_sub(&hdr->space_waiters, 1);
    g->r->wait_t0 = 0;
    atomic_signal_fence(memory_order_seq_cst);
    atomic_fetch_add_explicit(&g->r->ctl->waits, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g->r->ctl->waited_ns, mono_ns() - t0, memory_order_relaxed);
    return rc;
}

int transport_write_wait(struct transport_ring *r, const void *rec, uint64_t max_wait_ns)
{
    struct wait_goal g = {.r = r, .rec = rec};

    return wait_loop(&g, max_wait_ns, max_wait_ns * WAIT_TOTAL_FACTOR);
}

int transport_wait_room(struct transport_ring *r, const struct rocsys_ring_ctl *ctl,
                        uint64_t max_used, uint64_t max_wait_ns)
{
    struct wait_goal g = {.r = r, .ctl = ctl, .max_used = max_used};

    return wait_loop(&g, max_wait_ns, max_wait_ns) == 0 ? 0 : -ETIMEDOUT;
}

/* Consumer: give the room up to tail back to ring c's producer while a drain is under way, and
 * wake producers waiting for room (a pass over many full rings can take longer than a producer
 * may wait, so room is returned every DRAIN_RELEASE_RECORDS, not only at the end of a pass). */
static void drain_release(struct transport *t, struct rocsys_ring_ctl *c, uint64_t tail)
{
    atomic_store_explicit(&c->tail, tail, memory_order_release);
    /* the store before the load: else a producer that just counted itself among the waiters
     * (and then saw the old tail) could be missed, and sleep until its next slice */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load(&t->hdr->space_waiters)) {
        atomic_fetch_add(&t->hdr->drain_seq, 1);
        futex_op(&t->hdr->drain_seq, FUTEX_WAKE, INT_MAX, NULL);
    }
}

size_t transport_drain_ring(struct transport *t, uint32_t i, transport_record_fn fn, void *ctx)
{
    struct rocsys_ring_ctl *c = &t->rings[i];
    uint32_t bytes;
    uint8_t *data = ring_data(t, i, &bytes);
    uint64_t mask = bytes - 1;
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
        if (n % DRAIN_RELEASE_RECORDS == 0 && h.type != ROCSYS_REC_PAD)
            drain_release(t, c, tail);
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

void transport_drained(struct transport *t)
{
    atomic_fetch_add(&t->hdr->drain_seq, 1);
    /* seq_cst with the producer's increment of space_waiters before it reads drain_seq */
    if (atomic_load(&t->hdr->space_waiters))
        futex_op(&t->hdr->drain_seq, FUTEX_WAKE, INT_MAX, NULL);
}

uint32_t transport_doorbell_value(const struct transport *t)
{
    return atomic_load(&t->hdr->doorbell);
}

int transport_doorbell_wait(struct transport *t, uint32_t *seen, int timeout_ms)
{
    struct timespec to = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};
    uint32_t v;

    atomic_store(&t->hdr->doorbell_waiting, 1);
    futex_op(&t->hdr->doorbell, FUTEX_WAIT, *seen, &to);
    atomic_store(&t->hdr->doorbell_waiting, 0);
    v = atomic_load(&t->hdr->doorbell);
    if (v == *seen)
        return 0;
    *seen = v;
    return 1;
}

void transport_consumer_gone(struct transport *t)
{
    atomic_store(&t->hdr->consumer_gone, 1);
    atomic_fetch_add(&t->hdr->drain_seq, 1);
    futex_op(&t->hdr->drain_seq, FUTEX_WAKE, INT_MAX, NULL);
}
