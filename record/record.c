/* The set of open writers the session feeds: fan events out, close them all at the end. */
#include "record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define RECORD_MAX_WRITERS 16

/* one writer a line */
/* clang-format off */
const struct record_file record_files[] = {
    {&record_output_log, "output.log"},
    {&record_profile_txt, "profile.txt"},
    {&record_stacks_folded, "stacks.folded"},
    {&record_gpu_folded, "gpu.folded"},
    {&record_perfetto, "trace.pftrace"},
    {&record_gpu_csv, "gpu.csv"},
    {&record_kernels_csv, "kernels.csv"},
    {&record_hip_api_csv, "hip_api.csv"},
    {&record_copies_csv, "copies.csv"},
    {&record_omp_csv, "omp.csv"},
    {&record_mpi_csv, "mpi.csv"},
    {&record_lines_txt, "lines.txt"},
    {&record_profile_pb, "profile.pb.gz"},
    {&record_profile_coz, "profile.coz"}, /* --causal only */
    {&record_session_json, "session.json"},
    {NULL, NULL},
};
/* clang-format on */

struct record_set {
    const struct record_writer_class *cls[RECORD_MAX_WRITERS];
    struct record_writer *w[RECORD_MAX_WRITERS];
    char *file[RECORD_MAX_WRITERS]; /* basename of each writer's file */
    int err[RECORD_MAX_WRITERS];    /* errno of its failure, 0 */
    int n;
    int stopped; /* a writer failed: no more events */
};

struct record_set *record_set_new(void)
{
    return xcalloc(1, sizeof(struct record_set));
}

int record_set_add(struct record_set *s, const struct record_writer_class *c, const char *path,
                   struct model *m, char *err, size_t errlen)
{
    struct record_writer *w;
    const char *base = strrchr(path, '/');

    if (s->n == RECORD_MAX_WRITERS) {
        snprintf(err, errlen, "too many writers");
        return -1;
    }
    w = c->open(path, m, err, errlen);
    if (!w)
        return -1;
    s->cls[s->n] = c;
    s->file[s->n] = xstrdup(base ? base + 1 : path);
    s->w[s->n++] = w;
    return 0;
}

void record_set_event(struct record_set *s, const struct record_event *ev)
{
    if (s->stopped)
        return;
    for (int i = 0; i < s->n; i++)
        if (s->cls[i]->event)
            s->cls[i]->event(s->w[i], ev);
}

/* "FILE: reason" of writer i's failure into msg. */
static void failure_text(const struct record_set *s, int i, char *msg, size_t n)
{
    if (n)
        snprintf(msg, n, "%s: %s", s->file[i], strerror(s->err[i]));
}

int record_set_check(struct record_set *s, char *msg, size_t n)
{
    if (!s)
        return 0;
    for (int i = 0; i < s->n; i++) {
        if (!s->err[i] && s->cls[i]->error)
            s->err[i] = s->cls[i]->error(s->w[i]);
        if (s->err[i]) {
            s->stopped = 1;
            failure_text(s, i, msg, n);
            return 1;
        }
    }
    return 0;
}

int record_set_close(struct record_set *s, struct model *m, const struct record_end *end, char *msg,
                     size_t n)
{
    char text[RECORD_MAX_WRITERS][160];
    const char *incomplete[RECORD_MAX_WRITERS + 1];
    struct record_end e = {0};
    int nbad = 0;

    if (n)
        msg[0] = '\0';
    if (!s)
        return 0;
    if (end)
        e = *end;
    for (int i = 0; i < s->n; i++) {
        if (!s->err[i] && s->cls[i]->error)
            s->err[i] = s->cls[i]->error(s->w[i]);
        incomplete[nbad] = NULL;
        e.incomplete = nbad ? incomplete : NULL; /* what failed before this one */
        int err = s->cls[i]->close(s->w[i], m, &e);
        if (!s->err[i])
            s->err[i] = err;
        if (s->err[i]) {
            failure_text(s, i, text[nbad], sizeof(text[nbad]));
            if (nbad == 0)
                failure_text(s, i, msg, n);
            incomplete[nbad] = text[nbad];
            nbad++;
        }
        free(s->file[i]);
    }
    free(s);
    return nbad;
}
