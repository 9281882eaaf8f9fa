/* Writer "output-log": the target's full stdout and stderr in one file, whole lines only, so
 * that the two streams never interleave inside a line. A partial line is held back until its
 * newline arrives, it grows past WRITER_LINE_MAX, or the writer closes.
 *
 * File format: the target's bytes, unchanged, in line order of arrival. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/ostream.h"
#include "model/model.h"
#include "record.h"

#define WRITER_LINE_MAX 65536

struct record_writer {
    int fd;
    int err; /* errno of the first write that failed: nothing more is written */
    struct {
        char data[WRITER_LINE_MAX];
        size_t len;
    } pending[2]; /* stdout, stderr */
};

/* Append bytes to the file, retrying short writes; after a failed write (a full disk) nothing
 * more is written and the session is told (output_error); the Output view still shows the tail. */
static void put(struct record_writer *w, const char *p, size_t n)
{
    if (!w->err)
        w->err = ostream_write_all(w->fd, p, n, NULL);
}

static struct record_writer *output_open(const char *path, struct model *m, char *err,
                                         size_t errlen)
{
    (void)m;
    struct record_writer *w = xcalloc(1, sizeof(*w));

    w->fd = record_open(path, 0); /* (--output-log may name a link on purpose) */
    if (w->fd < 0) {
        snprintf(err, errlen, "cannot write the output log %s: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    return w;
}

/* Keep whole lines together: write through the last newline, hold back the rest. */
static void output_event(struct record_writer *w, const struct record_event *ev)
{
    if (ev->type != RECORD_EV_OUTPUT || (ev->stream != 1 && ev->stream != 2))
        return;
    typeof(w->pending[0]) *lb = &w->pending[ev->stream - 1];
    const char *buf = ev->data;
    size_t n = ev->len;
    const char *nl = memrchr(buf, '\n', n);

    if (!nl) {
        if (lb->len + n > WRITER_LINE_MAX) {
            put(w, lb->data, lb->len);
            put(w, buf, n);
            lb->len = 0;
        } else {
            memcpy(lb->data + lb->len, buf, n);
            lb->len += n;
        }
        return;
    }
    size_t whole = (size_t)(nl - buf) + 1;
    put(w, lb->data, lb->len);
    put(w, buf, whole);
    lb->len = n - whole;
    memcpy(lb->data, buf + whole, lb->len);
}

static int output_close(struct record_writer *w, struct model *m, const struct record_end *end)
{
    int err;

    (void)m;
    (void)end;
    for (int k = 0; k < 2; k++)
        put(w, w->pending[k].data, w->pending[k].len);
    if (close(w->fd) != 0 && !w->err)
        w->err = errno;
    err = w->err;
    free(w);
    return err;
}

static int output_error(struct record_writer *w)
{
    return w->err;
}

const struct record_writer_class record_output_log = {
    .name = "output-log",
    .open = output_open,
    .event = output_event,
    .close = output_close,
    .error = output_error,
};
