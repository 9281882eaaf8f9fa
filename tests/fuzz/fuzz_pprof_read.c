/* Fuzz target: the pprof reader (record/pprof_read.c), which reads each rank's profile.pb.gz
 * for --merge, on any bytes (gzip-compressed or not); then what --merge does with a profile it
 * accepted: add it to a new profile (pprof_add_data) with a rank label, write that, and read it
 * back, which must succeed with as many samples. */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <unistd.h>

#include "record/pprof.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[256] = "";
    struct pprof_data *d = pprof_read(data, size, err, sizeof(err));

    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
    if (!d)
        return 0;
    struct pprof *p = pprof_new();
    struct pprof_label rank = {.key = "rank", .str = "7"};
    pprof_add_data(p, d, &rank, 1);
    int fd = memfd_create("fuzz_pprof", 0);
    FUZZ_CHECK(fd >= 0);
    FUZZ_CHECK(pprof_write_gz(p, fd) == 0);
    off_t len = lseek(fd, 0, SEEK_END);
    uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
    FUZZ_CHECK(buf && pread(fd, buf, (size_t)len, 0) == len);
    struct pprof_data *again = pprof_read(buf, (size_t)len, err, sizeof(err));
    FUZZ_CHECK(again != NULL);
    FUZZ_CHECK(again->nsamples == d->nsamples);
    pprof_data_free(again);
    free(buf);
    close(fd);
    pprof_free(p);
    pprof_data_free(d);
    return 0;
}
