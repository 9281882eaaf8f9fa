/* profile.coz (--causal --record DIR): the causal profiling experiments in the tab-separated
 * format of Coz's profiles, which Coz's viewer (plasma-umass/coz, viewer/) plots: per
 * experiment an "experiment" line (selected code: a function's name, or a line's file:line as
 * Coz names its own selections; speedup as a fraction, duration in ns not
 * counting inserted delays (as the program's time: model/causal.h), samples in the selected code)
 * and a "throughput-point" line (the progress point and how often it was reached). Written from the
 * model at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "model/causal.h"
#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
};

static struct record_writer *coz_open(const char *path, struct model *m, char *err, size_t errlen)
{
    struct record_writer *w = xcalloc(1, sizeof(*w));

    (void)m;
    w->f = record_fopen_err(path, err, errlen);
    if (!w->f) {
        free(w);
        return NULL;
    }
    return w;
}

/* A name as one field: no tabs or line ends. */
static void coz_field(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

static int coz_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    const struct model_session *ms = model_session(m);
    const struct model_causal *c = ms->causal;
    int err;

    (void)end;
    fprintf(w->f, "startup\ttime=%llu\n", (unsigned long long)ms->start_ns);
    for (size_t i = 0; c && i < c->n; i++)
        for (size_t k = 0; k < c->f[i].nexp; k++) {
            const struct model_causal_exp *e = &c->f[i].exp[k];
            fputs("experiment\tselected=", w->f);
            coz_field(w->f, c->f[i].parent >= 0 ? c->f[i].location : c->f[i].name); /* file:line */
            fprintf(w->f, "\tspeedup=%.2f\tduration=%llu\tselected-samples=%llu\n",
                    e->speedup_pct / 100.0, (unsigned long long)e->duration_ns,
                    (unsigned long long)e->selected);
            if (c->latency) { /* difference: the mean count in flight (virtual time) */
                fputs("latency-point\tname=", w->f);
                coz_field(w->f, c->progress);
                fprintf(w->f, "\tarrivals=%llu\tdepartures=%llu\tdifference=%.3f\n",
                        (unsigned long long)e->delta, (unsigned long long)e->departures,
                        e->duration_ns ? (double)e->area_ns / (double)e->duration_ns : 0.0);
                continue;
            }
            fputs("throughput-point\tname=", w->f);
            coz_field(w->f, c->progress);
            fprintf(w->f, "\tdelta=%llu\n", (unsigned long long)e->delta);
        }
    fprintf(w->f, "runtime\ttime=%llu\n",
            (unsigned long long)((ms->end_ns ? ms->end_ns : model_clock_ns(CLOCK_MONOTONIC)) -
                                 ms->start_ns));
    err = ostream_close(w->f);
    free(w);
    return err;
}

const struct record_writer_class record_profile_coz = {
    .name = "causal",
    .open = coz_open,
    .event = NULL,
    .close = coz_close,
    .error = NULL,
};
