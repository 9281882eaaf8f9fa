/* "mpi-csv" -> mpi.csv: one row per MPI call the recorded processes made (collector/mpi.c),
 * written from the model when the session ends; rows by total time, descending (then name).
 *   "Name","Calls","TotalDurationNs","AverageNs","Percentage","MinNs","MaxNs","StdDev",
 *   "Bytes","Errors","CommSize","Waits","AppPercentage"
 * rocprof's --stats columns first (times in nanoseconds, Percentage of the file's MPI time,
 * StdDev the population standard deviation), then the payload moved (count x datatype size of
 * the caller's buffer), the calls that failed, the largest communicator, 1 for a call that waits
 * for other ranks (its samples are "[mpi wait]" leaves), and its time as a share of the
 * processes' MPI span (from MPI_Init's start to MPI_Finalize's end, as mpiP's "AppTime"): the
 * rows' AppPercentage sum to the recording's MPI %. Only the header when no MPI call was made.
 * Strings are always quoted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/ostream.h"
#include "model/model.h"
#include "model/mpi.h"
#include "record.h"

struct record_writer {
    FILE *f;
};

static struct record_writer *mpi_open(const char *path, struct model *m, char *err, size_t errlen)
{
    FILE *f = record_fopen_err(path, err, errlen);
    struct record_writer *w;

    (void)m;
    if (!f)
        return NULL;
    w = xcalloc(1, sizeof(*w));
    w->f = f;
    return w;
}

static int mpi_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    struct model_mpi_stats calls[MODEL_MPI_CALLS];
    uint64_t span_ns, total = 0;
    int n = model_mpi_totals(m, 0, model_clock_ns(CLOCK_MONOTONIC), calls, &span_ns), err;

    (void)end;
    for (int i = 0; i < n; i++)
        total += calls[i].time.total_ns;
    fprintf(w->f, "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\","
                  "\"MaxNs\",\"StdDev\",\"Bytes\",\"Errors\",\"CommSize\",\"Waits\","
                  "\"AppPercentage\"\n");
    for (int i = 0; i < n; i++) { /* names are MPI_ identifiers: no quote to double */
        const struct model_duration *d = &calls[i].time;
        fprintf(w->f, "\"%s\",%llu,%llu,%.0f,%.4f,%llu,%llu,%.1f,%llu,%llu,%u,%d,%.4f\n",
                calls[i].name, (unsigned long long)d->calls, (unsigned long long)d->total_ns,
                model_duration_avg_ns(d), total ? 100.0 * (double)d->total_ns / (double)total : 0.0,
                (unsigned long long)d->min_ns, (unsigned long long)d->max_ns,
                model_duration_stddev_ns(d), (unsigned long long)calls[i].bytes,
                (unsigned long long)calls[i].errors, (unsigned)calls[i].comm_size, calls[i].waits,
                span_ns ? 100.0 * (double)d->total_ns / (double)span_ns : 0.0);
    }
    err = ostream_close(w->f);
    free(w);
    return err;
}

const struct record_writer_class record_mpi_csv = {
    .name = "mpi-csv", .open = mpi_open, .event = NULL, .close = mpi_close};
