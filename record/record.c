/* The set of open writers the session feeds: fan events out, close them all at the end. */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>

#include "model/model.h"

#define RECORD_MAX_WRITERS 16

const struct record_file record_files[] = {
    {&record_output_log, "output.log"},
    {&record_profile_txt, "profile.txt"},
    {&record_stacks_folded, "stacks.folded"},
    {&record_perfetto, "trace.pftrace"},
    {&record_gpu_csv, "gpu.csv"},
    {&record_kernels_csv, "kernels.csv"},
    {&record_hip_api_csv, "hip_api.csv"},
    {&record_copies_csv, "copies.csv"},
    {&record_session_json, "session.json"},
    {NULL, NULL},
};

struct record_set {
    const struct record_writer_class *cls[RECORD_MAX_WRITERS];
    struct record_writer *w[RECORD_MAX_WRITERS];
    int n;
};

struct record_set *record_set_new(void)
{
    return xcalloc(1, sizeof(struct record_set));
}

int record_set_add(struct record_set *s, const struct record_writer_class *c, const char *path,
                   struct model *m, char *err, size_t errlen)
{
    struct record_writer *w;

    if (s->n == RECORD_MAX_WRITERS) {
        snprintf(err, errlen, "too many writers");
        return -1;
    }
    w = c->open(path, m, err, errlen);
    if (!w)
        return -1;
    s->cls[s->n] = c;
    s->w[s->n++] = w;
    return 0;
}

void record_set_event(struct record_set *s, const struct record_event *ev)
{
    for (int i = 0; i < s->n; i++)
        s->cls[i]->event(s->w[i], ev);
}

void record_set_close(struct record_set *s, struct model *m, const struct record_end *end)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++)
        s->cls[i]->close(s->w[i], m, end);
    free(s);
}
