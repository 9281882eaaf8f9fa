/* A recording's files as stdio streams that keep the reason of their first failed write.
 * stdio forgets it: glibc drops a buffer whose write failed, so a later fflush has nothing to
 * write and succeeds, and only ferror() is left, which says that something failed, not what
 * (a full disk showed as "Input/output error"). Each stream is a fopencookie stream over the
 * file's descriptor; its cookie holds the first errno, found again from the FILE by a short
 * list of the open streams. */
#define _GNU_SOURCE /* fopencookie */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct record_stream {
    int fd;
    int err; /* errno of the first failed write or seek, 0 */
    FILE *f;
    struct record_stream *next;
};

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct record_stream *streams; /* the open ones */

/* The first failure's errno of f's stream, 0 (also for a stream not opened here). */
static int stream_error(FILE *f)
{
    int err = 0;

    pthread_mutex_lock(&streams_lock);
    for (struct record_stream *r = streams; r; r = r->next)
        if (r->f == f) {
            err = r->err;
            break;
        }
    pthread_mutex_unlock(&streams_lock);
    return err;
}

/* Write all of buf, or as much as the file took before a failure, whose errno is kept. */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
    struct record_stream *r = cookie;
    size_t done = 0;

    while (done < len) {
        ssize_t k = write(r->fd, buf + done, len - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            if (!r->err)
                r->err = k < 0 ? errno : ENOSPC; /* write() took nothing: no room */
            errno = r->err;
            break;
        }
        done += (size_t)k;
    }
    return (ssize_t)done; /* fewer than len marks the stream as failed */
}

/* ftell's position: the descriptor's offset, which the writes advance. */
static int stream_seek(void *cookie, off64_t *offset, int whence)
{
    struct record_stream *r = cookie;
    off_t at = lseek(r->fd, (off_t)*offset, whence);

    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

/* fclose's end: out of the list, the descriptor closed. */
static int stream_close(void *cookie)
{
    struct record_stream *r = cookie;

    pthread_mutex_lock(&streams_lock);
    for (struct record_stream **p = &streams; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&streams_lock);
    int rc = close(r->fd);
    free(r);
    return rc == 0 ? 0 : EOF;
}

int record_open(const char *path, int nofollow)
{
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0600);
}

FILE *record_fopen(const char *path)
{
    static const cookie_io_functions_t io = {
        .write = stream_write, .seek = stream_seek, .close = stream_close};
    int fd = record_open(path, 1);
    if (fd < 0)
        return NULL;
    struct record_stream *r = calloc(1, sizeof(*r));
    if (r) {
        r->fd = fd;
        r->f = fopencookie(r, "w", io);
    }
    if (!r || !r->f) {
        int err = errno;
        free(r);
        close(fd);
        errno = err;
        return NULL;
    }
    pthread_mutex_lock(&streams_lock);
    r->next = streams;
    streams = r;
    pthread_mutex_unlock(&streams_lock);
    return r->f;
}

FILE *record_fopen_err(const char *path, char *err, size_t errlen)
{
    FILE *f = record_fopen(path);

    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}

int record_fflush(FILE *f)
{
    errno = 0;
    int failed = fflush(f) != 0;
    int err = failed ? errno : 0;
    int first = stream_error(f);

    if (first)
        return first;
    if (failed || ferror(f))
        return err ? err : EIO;
    return 0;
}

int record_fclose(FILE *f)
{
    int err = record_fflush(f);

    errno = 0;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    return err;
}
