/* Unit test: the Perfetto writer (record/writer_perfetto.c) read back by the project's reader
 * (record/perfetto_read.c): tracks, per-thread counts, symbolized stacks (inlined frames
 * included), the meaning checks (also on hand-made broken traces), truncated files, protoc's
 * framing check, a million samples of ten stacks (bytes per sample, bounded tables), and the
 * delta timestamps (exact round trip over long runs, large gaps, samples out of order, merged
 * sequences and re-anchors; a delta timestamp without an anchor is reported). */
#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "model_fixture.h"
#include "model/model.h"
#include "record/perfetto_read.h"
#include "record/record.h"

__attribute__((noinline)) void fn_callee(void);
__attribute__((noinline)) void fn_with_inline(void);

static volatile uint64_t inline_ra; /* a return address inside inl_helper's inlined body */

__attribute__((noinline)) void fn_callee(void)
{
    inline_ra = (uint64_t)(uintptr_t)__builtin_return_address(0);
    __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}
static inline __attribute__((always_inline)) void inl_helper(void)
{
    fn_callee();
    __asm__ volatile("nop");
}
__attribute__((noinline)) void fn_with_inline(void)
{
    inl_helper();
    __asm__ volatile("nop");
}

static void feed(const struct record_writer_class *c, struct record_writer *w,
                 enum record_event_type type, uint64_t t, uint32_t tid, const char *data,
                 const uint64_t *frames, uint32_t nframes, uint32_t weight)
{
    struct record_event ev = {.type = type,
                              .time_ns = t,
                              .pid = FIXTURE_PID,
                              .tid = tid,
                              .data = data,
                              .frames = frames,
                              .nframes = nframes,
                              .weight = weight};
    c->event(w, &ev);
}

/* Whether the stack of sample i is exactly names (root first). */
static int stack_is(const struct perfetto_summary *s, size_t i, const char **names, uint32_t n)
{
    if (i >= s->nsamples)
        return 0;
    const struct perfetto_read_stack *st = &s->stacks[s->samples[i].stack];
    if (st->n != n)
        return 0;
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(st->functions[k], names[k]) != 0)
            return 0;
    return 1;
}

/* The function names the symbolizer gives for raw frames (innermost first), root first. */
static uint32_t expected_stack(struct model *m, const uint64_t *frames, uint32_t n,
                               const char **out, uint32_t max)
{
    struct sym_frame sf[16];
    const char *inner[64];
    uint32_t k = 0;

    for (uint32_t i = 0; i < n; i++) {
        int got = symbolizer_lookup(model_symbolizer(m), FIXTURE_PID, frames[i], i > 0, sf, 16);
        for (int j = 0; j < got && k < 64; j++)
            inner[k++] = sf[j].function;
    }
    for (uint32_t i = 0; i < k && i < max; i++)
        out[i] = inner[k - 1 - i];
    return k < max ? k : max;
}

static uint64_t self_of(const struct perfetto_summary *s, uint32_t tid, const char *name)
{
    struct perfetto_read_count *c;
    size_t n = perfetto_read_self_counts(s, tid, &c);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].function, name) == 0)
            v = c[i].self;
    free(c);
    return v;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *p = NULL;
    long n;
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n + 1);
    *len = fread(p, 1, (size_t)n, f);
    fclose(f);
    return p;
}

/* ---- hand-made traces for the negative checks ---- */
struct tb {
    uint8_t b[1024];
    size_t n;
};

static void tb_varint(struct tb *t, uint64_t v)
{
    while (v >= 0x80) {
        t->b[t->n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    t->b[t->n++] = (uint8_t)v;
}

static void tb_uint(struct tb *t, uint32_t field, uint64_t v)
{
    tb_varint(t, (uint64_t)field << 3);
    tb_varint(t, v);
}

static void tb_msg(struct tb *t, uint32_t field, const struct tb *m)
{
    tb_varint(t, (uint64_t)field << 3 | 2);
    tb_varint(t, m->n);
    memcpy(t->b + t->n, m->b, m->n);
    t->n += m->n;
}

static void tb_str(struct tb *t, uint32_t field, const char *s)
{
    struct tb m = {0};
    memcpy(m.b, s, strlen(s));
    m.n = strlen(s);
    tb_msg(t, field, &m);
}

/* A packet on sequence seq with flags, an optional thread track and an optional sample. */
static void tb_packet(struct tb *file, uint32_t seq, uint32_t flags, const struct tb *interned,
                      uint32_t declare_tid, uint32_t sample_tid, uint32_t cs)
{
    struct tb p = {0}, a = {0}, b = {0};
    tb_uint(&p, 8, 1000);
    tb_uint(&p, 10, seq);
    tb_uint(&p, 13, flags);
    if (interned)
        tb_msg(&p, 12, interned);
    if (declare_tid) {
        tb_uint(&a, 1, FIXTURE_PID);
        tb_uint(&a, 2, declare_tid);
        tb_uint(&b, 1, 77 + declare_tid);
        tb_msg(&b, 4, &a);
        tb_msg(&p, 60, &b);
    }
    if (sample_tid) {
        struct tb s = {0};
        tb_uint(&s, 2, FIXTURE_PID);
        tb_uint(&s, 3, sample_tid);
        tb_uint(&s, 4, cs);
        tb_msg(&p, 66, &s);
    }
    tb_msg(file, 1, &p);
}

/* Read a hand-made trace; returns whether it fails with a message containing want. */
static int fails_with(const struct tb *file, const char *want)
{
    struct perfetto_summary s;
    char err[256];
    int rc = perfetto_read_buffer(file->b, file->n, &s, err, sizeof(err));
    int ok = rc == -1 && strstr(err, want) != NULL;
    if (!ok)
        fprintf(stderr, "want \"%s\", got rc %d \"%s\"\n", want, rc, err);
    perfetto_read_free(&s);
    return ok;
}

static void check_broken_traces(void)
{
    struct tb f = {0}, in = {0}, e = {0};

    /* a sequence that never clears its incremental state */
    tb_packet(&f, 5, 2, NULL, FIXTURE_PID, 0, 0);
    CHECK(fails_with(&f, "first packet does not clear"));
    /* an unresolved callstack iid */
    f.n = 0;
    tb_packet(&f, 7, 3, NULL, FIXTURE_PID, 0, 0);
    tb_packet(&f, 7, 2, NULL, 0, FIXTURE_PID, 9);
    CHECK(fails_with(&f, "callstack iid 9 does not resolve"));
    /* a frame without a mapping */
    tb_uint(&e, 1, 1);
    tb_str(&e, 2, "f");
    tb_msg(&in, 5, &e);
    e.n = 0;
    tb_uint(&e, 1, 1);
    tb_uint(&e, 2, 1);
    tb_msg(&in, 6, &e);
    e.n = 0;
    tb_uint(&e, 1, 1);
    tb_uint(&e, 2, 1);
    tb_msg(&in, 7, &e);
    f.n = 0;
    tb_packet(&f, 7, 3, &in, FIXTURE_PID, 0, 0);
    tb_packet(&f, 7, 2, NULL, 0, FIXTURE_PID, 1);
    CHECK(fails_with(&f, "frame 1 has no mapping"));
    /* interned ids do not cross sequences, and a sample needs its thread's track */
    f.n = 0;
    tb_packet(&f, 7, 3, &in, FIXTURE_PID, 0, 0);
    tb_packet(&f, 8, 3, NULL, 0, FIXTURE_PID, 1);
    CHECK(fails_with(&f, "callstack iid 1 does not resolve"));
    f.n = 0;
    tb_packet(&f, 7, 3, &in, 0, 0, 0);
    tb_packet(&f, 7, 2, NULL, 0, FIXTURE_PID, 1);
    CHECK(fails_with(&f, "has no thread track"));
    /* a stray byte after the packets */
    f.n = 0;
    tb_packet(&f, 7, 3, NULL, FIXTURE_PID, 0, 0);
    f.b[f.n++] = 0;
    CHECK(fails_with(&f, "not a packet tag"));
}

/* A million samples of ten stacks: bytes per sample and bounded writer tables. */
static void check_many_samples(struct model *m, const char *dir)
{
    char path[512], err[256];
    struct record_writer *w;
    struct perfetto_summary s;
    struct timespec now;
    size_t addrs = 0, stacks = 0, heap = 0, heap_early = 0, len_early = 0, len_mid = 0;
    struct stat st;
    const uint32_t total = 1000000;

    snprintf(path, sizeof(path), "%s/many.pftrace", dir);
    w = record_perfetto.open(path, m, err, sizeof(err));
    CHECK_MSG(w != NULL, "%s", err);
    if (!w)
        return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t t = (uint64_t)now.tv_sec * FIXTURE_SEC + (uint64_t)now.tv_nsec;
    feed(&record_perfetto, w, RECORD_EV_PROCESS, t, FIXTURE_PID, "/usr/bin/many", NULL, 0, 0);
    feed(&record_perfetto, w, RECORD_EV_THREAD, t, FIXTURE_PID, "main", NULL, 0, 0);
    feed(&record_perfetto, w, RECORD_EV_THREAD, t, FIXTURE_PID + 1, "worker", NULL, 0, 0);
    for (uint32_t i = 0; i < total; i++) {
        uint32_t k = i % 10; /* stack k: fn_middle k + 1 times between the others */
        uint64_t fr[12] = {(uint64_t)(uintptr_t)fn_leaf + 1 + k};
        for (uint32_t j = 0; j <= k; j++)
            fr[1 + j] = fixture_at(fn_middle);
        fr[k + 2] = fixture_at(fn_outer);
        feed(&record_perfetto, w, RECORD_EV_SAMPLE, t + i * 1000000ull, FIXTURE_PID + (i & 1), NULL,
             fr, k + 3, 1);
        if (i == 100000) {
            record_perfetto_stats(w, &addrs, &stacks, &heap_early);
            stat(path, &st);
            len_early = (size_t)st.st_size;
        }
    }
    record_perfetto_stats(w, &addrs, &stacks, &heap);
    /* one frame per function (fn_leaf at ten addresses is one), one callstack per path */
    CHECK_MSG(addrs == 3 && stacks == 10, "frames %zu stacks %zu", addrs, stacks);
    CHECK_MSG(heap == heap_early && heap < 512 * 1024, "writer heap %zu (%zu at 100000 samples)",
              heap, heap_early);
    /* written incrementally: what is on disk before close is a valid prefix */
    stat(path, &st);
    len_mid = (size_t)st.st_size;
    CHECK(len_early > 0 && len_mid > len_early);
    CHECK(perfetto_read_file(path, &s, err, sizeof(err)) == 0);
    CHECK(!s.truncated && s.nsamples > 0 && s.nsamples < total);
    perfetto_read_free(&s);
    record_perfetto.close(w, m, NULL);

    stat(path, &st);
    double per = (double)((size_t)st.st_size - len_early) / (double)(total - 100001);
    printf("perfetto: %u samples of 10 stacks: %lld bytes, %.2f bytes per sample, writer heap "
           "%zu bytes\n",
           total, (long long)st.st_size, per, heap);
    /* before deflate: 2 framing + 4 timestamp (a 1 ms delta on the incremental clock) + 3
     * sequence id + 2 flags + 11 perf_sample (pid, tid 4242 and 4243) = 22; the chunks of
     * such alike packets deflate to almost nothing */
    CHECK_MSG(per <= 2.0, "%.2f bytes per sample", per);
    int rc = perfetto_read_file(path, &s, err, sizeof(err));
    CHECK_MSG(rc == 0, "%s", err);
    CHECK(s.nsamples == total && s.nstacks == 10 && s.nthreads == 2);
    CHECK(s.nthreads == 2 && s.threads[0].samples == total / 2 &&
          s.threads[1].samples == total / 2);
    CHECK(s.nsamples == total && s.samples[5].mono_ns == t + 5 * 1000000ull);
    perfetto_read_free(&s);

    /* read as it grows (--replay --live): the file seen 7919 bytes more at a time, each feed
     * given the bytes after what was consumed; a packet cut short waits for the next feed */
    size_t flen = 0, seen = 0;
    uint8_t *data = slurp(path, &flen);
    struct perfetto_stream *ps = perfetto_stream_new();
    int feeds_bad = 0, waited = 0;
    while (data && seen < flen) {
        seen = seen + 7919 < flen ? seen + 7919 : flen;
        uint64_t off = perfetto_stream_offset(ps);
        long k = perfetto_stream_feed(ps, data + off, seen - off, err, sizeof(err));
        feeds_bad += k < 0;
        waited += k >= 0 && off + (uint64_t)k < seen;
    }
    const struct perfetto_summary *ss = perfetto_stream_summary(ps);
    CHECK_MSG(feeds_bad == 0 && waited > 0 && perfetto_stream_offset(ps) == flen,
              "bad feeds %d, offset %llu of %zu", feeds_bad,
              (unsigned long long)perfetto_stream_offset(ps), flen);
    CHECK_MSG(ss->nsamples == total && ss->nstacks == 10 && ss->nthreads == 2,
              "streamed: %zu samples %zu stacks", ss->nsamples, ss->nstacks);
    CHECK(ss->nsamples == total && ss->samples[total - 1].mono_ns == t + (total - 1) * 1000000ull);
    perfetto_stream_free(ps);
    free(data);
    unlink(path);
}

/* Interned data of one valid stack: function "f" in mapping "m", callstack iid 1. */
static void tb_stack(struct tb *in)
{
    struct tb e = {0};

    tb_uint(&e, 1, 1);
    tb_str(&e, 2, "f");
    tb_msg(in, 5, &e);
    e.n = 0;
    tb_uint(&e, 1, 1);
    tb_str(&e, 2, "m");
    tb_msg(in, 17, &e);
    e.n = 0;
    tb_uint(&e, 1, 1);
    tb_uint(&e, 7, 1);
    tb_msg(in, 19, &e);
    e.n = 0;
    tb_uint(&e, 1, 1);
    tb_uint(&e, 2, 1);
    tb_uint(&e, 3, 1);
    tb_msg(in, 6, &e);
    e.n = 0;
    tb_uint(&e, 1, 1);
    tb_uint(&e, 2, 1);
    tb_msg(in, 7, &e);
}

/* A packet clearing sequence seq's state: the thread track, the stack, the default clock 64
 * and, unless anchor is 0, a ClockSnapshot {BOOTTIME boot, MONOTONIC mono, 64 = anchor}. */
static void tb_anchor(struct tb *file, uint32_t seq, uint64_t anchor, uint64_t boot, uint64_t mono)
{
    struct tb p = {0}, d = {0}, cs = {0}, c = {0}, in = {0}, a = {0}, b = {0};

    tb_uint(&p, 10, seq);
    tb_uint(&p, 13, 3);
    tb_uint(&d, 58, 64);
    tb_msg(&p, 59, &d);
    tb_stack(&in);
    tb_msg(&p, 12, &in);
    tb_msg(file, 1, &p);
    p.n = 0; /* the track in a packet of its own (a snapshot packet's other content is lost) */
    tb_uint(&p, 8, boot);
    tb_uint(&p, 58, 6);
    tb_uint(&p, 10, seq);
    tb_uint(&p, 13, 2);
    tb_uint(&a, 1, FIXTURE_PID);
    tb_uint(&a, 2, FIXTURE_PID);
    tb_uint(&b, 1, 77);
    tb_msg(&b, 4, &a);
    tb_msg(&p, 60, &b);
    tb_msg(file, 1, &p);
    if (!anchor)
        return;
    p.n = 0;
    tb_uint(&p, 10, seq);
    tb_uint(&p, 13, 2);
    tb_uint(&c, 1, 6);
    tb_uint(&c, 2, boot);
    tb_msg(&cs, 1, &c);
    c.n = 0;
    tb_uint(&c, 1, 3);
    tb_uint(&c, 2, mono);
    tb_msg(&cs, 1, &c);
    c.n = 0;
    tb_uint(&c, 1, 64);
    tb_uint(&c, 2, anchor);
    tb_uint(&c, 3, 1);
    tb_msg(&cs, 1, &c);
    tb_msg(&p, 6, &cs);
    tb_msg(file, 1, &p);
}

/* A sample of the main thread with timestamp ts on clock (0: the sequence's default). */
static void tb_sample(struct tb *file, uint32_t seq, uint64_t ts, uint32_t clock)
{
    struct tb p = {0}, s = {0};

    tb_uint(&p, 8, ts);
    if (clock)
        tb_uint(&p, 58, clock);
    tb_uint(&p, 10, seq);
    tb_uint(&p, 13, 2);
    tb_uint(&s, 2, FIXTURE_PID);
    tb_uint(&s, 3, FIXTURE_PID);
    tb_uint(&s, 4, 1);
    tb_msg(&p, 66, &s);
    tb_msg(file, 1, &p);
}

/* Hand-made traces with delta timestamps: re-anchors on one sequence, absolute packets that
 * leave the incremental clock alone, and the checks on unanchored deltas. */
static void check_delta_traces(void)
{
    static struct tb f;
    struct perfetto_summary s;
    char err[256];
    int rc;

    /* boot - mono = 600; clock 64 runs on BOOTTIME */
    f.n = 0;
    tb_anchor(&f, 9, 1000, 1000, 400);
    tb_sample(&f, 9, 10, 0);            /* 64: 1010 */
    tb_sample(&f, 9, 900, 6);           /* absolute BOOTTIME 900: clock 64 stays at 1010 */
    tb_sample(&f, 9, 5, 0);             /* 1015 */
    tb_sample(&f, 9, 700, 3);           /* absolute MONOTONIC 700 */
    tb_anchor(&f, 9, 5000, 5000, 4400); /* cleared again and re-anchored */
    tb_sample(&f, 9, 0, 0);             /* 5000 */
    tb_sample(&f, 9, 7, 0);             /* 5007 */
    tb_sample(&f, 9, 1ull << 40, 0);    /* a gap of 18 minutes */
    rc = perfetto_read_buffer(f.b, f.n, &s, err, sizeof(err));
    CHECK_MSG(rc == 0, "%s", err);
    CHECK(s.nsamples == 7);
    if (s.nsamples == 7) {
        CHECK(s.samples[0].time_ns == 1010 && s.samples[0].mono_ns == 410);
        CHECK(s.samples[1].time_ns == 900 && s.samples[1].mono_ns == 300);
        CHECK(s.samples[2].time_ns == 1015 && s.samples[2].mono_ns == 415);
        CHECK(s.samples[3].mono_ns == 700);
        CHECK(s.samples[4].time_ns == 5000 && s.samples[4].mono_ns == 4400);
        CHECK(s.samples[5].time_ns == 5007 && s.samples[6].time_ns == 5007 + (1ull << 40));
    }
    perfetto_read_free(&s);
    /* a delta timestamp with no ClockSnapshot anchoring the default clock */
    f.n = 0;
    tb_anchor(&f, 9, 0, 1000, 400);
    tb_sample(&f, 9, 10, 0);
    CHECK(fails_with(&f, "timestamp on clock 64 before any ClockSnapshot anchors it"));
    /* the anchor of another sequence does not count */
    f.n = 0;
    tb_anchor(&f, 9, 1000, 1000, 400);
    tb_anchor(&f, 10, 0, 1000, 400);
    tb_sample(&f, 10, 10, 0);
    CHECK(fails_with(&f, "sequence 10: timestamp on clock 64 before any ClockSnapshot"));
    /* a ClockSnapshot packet's other content is ignored by trace_processor */
    f.n = 0;
    tb_anchor(&f, 9, 1000, 1000, 400);
    {
        struct tb p = {0}, cs = {0}, c = {0}, sm = {0};
        tb_uint(&p, 10, 9);
        tb_uint(&p, 13, 2);
        tb_uint(&c, 1, 6);
        tb_uint(&c, 2, 2000);
        tb_msg(&cs, 1, &c);
        tb_msg(&p, 6, &cs);
        tb_uint(&sm, 2, FIXTURE_PID);
        tb_uint(&sm, 3, FIXTURE_PID);
        tb_uint(&sm, 4, 1);
        tb_msg(&p, 66, &sm);
        tb_msg(&f, 1, &p);
    }
    CHECK(fails_with(&f, "ClockSnapshot packet carries content"));
}

/* Feed a sample of thread tid at mono time t. */
static void feed_at(struct record_writer *w, uint64_t t, uint32_t tid, const uint64_t *fr)
{
    feed(&record_perfetto, w, RECORD_EV_SAMPLE, t, tid, NULL, fr, 3, 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Write n samples from time start as rank's recording at path, the way a session hands them
 * over; their times go to want. */
static void write_run(struct model *m, const char *path, int rank, uint64_t start, uint32_t n,
                      uint64_t *want)
{
    char err[256];
    uint64_t fr[3] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t t = start, x = 88172645463325252ull;
    struct record_writer *w;
    uint32_t i = 0, drain = 0;

    model_session(m)->rank = rank;
    w = record_perfetto.open(path, m, err, sizeof(err));
    model_session(m)->rank = -1;
    CHECK_MSG(w != NULL, "%s", err);
    if (!w)
        return;
    while (i < n) {
        /* a drain: two threads' runs of up to 50 samples 1 ms apart, one after the other */
        uint32_t run = (n - i) / 2 < 50 ? (n - i) / 2 : 50;
        if (run == 0) {
            want[i++] = t;
            feed_at(w, t, FIXTURE_PID, fr);
            break;
        }
        for (uint32_t th = 0; th < 2; th++)
            for (uint32_t k = 0; k < run; k++) {
                uint64_t ts = t + k * 1000000ull + th * 333;
                want[i++] = ts;
                feed_at(w, ts, FIXTURE_PID + th, fr);
            }
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        if (x % 97 == 0 && i < n) { /* a deferred sample, older than what was written */
            uint64_t old = t > start + 2 * FIXTURE_SEC ? t - 2 * FIXTURE_SEC : start;
            want[i++] = old;
            feed_at(w, old, FIXTURE_PID + 1, fr);
        }
        /* the next drain: usually 50 ms later, sometimes after a pause of seconds, an hour, or
         * (once) ten days */
        t += ++drain == 1000 ? 10 * 24 * 3600ull * FIXTURE_SEC
             : x % 501 == 0  ? 3600ull * FIXTURE_SEC
             : x % 53 == 0   ? 7 * FIXTURE_SEC
                             : 50000000ull;
    }
    record_perfetto.close(w, m, NULL);
}

/* Delta timestamps written by the writer come back exact: a long run with large gaps,
 * per-thread runs out of order and late samples, and two recordings merged (two sequences,
 * each with its anchor), as --merge concatenates them. */
static void check_delta_roundtrip(struct model *m, const char *dir)
{
    char a[512], b[512], merged[512], cmd[2048], err[256];
    const uint32_t n = 200000;
    uint64_t *want = calloc(2 * (size_t)n, sizeof(*want)), *got = calloc(2 * (size_t)n, 8);
    struct perfetto_summary s;
    struct timespec now;

    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t t0 = (uint64_t)now.tv_sec * FIXTURE_SEC + (uint64_t)now.tv_nsec;
    snprintf(a, sizeof(a), "%s/rank0.pftrace", dir);
    snprintf(b, sizeof(b), "%s/rank1.pftrace", dir);
    snprintf(merged, sizeof(merged), "%s/merged.pftrace", dir);
    write_run(m, a, 0, t0, n, want);
    write_run(m, b, 1, t0 + 5 * FIXTURE_SEC, n, want + n);

    int rc = perfetto_read_file(a, &s, err, sizeof(err));
    CHECK_MSG(rc == 0, "%s", err);
    CHECK(s.nsamples == n && s.sequences == 1);
    for (size_t i = 0; i < s.nsamples && i < n; i++)
        got[i] = s.samples[i].mono_ns;
    qsort(want, n, sizeof(*want), cmp_u64);
    qsort(got, n, sizeof(*got), cmp_u64);
    CHECK(s.nsamples == n && memcmp(want, got, n * sizeof(*got)) == 0);
    CHECK(want[n - 1] - want[0] > 10 * 24 * 3600ull * FIXTURE_SEC); /* the gaps were there */
    perfetto_read_free(&s);

    snprintf(cmd, sizeof(cmd), "cat %s %s > %s", a, b, merged);
    CHECK(system(cmd) == 0);
    rc = perfetto_read_file(merged, &s, err, sizeof(err));
    CHECK_MSG(rc == 0, "%s", err);
    CHECK(s.nsamples == 2 * (size_t)n && s.sequences == 2);
    for (size_t i = 0; i < s.nsamples && i < 2 * (size_t)n; i++)
        got[i] = s.samples[i].mono_ns;
    qsort(want, 2 * (size_t)n, sizeof(*want), cmp_u64);
    qsort(got, 2 * (size_t)n, sizeof(*got), cmp_u64);
    CHECK(s.nsamples == 2 * (size_t)n && memcmp(want, got, 2 * n * sizeof(*got)) == 0);
    perfetto_read_free(&s);
    unlink(a);
    unlink(b);
    unlink(merged);
    free(want);
    free(got);
}

/* Counters, slices (nested, on threads and named tracks, with args and a flow) and an
 * instant: written, read back with their values, units, times and nesting. */
static void check_tracks(struct model *m, const char *dir)
{
    char path[512], err[256];
    struct perfetto_summary s;
    struct record_writer *w;
    const uint64_t t = 5 * FIXTURE_SEC;

    snprintf(path, sizeof(path), "%s/tracks.pftrace", dir);
    w = record_perfetto.open(path, m, err, sizeof(err));
    CHECK_MSG(w != NULL, "%s", err);
    if (!w)
        return;
    struct record_event ev[] = {
        {.type = RECORD_EV_COUNTER,
         .time_ns = t,
         .pid = FIXTURE_PID,
         .track = "CPU %",
         .unit = "%",
         .value = 97.5},
        {.type = RECORD_EV_COUNTER,
         .time_ns = t + 10,
         .pid = FIXTURE_PID,
         .track = "RSS",
         .unit = "bytes",
         .value = 1048576},
        {.type = RECORD_EV_COUNTER,
         .time_ns = t + 20,
         .pid = 0,
         .track = "GPU0 power",
         .unit = "W",
         .value = 151.25},
        {.type = RECORD_EV_COUNTER,
         .time_ns = t + 30,
         .pid = FIXTURE_PID,
         .track = "CPU %",
         .unit = "%",
         .value = 12},
        /* inner slice completes first, as a tracer writes them */
        {.type = RECORD_EV_SLICE,
         .time_ns = t + 100,
         .end_ns = t + 200,
         .pid = FIXTURE_PID,
         .tid = FIXTURE_PID + 1,
         .category = "hip",
         .name = "hipLaunchKernel",
         .args = "grid=64,1,1\nblock=256,1,1",
         .flow_out = 77},
        {.type = RECORD_EV_SLICE,
         .time_ns = t + 50,
         .end_ns = t + 400,
         .pid = FIXTURE_PID,
         .tid = FIXTURE_PID + 1,
         .category = "region",
         .name = "solve \"x\""},
        {.type = RECORD_EV_SLICE,
         .time_ns = t + 300,
         .end_ns = t + 900,
         .pid = FIXTURE_PID,
         .track = "GPU0 queue 1",
         .category = "kernel",
         .name = "vector_add",
         .flow_in = 77},
        {.type = RECORD_EV_INSTANT,
         .time_ns = t + 950,
         .pid = FIXTURE_PID,
         .tid = FIXTURE_PID,
         .category = "mark",
         .name = "checkpoint"},
    };
    for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
        record_perfetto.event(w, &ev[i]);
    record_perfetto.close(w, m, NULL);
    int rc = perfetto_read_file(path, &s, err, sizeof(err));
    CHECK_MSG(rc == 0, "%s", err);
    CHECK_MSG(s.ntracks == 4 && s.ncounters == 4 && s.nslices == 4,
              "tracks %zu counters %zu "
              "slices %zu",
              s.ntracks, s.ncounters, s.nslices);
    int cpu = perfetto_read_track_find(&s, FIXTURE_PID, "CPU %");
    int rss = perfetto_read_track_find(&s, FIXTURE_PID, "RSS");
    int pow = perfetto_read_track_find(&s, 0, "GPU0 power");
    int q = perfetto_read_track_find(&s, FIXTURE_PID, "GPU0 queue 1");
    CHECK(cpu >= 0 && rss >= 0 && pow >= 0 && q >= 0);
    if (cpu >= 0 && rss >= 0 && pow >= 0 && q >= 0 && s.ncounters == 4 && s.nslices == 4) {
        CHECK(s.tracks[cpu].counter && strcmp(s.tracks[cpu].unit, "%") == 0);
        CHECK(s.tracks[rss].counter && strcmp(s.tracks[rss].unit, "bytes") == 0);
        CHECK(s.tracks[pow].counter && s.tracks[pow].pid == 0 &&
              strcmp(s.tracks[pow].unit, "W") == 0);
        CHECK(!s.tracks[q].counter && s.tracks[q].pid == FIXTURE_PID);
        CHECK(s.counters[0].track == (uint32_t)cpu && s.counters[0].value == 97.5 &&
              s.counters[0].mono_ns == t);
        CHECK(s.counters[1].value == 1048576 && s.counters[2].value == 151.25);
        CHECK(s.counters[3].track == (uint32_t)cpu && s.counters[3].value == 12);
        const struct perfetto_read_slice *hip = &s.slices[0], *reg = &s.slices[1];
        const struct perfetto_read_slice *k = &s.slices[2], *mark = &s.slices[3];
        CHECK(strcmp(hip->name, "hipLaunchKernel") == 0 && strcmp(hip->category, "hip") == 0);
        CHECK(hip->tid == FIXTURE_PID + 1 && hip->track == -1);
        CHECK(hip->start_ns == t + 100 && hip->end_ns == t + 200);
        CHECK_STR(hip->args, "grid=64,1,1\nblock=256,1,1\n");
        CHECK(strcmp(reg->name, "solve \"x\"") == 0 && reg->start_ns == t + 50 &&
              reg->end_ns == t + 400);
        CHECK(k->track == q && k->start_ns == t + 300 && k->end_ns == t + 900);
        CHECK(hip->flow_out == 77 && k->flow_in == 77);
        CHECK(mark->instant && mark->tid == FIXTURE_PID && mark->start_ns == t + 950);
    }
    perfetto_read_free(&s);
    unlink(path);
}

int main(void)
{
    struct model *m = model_new();
    char dir[] = "/tmp/rocsys-pf-XXXXXX", path[512], err[256];
    const struct record_writer_class *c = &record_perfetto;
    struct record_writer *w;
    struct perfetto_summary s;

    fn_with_inline(); /* sets inline_ra */
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof(path), "%s/trace.pftrace", dir);
    model_proc_start(m, FIXTURE_PID, 1, "/usr/local/bin/testprog", "testprog --flag", FIXTURE_SEC);
    model_set_root_pid(m, FIXTURE_PID);
    dl_iterate_phdr(fixture_add_self, m);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID, "main", FIXTURE_SEC);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID + 1, "worker", FIXTURE_SEC);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID + 2, "late",
                       FIXTURE_SEC); /* no THREAD event for it */

    CHECK(c->open("/nonexistent-dir/x.pftrace", m, err, sizeof(err)) == NULL && *err);
    w = c->open(path, m, err, sizeof(err));
    CHECK_MSG(w != NULL, "%s", err);
    if (!w)
        return check_summary();

    uint64_t s_leaf[] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_mid[] = {fixture_at(fn_middle), fixture_at(fn_outer)};
    uint64_t s_other[] = {fixture_at(fn_other), fixture_at(fn_outer)};
    uint64_t s_rec[] = {fixture_at(fn_leaf), fixture_at(fn_middle), fixture_at(fn_middle),
                        fixture_at(fn_outer)};
    uint64_t s_inl[] = {fixture_at(fn_callee), inline_ra, fixture_at(fn_outer)};
    uint64_t s_unk[] = {0x10, fixture_at(fn_outer)};

    feed(c, w, RECORD_EV_PROCESS, FIXTURE_SEC, FIXTURE_PID, "/usr/local/bin/testprog", NULL, 0, 0);
    feed(c, w, RECORD_EV_OUTPUT, FIXTURE_SEC, FIXTURE_PID, "hello\n", NULL, 0, 0); /* ignored */
    feed(c, w, RECORD_EV_THREAD, FIXTURE_SEC, FIXTURE_PID, "main", NULL, 0, 0);
    feed(c, w, RECORD_EV_THREAD, FIXTURE_SEC, FIXTURE_PID + 1, "worker", NULL, 0, 0);
    feed(c, w, RECORD_EV_THREAD, FIXTURE_SEC, FIXTURE_PID + 1, "worker", NULL, 0,
         0); /* unchanged: no packet */
    for (int i = 0; i < 3; i++)
        feed(c, w, RECORD_EV_SAMPLE, 2 * FIXTURE_SEC + i, FIXTURE_PID, NULL, s_leaf, 3,
             1);                                                                   /* samples 0-2 */
    feed(c, w, RECORD_EV_SAMPLE, 3 * FIXTURE_SEC, FIXTURE_PID, NULL, s_mid, 2, 1); /* 3 */
    feed(c, w, RECORD_EV_SAMPLE, 3 * FIXTURE_SEC, FIXTURE_PID + 1, NULL, s_other, 2, 4); /* 4-7 */
    feed(c, w, RECORD_EV_THREAD, 4 * FIXTURE_SEC, FIXTURE_PID + 1, "worker-2", NULL, 0, 0);
    feed(c, w, RECORD_EV_SAMPLE, 4 * FIXTURE_SEC, FIXTURE_PID + 1, NULL, s_rec, 4, 1); /* 8 */
    feed(c, w, RECORD_EV_SAMPLE, 4 * FIXTURE_SEC, FIXTURE_PID + 1, NULL, s_other, 2,
         70); /* 9-78: written 70 times (exact; the old bound wrote 64) */
    feed(c, w, RECORD_EV_SAMPLE, 5 * FIXTURE_SEC, FIXTURE_PID, NULL, s_inl, 3, 1);     /* 79 */
    feed(c, w, RECORD_EV_SAMPLE, 5 * FIXTURE_SEC, FIXTURE_PID + 2, NULL, s_unk, 2, 1); /* 80 */
    c->close(w, m, NULL);

    int rc = perfetto_read_file(path, &s, err, sizeof(err));
    CHECK_MSG(rc == 0, "%s", err);
    CHECK(s.violations == 0 && !s.truncated && s.sequences == 1);
    CHECK(s.nprocesses == 1 && strcmp(s.processes[0].name, "testprog") == 0);
    /* the process label: this host, no MPI rank */
    char host[64] = "";
    gethostname(host, sizeof(host) - 1);
    CHECK_MSG(strcmp(s.processes[0].host, host) == 0 && s.processes[0].rank == -1,
              "host '%s' rank %d", s.processes[0].host, s.processes[0].rank);
    CHECK(s.nthreads == 3);
    const struct perfetto_read_thread *th;
    CHECK((th = perfetto_read_thread_find(&s, FIXTURE_PID, FIXTURE_PID)) &&
          strcmp(th->name, "main") == 0 && th->samples == 5);
    CHECK((th = perfetto_read_thread_find(&s, FIXTURE_PID, FIXTURE_PID + 1)) &&
          strcmp(th->name, "worker-2") == 0 && th->samples == 75);
    CHECK((th = perfetto_read_thread_find(&s, FIXTURE_PID, FIXTURE_PID + 2)) &&
          strcmp(th->name, "late") == 0 && th->samples == 1);
    CHECK(s.nsamples == 81);
    const char *p_leaf[] = {"fn_outer", "fn_middle", "fn_leaf"};
    const char *p_mid[] = {"fn_outer", "fn_middle"};
    const char *p_other[] = {"fn_outer", "fn_other"};
    const char *p_rec[] = {"fn_outer", "fn_middle", "fn_middle", "fn_leaf"};
    const char *p_unk[] = {"fn_outer", "[unknown]"};
    CHECK(stack_is(&s, 0, p_leaf, 3) && stack_is(&s, 2, p_leaf, 3));
    CHECK(s.samples[0].stack == s.samples[2].stack);
    CHECK(stack_is(&s, 3, p_mid, 2));
    CHECK(stack_is(&s, 4, p_other, 2) && stack_is(&s, 7, p_other, 2) &&
          stack_is(&s, 9, p_other, 2) && stack_is(&s, 78, p_other, 2));
    CHECK(stack_is(&s, 8, p_rec, 4));
    CHECK(stack_is(&s, 80, p_unk, 2));
    /* inlined frames are frames of their own, as the symbolizer reports them */
    const char *p_inl[16];
    uint32_t ninl = expected_stack(m, s_inl, 3, p_inl, 16);
    CHECK(ninl >= 3 && stack_is(&s, 79, p_inl, ninl));
    CHECK(strcmp(p_inl[0], "fn_outer") == 0 && strcmp(p_inl[ninl - 1], "fn_callee") == 0);
    if (ninl == 4)
        CHECK_STR(p_inl[2], "inl_helper");
    else
        printf("perfetto: the symbolizer reports no inlined frame for inl_helper (%u frames)\n",
               ninl);
    /* timestamps come back on CLOCK_MONOTONIC */
    CHECK(s.samples[0].mono_ns == 2 * FIXTURE_SEC && s.samples[1].mono_ns == 2 * FIXTURE_SEC + 1);
    /* self counts per function name */
    CHECK(self_of(&s, 0, "fn_leaf") == 4 && self_of(&s, 0, "fn_other") == 74);
    CHECK(self_of(&s, 0, "fn_middle") == 1 && self_of(&s, 0, "fn_outer") == 0);
    CHECK(self_of(&s, FIXTURE_PID, "fn_leaf") == 3 && self_of(&s, FIXTURE_PID + 1, "fn_leaf") == 1);
    struct perfetto_read_count *cnt;
    size_t ncnt = perfetto_read_self_counts(&s, 0, &cnt);
    CHECK(ncnt >= 2 && strcmp(cnt[0].function, "fn_other") == 0 && cnt[0].self == 74);
    free(cnt);
    uint64_t full_packets = s.packets;
    perfetto_read_free(&s);

    /* every prefix of the file is a valid trace: cut inside a packet, the tail is reported */
    size_t len = 0;
    uint8_t *data = slurp(path, &len);
    CHECK(data && len > 0 && data[0] == 0x0A);
    int prefix_bad = 0, truncated_seen = 0;
    for (size_t n = 0; data && n <= len; n++) {
        rc = perfetto_read_buffer(data, n, &s, err, sizeof(err));
        if (rc != 0 || s.violations || s.valid_bytes > n || (n == len && s.truncated)) {
            if (!prefix_bad++)
                fprintf(stderr, "prefix %zu: rc %d: %s\n", n, rc, err);
        }
        truncated_seen += s.truncated;
        perfetto_read_free(&s);
    }
    CHECK(prefix_bad == 0 && truncated_seen > 0);
    if (data) {
        /* a torn last write loses its chunk (one compressed bundle), nothing before it */
        rc = perfetto_read_buffer(data, len - 3, &s, err, sizeof(err));
        CHECK(rc == 0 && s.truncated && s.packets < full_packets && s.nsamples < 81);
        perfetto_read_free(&s);
    }
    free(data);

    /* protoc checks the framing */
    if (system("command -v protoc >/dev/null") == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof(cmd), "protoc --decode_raw < %s > /dev/null", path);
        CHECK(system(cmd) == 0);
    } else {
        printf("perfetto: protoc not found, framing check skipped\n");
    }

    check_broken_traces();
    check_delta_traces();
    check_many_samples(m, dir);
    check_delta_roundtrip(m, dir);
    check_tracks(m, dir);

    if (getenv("ROCSYS_TEST_KEEP")) /* keep the small trace for a look (ui.perfetto.dev) */
        printf("perfetto: kept %s\n", path);
    else if (unlink(path) == 0)
        rmdir(dir);
    model_free(m);
    return check_summary();
}
