/* Fuzz target: the trace reader (record/perfetto_read.c), which reads trace.pftrace back for
 * --replay and rocsys-trace-check, on any bytes; then the queries the replay makes, and the
 * invariants it relies on without checking (indexes in range, strings present). */
#include "record/perfetto_read.h"
#include "tests/fuzz/fuzz.h"

/* What session/replay_decode.c takes for granted in a summary the reader returns. */
static void check_summary(const struct perfetto_summary *s)
{
    for (size_t i = 0; i < s->nsamples; i++)
        FUZZ_CHECK(s->samples[i].stack < s->nstacks);
    for (size_t i = 0; i < s->nstacks; i++)
        for (uint32_t k = 0; k < s->stacks[i].n; k++)
            FUZZ_CHECK(s->stacks[i].functions[k] != NULL);
    for (size_t i = 0; i < s->ncounters; i++)
        FUZZ_CHECK(s->counters[i].track < s->ntracks);
    for (size_t i = 0; i < s->ntracks; i++)
        FUZZ_CHECK(s->tracks[i].name && s->tracks[i].unit);
    for (size_t i = 0; i < s->nslices; i++) {
        const struct perfetto_read_slice *sl = &s->slices[i];
        FUZZ_CHECK(sl->track >= -1 && (sl->track < 0 || (size_t)sl->track < s->ntracks));
        FUZZ_CHECK(sl->name && sl->category && sl->args);
    }
    for (size_t i = 0; i < s->nthreads; i++)
        FUZZ_CHECK(s->threads[i].name != NULL);
    for (size_t i = 0; i < s->nprocesses; i++)
        FUZZ_CHECK(s->processes[i].name != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct perfetto_summary s;
    struct perfetto_read_count *counts = NULL;
    char err[256];

    perfetto_read_buffer(data, size, &s, err, sizeof(err));
    FUZZ_CHECK(memchr(err, '\0', sizeof(err)) != NULL);
    check_summary(&s);
    perfetto_read_self_counts(&s, 0, &counts);
    free(counts);
    if (s.nthreads) {
        counts = NULL;
        perfetto_read_self_counts(&s, s.threads[0].tid, &counts);
        free(counts);
        perfetto_read_thread_find(&s, s.threads[0].pid, s.threads[0].tid);
    }
    perfetto_read_track_find(&s, 0, "CPU %");
    perfetto_read_free(&s);
    return 0;
}
