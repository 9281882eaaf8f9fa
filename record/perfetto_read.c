/* Reader and checker of rocsys-top's Perfetto traces: framing (tag 0x0A, varint length per
 * packet; a truncated tail ends the read cleanly), the TracePacket fields the writer uses, and
 * their meaning as trace_processor would see it: each sequence starts by clearing its
 * incremental state; interned ids (callstacks, frames, function names, mappings, paths)
 * resolve on the packet's sequence; every frame has a mapping; every perf_sample's thread has
 * a descriptor; track uuids are not reused for another process or thread. Timestamps are
 * resolved in file order the way trace_processor's tokenizer does it (packet clock, else the
 * sequence's TracePacketDefaults clock, else BOOTTIME; sequence-scoped incremental clocks
 * accumulate deltas from their ClockSnapshot anchor): a timestamp on a sequence-scoped clock
 * without an anchor is a violation.
 * This file reads the framing, the packets and their sequences and holds the API; the rest is
 * in perfetto_read_tracks.c, perfetto_read_stacks.c and perfetto_read_clock.c. */
#define _GNU_SOURCE
#include "perfetto_read.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/hash.h"
#include "model/model.h"
#include "perfetto_read_internal.h"

/* The entry of (kind, a, b): existing (used) or the free slot to fill. */
static struct rent *rmap_slot(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b)
{
    if (m->count * 2 >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 1024;
        struct rent *e = xcalloc(cap, sizeof(*e));
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->e[i].used)
                continue;
            size_t j = hash_mix64(m->e[i].a ^ hash_mix64(m->e[i].b ^ m->e[i].kind)) & (cap - 1);
            while (e[j].used)
                j = (j + 1) & (cap - 1);
            e[j] = m->e[i];
        }
        free(m->e);
        m->e = e;
        m->cap = cap;
    }
    size_t j = hash_mix64(a ^ hash_mix64(b ^ kind)) & (m->cap - 1);
    while (m->e[j].used && !(m->e[j].kind == kind && m->e[j].a == a && m->e[j].b == b))
        j = (j + 1) & (m->cap - 1);
    return &m->e[j];
}

void pfr_rmap_put(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b, uint64_t val)
{
    struct rent *e = rmap_slot(m, kind, a, b);
    if (!e->used)
        m->count++;
    *e = (struct rent){.a = a, .b = b, .val = val, .kind = kind, .used = 1};
}

/* Value of (kind, a, b) in *val; 0 if found, -1 if not. */
int pfr_rmap_get(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b, uint64_t *val)
{
    struct rent *e = rmap_slot(m, kind, a, b);
    if (!e->used)
        return -1;
    *val = e->val;
    return 0;
}

/* Record a failed meaning check; the first one becomes the error message. */
void pfr_violation(struct reader *r, const char *fmt, ...)
{
    va_list ap;

    if (r->out->violations++ == 0 && r->errlen) {
        va_start(ap, fmt);
        vsnprintf(r->err, r->errlen, fmt, ap);
        va_end(ap);
    }
}

uint64_t pfr_add_str(struct reader *r, const uint8_t *p, size_t n)
{
    xgrow(&r->strs, &r->capstrs, r->nstrs + 1, sizeof(*r->strs));
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    r->strs[r->nstrs] = s;
    return r->nstrs++;
}

static char *dup_bytes(const uint8_t *p, size_t n)
{
    char *s = xmalloc(n + 1);
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

void pfr_pool_push(struct reader *r, uint64_t v)
{
    xgrow(&r->pool, &r->cappool, r->npool + 1, sizeof(*r->pool));
    r->pool[r->npool++] = v;
}

/* Sub-message fields (varints and strings) by number; returns -1 if malformed. */
int pfr_parse_flat(const uint8_t *p, size_t n, uint64_t *v, int *has, const uint8_t **s, size_t *sn,
                   uint32_t max)
{
    const uint8_t *c = p, *cend;
    struct pb_field f;
    int k;

    if (!p) /* a sub-message's field number sent as a varint: no fields */
        return 0;
    cend = p + n; /* (only now: NULL + 0 is undefined) */
    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.field >= max)
            continue;
        if (f.wire == 0) {
            v[f.field] = f.v;
            has[f.field] = 1;
        } else if (f.wire == 2 && s) {
            s[f.field] = f.data;
            sn[f.field] = f.len;
            has[f.field] = 1;
        }
    }
    return k;
}

void pfr_set_name(char **dst, const uint8_t *p, size_t n)
{
    free(*dst);
    *dst = dup_bytes(p ? p : (const uint8_t *)"", p ? n : 0);
}

/* The state of sequence id (*is_new: first seen now). */
static struct rseq *seq_of(struct reader *r, uint32_t id, int *is_new)
{
    for (size_t i = 0; i < r->nseqs; i++)
        if (r->seqs[i].id == id) {
            *is_new = 0;
            return &r->seqs[i];
        }
    r->seqs = xrealloc(r->seqs, (r->nseqs + 1) * sizeof(*r->seqs));
    r->seqs[r->nseqs] = (struct rseq){.id = id};
    r->out->sequences++;
    *is_new = 1;
    return &r->seqs[r->nseqs++];
}

static int parse_packets(struct reader *r, const uint8_t *data, size_t len, int nested);

/* Inflate a compressed_packets field (zlib of a Trace: more packets) and read its packets. */
static int parse_compressed(struct reader *r, const uint8_t *p, size_t n)
{
    enum { MAX_INFLATED = 256 << 20 }; /* a bundle never comes near this; a bomb stops here */
    z_stream z = {0};
    uint8_t *out = NULL;
    size_t cap = 0, len = 0;
    int rc = -1, zr = Z_OK;

    if (inflateInit(&z) != Z_OK)
        return -1;
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)n;
    while (zr != Z_STREAM_END) {
        if (len == cap) {
            if (cap >= MAX_INFLATED)
                goto cleanup;
            cap = cap ? cap * 2 : 4 * n + 4096;
            out = xrealloc(out, cap);
        }
        z.next_out = out + len;
        z.avail_out = (uInt)(cap - len);
        zr = inflate(&z, Z_NO_FLUSH);
        len = cap - z.avail_out;
        if (zr != Z_OK && zr != Z_STREAM_END)
            goto cleanup;
    }
    r->nested = 1;
    rc = parse_packets(r, out, len, 1);
    r->nested = 0;
cleanup:
    inflateEnd(&z);
    free(out);
    return rc;
}

/* One TracePacket. Returns -1 if it is malformed protobuf. */
static int parse_packet(struct reader *r, const uint8_t *p, size_t n)
{
    const uint8_t *c = p, *cend = p + n;
    struct pb_field f, in = {0}, td = {0}, ps = {0}, cl = {0}, te = {0}, df = {0}, zp = {0};
    uint64_t ts = 0, clock_id = 0, seq = 0, flags = 0, boot = 0, mono = 0;
    int has_ts = 0, k, is_new = 0;
    struct rseq *sq = NULL;

    while ((k = pb_next(&c, cend, &f)) > 0) {
        if (f.wire == 0 && f.field == PF_PACKET_TIMESTAMP)
            ts = f.v, has_ts = 1;
        else if (f.wire == 0 && f.field == PF_PACKET_TIMESTAMP_CLOCK)
            clock_id = f.v;
        else if (f.wire == 0 && f.field == PF_PACKET_SEQUENCE_ID)
            seq = f.v;
        else if (f.wire == 0 && f.field == PF_PACKET_SEQUENCE_FLAGS)
            flags = f.v;
        else if (f.wire == 2 && f.field == PF_PACKET_INTERNED_DATA)
            in = f;
        else if (f.wire == 2 && f.field == PF_PACKET_TRACK_DESCRIPTOR)
            td = f;
        else if (f.wire == 2 && f.field == PF_PACKET_PERF_SAMPLE)
            ps = f;
        else if (f.wire == 2 && f.field == PF_PACKET_CLOCK_SNAPSHOT)
            cl = f;
        else if (f.wire == 2 && f.field == PF_PACKET_TRACK_EVENT)
            te = f;
        else if (f.wire == 2 && f.field == PF_PACKET_DEFAULTS)
            df = f;
        else if (f.wire == 2 && f.field == PF_PACKET_COMPRESSED)
            zp = f;
    }
    if (k < 0)
        return -1;
    if (zp.data && r->nested) {
        snprintf(r->err, r->errlen, "a compressed bundle inside a compressed bundle");
        return -1;
    }
    if (zp.data) /* a bundle of packets, deflated: nothing else of this packet is read */
        return parse_compressed(r, zp.data, zp.len);
    r->out->packets++;
    if (seq == 0) {
        if (in.data || ps.data || te.data)
            pfr_violation(r, "interned data, perf_sample or track event without a sequence id");
        if (td.data && pfr_parse_track(r, td.data, td.len) < 0)
            return -1;
        return 0;
    }
    sq = seq_of(r, (uint32_t)seq, &is_new);
    if (is_new && !(flags & PF_SEQ_CLEARED))
        pfr_violation(r, "sequence %llu: first packet does not clear incremental state",
                      (unsigned long long)seq);
    if (flags & PF_SEQ_CLEARED) { /* a new generation: interned data and defaults start empty */
        sq->gen = ++r->gen;
        sq->default_clock = 0;
    }
    if (df.data) { /* TracePacketDefaults: only timestamp_clock_id matters here */
        uint64_t v[PF_DEFAULTS_TIMESTAMP_CLOCK + 1] = {0};
        int has[PF_DEFAULTS_TIMESTAMP_CLOCK + 1] = {0};
        if (pfr_parse_flat(df.data, df.len, v, has, NULL, NULL, PF_DEFAULTS_TIMESTAMP_CLOCK + 1) <
            0)
            return -1;
        sq->default_clock = (uint32_t)v[PF_DEFAULTS_TIMESTAMP_CLOCK];
    }
    if (sq->gen == 0 && (flags & PF_SEQ_NEEDS || in.data || ps.data)) {
        pfr_violation(r, "sequence %llu: packet needs incremental state before it is cleared",
                      (unsigned long long)seq);
        return 0; /* trace_processor drops it */
    }
    if (in.data && pfr_parse_interned(r, sq, in.data, in.len) < 0)
        return -1;
    if (cl.data) { /* trace_processor reads nothing else of a ClockSnapshot packet */
        if (td.data || ps.data || te.data)
            pfr_violation(r,
                          "sequence %llu: a ClockSnapshot packet carries content that "
                          "trace_processor ignores",
                          (unsigned long long)seq);
        return pfr_parse_clocks(r, sq, cl.data, cl.len);
    }
    if (has_ts && pfr_resolve_time(r, sq, ts, clock_id, &boot, &mono) < 0)
        return 0; /* trace_processor cannot place it */
    if (td.data && pfr_parse_track(r, td.data, td.len) < 0)
        return -1;
    if (ps.data && pfr_parse_sample(r, sq, ps.data, ps.len, has_ts, boot, mono) < 0)
        return -1;
    if (te.data && pfr_parse_track_event(r, te.data, te.len, has_ts, mono) < 0)
        return -1;
    return 0;
}

static void reader_free(struct reader *r)
{
    for (size_t i = 0; i < r->nstrs; i++)
        free(r->strs[i]);
    free(r->strs);
    free(r->pool);
    free(r->frames);
    free(r->seqs);
    free(r->map.e);
}

/* Read the packets of a Trace in data: the file (a torn last packet ends it: truncated) or a
 * compressed bundle (nested: every packet must be whole). Returns 0, or -1 (err set). */
static int parse_packets(struct reader *r, const uint8_t *data, size_t len, int nested)
{
    struct perfetto_summary *out = r->out;
    const uint8_t *c = data, *end = data + len;

    while (c < end) {
        const uint8_t *start = c;
        uint64_t n;
        if (*c != PB_TAG(PF_TRACE_PACKET, 2)) {
            snprintf(r->err, r->errlen, "byte 0x%02x at offset %zu%s is not a packet tag", *c,
                     (size_t)(c - data), nested ? " of a compressed bundle" : "");
            return -1;
        }
        c++;
        if (pb_read_varint(&c, end, &n) < 0 || n > (uint64_t)(end - c)) {
            if (nested) {
                snprintf(r->err, r->errlen, "a packet of a compressed bundle is cut short");
                return -1;
            }
            out->truncated = 1;
            break;
        }
        if (parse_packet(r, c, (size_t)n) < 0) {
            snprintf(r->err, r->errlen, "malformed packet at offset %zu%s", (size_t)(start - data),
                     nested ? " of a compressed bundle" : "");
            return -1;
        }
        c += n;
        if (!nested)
            out->valid_bytes = (uint64_t)(c - data);
    }
    return 0;
}

int perfetto_read_buffer(const uint8_t *data, size_t len, struct perfetto_summary *out, char *err,
                         size_t errlen)
{
    struct reader r = {.out = out, .err = err, .errlen = errlen};
    char none[1];
    int rc = -1;

    memset(out, 0, sizeof(*out));
    if (!errlen) { /* parse_packets writes its reason somewhere */
        r.err = none;
        r.errlen = sizeof(none);
    }
    r.err[0] = '\0';
    if (parse_packets(&r, data, len, 0) < 0)
        goto cleanup;
    if (!out->truncated)
        for (size_t i = 0; i < out->nslices; i++)
            if (!out->slices[i].instant && out->slices[i].end_ns == 0) {
                pfr_violation(&r, "slice %s never ends", out->slices[i].name);
                break;
            }
    rc = out->violations ? -1 : 0;
cleanup:
    reader_free(&r);
    return rc;
}

struct perfetto_stream {
    struct reader r;
    struct perfetto_summary out;
    uint64_t offset;
};

struct perfetto_stream *perfetto_stream_new(void)
{
    struct perfetto_stream *st = xcalloc(1, sizeof(*st));
    st->r.out = &st->out;
    return st;
}

long perfetto_stream_feed(struct perfetto_stream *st, const uint8_t *data, size_t len, char *err,
                          size_t errlen)
{
    char none[1];

    st->r.err = errlen ? err : none;
    st->r.errlen = errlen ? errlen : sizeof(none);
    st->r.err[0] = '\0';
    st->out.valid_bytes = 0;
    st->out.truncated = 0;
    if (parse_packets(&st->r, data, len, 0) < 0)
        return -1;
    st->offset += st->out.valid_bytes;
    return (long)st->out.valid_bytes;
}

struct perfetto_summary *perfetto_stream_summary(struct perfetto_stream *st)
{
    return &st->out;
}

uint64_t perfetto_stream_offset(const struct perfetto_stream *st)
{
    return st->offset;
}

void perfetto_stream_free(struct perfetto_stream *st)
{
    if (!st)
        return;
    reader_free(&st->r);
    perfetto_read_free(&st->out);
    free(st);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The files NNNNNN.pftrace of a rolling trace's chunk directory, in order, one after the
 * other in memory (*data, *size). 0, or -1 with err set. */
static int read_chunk_dir(const char *path, uint8_t **data, size_t *size, char *err, size_t errlen)
{
    DIR *d = opendir(path);
    struct dirent *de;
    char **names = NULL, file[4200];
    size_t n = 0, cap = 0, len = 0, alloc = 0;
    int rc = 0;

    if (!d) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 9 || strcmp(de->d_name + l - 8, ".pftrace") != 0)
            continue;
        xgrow(&names, &cap, n + 1, sizeof(*names));
        names[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name);
    for (size_t i = 0; i < n && rc == 0; i++) {
        snprintf(file, sizeof(file), "%s/%s", path, names[i]);
        FILE *f = fopen(file, "rb");
        if (!f)
            continue; /* dropped while we read (the run goes on) */
        for (size_t k = 1; k > 0;) {
            xgrow(data, &alloc, len + 65536, 1);
            k = fread(*data + len, 1, 65536, f);
            len += k;
        }
        rc = ferror(f) ? -1 : 0;
        if (rc)
            snprintf(err, errlen, "cannot read %s", file);
        fclose(f);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    *size = len;
    return rc;
}

int perfetto_read_file(const char *path, struct perfetto_summary *out, char *err, size_t errlen)
{
    FILE *f;
    uint8_t *data = NULL;
    long size;
    int rc = -1;
    struct stat st;

    memset(out, 0, sizeof(*out));
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) { /* a rolling trace's chunks */
        size_t len = 0;
        if (read_chunk_dir(path, &data, &len, err, errlen) == 0)
            rc = perfetto_read_buffer(data ? data : (const uint8_t *)"", len, out, err, errlen);
        free(data);
        return rc;
    }
    f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
        goto cleanup;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        snprintf(err, errlen, "cannot seek %s", path);
        goto cleanup;
    }
    data = xmalloc((size_t)size + 1);
    if (fread(data, 1, (size_t)size, f) != (size_t)size) {
        snprintf(err, errlen, "short read on %s", path);
        goto cleanup;
    }
    rc = perfetto_read_buffer(data, (size_t)size, out, err, errlen);
cleanup:
    if (f)
        fclose(f);
    free(data);
    return rc;
}

void perfetto_read_free(struct perfetto_summary *s)
{
    for (size_t i = 0; i < s->nthreads; i++)
        free(s->threads[i].name);
    for (size_t i = 0; i < s->nprocesses; i++)
        free(s->processes[i].name);
    for (size_t i = 0; i < s->nstacks; i++) {
        for (uint32_t j = 0; j < s->stacks[i].n; j++)
            free(s->stacks[i].functions[j]);
        free(s->stacks[i].functions);
    }
    for (size_t i = 0; i < s->ntracks; i++) {
        free(s->tracks[i].name);
        free(s->tracks[i].unit);
    }
    for (size_t i = 0; i < s->nslices; i++) {
        free(s->slices[i].name);
        free(s->slices[i].category);
        free(s->slices[i].args);
    }
    free(s->tracks);
    free(s->counters);
    free(s->slices);
    free(s->threads);
    free(s->processes);
    free(s->stacks);
    free(s->samples);
    memset(s, 0, sizeof(*s));
}

static int count_cmp(const void *a, const void *b)
{
    const struct perfetto_read_count *x = a, *y = b;
    if (x->self != y->self)
        return x->self > y->self ? -1 : 1;
    return strcmp(x->function, y->function);
}

size_t perfetto_read_self_counts(const struct perfetto_summary *s, uint32_t tid,
                                 struct perfetto_read_count **out)
{
    struct perfetto_read_count *c = NULL;
    size_t n = 0, cap = 0;
    uint64_t *per_stack = xcalloc(s->nstacks ? s->nstacks : 1, sizeof(*per_stack));

    for (size_t i = 0; i < s->nsamples; i++)
        if (tid == 0 || s->samples[i].tid == tid)
            per_stack[s->samples[i].stack]++;
    for (size_t i = 0; i < s->nstacks; i++) {
        if (!per_stack[i] || s->stacks[i].n == 0)
            continue;
        const char *leaf = s->stacks[i].functions[s->stacks[i].n - 1];
        size_t j;
        for (j = 0; j < n && strcmp(c[j].function, leaf) != 0; j++)
            ;
        if (j == n) {
            xgrow(&c, &cap, n + 1, sizeof(*c));
            c[n++] = (struct perfetto_read_count){leaf, 0};
        }
        c[j].self += per_stack[i];
    }
    free(per_stack);
    if (n)
        qsort(c, n, sizeof(*c), count_cmp);
    *out = c;
    return n;
}

const struct perfetto_read_thread *perfetto_read_thread_find(const struct perfetto_summary *s,
                                                             uint32_t pid, uint32_t tid)
{
    for (size_t i = 0; i < s->nthreads; i++)
        if (s->threads[i].pid == pid && s->threads[i].tid == tid)
            return &s->threads[i];
    return NULL;
}

int perfetto_read_track_find(const struct perfetto_summary *s, uint32_t pid, const char *name)
{
    for (size_t i = 0; i < s->ntracks; i++)
        if ((!pid || s->tracks[i].pid == pid) && strcmp(s->tracks[i].name, name) == 0)
            return (int)i;
    return -1;
}
