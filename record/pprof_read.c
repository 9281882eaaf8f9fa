/* Reader of pprof profiles (pprof.h): inflate (gzip or not) and decode the fields rocsys-top
 * writes (record/pprof.c lists them); others are skipped. Used by --merge and the tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "model/model.h"
#include "pb.h"
#include "pprof.h"

#define PPROF_READ_MAX (1ull << 30) /* inflated size refused beyond this */

/* Inflate gzip data: the bytes (malloc'd) and *n, or NULL. */
static uint8_t *pr_inflate(const uint8_t *buf, size_t len, size_t *n)
{
    z_stream z;
    size_t cap = len * 4 + 4096;
    uint8_t *out = xmalloc(cap);
    int rc;

    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 15 + 32) != Z_OK) {
        free(out);
        return NULL;
    }
    z.next_in = (uint8_t *)buf;
    z.avail_in = (uInt)len;
    do {
        if (z.total_out == cap) {
            if (cap >= PPROF_READ_MAX)
                break;
            cap *= 2;
            out = xrealloc(out, cap);
        }
        z.next_out = out + z.total_out;
        z.avail_out = (uInt)(cap - z.total_out);
        rc = inflate(&z, Z_NO_FLUSH);
    } while (rc == Z_OK);
    *n = z.total_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

/* Room for element n of the array *a of elem-byte entries: it doubles when n reaches a power
 * of two, so that n appends cost O(n) without a capacity field. */
static void pr_room(void *a, size_t n, size_t elem)
{
    void **p = a;

    if (n >= 4 && (n & (n - 1)) != 0)
        return;
    *p = xrealloc(*p, (n < 4 ? 4 : 2 * n) * elem);
}

/* Append x to a growable array of int64 (*a, *n). */
static void pr_push(int64_t **a, size_t *n, int64_t x)
{
    pr_room(a, *n, sizeof(**a));
    (*a)[(*n)++] = x;
}

/* The varints of a repeated integer field (packed or one value), appended to *a. */
static int pr_ints(const struct pb_field *f, int64_t **a, size_t *n)
{
    if (f->wire == 0) {
        pr_push(a, n, (int64_t)f->v);
        return 0;
    }
    if (f->wire != 2)
        return -1;
    for (const uint8_t *p = f->data, *end = f->data + f->len; p < end;) {
        uint64_t v;
        if (pb_read_varint(&p, end, &v) != 0)
            return -1;
        pr_push(a, n, (int64_t)v);
    }
    return 0;
}

/* The varint fields 1..8 of a small message into v[] (others skipped). */
static int pr_small(const struct pb_field *f, int64_t v[9])
{
    struct pb_field g;
    const uint8_t *p = f->data;
    int rc;

    memset(v, 0, 9 * sizeof(*v));
    if (f->wire != 2)
        return -1;
    while ((rc = pb_next(&p, f->data + f->len, &g)) == 1)
        if (g.wire == 0 && g.field < 9)
            v[g.field] = (int64_t)g.v;
    return rc;
}

/* One Sample. */
static int pr_sample(struct pprof_data *d, const struct pb_field *f)
{
    struct pprof_sample_data *s;
    struct pb_field g;
    const uint8_t *p = f->data;
    int rc;

    pr_room(&d->samples, d->nsamples, sizeof(*d->samples));
    s = &d->samples[d->nsamples++];
    memset(s, 0, sizeof(*s));
    while ((rc = pb_next(&p, f->data + f->len, &g)) == 1) {
        int64_t v[9];
        if (g.field == 1 && pr_ints(&g, (int64_t **)&s->locs, &s->nlocs) != 0)
            return -1;
        if (g.field == 2 && pr_ints(&g, &s->values, &s->nvalues) != 0)
            return -1;
        if (g.field == 3) {
            if (pr_small(&g, v) != 0)
                return -1;
            pr_room(&s->labels, s->nlabels, sizeof(*s->labels));
            s->labels[s->nlabels++] = (struct pprof_label_data){v[1], v[2], v[3], v[4]};
        }
    }
    return rc;
}

/* One Location. */
static int pr_location(struct pprof_data *d, const struct pb_field *f)
{
    struct pprof_location_data *l;
    struct pb_field g;
    const uint8_t *p = f->data;
    int rc;

    pr_room(&d->locations, d->nlocations, sizeof(*d->locations));
    l = &d->locations[d->nlocations++];
    memset(l, 0, sizeof(*l));
    while ((rc = pb_next(&p, f->data + f->len, &g)) == 1) {
        int64_t v[9];
        if (g.field == 1 && g.wire == 0)
            l->id = g.v;
        else if (g.field == 2 && g.wire == 0)
            l->mapping = g.v;
        else if (g.field == 4) {
            if (pr_small(&g, v) != 0)
                return -1;
            pr_room(&l->lines, l->nlines, sizeof(*l->lines));
            l->lines[l->nlines++] = (struct pprof_line){(uint64_t)v[1], v[2]};
        }
    }
    return rc;
}

/* Whether every string index of d is in its string table. */
static int pr_strings_ok(const struct pprof_data *d)
{
    int64_t n = (int64_t)d->nstrings;
#define PR_IN(x) ((x) >= 0 && (x) < n)
    for (size_t i = 0; i < d->ntypes; i++)
        if (!PR_IN(d->types[i][0]) || !PR_IN(d->types[i][1]))
            return 0;
    for (size_t i = 0; i < d->nfunctions; i++)
        if (!PR_IN(d->functions[i].name) || !PR_IN(d->functions[i].filename))
            return 0;
    for (size_t i = 0; i < d->nmappings; i++)
        if (!PR_IN(d->mappings[i].filename))
            return 0;
    for (size_t i = 0; i < d->nsamples; i++)
        for (size_t j = 0; j < d->samples[i].nlabels; j++) {
            const struct pprof_label_data *l = &d->samples[i].labels[j];
            if (!PR_IN(l->key) || !PR_IN(l->str) || !PR_IN(l->num_unit))
                return 0;
        }
    for (size_t i = 0; i < d->ncomments; i++)
        if (!PR_IN(d->comments[i]))
            return 0;
    return PR_IN(d->period_type[0]) && PR_IN(d->period_type[1]) && PR_IN(d->default_type) &&
           d->nstrings > 0 && d->strings[0][0] == '\0';
#undef PR_IN
}

/* Decode the Profile message in [p, end) into d. */
static int pr_profile(struct pprof_data *d, const uint8_t *p, const uint8_t *end)
{
    struct pb_field f;
    int rc;

    while ((rc = pb_next(&p, end, &f)) == 1) {
        int64_t v[9];
        switch (f.field) {
        case 1: /* sample_type */
            if (pr_small(&f, v) != 0 || d->ntypes >= PPROF_MAX_TYPES)
                return -1;
            d->types[d->ntypes][0] = v[1];
            d->types[d->ntypes++][1] = v[2];
            break;
        case 2:
            if (f.wire != 2 || pr_sample(d, &f) != 0)
                return -1;
            break;
        case 3:
            if (pr_small(&f, v) != 0)
                return -1;
            pr_room(&d->mappings, d->nmappings, sizeof(*d->mappings));
            d->mappings[d->nmappings++] = (struct pprof_mapping_data){(uint64_t)v[1], v[5]};
            break;
        case 4:
            if (f.wire != 2 || pr_location(d, &f) != 0)
                return -1;
            break;
        case 5:
            if (pr_small(&f, v) != 0)
                return -1;
            pr_room(&d->functions, d->nfunctions, sizeof(*d->functions));
            d->functions[d->nfunctions++] =
                (struct pprof_function_data){(uint64_t)v[1], v[2], v[4], v[5]};
            break;
        case 6:
            if (f.wire != 2)
                return -1;
            pr_room(&d->strings, d->nstrings, sizeof(*d->strings));
            d->strings[d->nstrings] = xmalloc(f.len + 1);
            memcpy(d->strings[d->nstrings], f.data, f.len);
            d->strings[d->nstrings++][f.len] = '\0';
            break;
        case 9:
            d->time_nanos = (int64_t)f.v;
            break;
        case 10:
            d->duration_nanos = (int64_t)f.v;
            break;
        case 11:
            if (pr_small(&f, v) != 0)
                return -1;
            d->period_type[0] = v[1];
            d->period_type[1] = v[2];
            break;
        case 12:
            d->period = (int64_t)f.v;
            break;
        case 13:
            if (pr_ints(&f, &d->comments, &d->ncomments) != 0)
                return -1;
            break;
        case 14:
            d->default_type = (int64_t)f.v;
            break;
        default:
            break;
        }
    }
    return rc;
}

struct pprof_data *pprof_read(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
    struct pprof_data *d = xcalloc(1, sizeof(*d));
    uint8_t *raw = NULL;
    size_t n = len;

    if (len == 0) {
        snprintf(err, errlen, "empty (the recording did not end: killed?)");
        free(d);
        return NULL;
    }
    if (len >= 2 && buf[0] == 0x1f && buf[1] == 0x8b) {
        raw = pr_inflate(buf, len, &n);
        if (!raw) {
            snprintf(err, errlen, "not a whole gzip stream");
            free(d);
            return NULL;
        }
        buf = raw;
    }
    if (pr_profile(d, buf, buf + n) != 0) {
        snprintf(err, errlen, "not a well-formed Profile message");
        goto fail;
    }
    if (!pr_strings_ok(d)) {
        snprintf(err, errlen, "a string index outside the string table");
        goto fail;
    }
    for (size_t i = 0; i < d->nsamples; i++)
        if (d->samples[i].nvalues != d->ntypes) {
            snprintf(err, errlen, "sample %zu has %zu values for %zu sample types", i,
                     d->samples[i].nvalues, d->ntypes);
            goto fail;
        }
    free(raw);
    return d;
fail:
    free(raw);
    pprof_data_free(d);
    return NULL;
}

struct pprof_data *pprof_read_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    ssize_t k = 0;

    if (fd < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    for (;;) {
        xgrow(&buf, &cap, len + 65536, 1);
        if ((k = read(fd, buf + len, cap - len)) <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    char why[192] = "";
    struct pprof_data *d = k < 0 ? NULL : pprof_read(buf, len, why, sizeof(why));
    if (!d)
        snprintf(err, errlen, "%s: %s", path, k < 0 ? strerror(errno) : why);
    free(buf);
    return d;
}

void pprof_data_free(struct pprof_data *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nstrings; i++)
        free(d->strings[i]);
    free(d->strings);
    for (size_t i = 0; i < d->nsamples; i++) {
        free(d->samples[i].locs);
        free(d->samples[i].values);
        free(d->samples[i].labels);
    }
    free(d->samples);
    for (size_t i = 0; i < d->nlocations; i++)
        free(d->locations[i].lines);
    free(d->locations);
    free(d->functions);
    free(d->mappings);
    free(d->comments);
    free(d);
}

const struct pprof_location_data *pprof_data_location(const struct pprof_data *d, uint64_t id)
{
    /* ids are 1.. in order when written by rocsys-top: try that first */
    if (id >= 1 && id <= d->nlocations && d->locations[id - 1].id == id)
        return &d->locations[id - 1];
    for (size_t i = 0; i < d->nlocations; i++)
        if (d->locations[i].id == id)
            return &d->locations[i];
    return NULL;
}

const struct pprof_function_data *pprof_data_function(const struct pprof_data *d, uint64_t id)
{
    if (id >= 1 && id <= d->nfunctions && d->functions[id - 1].id == id)
        return &d->functions[id - 1];
    for (size_t i = 0; i < d->nfunctions; i++)
        if (d->functions[i].id == id)
            return &d->functions[i];
    return NULL;
}

const struct pprof_mapping_data *pprof_data_mapping(const struct pprof_data *d, uint64_t id)
{
    if (id >= 1 && id <= d->nmappings && d->mappings[id - 1].id == id)
        return &d->mappings[id - 1];
    for (size_t i = 0; i < d->nmappings; i++)
        if (d->mappings[i].id == id)
            return &d->mappings[i];
    return NULL;
}
