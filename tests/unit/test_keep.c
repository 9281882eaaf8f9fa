/* Unit test: rolling recordings (--keep DURATION|SIZE): the strict parser of the value, and the
 * Perfetto writer's chunk files read back by the project's reader: each chunk alone is a valid
 * trace (incremental state cleared, tracks, interned frames and stacks declared again, clocks
 * anchored again), the final trace keeps the last DURATION with every sample of it at its exact
 * time, or stays within SIZE, and the chunk directory is gone after the close. */
#define _GNU_SOURCE
#include <dirent.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "model_fixture.h"
#include "model/model.h"
#include "record/perfetto_read.h"
#include "record/record.h"

/* The parser: what it accepts, what it refuses with one line. */
static void check_parse(void)
{
    static const struct {
        const char *in;
        uint64_t ns, bytes;
    } good[] = {
        {"30s", 30 * FIXTURE_SEC, 0},  {"10m", 600 * FIXTURE_SEC, 0},
        {"2h", 7200 * FIXTURE_SEC, 0}, {"1d", 86400 * FIXTURE_SEC, 0},
        {"2s", 2 * FIXTURE_SEC, 0},    {"64K", 0, 65536},
        {"500M", 0, 500ull << 20},     {"2G", 0, 2ull << 30},
        {"1T", 0, 1ull << 40},         {"0100s", 100 * FIXTURE_SEC, 0},
    };
    static const char *bad[] = {
        "",     "s",    "10",   "10x",   "10 s", " 10s", "-5s",
        "1.5s", "10ss", "10S",  "10k",   "10MB", "1s",   "0s",
        "32K",  "0M",   "400d", "2000T", "M",    "10sM", "99999999999999999999999s"};
    struct record_keep k;
    char err[256], text[32];

    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        err[0] = 0;
        int rc = record_keep_parse(good[i].in, &k, err, sizeof(err));
        CHECK_MSG(rc == 0 && k.ns == good[i].ns && k.bytes == good[i].bytes,
                  "'%s': rc %d ns %llu bytes %llu (%s)", good[i].in, rc, (unsigned long long)k.ns,
                  (unsigned long long)k.bytes, err);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        int rc = record_keep_parse(bad[i], &k, err, sizeof(err));
        CHECK_MSG(rc == -1 && err[0] && !strchr(err, '\n') && strncmp(err, "--keep: ", 8) == 0,
                  "'%s' accepted or badly refused: rc %d, '%s'", bad[i], rc, err);
    }
    record_keep_parse("120s", &k, err, sizeof(err));
    record_keep_text(&k, text, sizeof(text));
    CHECK_STR(text, "2m");
    record_keep_parse("1024K", &k, err, sizeof(err));
    record_keep_text(&k, text, sizeof(text));
    CHECK_STR(text, "1M");
    record_keep_parse("90m", &k, err, sizeof(err));
    record_keep_text(&k, text, sizeof(text));
    CHECK_STR(text, "90m");
}

/* CLOCK_MONOTONIC now, ns. */
static uint64_t mono_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * FIXTURE_SEC + (uint64_t)ts.tv_nsec;
}

static void feed(struct record_writer *w, struct record_event ev)
{
    record_perfetto.event(w, &ev);
}

/* The chunk files now in dir (names in order, at most max); their count. */
static int list_chunks(const char *dir, char names[][64], int max)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    if (!d)
        return -1;
    while ((de = readdir(d)) != NULL && n < max)
        if (strstr(de->d_name, ".pftrace"))
            snprintf(names[n++], 64, "%.60s", de->d_name);
    closedir(d);
    qsort(names, (size_t)n, 64, (int (*)(const void *, const void *))strcmp);
    return n;
}

/* Feed sample i (1 kHz from t0; stacks 0..9 in turn, stack 10 only at the start and the end so
 * that a late chunk must write its frames again) and, every 100 ms, a counter reading and a
 * slice on a named track. */
static void feed_one(struct record_writer *w, uint64_t t0, uint32_t i, uint32_t total)
{
    uint64_t t = t0 + (uint64_t)i * 1000000ull;
    uint32_t k = i % 10;
    uint64_t fr[14];
    uint32_t n = 0;

    if (i < 5 || i + 5 >= total) {
        fr[n++] = fixture_at(fn_other);
    } else {
        fr[n++] = fixture_at(fn_leaf);
        for (uint32_t j = 0; j <= k; j++)
            fr[n++] = fixture_at(fn_middle);
    }
    fr[n++] = fixture_at(fn_outer);
    feed(w, (struct record_event){.type = RECORD_EV_SAMPLE,
                                  .time_ns = t,
                                  .pid = FIXTURE_PID,
                                  .tid = FIXTURE_PID + (i & 1),
                                  .frames = fr,
                                  .nframes = n,
                                  .weight = 1});
    if (i % 100 == 0) {
        feed(w, (struct record_event){.type = RECORD_EV_COUNTER,
                                      .time_ns = t,
                                      .pid = FIXTURE_PID,
                                      .track = "GPU0 busy",
                                      .unit = "%",
                                      .value = (double)(i % 7)});
        feed(w, (struct record_event){.type = RECORD_EV_SLICE,
                                      .time_ns = t,
                                      .end_ns = t + 500000,
                                      .pid = FIXTURE_PID,
                                      .tid = FIXTURE_PID,
                                      .track = "GPU0 queue 1",
                                      .category = "kernel",
                                      .name = "kern"});
    }
}

/* A 20 s run at 1 kHz kept to its last 2 s (--keep 2s). */
static void check_duration(struct model *m, const char *dir)
{
    char path[512], cdir[512], file[1200], err[256], names[64][64];
    const uint32_t total = 20000;
    const uint64_t t0 = mono_now() + FIXTURE_SEC; /* (the writer's anchor is the clock's now) */
    struct perfetto_summary s;
    struct stat st;

    snprintf(path, sizeof(path), "%s/dur.pftrace", dir);
    snprintf(cdir, sizeof(cdir), "%s/dur.chunks", dir);
    model_session(m)->keep_ns = 2 * FIXTURE_SEC;
    model_session(m)->keep_bytes = 0;
    struct record_writer *w = record_perfetto.open(path, m, err, sizeof(err));
    CHECK_MSG(w != NULL, "%s", err);
    if (!w)
        return;
    feed(w, (struct record_event){.type = RECORD_EV_PROCESS,
                                  .time_ns = t0,
                                  .pid = FIXTURE_PID,
                                  .data = "/usr/local/bin/testprog"});
    feed(w, (struct record_event){.type = RECORD_EV_THREAD,
                                  .time_ns = t0,
                                  .pid = FIXTURE_PID,
                                  .tid = FIXTURE_PID,
                                  .data = "main"});
    int most = 0;
    size_t frames, stacks, heap_early = 0, heap;
    for (uint32_t i = 0; i < total; i++) {
        feed_one(w, t0, i, total);
        if (i == 5000)
            record_perfetto_stats(w, &frames, &stacks, &heap_early);
        if (i % 1000 == 999) { /* the ring stays small: 2 s in half-second chunks, and one */
            int n = list_chunks(cdir, names, 64);
            most = n > most ? n : most;
        }
    }
    CHECK_MSG(most >= 2 && most <= 7, "%d chunk files at most", most);
    record_perfetto_stats(w, &frames, &stacks, &heap);
    CHECK_MSG(heap == heap_early, "writer heap %zu bytes after 20 s, %zu after 5 s", heap,
              heap_early); /* memory bounded: 30 chunks later, no more */
    /* before the close: every chunk file alone is a valid trace with its own stacks and tracks */
    int n = list_chunks(cdir, names, 64);
    CHECK_MSG(n >= 2, "%d chunk files", n);
    for (int i = 0; i < n; i++) {
        snprintf(file, sizeof(file), "%.500s/%.63s", cdir, names[i]);
        int rc = perfetto_read_file(file, &s, err, sizeof(err));
        CHECK_MSG(rc == 0 && s.violations == 0, "chunk %s alone: %s", names[i], err);
        CHECK_MSG(i == n - 1 || (s.nsamples > 0 && s.ncounters > 0 && s.nslices > 0 &&
                                 s.nthreads == 2 && s.nprocesses == 1),
                  "chunk %s: %zu samples %zu counters %zu slices %zu threads", names[i], s.nsamples,
                  s.ncounters, s.nslices, s.nthreads);
        perfetto_read_free(&s);
    }
    CHECK(perfetto_read_file(cdir, &s, err, sizeof(err)) == 0); /* the directory as one trace */
    perfetto_read_free(&s);
    CHECK(record_perfetto.close(w, m, NULL) == 0);
    CHECK_MSG(stat(cdir, &st) != 0, "the chunk directory is still there after the close");

    int rc = perfetto_read_file(path, &s, err, sizeof(err));
    CHECK_MSG(rc == 0 && s.violations == 0 && !s.truncated, "%s", err);
    CHECK(s.nsamples > 0);
    if (s.nsamples == 0)
        return;
    uint64_t first = s.samples[0].mono_ns, last = s.samples[s.nsamples - 1].mono_ns;
    /* the last sample is the last fed; the kept span is 2 s at least, a chunk (0.5 s) and the
     * reorder window (0.25 s) more at most */
    CHECK_MSG(last == t0 + (uint64_t)(total - 1) * 1000000ull, "last sample at %llu",
              (unsigned long long)last);
    CHECK_MSG(last - first >= 2 * FIXTURE_SEC && last - first <= 2 * FIXTURE_SEC + 800000000ull,
              "kept %.3f s", (double)(last - first) / 1e9);
    /* every sample from the first kept one on, at its exact time */
    uint32_t kept = (uint32_t)((last - first) / 1000000ull) + 1, bad = 0;
    CHECK_MSG(s.nsamples == kept, "%zu samples kept, %u fed in that span", s.nsamples, kept);
    for (size_t i = 0; i < s.nsamples; i++)
        bad += s.samples[i].mono_ns != first + i * 1000000ull;
    CHECK_MSG(bad == 0, "%u samples at another time than fed", bad);
    /* the late samples' stack (written in the first chunk, dropped) resolves again */
    const struct perfetto_read_stack *st_last = &s.stacks[s.samples[s.nsamples - 1].stack];
    CHECK(st_last->n == 2 && strstr(st_last->functions[1], "fn_other"));
    const struct model_session *ms = model_session(m);
    CHECK_MSG(ms->keep_chunks_dropped >= 30 && ms->keep_bytes_dropped > 0,
              "%llu chunks dropped, %llu bytes", (unsigned long long)ms->keep_chunks_dropped,
              (unsigned long long)ms->keep_bytes_dropped);
    CHECK_MSG(ms->keep_first_ns <= first && ms->keep_first_ns + 300000000ull >= first,
              "first kept %llu, first sample %llu", (unsigned long long)ms->keep_first_ns,
              (unsigned long long)first);
    stat(path, &st);
    CHECK((uint64_t)st.st_size == ms->keep_trace_bytes);
    perfetto_read_free(&s);
}

/* Many samples of many stacks kept to 64K (--keep 64K): the files stay within it. */
static void check_size(struct model *m, const char *dir)
{
    char path[512], cdir[512], file[1200], err[256], names[64][64];
    const uint32_t total = 400000;
    const uint64_t t0 = mono_now() + FIXTURE_SEC, keep = 64 << 10;
    struct perfetto_summary s;
    struct stat st;
    uint64_t most = 0;

    snprintf(path, sizeof(path), "%s/size.pftrace", dir);
    snprintf(cdir, sizeof(cdir), "%s/size.chunks", dir);
    model_session(m)->keep_ns = 0;
    model_session(m)->keep_bytes = keep;
    struct record_writer *w = record_perfetto.open(path, m, err, sizeof(err));
    CHECK_MSG(w != NULL, "%s", err);
    if (!w)
        return;
    for (uint32_t i = 0; i < total; i++) {
        feed_one(w, t0, i, total);
        if (i % 10000 == 9999) {
            uint64_t sum = 0;
            int n = list_chunks(cdir, names, 64);
            for (int j = 0; j < n; j++) {
                snprintf(file, sizeof(file), "%.500s/%.63s", cdir, names[j]);
                if (stat(file, &st) == 0)
                    sum += (uint64_t)st.st_size;
            }
            most = sum > most ? sum : most;
        }
    }
    CHECK(record_perfetto.close(w, m, NULL) == 0);
    stat(path, &st);
    /* within 64K but for the last buffer written (a chunk is a quarter: 16K) */
    CHECK_MSG(most <= keep + keep / 2 && (uint64_t)st.st_size <= keep + keep / 2 &&
                  (uint64_t)st.st_size >= keep / 4,
              "%llu bytes on disk at most, %lld in the trace", (unsigned long long)most,
              (long long)st.st_size);
    int rc = perfetto_read_file(path, &s, err, sizeof(err));
    CHECK_MSG(rc == 0 && s.violations == 0, "%s", err);
    CHECK(s.nsamples > 0 && s.nsamples < total &&
          s.samples[s.nsamples - 1].mono_ns == t0 + (uint64_t)(total - 1) * 1000000ull);
    CHECK(model_session(m)->keep_chunks_dropped > 0);
    printf("keep 64K: %u samples fed, %zu kept in %lld bytes, %llu chunks dropped\n", total,
           s.nsamples, (long long)st.st_size,
           (unsigned long long)model_session(m)->keep_chunks_dropped);
    perfetto_read_free(&s);
}

int main(void)
{
    struct model *m = model_new();
    char dir[] = "/tmp/rocsys-keep-XXXXXX", cmd[128];

    check_parse();
    CHECK(mkdtemp(dir) != NULL);
    model_proc_start(m, FIXTURE_PID, 1, "/usr/local/bin/testprog", "testprog", FIXTURE_SEC);
    model_set_root_pid(m, FIXTURE_PID);
    dl_iterate_phdr(fixture_add_self, m);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID, "main", FIXTURE_SEC);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID + 1, "worker", FIXTURE_SEC);
    check_duration(m, dir);
    check_size(m, dir);
    model_free(m);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_summary();
}
