/* Writer "gpu-csv" -> gpu.csv: the GPU time series, one row per sample and GPU, rebuilt from
 * the machine-wide counter events "GPU<i> <metric>" (pid 0) of the session's event stream.
 *
 * File format: CSV (RFC 4180, no quoting needed: no field holds a comma). The first line is
 * the header; each column name ends with its unit:
 *   time_s,gpu,busy_pct,power_w,power_cap_w,temp_edge_c,...,fan_pct
 * time_s: seconds since the session started (CLOCK_MONOTONIC); gpu: the device index; an
 * empty field is a metric that could not be read at that sample (N/A), never a made-up 0.
 * Readers should pick columns by name: new metrics are appended at the end. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "gpu/gpu.h"
#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
    struct model *m;
    int have_row;          /* a row is being assembled */
    uint64_t row_time_ns;  /* its sample time */
    int row_gpu;           /* its device */
    struct gpu_sample row; /* its values */
    uint64_t rows;
};

static struct record_writer *csv_open(const char *path, struct model *m, char *err, size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));

    w->f = record_fopen_err(path, err, errlen);
    if (!w->f) {
        free(w);
        return NULL;
    }
    w->m = m;
    fprintf(w->f, "time_s,gpu");
    for (int k = 0; k < GPU_M_COUNT; k++)
        fprintf(w->f, ",%s", gpu_metrics[k].csv);
    fputc('\n', w->f);
    return w;
}

/* Write the row being assembled. */
static void flush_row(struct record_writer *w)
{
    uint64_t start = model_session(w->m)->start_ns;
    uint64_t t = w->row_time_ns > start ? w->row_time_ns - start : 0;

    if (!w->have_row)
        return;
    fprintf(w->f, "%.3f,%d", (double)t / 1e9, w->row_gpu);
    for (int k = 0; k < GPU_M_COUNT; k++) {
        if (!gpu_sample_has(&w->row, k))
            fputc(',', w->f);
        else if (strcmp(gpu_metrics[k].unit, "bytes") == 0)
            fprintf(w->f, ",%.0f", w->row.v[k]);
        else
            fprintf(w->f, ",%.3f", w->row.v[k]);
    }
    fputc('\n', w->f);
    w->have_row = 0;
    w->rows++;
}

/* A counter "GPU<i> <metric>": part of the row of (time, i); a new (time, i) ends the row. */
static void csv_event(struct record_writer *w, const struct record_event *ev)
{
    unsigned gpu;
    int used = 0, metric;

    if (ev->type != RECORD_EV_COUNTER || ev->pid != 0 || !ev->track)
        return;
    if (sscanf(ev->track, "GPU%u %n", &gpu, &used) != 1 || used == 0)
        return;
    metric = gpu_metric_by_track(ev->track + used);
    if (metric < 0)
        return;
    if (w->have_row && (w->row_time_ns != ev->time_ns || w->row_gpu != (int)gpu))
        flush_row(w);
    if (!w->have_row) {
        memset(&w->row, 0, sizeof(w->row));
        w->row_time_ns = ev->time_ns;
        w->row_gpu = (int)gpu;
        w->have_row = 1;
    }
    w->row.v[metric] = ev->value;
    w->row.valid |= 1u << metric;
}

static int csv_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    int err;

    (void)m;
    (void)end;
    flush_row(w);
    err = ostream_close(w->f);
    free(w);
    return err;
}

/* Rows so far written out (each check: a follower of the recording sees them): 0 or errno. */
static int csv_error(struct record_writer *w)
{
    return ostream_flush(w->f);
}

const struct record_writer_class record_gpu_csv = {
    .name = "gpu-csv",
    .open = csv_open,
    .event = csv_event,
    .close = csv_close,
    .error = csv_error,
};
