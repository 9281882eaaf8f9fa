/* Unit test: a recording's stdio files (record/record_file.c, base/ostream.c) and standard
 * output when it is not a terminal say why a write failed. A full device (/dev/full) is ENOSPC
 * also when the failed write emptied the stream's buffer, so that the flush after it has
 * nothing to write (glibc's stdio then leaves only ferror, which was reported as
 * "Input/output error"); ftell counts what was written (the profile's size caps); a symbolic
 * link is refused; and closing a file, also with plain fclose, leaks no descriptor. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/ostream.h"
#include "check.h"
#include "record/record.h"

/* The number of open descriptors of this process. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Writes that fill the buffer and more: the flush after them finds the buffer already gone. */
static void check_full_device(void)
{
    char block[5000];

    memset(block, 'x', sizeof(block));
    FILE *f = record_fopen("/dev/full");
    CHECK_MSG(f != NULL, "record_fopen(/dev/full): %s", strerror(errno));
    if (!f)
        return;
    fwrite(block, 1, sizeof(block), f);
    int err = ostream_flush(f);
    CHECK_MSG(err == ENOSPC, "flush after a failed write: \"%s\", want \"%s\"", strerror(err),
              strerror(ENOSPC));
    fprintf(f, "more\n"); /* later writes do not replace the first reason */
    err = ostream_close(f);
    CHECK_MSG(err == ENOSPC, "close: \"%s\", want \"%s\"", strerror(err), strerror(ENOSPC));

    f = record_fopen("/dev/full"); /* a failure found only by the close's flush */
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "short\n");
        err = ostream_close(f);
        CHECK_MSG(err == ENOSPC, "close with data buffered: \"%s\"", strerror(err));
    }
}

/* A regular file: what was written is there, ftell follows it, close says 0. */
static void check_regular(const char *dir)
{
    char path[512], buf[64];

    snprintf(path, sizeof(path), "%s/profile.txt", dir);
    FILE *f = record_fopen(path);
    CHECK_MSG(f != NULL, "record_fopen(%s): %s", path, strerror(errno));
    if (!f)
        return;
    long total = 0;
    for (int i = 0; i < 3000; i++)
        total += fprintf(f, "line %d\n", i);
    CHECK_MSG(ftell(f) == total, "ftell %ld, written %ld", ftell(f), total);
    CHECK(ostream_flush(f) == 0);
    CHECK(ostream_close(f) == 0);
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == total);
    CHECK((st.st_mode & 077) == 0); /* 0600 at most */
    FILE *in = fopen(path, "r");
    CHECK(in && fgets(buf, sizeof(buf), in) && strcmp(buf, "line 0\n") == 0);
    if (in)
        fclose(in);

    char link[512];
    snprintf(link, sizeof(link), "%s/link.txt", dir);
    CHECK(symlink(path, link) == 0);
    errno = 0;
    f = record_fopen(link);
    CHECK_MSG(f == NULL && errno == ELOOP, "a symbolic link: %s", f ? "opened" : strerror(errno));
    if (f)
        fclose(f);
    unlink(link);

    char missing[600];
    snprintf(missing, sizeof(missing), "%s/no-such-dir/x", dir);
    char err[256] = "";
    CHECK(record_fopen_err(missing, err, sizeof(err)) == NULL);
    CHECK_MSG(strstr(err, "No such file or directory") != NULL, "open error: \"%s\"", err);
    unlink(path);
}

/* Many opens and closes, half of them with plain fclose (a writer's probe): no descriptor stays. */
static void check_no_leak(const char *dir)
{
    char path[512];
    int before = open_fds();

    snprintf(path, sizeof(path), "%s/probe", dir);
    for (int i = 0; i < 2000; i++) {
        FILE *f = record_fopen(path);
        if (!f) {
            CHECK_MSG(0, "open %d: %s", i, strerror(errno));
            break;
        }
        fputs("x\n", f);
        if (i % 2)
            fclose(f);
        else
            CHECK(ostream_close(f) == 0);
    }
    CHECK_MSG(open_fds() == before, "descriptors %d before, %d after", before, open_fds());
    unlink(path);
}

/* Standard output adopted, on /dev/full, in a child: the first failed write's reason. */
static void check_stdout(void)
{
    pid_t pid = fork();

    if (pid == 0) {
        int fd = open("/dev/full", O_WRONLY);
        if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || ostream_adopt_stdout() != 0)
            _exit(100);
        for (int i = 0; i < 1000; i++)
            printf("frame line %d\n", i);
        _exit(ostream_flush(stdout) & 0xff);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == ENOSPC, "standard output on /dev/full: %s",
              WIFEXITED(st) ? (WEXITSTATUS(st) == 100 ? "not adopted" : strerror(WEXITSTATUS(st)))
                            : "killed");
}

int main(void)
{
    char dir[] = "/tmp/rocsys-record-file-XXXXXX";

    CHECK(mkdtemp(dir) != NULL);
    check_full_device();
    check_regular(dir);
    check_no_leak(dir);
    check_stdout();
    rmdir(dir);
    return check_summary();
}
