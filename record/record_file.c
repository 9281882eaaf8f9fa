/* A recording's files: created without following a symbolic link, as stdio streams that keep
 * the reason of their first failed write (base/ostream.h), which the writers close with
 * ostream_close. */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/ostream.h"

int record_open(const char *path, int nofollow)
{
    return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0), 0600);
}

FILE *record_fopen(const char *path)
{
    int fd = record_open(path, 1);
    FILE *f = fd >= 0 ? ostream_fdopen(fd) : NULL;

    if (fd >= 0 && !f) {
        int err = errno;
        close(fd);
        errno = err;
    }
    return f;
}

FILE *record_fopen_err(const char *path, char *err, size_t errlen)
{
    FILE *f = record_fopen(path);

    if (!f)
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
    return f;
}
