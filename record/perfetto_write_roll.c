/* The Perfetto writer's rolling trace (--record DIR --keep DURATION|SIZE; perfetto_write.h):
 * while the run lasts, the trace is a ring of chunk files in a directory beside it
 * (trace.chunks/NNNNNN.pftrace), each a trace readable on its own (writer_perfetto.c starts each
 * one with the incremental state cleared and declares again what it uses); the oldest chunk
 * files are deleted once the newer ones hold what --keep keeps. At the close the kept chunks are
 * concatenated into the trace file (written beside it, then renamed) and the chunk files
 * removed. A run that cannot close (rocsys-top killed with SIGKILL) leaves the chunk directory:
 * its files in order are the kept trace (the last one's tail may be torn). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/model.h"
#include "perfetto_write.h"

/* The path of chunk index in buf. */
static void chunk_path(const struct record_writer *w, uint32_t index, char *buf, size_t n)
{
    snprintf(buf, n, "%s/%06u.pftrace", w->chunk_dir, index);
}

/* Remember a write error (the first one). */
static void roll_fail(struct record_writer *w, int err)
{
    if (!w->failed) {
        w->failed = 1;
        w->err = err ? err : EIO;
    }
}

/* Start the next chunk file: it becomes w->fd. 0, or -1 with errno set. */
static int open_chunk(struct record_writer *w)
{
    char path[4200];

    chunk_path(w, w->next_chunk, path, sizeof(path));
    int fd = record_open(path, 1);
    if (fd < 0)
        return -1;
    xgrow(&w->chunks, &w->capchunks, w->nchunks + 1, sizeof(*w->chunks));
    w->chunks[w->nchunks++] =
        (struct pf_chunk){.index = w->next_chunk++, .first_ns = UINT64_MAX, .start_ns = w->pkt_ns};
    w->fd = fd;
    return 0;
}

/* Remove the chunk files an earlier run left in the chunk directory (--force). */
static void clear_chunk_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;

    if (!d)
        return;
    while ((de = readdir(d)) != NULL) {
        size_t n = strlen(de->d_name);
        if (n > 8 && strcmp(de->d_name + n - 8, ".pftrace") == 0)
            unlinkat(dirfd(d), de->d_name, 0);
    }
    closedir(d);
}

int pfw_roll_open(struct record_writer *w, const char *path)
{
    const struct model_session *ms = model_session(w->m);
    struct stat st;
    size_t n = strlen(path);

    w->gen = 1;
    w->keep_ns = ms->keep_ns;
    w->keep_bytes = ms->keep_ns ? 0 : ms->keep_bytes;
    if (n > 8 && strcmp(path + n - 8, ".pftrace") == 0)
        n -= 8;
    w->chunk_dir = xmalloc(n + 8);
    snprintf(w->chunk_dir, n + 8, "%.*s.chunks", (int)n, path);
    if (!w->keep_ns && !w->keep_bytes) {
        /* an earlier rolling recording's chunks (--force) would be read for ours */
        if (lstat(w->chunk_dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid()) {
            clear_chunk_dir(w->chunk_dir);
            rmdir(w->chunk_dir);
        }
        free(w->chunk_dir);
        w->chunk_dir = NULL;
        w->fd = record_open(path, 1);
        return w->fd < 0 ? -1 : 0;
    }
    w->final_path = xstrdup(path);
    if (mkdir(w->chunk_dir, 0700) != 0 && errno != EEXIST)
        return -1;
    if (lstat(w->chunk_dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
        errno = ENOTDIR;
        return -1;
    }
    clear_chunk_dir(w->chunk_dir);
    if (unlink(path) != 0 && errno != ENOENT) /* an older recording's, never to be read for ours */
        return -1;
    return open_chunk(w);
}

void pfw_roll_written(struct record_writer *w, size_t bytes)
{
    struct pf_chunk *c = &w->chunks[w->nchunks - 1];

    c->bytes += bytes;
    if (w->keep_bytes && c->bytes >= w->keep_bytes / PF_KEEP_PARTS)
        w->roll_due = 1;
}

/* Delete the oldest chunk file. */
static void drop_oldest(struct record_writer *w)
{
    char path[4200];

    chunk_path(w, w->chunks[0].index, path, sizeof(path));
    unlink(path);
    w->chunks_dropped++;
    w->bytes_dropped += w->chunks[0].bytes;
    memmove(w->chunks, w->chunks + 1, (w->nchunks - 1) * sizeof(*w->chunks));
    w->nchunks--;
}

int pfw_roll_next_file(struct record_writer *w)
{
    pfw_flush_out(w);
    if (w->failed)
        return -1;
    if (close(w->fd) != 0) {
        w->fd = -1;
        roll_fail(w, errno);
        return -1;
    }
    w->fd = -1;
    if (open_chunk(w) != 0) {
        roll_fail(w, errno);
        return -1;
    }
    pfw_roll_drop(w);
    return 0;
}

void pfw_roll_drop(struct record_writer *w)
{
    uint64_t closed = 0;

    for (size_t i = 0; i + 1 < w->nchunks; i++)
        closed += w->chunks[i].bytes;
    /* SIZE: the closed chunks and the new one stay within it; DURATION: a chunk goes once the
     * chunks after it span the duration */
    while (w->nchunks > 1 && (w->keep_bytes ? closed > w->keep_bytes - w->keep_bytes / PF_KEEP_PARTS
                                            : w->chunks[0].last_ns + w->keep_ns <= w->pkt_ns)) {
        closed -= w->chunks[0].bytes;
        drop_oldest(w);
    }
}

/* Append the file at path to fd. 0, or an errno. */
static int copy_into(int fd, const char *path, char *buf, size_t cap)
{
    int in = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    int err = 0;

    if (in < 0)
        return errno;
    for (;;) {
        ssize_t k = read(in, buf, cap);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            err = k < 0 ? errno : 0;
            break;
        }
        for (ssize_t off = 0; off < k;) {
            ssize_t m = write(fd, buf + off, (size_t)(k - off));
            if (m < 0 && errno == EINTR)
                continue;
            if (m <= 0) {
                err = m < 0 ? errno : EIO;
                break;
            }
            off += m;
        }
        if (err)
            break;
    }
    close(in);
    return err;
}

/* The kept chunks into the final file, written as path.tmp and renamed. 0, or an errno. */
static int concatenate(struct record_writer *w)
{
    size_t n = strlen(w->final_path) + 8, cap = 1 << 16;
    char *tmp = xmalloc(n), *buf = xmalloc(cap), path[4200];
    int err = 0, fd;

    snprintf(tmp, n, "%s.tmp", w->final_path);
    if ((fd = record_open(tmp, 1)) < 0)
        err = errno;
    for (size_t i = 0; !err && i < w->nchunks; i++) {
        chunk_path(w, w->chunks[i].index, path, sizeof(path));
        err = copy_into(fd, path, buf, cap);
    }
    if (fd >= 0 && close(fd) != 0 && !err)
        err = errno;
    if (!err && rename(tmp, w->final_path) != 0)
        err = errno;
    if (err)
        unlink(tmp);
    free(tmp);
    free(buf);
    return err;
}

void pfw_roll_close(struct record_writer *w)
{
    struct model_session *ms = model_session(w->m);
    char path[4200];
    uint64_t bytes = 0;

    if (w->fd >= 0 && close(w->fd) != 0 && !w->err)
        w->err = errno;
    w->fd = -1;
    if (!w->chunk_dir)
        return;
    int err = concatenate(w);
    if (err && !w->err)
        w->err = err;
    if (!err) { /* the trace file holds them now */
        for (size_t i = 0; i < w->nchunks; i++) {
            chunk_path(w, w->chunks[i].index, path, sizeof(path));
            unlink(path);
        }
        rmdir(w->chunk_dir);
    }
    for (size_t i = 0; i < w->nchunks; i++)
        bytes += w->chunks[i].bytes;
    ms->keep_first_ns = w->nchunks && w->chunks[0].first_ns != UINT64_MAX ? w->chunks[0].first_ns
                        : w->nchunks                                      ? w->chunks[0].start_ns
                                                                          : 0;
    ms->keep_chunks_dropped = w->chunks_dropped;
    ms->keep_bytes_dropped = w->bytes_dropped;
    ms->keep_trace_bytes = bytes;
    size_t from = w->nchunks > 16 ? w->nchunks - 16 : 0;
    ms->keep_first_chunk = w->nchunks ? w->chunks[from].index : 0;
    ms->keep_nchunks = w->nchunks - from;
    for (size_t i = from; i < w->nchunks; i++)
        ms->keep_chunk_bytes[i - from] = w->chunks[i].bytes;
    free(w->chunks);
    free(w->chunk_dir);
    free(w->final_path);
}
