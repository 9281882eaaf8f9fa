/* Fuzz target: --merge (session/merge.c), which reads each rank's stacks.folded ("FRAMES
 * COUNT" lines) into merged.folded and the hot-function tables of merged-profile.txt. The
 * input is split in two (its first byte says where) into the stacks.folded of rank-0 and
 * rank-1 of a scratch directory; the traces are empty. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "session/session.h"
#include "tests/fuzz/fuzz.h"

static char dir[64];

/* path = dir/name. */
static void path_of(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "%s/%s", dir, name);
}

/* nftw callback: remove one entry, files before their directory (FTW_DEPTH). */
static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

/* Remove the scratch directory and whatever --merge wrote in it (a list of names went stale as
 * the merge's outputs grew: each run left a directory in /dev/shm). */
static void remove_dir(void)
{
    nftw(dir, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

/* Write len bytes into the file called name in the scratch directory. */
static void write_file(const char *name, const uint8_t *data, size_t len)
{
    char path[128];
    FILE *f;

    path_of(path, sizeof(path), name);
    f = fopen(path, "wb");
    if (!f)
        abort();
    if (len)
        fwrite(data, 1, len, f);
    fclose(f);
}

/* The scratch directory with two ranks (made for each input and removed after it: libFuzzer
 * may end with _Exit, which runs no atexit handler). */
static void setup(void)
{
    char path[128];

    /* tmpfs if there is one: a disk's writes made an input take 8 ms */
    snprintf(dir, sizeof(dir), "/dev/shm/rocsys-fuzz-merge-XXXXXX");
    if (!mkdtemp(dir)) {
        snprintf(dir, sizeof(dir), "/tmp/rocsys-fuzz-merge-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    path_of(path, sizeof(path), "rank-0");
    mkdir(path, 0700);
    path_of(path, sizeof(path), "rank-1");
    mkdir(path, 0700);
    write_file("rank-0/trace.pftrace", NULL, 0);
    write_file("rank-1/trace.pftrace", NULL, 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t half = size ? data[0] * size / 256 : 0;
    int saved, null_fd;

    setup();
    write_file("rank-0/stacks.folded", data, half);
    write_file("rank-1/stacks.folded", data + half, size - half);
    /* its one line of success on stdout is not wanted once per input */
    fflush(stdout);
    saved = dup(STDOUT_FILENO);
    null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    dup2(null_fd, STDOUT_FILENO);
    FUZZ_CHECK(session_merge(dir) == 0);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    close(null_fd);
    remove_dir();
    return 0;
}
