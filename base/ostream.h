/* Output streams that keep the reason of their first failed write (base layer): stdio keeps
 * only ferror, since glibc drops a buffer whose write failed and the flush after it succeeds,
 * so a full disk read as "Input/output error". Used for the recording's files (record/) and for
 * standard output when it is not a terminal (the batch frames, cli/main.c). */
#ifndef ROCSYS_BASE_OSTREAM_H
#define ROCSYS_BASE_OSTREAM_H

#include <stdio.h>

/* Write n bytes of buf to fd, again after a signal or a short write: 0, or the errno of the
 * write that failed (EIO when it wrote nothing without one); *written (if not NULL) gets how
 * many bytes went. */
int ostream_write_all(int fd, const void *buf, size_t n, size_t *written);
/* A write-only stdio stream over fd, which it owns (fclose closes it), or NULL with errno
 * set (fd then left open). */
FILE *ostream_fdopen(int fd);
/* The errno of f's first failed write, 0 (also for a stream not opened here). */
int ostream_error(FILE *f);
/* Flush f: 0, or the errno of its first failed write (EIO when stdio says only that one
 * failed). */
int ostream_flush(FILE *f);
/* Flush and close f: 0, or the errno of a write that failed, else of the close. */
int ostream_close(FILE *f);
/* Standard output as such a stream over fd 1 (before anything was written to it): 0, or -1
 * with stdout left as it was. */
int ostream_adopt_stdout(void);

#endif
