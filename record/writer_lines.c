/* lines.txt: self samples per source line of each function (model/lines.c; the format is
 * described above model_lines_write and in docs/formats.md), written from the model when the
 * session ends, so that the Source view shows the shares of lines in a replay too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/ostream.h"
#include "model/model.h"
#include "record.h"

struct record_writer {
    FILE *f;
};

static struct record_writer *lines_open(const char *path, struct model *m, char *err, size_t errlen)
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

static int lines_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    int err;

    (void)end;
    model_lines_write(m, w->f);
    err = ostream_close(w->f);
    free(w);
    return err;
}

const struct record_writer_class record_lines_txt = {
    .name = "lines",
    .open = lines_open,
    .event = NULL,
    .close = lines_close,
    .error = NULL,
};
