/* Unit test: the shared-memory ring transport with concurrent producers and one consumer.
 * Every record a producer manages to write is delivered exactly once, in order per ring; what
 * does not fit is refused (counted by the producer), never corrupted; rings are reclaimed.
 * Flow control: the doorbell rings once per pass over half full; a producer that waits for
 * room loses nothing while a consumer drains, and waits a bounded time (once) when none does. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "collector/transport.h"

#define PRODUCERS    8
#define PER_PRODUCER 200000

struct test_rec {
    struct rocsys_rec_header h;
    uint32_t producer;
    uint32_t seq;
    uint64_t payload[6]; /* variable part: 0..6 words used */
};

static struct transport consumer, producers_view;
static _Atomic int producers_done;
static uint64_t refused[PRODUCERS];

/* One producer thread: claim a ring, write records of varying size, release it. */
static void *producer(void *arg)
{
    uint32_t id = (uint32_t)(uintptr_t)arg;
    struct transport_ring r;
    struct test_rec rec;

    if (transport_claim(&producers_view, 1, 100 + id, 1, &r) != 0)
        return NULL;
    for (uint32_t i = 0; i < PER_PRODUCER;) {
        uint32_t words = i % 7;
        memset(&rec, 0, sizeof(rec));
        rec.h.type = 0x7000;
        rec.h.size = (uint32_t)(sizeof(rec) - sizeof(rec.payload) + 8 * words);
        rec.producer = id;
        rec.seq = i;
        for (uint32_t w = 0; w < words; w++)
            rec.payload[w] = ((uint64_t)id << 32) ^ i ^ w;
        if (transport_write(&r, &rec) == 0)
            i++;
        else
            refused[id]++; /* consumer behind: retry (a real sampler would count a drop) */
    }
    transport_release(&r);
    atomic_fetch_add(&producers_done, 1);
    return NULL;
}

struct consumer_state {
    uint32_t next_seq[PRODUCERS];
    uint64_t bad;
    uint64_t total;
};

/* Consumer callback: records arrive in order, with intact payloads, from their owner. */
static void on_rec(void *ctx, const struct rocsys_ring_ctl *ctl, const struct rocsys_rec_header *h)
{
    struct consumer_state *st = ctx;
    const struct test_rec *rec = (const void *)h;
    uint32_t words = (uint32_t)(h->size - (sizeof(*rec) - sizeof(rec->payload))) / 8;

    st->total++;
    if (rec->producer >= PRODUCERS || ctl->tid != 100 + rec->producer ||
        rec->seq != st->next_seq[rec->producer] || words != rec->seq % 7) {
        st->bad++;
        return;
    }
    for (uint32_t w = 0; w < words; w++)
        if (rec->payload[w] != ((((uint64_t)rec->producer) << 32) ^ rec->seq ^ w))
            st->bad++;
    st->next_seq[rec->producer]++;
}

/* The ring being drained, and what the producer could see of it at the 300th record. */
static const struct rocsys_ring_ctl *observed_ctl;
static uint64_t tail_at_300;
static uint32_t drain_seq_at_300;

/* GPU ring consumer callback: records in order (seq 0, 7, 14, ...). */
static void on_rec_gpu(void *ctx, const struct rocsys_ring_ctl *ctl,
                       const struct rocsys_rec_header *h)
{
    struct consumer_state *st = ctx;
    const struct test_rec *rec = (const void *)h;

    (void)ctl;
    if (rec->seq != st->total * 7)
        st->bad++;
    if (st->total == 300 && observed_ctl) {
        tail_at_300 = atomic_load(&observed_ctl->tail);
        drain_seq_at_300 = atomic_load(&consumer.hdr->drain_seq);
    }
    st->total++;
}

#define FLOW_RECORDS 20000

struct flow_state {
    uint32_t ring;
    _Atomic int stop;
    uint32_t got, bad;
};

/* Flow-control consumer callback: the 0x7001 records arrive in order (others are skipped). */
static void flow_rec(void *ctx, const struct rocsys_ring_ctl *ctl,
                     const struct rocsys_rec_header *h)
{
    struct flow_state *fs = ctx;
    const struct test_rec *rec = (const void *)h;

    (void)ctl;
    if (h->type != 0x7001)
        return;
    if (rec->seq != fs->got)
        fs->bad++;
    fs->got++;
}

/* Flow-control consumer: sleep on the doorbell (or 50 ms), drain, wake waiting producers. */
static void *flow_consumer(void *arg)
{
    struct flow_state *fs = arg;
    uint32_t seen = transport_doorbell_value(&consumer);

    while (!atomic_load(&fs->stop)) {
        transport_doorbell_wait(&consumer, &seen, 50);
        transport_drain_ring(&consumer, fs->ring, flow_rec, fs);
        transport_drained(&consumer);
    }
    return NULL;
}

int main(void)
{
    char path[] = "/tmp/rocsys-test-transport-XXXXXX";
    int fd = mkstemp(path);
    pthread_t th[PRODUCERS];
    struct consumer_state st;

    close(fd);
    unlink(path);
    CHECK(transport_create(&consumer, path, 16, 4096, 2, 8192) == 0);
    struct transport again;
    CHECK(transport_create(&again, path, 16, 4096, 0, 0) == -EEXIST);
    CHECK(access(path, F_OK) == 0); /* a failed create leaves the existing file alone */
    CHECK(transport_attach(&producers_view, path) == 0);
    memset(&st, 0, sizeof(st));
    for (int i = 0; i < PRODUCERS; i++)
        pthread_create(&th[i], NULL, producer, (void *)(uintptr_t)i);
    /* consume until every producer released its ring and every ring was drained and freed */
    for (;;) {
        int done = atomic_load(&producers_done) == PRODUCERS;
        int busy = 0;
        for (uint32_t i = 0; i < consumer.ring_count; i++) {
            uint32_t s = atomic_load(&consumer.rings[i].state);
            if (s == ROCSYS_RING_FREE)
                continue;
            busy = 1;
            transport_drain_ring(&consumer, i, on_rec, &st);
            if (s == ROCSYS_RING_RELEASED) {
                transport_drain_ring(&consumer, i, on_rec, &st);
                transport_free_ring(&consumer, i);
            }
        }
        if (done && !busy)
            break;
    }
    for (int i = 0; i < PRODUCERS; i++)
        pthread_join(th[i], NULL);
    CHECK_MSG(st.bad == 0, "%llu bad records", (unsigned long long)st.bad);
    CHECK_MSG(st.total == (uint64_t)PRODUCERS * PER_PRODUCER, "got %llu",
              (unsigned long long)st.total);
    for (int i = 0; i < PRODUCERS; i++)
        CHECK(st.next_seq[i] == PER_PRODUCER);
    uint64_t r = 0;
    for (int i = 0; i < PRODUCERS; i++)
        r += refused[i];
    printf("transport: %d producers x %d records through 4 KiB rings, %llu writes refused "
           "while the consumer was behind\n",
           PRODUCERS, PER_PRODUCER, (unsigned long long)r);

    /* all rings free again, and a claim on a full set fails cleanly */
    struct transport_ring rings[17];
    int claimed = 0;
    for (int i = 0; i < 17; i++)
        if (transport_claim(&producers_view, 2, (uint32_t)i, 1, &rings[i]) == 0)
            claimed++;
    CHECK(claimed == 16);
    /* GPU rings: a pool of their own, of their own size */
    struct transport_ring gpu[3];
    CHECK(transport_claim_gpu(&producers_view, 3, 1, 1, &gpu[0]) == 0);
    CHECK(transport_claim_gpu(&producers_view, 3, 2, 1, &gpu[1]) == 0);
    CHECK(transport_claim_gpu(&producers_view, 3, 3, 1, &gpu[2]) == -EBUSY);
    struct test_rec grec;
    int gwritten = 0;
    memset(&grec, 0, sizeof(grec));
    grec.h.type = 0x7000;
    grec.h.size = sizeof(grec) - sizeof(grec.payload); /* 16 bytes, no payload words */
    for (uint32_t i = 0; i < 8192 / 16 - 1; i++) {
        grec.seq = i * 7; /* words = seq % 7 = 0 */
        gwritten += transport_write(&gpu[0], &grec) == 0;
    }
    CHECK_MSG(gwritten == 8192 / 16 - 1, "wrote %d into an 8 KiB GPU ring", gwritten);
    struct consumer_state gst;
    memset(&gst, 0, sizeof(gst));
    uint32_t gidx = (uint32_t)(gpu[0].ctl - producers_view.rings);
    CHECK(gidx >= 16 && gidx < 18);
    /* a producer is waiting for room: the drain hands room back and wakes it every 256 records,
     * not only at the end (a pass over many full rings can outlast the producer's wait) */
    uint32_t seq0 = atomic_load(&consumer.hdr->drain_seq);
    observed_ctl = &consumer.rings[gidx];
    atomic_store(&consumer.hdr->space_waiters, 1);
    CHECK(transport_drain_ring(&consumer, gidx, on_rec_gpu, &gst) == (size_t)gwritten);
    atomic_store(&consumer.hdr->space_waiters, 0);
    observed_ctl = NULL;
    CHECK(gst.bad == 0);
    CHECK_MSG(tail_at_300 == 256 * 16, "room handed back during the drain: tail %llu at record 300",
              (unsigned long long)tail_at_300);
    CHECK_MSG(drain_seq_at_300 == seq0 + 1, "waiting producer woken during the drain: %u -> %u",
              seq0, drain_seq_at_300);

    /* oversized and malformed records are refused */
    struct test_rec big;
    memset(&big, 0, sizeof(big));
    big.h.size = 4096;
    CHECK(transport_write(&rings[0], &big) == -EINVAL);
    big.h.size = 13;
    CHECK(transport_write(&rings[0], &big) == -EINVAL);

    /* a ring the consumer does not drain fills up and refuses instead of overwriting */
    big.h.size = 64;
    int written = 0;
    while (transport_write(&rings[1], &big) == 0)
        written++;
    CHECK_MSG(written >= 4096 / 64 - 1 && written <= 4096 / 64, "wrote %d", written);
    CHECK(transport_write(&rings[1], &big) == -ENOSPC);

    /* flow control: the doorbell rings once when a ring passes half full */
    uint32_t bell = transport_doorbell_value(&consumer), seen = bell;
    uint32_t ring2 = (uint32_t)(rings[2].ctl - producers_view.rings);
    for (int i = 0; i < 4096 / 64 / 2 - 1; i++)
        CHECK(transport_write(&rings[2], &big) == 0);
    CHECK(transport_doorbell_value(&consumer) == bell);
    CHECK(transport_write(&rings[2], &big) == 0); /* 2048 bytes: half */
    CHECK(transport_doorbell_value(&consumer) == bell + 1);
    CHECK(transport_write(&rings[2], &big) == 0);
    CHECK(transport_doorbell_value(&consumer) == bell + 1);
    CHECK(transport_doorbell_wait(&consumer, &seen, 1000) == 1 && seen == bell + 1);

    /* nobody drains: a bounded wait, then a refusal; no second wait until a drain pass */
    CHECK(transport_write_wait(&rings[1], &big, 20000000) == -ENOSPC);
    CHECK(atomic_load(&rings[1].ctl->waits) == 1);
    CHECK(transport_write_wait(&rings[1], &big, 20000000) == -ENOSPC);
    CHECK(atomic_load(&rings[1].ctl->waits) == 1);

    /* a consumer that drains when the doorbell rings: nothing is refused */
    struct flow_state fs = {.ring = ring2};
    pthread_t cons;
    transport_drained(&consumer); /* a drain pass: waiting is allowed again */
    pthread_create(&cons, NULL, flow_consumer, &fs);
    uint64_t flow_refused = 0;
    for (uint32_t i = 0; i < FLOW_RECORDS; i++) {
        struct test_rec rec;
        memset(&rec, 0, sizeof(rec));
        rec.h.type = 0x7001;
        rec.h.size = sizeof(rec);
        rec.seq = i;
        flow_refused += transport_write_wait(&rings[2], &rec, 10000000000ull) != 0;
    }
    atomic_store(&fs.stop, 1);
    pthread_join(cons, NULL);
    transport_drain_ring(&consumer, ring2, flow_rec, &fs);
    CHECK_MSG(flow_refused == 0, "%llu refused", (unsigned long long)flow_refused);
    CHECK_MSG(fs.got == FLOW_RECORDS && fs.bad == 0, "got %u, %u out of order", fs.got, fs.bad);
    printf("transport: %d records through a 4 KiB ring with waits for room: %llu waits, "
           "%llu refused\n",
           FLOW_RECORDS, (unsigned long long)atomic_load(&rings[2].ctl->waits),
           (unsigned long long)flow_refused);

    /* the consumer is gone: no wait at all */
    transport_drained(&consumer);
    transport_consumer_gone(&consumer);
    CHECK(transport_write_wait(&rings[1], &big, 20000000) == -ENOSPC);
    CHECK(atomic_load(&rings[1].ctl->waits) == 1);

    /* a hostile producer cannot crash or hang the consumer: an absurd ring count in the shared
     * header is ignored (the consumer keeps its own copy), an impossible head is skipped */
    consumer.hdr->ring_count = 1u << 30;
    CHECK(consumer.ring_count == 18);
    atomic_store(&consumer.rings[1].head, 1ull << 60);
    struct consumer_state st2;
    memset(&st2, 0, sizeof(st2));
    CHECK(transport_drain_ring(&consumer, 1, on_rec, &st2) == 0);
    CHECK(atomic_load(&consumer.rings[1].tail) == 1ull << 60);
    consumer.hdr->ring_count = 16;

    /* a bad protocol version is refused by attach */
    consumer.hdr->version = 999;
    struct transport other;
    CHECK(transport_attach(&other, path) == -EPROTO);
    CHECK(transport_attach(&other, "/nonexistent/rocsys") == -ENOENT);

    transport_detach(&producers_view);
    transport_detach(&consumer);
    unlink(path);
    return check_summary();
}
