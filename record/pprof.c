/* Builder of pprof profiles (pprof.h). File format (perftools.profiles.Profile, proto3, every
 * integer a varint; the file is the message gzip-compressed):
 *   1 sample_type {1 type, 2 unit}        one per value of a sample, in order
 *   2 sample {1 location_id (packed, leaf first), 2 value (packed), 3 label {1 key, 2 str,
 *            3 num, 4 num_unit}}
 *   3 mapping {1 id, 5 filename, 7 has_functions, 8 has_filenames, 9 has_line_numbers}
 *   4 location {1 id, 2 mapping_id, 4 line {1 function_id, 2 line}}
 *   5 function {1 id, 2 name, 4 filename, 5 start_line} (system_name unset: pprof would
 *            shorten a demangled C++ name taken for a mangled one)
 *   6 string_table (string_table[0] = "")
 *   9 time_nanos, 10 duration_nanos, 11 period_type {1 type, 2 unit}, 12 period,
 *   13 comment (packed string indexes), 14 default_sample_type
 * Strings are referenced by their index in string_table; ids start at 1 and follow the order
 * of first use. Each entry is encoded when it is made, so the profile costs its encoded size
 * plus the interning tables. */
#include "pprof.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/hash.h"
#include "base/ostream.h"
#include "model/model.h"
#include "pb.h"

/* One slot of an interning table: a key of four numbers (or a string's hash) and its id. */
struct pp_ent {
    uint64_t k[4];
    uint64_t id; /* 0: free */
};

struct pp_tab {
    struct pp_ent *e;
    size_t cap, count;
};

struct pprof {
    struct pb types, samples, mappings, locations, functions, strtab, tmp, sub;
    int ntypes;
    int64_t type_names[PPROF_MAX_TYPES]; /* string index of each sample type's name */
    struct pp_tab strs; /* k[0] = hash, id = the string's index (never 0: "" is not in it) */
    char **strings;
    size_t nstrings;
    struct pp_tab maps, funcs, locs;
    int64_t period_type[2], period, time_nanos, duration_nanos, default_type;
    struct pb comments; /* packed string indexes */
    /* the samples compressed as they come (a raw deflate stream of its own, joined into the
     * gzip file at the end), so a big profile is not held whole: */
    z_stream zs;
    int zs_on;
    struct pb zsamples;     /* its output so far */
    uLong samples_crc;      /* CRC-32 of the sample bytes */
    uint64_t samples_bytes; /* and their count */
};

#define PP_SAMPLES_CHUNK (1024 * 1024) /* sample bytes compressed at a time */

static uint64_t pp_hash_key(const uint64_t k[4])
{
    return hash_mix64(k[0] ^ hash_mix64(k[1] ^ hash_mix64(k[2] ^ hash_mix64(k[3] + 1))));
}

/* Double the table (rehashing with hash(entry)). */
static void pp_grow(struct pp_tab *t, uint64_t (*hash)(const struct pp_ent *))
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct pp_ent *e = xcalloc(cap, sizeof(*e));

    for (size_t i = 0; i < t->cap; i++) {
        if (!t->e[i].id)
            continue;
        size_t j = hash(&t->e[i]) & (cap - 1);
        while (e[j].id)
            j = (j + 1) & (cap - 1);
        e[j] = t->e[i];
    }
    free(t->e);
    t->e = e;
    t->cap = cap;
}

static uint64_t pp_tuple_hash(const struct pp_ent *e)
{
    return pp_hash_key(e->k);
}

static uint64_t pp_str_hash(const struct pp_ent *e)
{
    return e->k[0];
}

/* The id of tuple k in t, made (the next id) when new: *made tells which. */
static uint64_t pp_tuple(struct pp_tab *t, const uint64_t k[4], int *made)
{
    if ((t->count + 1) * 4 > t->cap * 3)
        pp_grow(t, pp_tuple_hash);
    size_t j = pp_hash_key(k) & (t->cap - 1);
    for (; t->e[j].id; j = (j + 1) & (t->cap - 1))
        if (memcmp(t->e[j].k, k, sizeof(t->e[j].k)) == 0) {
            *made = 0;
            return t->e[j].id;
        }
    memcpy(t->e[j].k, k, sizeof(t->e[j].k));
    t->e[j].id = ++t->count;
    *made = 1;
    return t->e[j].id;
}

/* The string table index of s (added when new; NULL and "" are 0). */
static int64_t pp_str(struct pprof *p, const char *s)
{
    if (!s || !*s)
        return 0;
    uint64_t h = hash_str(s);
    if ((p->strs.count + 1) * 4 > p->strs.cap * 3)
        pp_grow(&p->strs, pp_str_hash);
    size_t j = h & (p->strs.cap - 1);
    for (; p->strs.e[j].id; j = (j + 1) & (p->strs.cap - 1))
        if (p->strs.e[j].k[0] == h && strcmp(p->strings[p->strs.e[j].id], s) == 0)
            return (int64_t)p->strs.e[j].id;
    p->strs.e[j].k[0] = h;
    p->strs.e[j].id = p->nstrings;
    p->strs.count++;
    p->strings = xrealloc(p->strings, (p->nstrings + 1) * sizeof(*p->strings));
    p->strings[p->nstrings++] = xstrdup(s);
    pb_bytes(&p->strtab, 6, s, strlen(s));
    return (int64_t)p->nstrings - 1;
}

struct pprof *pprof_new(void)
{
    struct pprof *p = xcalloc(1, sizeof(*p));

    /* string_table[0] must be "" */
    p->strings = xmalloc(sizeof(*p->strings));
    p->strings[0] = xstrdup("");
    p->nstrings = 1;
    pb_bytes(&p->strtab, 6, "", 0);
    return p;
}

void pprof_free(struct pprof *p)
{
    if (!p)
        return;
    struct pb *bufs[] = {&p->types,  &p->samples, &p->mappings, &p->locations, &p->functions,
                         &p->strtab, &p->tmp,     &p->sub,      &p->comments,  &p->zsamples};
    for (size_t i = 0; i < sizeof(bufs) / sizeof(bufs[0]); i++)
        pb_free(bufs[i]);
    if (p->zs_on)
        deflateEnd(&p->zs);
    for (size_t i = 0; i < p->nstrings; i++)
        free(p->strings[i]);
    free(p->strings);
    free(p->strs.e);
    free(p->maps.e);
    free(p->funcs.e);
    free(p->locs.e);
    free(p);
}

int pprof_sample_type(struct pprof *p, const char *type, const char *unit)
{
    if (p->ntypes >= PPROF_MAX_TYPES)
        return -1;
    p->tmp.n = 0;
    pb_uint(&p->tmp, 1, (uint64_t)pp_str(p, type));
    pb_uint(&p->tmp, 2, (uint64_t)pp_str(p, unit));
    pb_bytes(&p->types, 1, p->tmp.p, p->tmp.n);
    p->type_names[p->ntypes] = pp_str(p, type);
    return p->ntypes++;
}

void pprof_set_period(struct pprof *p, const char *type, const char *unit, int64_t period)
{
    p->period_type[0] = pp_str(p, type);
    p->period_type[1] = pp_str(p, unit);
    p->period = period;
}

void pprof_set_default_type(struct pprof *p, const char *type)
{
    p->default_type = pp_str(p, type);
}

void pprof_set_times(struct pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
    p->time_nanos = time_nanos;
    p->duration_nanos = duration_nanos;
}

void pprof_comment(struct pprof *p, const char *text)
{
    pb_varint(&p->comments, (uint64_t)pp_str(p, text));
}

uint64_t pprof_mapping(struct pprof *p, const char *file)
{
    uint64_t k[4] = {(uint64_t)pp_str(p, file), 0, 0, 0};
    int made;
    uint64_t id = pp_tuple(&p->maps, k, &made);

    if (made) {
        /* symbolized already: readers use the functions as they are */
        p->tmp.n = 0;
        pb_uint(&p->tmp, 1, id);
        pb_uint(&p->tmp, 5, k[0]);
        pb_uint(&p->tmp, 7, 1);
        pb_uint(&p->tmp, 8, 1);
        pb_uint(&p->tmp, 9, 1);
        pb_bytes(&p->mappings, 3, p->tmp.p, p->tmp.n);
    }
    return id;
}

uint64_t pprof_function(struct pprof *p, const char *name, const char *file, int64_t start_line)
{
    uint64_t k[4] = {(uint64_t)pp_str(p, name), (uint64_t)pp_str(p, file), (uint64_t)start_line, 0};
    int made;
    uint64_t id = pp_tuple(&p->funcs, k, &made);

    if (made) {
        p->tmp.n = 0;
        pb_uint(&p->tmp, 1, id);
        pb_uint(&p->tmp, 2, k[0]); /* no system_name: readers would "demangle" the name */
        if (k[1])
            pb_uint(&p->tmp, 4, k[1]);
        if (start_line > 0)
            pb_uint(&p->tmp, 5, (uint64_t)start_line);
        pb_bytes(&p->functions, 5, p->tmp.p, p->tmp.n);
    }
    return id;
}

uint64_t pprof_location(struct pprof *p, uint64_t mapping, uint64_t function, int64_t line)
{
    uint64_t k[4] = {mapping, function, (uint64_t)line, 0};
    int made;
    uint64_t id = pp_tuple(&p->locs, k, &made);

    if (made) {
        p->tmp.n = 0;
        pb_uint(&p->tmp, 1, id);
        if (mapping)
            pb_uint(&p->tmp, 2, mapping);
        p->sub.n = 0;
        pb_uint(&p->sub, 1, function);
        if (line > 0)
            pb_uint(&p->sub, 2, (uint64_t)line);
        pb_bytes(&p->tmp, 4, p->sub.p, p->sub.n);
        pb_bytes(&p->locations, 4, p->tmp.p, p->tmp.n);
    }
    return id;
}

/* Where deflated bytes go: appended to mem, or (mem NULL) written to fd. */
struct pp_sink {
    struct pb *mem;
    int fd;
};

/* Deflate n bytes of b into z (flush: Z_NO_FLUSH, Z_FULL_FLUSH, or Z_FINISH for the last),
 * each piece of output to sink (in memory, deflated straight into the buffer): 0 or an
 * errno. */
static int pp_deflate(z_stream *z, const uint8_t *b, size_t n, int flush,
                      const struct pp_sink *sink)
{
    uint8_t buf[64 * 1024];
    int rc;

    z->next_in = (Bytef *)b;
    z->avail_in = (uInt)n;
    do {
        uint8_t *out = buf;
        size_t room = sizeof(buf);
        if (sink->mem) {
            pb_reserve(sink->mem, sizeof(buf));
            out = sink->mem->p + sink->mem->n;
            room = sink->mem->cap - sink->mem->n;
        }
        z->next_out = out;
        z->avail_out = (uInt)room;
        rc = deflate(z, flush);
        if (rc == Z_STREAM_ERROR)
            return EIO;
        size_t made = room - z->avail_out;
        if (sink->mem)
            sink->mem->n += made;
        else if (made) {
            int err = ostream_write_all(sink->fd, out, made, NULL);
            if (err)
                return err;
        }
    } while (z->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
    return 0;
}

/* Compress the samples encoded so far into p->zsamples (flush: Z_NO_FLUSH, or Z_FULL_FLUSH to
 * end the stream on a byte boundary without a final block, as the gzip file goes on after
 * it). Returns 0 or an errno. */
static int pp_samples_deflate(struct pprof *p, int flush)
{
    if (!p->zs_on) {
        memset(&p->zs, 0, sizeof(p->zs));
        if (deflateInit2(&p->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) !=
            Z_OK)
            return ENOMEM;
        p->zs_on = 1;
        p->samples_crc = crc32(0, Z_NULL, 0);
    }
    const struct pp_sink to_memory = {.mem = &p->zsamples, .fd = -1};
    int err;

    if (p->samples.n)
        p->samples_crc = crc32(p->samples_crc, p->samples.p, (uInt)p->samples.n);
    p->samples_bytes += p->samples.n;
    err = pp_deflate(&p->zs, p->samples.p, p->samples.n, flush, &to_memory);
    p->samples.n = 0;
    return err;
}

void pprof_sample(struct pprof *p, const uint64_t *locs, size_t nlocs, const int64_t *values,
                  const struct pprof_label *labels, size_t nlabels)
{
    p->tmp.n = 0;
    p->sub.n = 0;
    for (size_t i = 0; i < nlocs; i++)
        pb_varint(&p->sub, locs[i]);
    if (p->sub.n)
        pb_bytes(&p->tmp, 1, p->sub.p, p->sub.n);
    p->sub.n = 0;
    for (int i = 0; i < p->ntypes; i++)
        pb_varint(&p->sub, (uint64_t)values[i]);
    if (p->sub.n)
        pb_bytes(&p->tmp, 2, p->sub.p, p->sub.n);
    for (size_t i = 0; i < nlabels; i++) {
        p->sub.n = 0;
        pb_uint(&p->sub, 1, (uint64_t)pp_str(p, labels[i].key));
        if (labels[i].str) {
            pb_uint(&p->sub, 2, (uint64_t)pp_str(p, labels[i].str));
        } else {
            pb_uint(&p->sub, 3, (uint64_t)labels[i].num);
            if (labels[i].num_unit)
                pb_uint(&p->sub, 4, (uint64_t)pp_str(p, labels[i].num_unit));
        }
        pb_bytes(&p->tmp, 3, p->sub.p, p->sub.n);
    }
    pb_bytes(&p->samples, 2, p->tmp.p, p->tmp.n);
    if (p->samples.n >= PP_SAMPLES_CHUNK)
        pp_samples_deflate(p, Z_NO_FLUSH);
}

/* p's location for location id of d (0 when d has none). */
static uint64_t pp_copy_location(struct pprof *p, const struct pprof_data *d, uint64_t id)
{
    const struct pprof_location_data *l = pprof_data_location(d, id);
    const struct pprof_function_data *f =
        l && l->nlines ? pprof_data_function(d, l->lines[0].function) : NULL;
    const struct pprof_mapping_data *m = l ? pprof_data_mapping(d, l->mapping) : NULL;

    if (!f)
        return pprof_location(p, 0, pprof_function(p, "?", NULL, 0), 0);
    return pprof_location(
        p, m ? pprof_mapping(p, d->strings[m->filename]) : 0,
        pprof_function(p, d->strings[f->name], d->strings[f->filename], f->start_line),
        l->lines[0].line);
}

void pprof_add_data(struct pprof *p, const struct pprof_data *d, const struct pprof_label *extra,
                    size_t nextra)
{
    int to[PPROF_MAX_TYPES]; /* p's type index of each of d's, -1: none */
    uint64_t *locs = NULL;
    struct pprof_label *labels = NULL;
    size_t caplocs = 0, caplabels = 0;

    if (p->ntypes == 0) {
        for (size_t i = 0; i < d->ntypes; i++)
            pprof_sample_type(p, d->strings[d->types[i][0]], d->strings[d->types[i][1]]);
        pprof_set_period(p, d->strings[d->period_type[0]], d->strings[d->period_type[1]],
                         d->period);
        if (d->default_type)
            pprof_set_default_type(p, d->strings[d->default_type]);
        for (size_t i = 0; i < d->ncomments; i++)
            pprof_comment(p, d->strings[d->comments[i]]);
    }
    for (size_t i = 0; i < d->ntypes; i++) {
        to[i] = -1;
        for (int t = 0; t < p->ntypes; t++)
            if (strcmp(p->strings[p->type_names[t]], d->strings[d->types[i][0]]) == 0)
                to[i] = t;
    }
    if (d->duration_nanos > p->duration_nanos)
        p->duration_nanos = d->duration_nanos;
    for (size_t i = 0; i < d->nsamples; i++) {
        const struct pprof_sample_data *s = &d->samples[i];
        int64_t v[PPROF_MAX_TYPES] = {0};
        size_t nl = 0;
        xgrow(&locs, &caplocs, s->nlocs + 1, sizeof(*locs));
        xgrow(&labels, &caplabels, s->nlabels + nextra + 1, sizeof(*labels));
        for (size_t k = 0; k < s->nlocs; k++)
            locs[k] = pp_copy_location(p, d, s->locs[k]);
        for (size_t k = 0; k < s->nvalues && k < d->ntypes; k++)
            if (to[k] >= 0)
                v[to[k]] += s->values[k];
        for (size_t k = 0; k < s->nlabels; k++, nl++) {
            const struct pprof_label_data *l = &s->labels[k];
            labels[nl] = (struct pprof_label){
                .key = d->strings[l->key],
                .str = l->str ? d->strings[l->str] : NULL,
                .num = l->num,
                .num_unit = l->num_unit ? d->strings[l->num_unit] : NULL,
            };
        }
        for (size_t e = 0; e < nextra; e++) {
            size_t k = 0;
            while (k < s->nlabels && strcmp(d->strings[s->labels[k].key], extra[e].key) != 0)
                k++;
            if (k == s->nlabels)
                labels[nl++] = extra[e];
        }
        pprof_sample(p, locs, s->nlocs, v, labels, nl);
    }
    free(locs);
    free(labels);
}

/* Raw-deflate the n parts into fd as one stream of their own (flush: Z_FULL_FLUSH to leave it
 * open to what follows, Z_FINISH for the last), adding their bytes to *crc and *len. */
static int pp_deflate_parts(const struct pb *const *parts, size_t n, int flush, int fd, uLong *crc,
                            uint64_t *len)
{
    const struct pp_sink to_file = {.mem = NULL, .fd = fd};
    z_stream z;
    int err = 0;

    memset(&z, 0, sizeof(z));
    if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ENOMEM;
    for (size_t i = 0; i < n && !err; i++) {
        if (parts[i]->n) /* (crc32 of a NULL buffer is 0, not the CRC so far) */
            *crc = crc32(*crc, parts[i]->p, (uInt)parts[i]->n);
        *len += parts[i]->n;
        err = pp_deflate(&z, parts[i]->p, parts[i]->n, i + 1 == n ? flush : Z_NO_FLUSH, &to_file);
    }
    deflateEnd(&z);
    return err;
}

int pprof_write_gz(struct pprof *p, int fd)
{
    /* gzip's header: no name, mtime 0, default level, OS Unix (as zlib writes it): the bytes
     * depend on the profile only */
    static const uint8_t header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};
    struct pb tail = {0};
    uLong crc = crc32(0, Z_NULL, 0);
    uint64_t len = 0;
    uint8_t trailer[8];
    int err;

    /* the scalars after the tables, in field order */
    if (p->time_nanos)
        pb_uint(&tail, 9, (uint64_t)p->time_nanos);
    if (p->duration_nanos)
        pb_uint(&tail, 10, (uint64_t)p->duration_nanos);
    if (p->period_type[0] || p->period_type[1]) {
        p->tmp.n = 0;
        pb_uint(&p->tmp, 1, (uint64_t)p->period_type[0]);
        pb_uint(&p->tmp, 2, (uint64_t)p->period_type[1]);
        pb_bytes(&tail, 11, p->tmp.p, p->tmp.n);
    }
    if (p->period)
        pb_uint(&tail, 12, (uint64_t)p->period);
    if (p->comments.n)
        pb_bytes(&tail, 13, p->comments.p, p->comments.n);
    if (p->default_type)
        pb_uint(&tail, 14, (uint64_t)p->default_type);
    const struct pb *head[] = {&p->types};
    const struct pb *rest_all[] = {&p->mappings, &p->locations, &p->functions, &p->strtab, &tail};

    /* one gzip member whose deflate data is three streams joined on byte boundaries (each
     * ends with a full flush but the last): the sample types, the samples compressed as they
     * came, the rest; the CRC and length cover the message in field order */
    err = ostream_write_all(fd, header, sizeof(header), NULL);
    if (!err)
        err = pp_deflate_parts(head, 1, Z_FULL_FLUSH, fd, &crc, &len);
    if (!err)
        err = pp_samples_deflate(p, Z_FULL_FLUSH);
    if (!err) {
        crc = crc32_combine(crc, p->samples_crc, (z_off_t)p->samples_bytes);
        len += p->samples_bytes;
        err = ostream_write_all(fd, p->zsamples.p, p->zsamples.n, NULL);
    }
    if (!err)
        err = pp_deflate_parts(rest_all, sizeof(rest_all) / sizeof(rest_all[0]), Z_FINISH, fd, &crc,
                               &len);
    for (int i = 0; i < 4; i++) {
        trailer[i] = (uint8_t)(crc >> (8 * i));
        trailer[4 + i] = (uint8_t)(len >> (8 * i));
    }
    if (!err)
        err = ostream_write_all(fd, trailer, sizeof(trailer), NULL);
    pb_free(&tail);
    return err;
}
