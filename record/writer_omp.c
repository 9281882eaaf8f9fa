/* Writer "omp-csv" -> omp.csv: the OpenMP parallel regions the collector saw through OMPT
 * (model/omp.c), one row per (process, region), written at the end.
 *
 * File format: CSV (RFC 4180; the region name is quoted, its quotes doubled). Header:
 *   pid,region,count,threads,wall_ms,work_max_ms,work_mean_ms,imbalance_pct,barrier_ms,
 *   barrier_pct,taskwait_ms
 * count: instances; threads: the largest team; wall_ms: begin to end, summed; work_max_ms /
 * work_mean_ms: per instance the slowest thread's work and the threads' mean, summed;
 * imbalance_pct: 100 (work_max - work_mean) / work_max; barrier_ms: the threads' time in
 * barriers (the closing one included), summed; barrier_pct: its share of threads x wall time;
 * taskwait_ms: the threads' time in taskwait / taskgroup. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
};

static struct record_writer *omp_open(const char *path, struct model *m, char *err, size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));

    (void)m;
    w->f = record_fopen_err(path, err, errlen);
    if (!w->f) {
        free(w);
        return NULL;
    }
    fprintf(w->f, "pid,region,count,threads,wall_ms,work_max_ms,work_mean_ms,imbalance_pct,"
                  "barrier_ms,barrier_pct,taskwait_ms\n");
    return w;
}

static int omp_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    int n, err;
    const struct model_omp_stats *s = model_omp_stats(m, &n);

    (void)end;
    for (int i = 0; i < n; i++) {
        fprintf(w->f, "%u,", (unsigned)s[i].pid);
        record_csv_string(w->f, s[i].name);
        fprintf(w->f, ",%llu,%u,%.3f,%.3f,%.3f,%.2f,%.3f,%.2f,%.3f\n",
                (unsigned long long)s[i].count, (unsigned)s[i].threads, (double)s[i].wall_ns / 1e6,
                (double)s[i].work_max_ns / 1e6, (double)s[i].work_mean_ns / 1e6,
                model_omp_imbalance_pct(&s[i]), (double)s[i].barrier_ns / 1e6,
                model_omp_barrier_pct(&s[i]), (double)s[i].taskwait_ns / 1e6);
    }
    err = ostream_close(w->f);
    free(w);
    return err;
}

const struct record_writer_class record_omp_csv = {
    .name = "omp-csv", .open = omp_open, .event = NULL, .close = omp_close};
