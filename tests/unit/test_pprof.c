/* pprof encoder (record/pprof.c) and writer (record/writer_pprof.c): what the builder is given
 * comes back through the reader (record/pprof_read.c) field by field, interning dedups, the
 * bytes are the same for the same input, the reader refuses broken files, and a model's
 * samples become samples with the thread's labels and the call path leaf first. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"
#include "model/model.h"
#include "record/pb.h"
#include "record/pprof.h"
#include "record/record.h"

/* The bytes of p written gzip-compressed (through a memfd); *n gets the length. */
static uint8_t *written(struct pprof *p, size_t *n)
{
    int fd = memfd_create("pprof", 0);
    CHECK(fd >= 0);
    CHECK(pprof_write_gz(p, fd) == 0);
    off_t len = lseek(fd, 0, SEEK_END);
    uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
    CHECK(pread(fd, b, (size_t)len, 0) == len);
    close(fd);
    *n = (size_t)len;
    return b;
}

static const char *str(const struct pprof_data *d, int64_t i)
{
    return d->strings[i];
}

/* The value of label key of sample s (string or number as text), or NULL. */
static const char *label(const struct pprof_data *d, const struct pprof_sample_data *s,
                         const char *key, char *buf, size_t n)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(str(d, s->labels[i].key), key) == 0) {
            if (s->labels[i].str)
                return str(d, s->labels[i].str);
            snprintf(buf, n, "%lld", (long long)s->labels[i].num);
            return buf;
        }
    return NULL;
}

/* The function name of the i-th frame (leaf first) of sample s, and its line. */
static const char *frame(const struct pprof_data *d, const struct pprof_sample_data *s, size_t i,
                         int64_t *line, const char **file)
{
    const struct pprof_location_data *l = i < s->nlocs ? pprof_data_location(d, s->locs[i]) : NULL;
    const struct pprof_function_data *f =
        l && l->nlines == 1 ? pprof_data_function(d, l->lines[0].function) : NULL;
    if (!f)
        return "(unresolved)";
    if (line)
        *line = l->lines[0].line;
    if (file)
        *file = str(d, f->filename);
    return str(d, f->name);
}

/* A small profile as a recording makes them: two types, native and Python frames, labels. */
static struct pprof *small_profile(void)
{
    struct pprof *p = pprof_new();
    CHECK(pprof_sample_type(p, "samples", "count") == 0);
    CHECK(pprof_sample_type(p, "cpu", "nanoseconds") == 1);
    pprof_set_default_type(p, "cpu");
    pprof_set_period(p, "cpu", "nanoseconds", 1000000);
    pprof_set_times(p, 0, 5000000000);
    pprof_comment(p, "rocsys-top: ./app");
    uint64_t exe = pprof_mapping(p, "app"), py = pprof_mapping(p, "[python]");
    uint64_t fmain = pprof_function(p, "main", "app.c", 10);
    uint64_t fwork = pprof_function(p, "work", "app.c", 20);
    uint64_t fpy = pprof_function(p, "Model.step", "/src/model.py", 0);
    CHECK_MSG(pprof_function(p, "main", "app.c", 10) == fmain, "a function is interned once");
    CHECK_MSG(fwork != fmain && fpy != fwork, "distinct functions get distinct ids");
    uint64_t lmain = pprof_location(p, exe, fmain, 0), lwork = pprof_location(p, exe, fwork, 0);
    uint64_t lpy7 = pprof_location(p, py, fpy, 7), lpy9 = pprof_location(p, py, fpy, 9);
    CHECK_MSG(pprof_location(p, py, fpy, 7) == lpy7, "a location is interned once");
    CHECK_MSG(lpy7 != lpy9, "two lines of one function are two locations");
    uint64_t s1[] = {lwork, lmain}, s2[] = {lpy9, lpy7, lmain};
    struct pprof_label l1[] = {{.key = "thread", .str = "solver-0"}, {.key = "tid", .num = 77}};
    struct pprof_label l2[] = {{.key = "rank", .num = 3},
                               {.key = "mem", .num = 5, .num_unit = "bytes"}};
    int64_t v1[] = {3, 3000000}, v2[] = {1, 1000000};
    pprof_sample(p, s1, 2, v1, l1, 2);
    pprof_sample(p, s2, 3, v2, l2, 2);
    return p;
}

/* A profile of more sample bytes than are compressed at a time (the samples are deflated as
 * they come, in 1 MiB steps, and joined into the gzip file at the end) reads back whole, and
 * the file is one valid gzip member (CRC and length checked by the reader's zlib). */
static void test_big(void)
{
    struct pprof *p = pprof_new();
    uint64_t locs[64];
    int64_t sum = 0, got = 0;
    char err[256], name[32];
    size_t n;

    CHECK(pprof_sample_type(p, "samples", "count") == 0);
    for (int i = 0; i < 64; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        locs[i] = pprof_location(p, pprof_mapping(p, "app"), pprof_function(p, name, "a.c", i), 0);
    }
    for (int i = 0; i < 40000; i++) { /* about 3 MiB of samples */
        int64_t v[] = {1 + i % 7};
        struct pprof_label l[] = {{.key = "tid", .num = i % 5}};
        sum += v[0];
        pprof_sample(p, locs + i % 16, 48, v, l, 1);
    }
    uint8_t *b = written(p, &n);
    struct pprof_data *d = pprof_read(b, n, err, sizeof(err));
    CHECK_MSG(d != NULL, "the big profile reads back: %s", err);
    for (size_t i = 0; d && i < d->nsamples; i++)
        got += d->samples[i].values[0];
    CHECK_MSG(d && d->nsamples == 40000 && got == sum, "40000 samples of %lld, read %zu of %lld",
              (long long)sum, d ? d->nsamples : 0, (long long)got);
    CHECK(d && d->samples[39999].nlocs == 48 && d->samples[39999].locs[0] == locs[39999 % 16]);
    pprof_data_free(d);
    free(b);
    pprof_free(p);
}

/* What the builder was given comes back through the reader. */
static void test_round_trip(void)
{
    struct pprof *p = small_profile();
    size_t n;
    uint8_t *b = written(p, &n);
    char err[256] = "", buf[32];

    CHECK_MSG(n > 18 && b[0] == 0x1f && b[1] == 0x8b, "gzip magic");
    CHECK_MSG(b[4] == 0 && b[5] == 0 && b[6] == 0 && b[7] == 0, "gzip header without a time");
    struct pprof_data *d = pprof_read(b, n, err, sizeof(err));
    CHECK_MSG(d != NULL, "read back: %s", err);
    if (!d)
        goto out;
    CHECK_STR(d->strings[0], "");
    CHECK(d->ntypes == 2);
    CHECK_STR(str(d, d->types[0][0]), "samples");
    CHECK_STR(str(d, d->types[1][1]), "nanoseconds");
    CHECK_STR(str(d, d->default_type), "cpu");
    CHECK_STR(str(d, d->period_type[0]), "cpu");
    CHECK(d->period == 1000000 && d->duration_nanos == 5000000000 && d->time_nanos == 0);
    CHECK(d->ncomments == 1 && strcmp(str(d, d->comments[0]), "rocsys-top: ./app") == 0);
    CHECK_MSG(d->nsamples == 2, "%zu samples", d->nsamples);
    CHECK(d->nmappings == 2 && d->nfunctions == 3 && d->nlocations == 4);
    if (d->nsamples == 2) {
        const struct pprof_sample_data *s = &d->samples[0], *t = &d->samples[1];
        int64_t line = -1;
        const char *file = NULL;
        CHECK(s->nvalues == 2 && s->values[0] == 3 && s->values[1] == 3000000);
        CHECK_STR(frame(d, s, 0, NULL, &file), "work");
        CHECK_STR(file, "app.c");
        CHECK_STR(frame(d, s, 1, NULL, NULL), "main");
        const char *th = label(d, s, "thread", buf, sizeof(buf));
        CHECK_STR(th ? th : "(none)", "solver-0");
        const char *tid = label(d, s, "tid", buf, sizeof(buf));
        CHECK_STR(tid ? tid : "(none)", "77");
        CHECK(t->nlocs == 3);
        CHECK_STR(frame(d, t, 0, &line, &file), "Model.step");
        CHECK_MSG(line == 9, "the Python leaf's line: %lld", (long long)line);
        CHECK_STR(file, "/src/model.py");
        frame(d, t, 1, &line, NULL);
        CHECK_MSG(line == 7, "the Python caller's line: %lld", (long long)line);
        const char *rank = label(d, t, "rank", buf, sizeof(buf));
        CHECK_STR(rank ? rank : "(none)", "3");
        CHECK(t->nlabels == 2 && strcmp(str(d, t->labels[1].num_unit), "bytes") == 0);
        const struct pprof_location_data *l = pprof_data_location(d, s->locs[0]);
        const struct pprof_mapping_data *m = l ? pprof_data_mapping(d, l->mapping) : NULL;
        CHECK_STR(m ? str(d, m->filename) : "(none)", "app");
    }
    pprof_data_free(d);
out:
    free(b);
    pprof_free(p);
}

/* The same calls give the same bytes. */
static void test_deterministic(void)
{
    struct pprof *p = small_profile(), *q = small_profile();
    size_t n, k;
    uint8_t *a = written(p, &n), *b = written(q, &k);

    CHECK_MSG(n == k && memcmp(a, b, n) == 0, "two builds of one profile differ (%zu, %zu bytes)",
              n, k);
    free(a);
    free(b);
    pprof_free(p);
    pprof_free(q);
}

/* Broken input is refused with a reason, never read past. */
static void test_refused(void)
{
    struct pprof *p = small_profile();
    size_t n;
    uint8_t *b = written(p, &n);
    char err[256];
    struct pb raw = {0}, sub = {0};

    struct pprof_data *e = pprof_read(b, 0, err, sizeof(err));
    CHECK_MSG(e == NULL && strstr(err, "empty"), "an empty file: %s", e ? "read" : err);
    pprof_data_free(e);
    for (size_t cut = 1; cut < n; cut += 7) {
        struct pprof_data *d = pprof_read(b, n - cut, err, sizeof(err));
        CHECK_MSG(d == NULL, "a gzip stream cut %zu bytes short was read", cut);
        pprof_data_free(d);
    }
    /* a label whose key's string index is past the table */
    struct pb smp = {0};
    pb_bytes(&raw, 6, "", 0);
    pb_uint(&sub, 1, 5);
    pb_bytes(&smp, 3, sub.p, sub.n);
    pb_bytes(&raw, 2, smp.p, smp.n);
    struct pprof_data *d = pprof_read(raw.p, raw.n, err, sizeof(err));
    CHECK_MSG(d == NULL, "a string index outside the table was accepted");
    pprof_data_free(d);
    /* a sample with a value but no sample type */
    raw.n = 0;
    smp.n = 0;
    pb_bytes(&raw, 6, "", 0);
    pb_uint(&smp, 2, 1);
    pb_bytes(&raw, 2, smp.p, smp.n);
    d = pprof_read(raw.p, raw.n, err, sizeof(err));
    CHECK_MSG(d == NULL, "a sample with more values than sample types was accepted");
    pprof_data_free(d);
    pb_free(&raw);
    pb_free(&sub);
    pb_free(&smp);
    free(b);
    pprof_free(p);
}

/* Merging (--merge): two profiles read back and added with a rank label each. */
static void test_add_data(void)
{
    struct pprof *p = small_profile(), *q = pprof_new();
    size_t n, k;
    uint8_t *b = written(p, &n);
    char err[256] = "", buf[32];
    struct pprof_data *d = pprof_read(b, n, err, sizeof(err));

    CHECK_MSG(d != NULL, "read back: %s", err);
    if (!d)
        goto out;
    struct pprof_label l0 = {.key = "rank", .str = "0"}, l1 = {.key = "rank", .str = "1"};
    pprof_add_data(q, d, &l0, 1);
    pprof_add_data(q, d, &l1, 1);
    uint8_t *c = written(q, &k);
    struct pprof_data *m = pprof_read(c, k, err, sizeof(err));
    CHECK_MSG(m != NULL, "merged read back: %s", err);
    if (m) {
        CHECK(m->ntypes == 2 && strcmp(str(m, m->types[1][0]), "cpu") == 0);
        CHECK(m->period == d->period && strcmp(str(m, m->default_type), "cpu") == 0);
        CHECK_MSG(m->nsamples == 4, "%zu samples", m->nsamples);
        CHECK_MSG(m->nfunctions == d->nfunctions && m->nlocations == d->nlocations,
                  "frames interned once across ranks: %zu functions, %zu locations", m->nfunctions,
                  m->nlocations);
        const char *want[] = {"0", NULL, "1", NULL};
        for (size_t i = 0; i < m->nsamples && i < 4; i++) {
            const char *r = label(m, &m->samples[i], "rank", buf, sizeof(buf));
            /* the second sample of each has a rank label of its own (3): kept */
            CHECK_STR(r ? r : "(none)", want[i] ? want[i] : "3");
            CHECK(m->samples[i].values[0] == d->samples[i % 2].values[0]);
            CHECK_STR(frame(m, &m->samples[i], 0, NULL, NULL),
                      frame(d, &d->samples[i % 2], 0, NULL, NULL));
        }
        pprof_data_free(m);
    }
    free(c);
    pprof_data_free(d);
out:
    free(b);
    pprof_free(p);
    pprof_free(q);
}

/* Whether files a and b hold the same bytes (and are readable). */
static int same_file(const char *a, const char *b)
{
    FILE *f = fopen(a, "rb"), *g = fopen(b, "rb");
    int same = f && g, c, d;

    while (same && (c = fgetc(f)) == (d = fgetc(g)) && c != EOF)
        ;
    if (same)
        same = c == d;
    if (f)
        fclose(f);
    if (g)
        fclose(g);
    return same;
}

/* The writer: a model's stacks become samples with thread labels, leaf first. */
static void test_writer(void)
{
    struct model *m = model_new();
    struct model_session *s = model_session(m);
    char path[] = "/tmp/test_pprof_XXXXXX", file[64], err[256] = "", buf[32];
    const char *a[] = {"main", "solve"}, *b[] = {"main", "reduce"};

    s->freq_hz = 1000;
    s->mode = "cpu";
    model_proc_start(m, 100, 1, "/usr/bin/app", "app", 0);
    model_thread_start(m, 100, 101, "worker", 0);
    model_sample_symbolized(m, 100, 101, 1, a, 2, 3);
    model_sample_symbolized(m, 100, 101, 2, b, 2, 1);
    CHECK(mkdtemp(path) != NULL);
    snprintf(file, sizeof(file), "%s/profile.pb.gz", path);
    struct record_writer *w = record_profile_pb.open(file, m, err, sizeof(err));
    CHECK_MSG(w != NULL, "open: %s", err);
    if (w)
        CHECK(record_profile_pb.close(w, m, NULL) == 0);
    /* the same model, written again: the same bytes */
    char again[80];
    snprintf(again, sizeof(again), "%s/again.pb.gz", path);
    w = record_profile_pb.open(again, m, err, sizeof(err));
    if (w)
        CHECK(record_profile_pb.close(w, m, NULL) == 0);
    CHECK_MSG(same_file(file, again), "two profile.pb.gz of one model differ");
    unlink(again);
    struct pprof_data *d = pprof_read_file(file, err, sizeof(err));
    CHECK_MSG(d != NULL, "read back: %s", err);
    if (d) {
        CHECK(d->ntypes == 3 && strcmp(str(d, d->types[2][0]), "gpu") == 0);
        CHECK_MSG(d->nsamples == 2, "%zu samples", d->nsamples);
        uint64_t solve = 0, total = 0;
        for (size_t i = 0; i < d->nsamples; i++) {
            const struct pprof_sample_data *x = &d->samples[i];
            total += (uint64_t)x->values[0];
            CHECK_MSG(x->values[1] == x->values[0] * 1000000, "cpu ns = count x period");
            if (strcmp(frame(d, x, 0, NULL, NULL), "solve") == 0)
                solve += (uint64_t)x->values[0];
            CHECK_STR(frame(d, x, 1, NULL, NULL), "main");
            const char *th = label(d, x, "thread", buf, sizeof(buf));
            CHECK_STR(th ? th : "(none)", "worker");
            const char *pid = label(d, x, "pid", buf, sizeof(buf));
            CHECK_STR(pid ? pid : "(none)", "100");
            const char *proc = label(d, x, "process", buf, sizeof(buf));
            CHECK_STR(proc ? proc : "(none)", "app");
        }
        CHECK_MSG(total == 4 && solve == 3, "samples %llu, of solve %llu",
                  (unsigned long long)total, (unsigned long long)solve);
        pprof_data_free(d);
    }
    unlink(file);
    rmdir(path);
    model_free(m);
}

int main(void)
{
    test_round_trip();
    test_deterministic();
    test_refused();
    test_big();
    test_add_data();
    test_writer();
    return check_summary();
}
