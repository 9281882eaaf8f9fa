/* The Perfetto writer's cost per sample with and without a rolling trace (--keep): feeds the
 * writer (record/writer_perfetto.c) SAMPLES samples of 10 call stacks on 2 threads, 1 ms apart
 * in trace time, with a counter reading every 100 samples, into a file in DIR, as a plain
 * trace, --keep 64K (a new chunk every 16K of trace), --keep 2s (every 0.5 s of trace time,
 * the shortest --keep), --keep 60s (every 15 s) and --keep 1h (no new chunk in this run: the
 * cost of the checks alone). The runs alternate REPS times; prints each
 * one's median CPU time per sample (user and system: a chunk is a file created and one
 * deleted), its trace's size, the chunks dropped, the ratio to the plain trace, and the extra
 * CPU time per chunk. Built and run by bench/keep.sh. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "model/model.h"
#include "record/record.h"
#include "tests/unit/model_fixture.h"

static uint64_t cpu_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * FIXTURE_SEC + (uint64_t)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One run: the writer fed n samples with keep (ns, bytes); its CPU ns per sample, *size. */
static double run(struct model *m, const char *dir, uint32_t n, uint64_t keep_ns,
                  uint64_t keep_bytes, const uint32_t *paths, long *size, uint64_t *dropped)
{
    char path[512], err[256];
    struct timespec now;
    struct stat st;

    snprintf(path, sizeof(path), "%s/bench.pftrace", dir);
    model_session(m)->keep_ns = keep_ns;
    model_session(m)->keep_bytes = keep_bytes;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t t0 = (uint64_t)now.tv_sec * FIXTURE_SEC + (uint64_t)now.tv_nsec + FIXTURE_SEC;
    uint64_t c0 = cpu_ns();
    struct record_writer *w = record_perfetto.open(path, m, err, sizeof(err));
    if (!w) {
        fprintf(stderr, "keep_write: %s\n", err);
        exit(1);
    }
    for (uint32_t i = 0; i < n; i++) {
        struct record_event ev = {.type = RECORD_EV_SAMPLE,
                                  .time_ns = t0 + (uint64_t)i * 1000000ull,
                                  .pid = FIXTURE_PID,
                                  .tid = FIXTURE_PID + (i & 1),
                                  .weight = 1,
                                  .path = paths[i % 10]};
        record_perfetto.event(w, &ev);
        if (i % 100 == 0) {
            struct record_event c = {.type = RECORD_EV_COUNTER,
                                     .time_ns = ev.time_ns,
                                     .pid = FIXTURE_PID,
                                     .track = "CPU %",
                                     .unit = "%",
                                     .value = i % 100};
            record_perfetto.event(w, &c);
        }
    }
    record_perfetto.close(w, m, NULL);
    double per = (double)(cpu_ns() - c0) / n;
    *size = stat(path, &st) == 0 ? (long)st.st_size : -1;
    *dropped = model_session(m)->keep_chunks_dropped;
    model_session(m)->keep_chunks_dropped = 0;
    unlink(path);
    return per;
}

int main(int argc, char **argv)
{
    uint32_t n = argc > 2 ? (uint32_t)atol(argv[2]) : 2000000;
    int reps = argc > 3 ? atoi(argv[3]) : 5;
    enum { RUNS = 5 };
    const char *names[RUNS] = {"plain", "keep 64K", "keep 2s", "keep 60s", "keep 1h"};
    const uint64_t kns[RUNS] = {0, 0, 2 * FIXTURE_SEC, 60 * FIXTURE_SEC, 3600 * FIXTURE_SEC},
                   kbytes[RUNS] = {0, 64 << 10, 0, 0, 0};
    double t[RUNS][64];
    long size[RUNS] = {0};
    uint64_t dropped[RUNS] = {0};
    uint32_t paths[10];
    struct model *m = model_new();

    if (argc < 2 || n == 0 || reps < 1 || reps > 64) {
        fprintf(stderr, "usage: keep_write DIR [SAMPLES [REPS]]\n");
        return 2;
    }
    model_proc_start(m, FIXTURE_PID, 1, "/usr/local/bin/bench", "bench", FIXTURE_SEC);
    dl_iterate_phdr(fixture_add_self, m);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID, "main", FIXTURE_SEC);
    model_thread_start(m, FIXTURE_PID, FIXTURE_PID + 1, "worker", FIXTURE_SEC);
    for (uint32_t k = 0; k < 10; k++) { /* fn_middle k + 1 times between the others */
        uint64_t fr[14] = {fixture_at(fn_leaf)};
        for (uint32_t j = 0; j <= k; j++)
            fr[1 + j] = fixture_at(fn_middle);
        fr[k + 2] = fixture_at(fn_outer);
        paths[k] = model_sample_path(m, FIXTURE_PID, fr, k + 3);
    }
    for (int r = 0; r < reps; r++) /* side by side: the runs alternate */
        for (int v = 0; v < RUNS; v++)
            t[v][r] = run(m, argv[1], n, kns[v], kbytes[v], paths, &size[v], &dropped[v]);
    printf("%u samples, median of %d runs\n", n, reps);
    printf("%-10s %14s %12s %10s %10s %16s\n", "trace", "cpu_ns/sample", "trace_bytes", "dropped",
           "vs_plain", "extra_us/chunk");
    double base = 0;
    for (int v = 0; v < RUNS; v++) {
        qsort(t[v], (size_t)reps, sizeof(double), by_value);
        double med = t[v][reps / 2];
        if (v == 0)
            base = med;
        printf("%-10s %14.1f %12ld %10llu %10.3f %16.1f\n", names[v], med, size[v],
               (unsigned long long)dropped[v], med / base,
               dropped[v] ? (med - base) * n / 1e3 / (double)(dropped[v] + 1) : 0.0);
    }
    model_free(m);
    return 0;
}
