/* CSV summaries of the GPU side, written from the model when the session ends:
 *   "kernels-csv" -> kernels.csv: one row per kernel (timed dispatches only);
 *   "hip-api-csv" -> hip_api.csv: one row per HIP API entry point called;
 *   "copies-csv"  -> copies.csv:  one row per copy direction and source.
 *
 * File format (kernels.csv, hip_api.csv), rocprof's --stats columns, rows by Percentage
 * (descending), times in nanoseconds, Percentage of the file's total time, StdDev the
 * population standard deviation:
 *   "Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev"
 * copies.csv: "Direction","Source","Calls","Bytes","TotalDurationNs","AverageNs","MinNs","MaxNs"
 *   (Source "hip": host time inside hipMemcpy*; "hsa": async copy time from the runtime).
 * Strings are always quoted, a quote inside doubled. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "model/model.h"
#include "record.h"

enum csv_kind { CSV_KERNELS, CSV_HIP_API, CSV_COPIES };

struct record_writer {
    FILE *f;
    enum csv_kind kind;
};

/* One row of a statistics table. */
struct csv_row {
    const char *name;
    const struct model_duration *d;
};

/* Open path for a writer of kind. */
static struct record_writer *csv_open(const char *path, enum csv_kind kind, char *err,
                                      size_t errlen)
{
    struct record_writer *w;
    FILE *f = record_fopen_err(path, err, errlen);

    if (!f)
        return NULL;
    w = xcalloc(1, sizeof(*w));
    w->f = f;
    w->kind = kind;
    return w;
}

static struct record_writer *kernels_open(const char *path, struct model *m, char *err,
                                          size_t errlen)
{
    (void)m;
    return csv_open(path, CSV_KERNELS, err, errlen);
}

static struct record_writer *hip_api_open(const char *path, struct model *m, char *err,
                                          size_t errlen)
{
    (void)m;
    return csv_open(path, CSV_HIP_API, err, errlen);
}

static struct record_writer *copies_open(const char *path, struct model *m, char *err,
                                         size_t errlen)
{
    (void)m;
    return csv_open(path, CSV_COPIES, err, errlen);
}

/* A quoted CSV string. */
void record_csv_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* Rows by total time, descending (then by name). */
static int by_total(const void *a, const void *b)
{
    const struct csv_row *x = a, *y = b;

    if (x->d->total_ns != y->d->total_ns)
        return x->d->total_ns < y->d->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* A rocprof-style statistics table of n rows. */
static void write_stats(FILE *f, struct csv_row *rows, int n)
{
    uint64_t total = 0;

    for (int i = 0; i < n; i++)
        total += rows[i].d->total_ns;
    qsort(rows, (size_t)n, sizeof(*rows), by_total);
    fprintf(f, "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\","
               "\"MaxNs\",\"StdDev\"\n");
    for (int i = 0; i < n; i++) {
        const struct model_duration *d = rows[i].d;
        record_csv_string(f, rows[i].name);
        fprintf(f, ",%llu,%llu,%.0f,%.4f,%llu,%llu,%.1f\n", (unsigned long long)d->calls,
                (unsigned long long)d->total_ns, model_duration_avg_ns(d),
                total ? 100.0 * (double)d->total_ns / (double)total : 0.0,
                (unsigned long long)d->min_ns, (unsigned long long)d->max_ns,
                model_duration_stddev_ns(d));
    }
}

/* kernels.csv */
static void write_kernels(FILE *f, struct model *m)
{
    struct model_kernel_list *l = model_kernels_list(m);
    struct csv_row *rows = xcalloc((size_t)l->count + 1, sizeof(*rows));
    int n = 0;

    for (int i = 0; i < l->count; i++)
        if (l->items[i].gpu.calls)
            rows[n++] = (struct csv_row){l->items[i].name, &l->items[i].gpu};
    write_stats(f, rows, n);
    free(rows);
    model_kernels_list_free(l);
}

/* hip_api.csv */
static void write_hip_api(FILE *f, struct model *m)
{
    int count = model_hip_api_count(m);
    struct csv_row *rows = xcalloc((size_t)count + 1, sizeof(*rows));

    for (int i = 0; i < count; i++)
        rows[i] = (struct csv_row){model_hip_api_at(m, i)->name, &model_hip_api_at(m, i)->time};
    write_stats(f, rows, count);
    free(rows);
}

/* copies.csv */
static void write_copies(FILE *f, struct model *m)
{
    fprintf(f, "\"Direction\",\"Source\",\"Calls\",\"Bytes\",\"TotalDurationNs\",\"AverageNs\","
               "\"MinNs\",\"MaxNs\"\n");
    for (int i = 0; i < model_copy_count(m); i++) {
        const struct model_copy *c = model_copy_at(m, i);
        record_csv_string(f, c->direction);
        fputc(',', f);
        record_csv_string(f, c->source);
        fprintf(f, ",%llu,%llu,%llu,%.0f,%llu,%llu\n", (unsigned long long)c->time.calls,
                (unsigned long long)c->bytes, (unsigned long long)c->time.total_ns,
                model_duration_avg_ns(&c->time), (unsigned long long)c->time.min_ns,
                (unsigned long long)c->time.max_ns);
    }
}

static int csv_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    int err;

    (void)end;
    if (w->kind == CSV_KERNELS)
        write_kernels(w->f, m);
    else if (w->kind == CSV_HIP_API)
        write_hip_api(w->f, m);
    else
        write_copies(w->f, m);
    err = ostream_close(w->f);
    free(w);
    return err;
}

const struct record_writer_class record_kernels_csv = {
    .name = "kernels-csv", .open = kernels_open, .event = NULL, .close = csv_close};
const struct record_writer_class record_hip_api_csv = {
    .name = "hip-api-csv", .open = hip_api_open, .event = NULL, .close = csv_close};
const struct record_writer_class record_copies_csv = {
    .name = "copies-csv", .open = copies_open, .event = NULL, .close = csv_close};
