/* Output streams that keep the reason of their first failed write (ostream.h). Each is a
 * fopencookie stream over its descriptor; its cookie holds the first errno, found again from
 * the FILE by a short list of the open streams. */
#define _GNU_SOURCE /* fopencookie */
#include "base/ostream.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct ostream_file {
    int fd;
    int err; /* errno of the first failed write, 0 */
    FILE *f;
    struct ostream_file *next;
};

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ostream_file *streams; /* the open ones */

int ostream_error(FILE *f)
{
    int err = 0;

    pthread_mutex_lock(&streams_lock);
    for (struct ostream_file *r = streams; r; r = r->next)
        if (r->f == f) {
            err = r->err;
            break;
        }
    pthread_mutex_unlock(&streams_lock);
    return err;
}

int ostream_write_all(int fd, const void *buf, size_t n, size_t *written)
{
    const char *p = buf;
    size_t done = 0;
    int err = 0;

    while (done < n) {
        ssize_t k = write(fd, p + done, n - done);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            err = k < 0 ? errno : EIO;
            break;
        }
        done += (size_t)k;
    }
    if (written)
        *written = done;
    return err;
}

/* Write all of buf, or as much as the file took before a failure, whose errno is kept. */
static ssize_t stream_write(void *cookie, const char *buf, size_t len)
{
    struct ostream_file *r = cookie;
    size_t done;
    int err = ostream_write_all(r->fd, buf, len, &done);

    if (err) {
        if (!r->err)
            r->err = err;
        errno = r->err;
    }
    return (ssize_t)done; /* fewer than len marks the stream as failed */
}

/* ftell's position: the descriptor's offset, which the writes advance. */
static int stream_seek(void *cookie, off64_t *offset, int whence)
{
    struct ostream_file *r = cookie;
    off_t at = lseek(r->fd, (off_t)*offset, whence);

    if (at < 0)
        return -1;
    *offset = at;
    return 0;
}

/* fclose's end: out of the list, the descriptor closed. */
static int stream_close(void *cookie)
{
    struct ostream_file *r = cookie;

    pthread_mutex_lock(&streams_lock);
    for (struct ostream_file **p = &streams; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&streams_lock);
    int rc = close(r->fd);
    free(r);
    return rc == 0 ? 0 : EOF;
}

FILE *ostream_fdopen(int fd)
{
    static const cookie_io_functions_t io = {
        .write = stream_write, .seek = stream_seek, .close = stream_close};
    struct ostream_file *r = calloc(1, sizeof(*r));

    if (!r)
        return NULL;
    r->fd = fd;
    r->f = fopencookie(r, "w", io);
    if (!r->f) {
        int err = errno;
        free(r);
        errno = err;
        return NULL;
    }
    pthread_mutex_lock(&streams_lock);
    r->next = streams;
    streams = r;
    pthread_mutex_unlock(&streams_lock);
    return r->f;
}

int ostream_flush(FILE *f)
{
    errno = 0;
    int failed = fflush(f) != 0;
    int err = failed ? errno : 0;
    int first = ostream_error(f);

    if (first)
        return first;
    if (failed || ferror(f))
        return err ? err : EIO;
    return 0;
}

int ostream_close(FILE *f)
{
    int err = ostream_flush(f);

    errno = 0;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    return err;
}

int ostream_adopt_stdout(void)
{
    FILE *f = ostream_fdopen(STDOUT_FILENO);

    if (!f)
        return -1;
    stdout = f; /* (glibc's stdout is a variable; the old stream has nothing buffered) */
    return 0;
}
