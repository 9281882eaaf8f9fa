/* Recording: the session's events written to files by a const table of writers (one file per
 * writer, one row to add one). The session calls record_* for every event it handles; each
 * writer takes the events it needs. Writers run in the front end and may allocate. */
#ifndef ROCSYS_RECORD_RECORD_H
#define ROCSYS_RECORD_RECORD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct model;

enum record_event_type {
    RECORD_EV_OUTPUT,  /* bytes the target wrote: stream 1 = stdout, 2 = stderr */
    RECORD_EV_PROCESS, /* a process image started */
    RECORD_EV_THREAD,  /* a thread started or was renamed */
    RECORD_EV_SAMPLE,  /* a call-stack sample (raw addresses, innermost first) */
    RECORD_EV_COUNTER, /* a counter reading: value of track in unit at time_ns */
    RECORD_EV_SLICE,   /* a completed interval [time_ns, end_ns] on a thread or a named track */
    RECORD_EV_INSTANT, /* a point event (a mark) on a thread or a named track */
};

/* One event of the session, on CLOCK_MONOTONIC. Pointers are valid during the call only. */
struct record_event {
    enum record_event_type type;
    uint64_t time_ns;
    uint32_t pid, tid;
    int stream;             /* OUTPUT */
    const char *data;       /* OUTPUT bytes; PROCESS executable; THREAD name */
    size_t len;             /* OUTPUT byte count */
    const uint64_t *frames; /* SAMPLE */
    uint32_t nframes;       /* SAMPLE */
    uint32_t weight;        /* SAMPLE: periods it stands for */
    uint32_t path;          /* SAMPLE: the model's call path (model_sample_path), or 0 */
    /* COUNTER: the counter's track name (unique per pid; pid 0 = machine-wide, e.g. "GPU0
     * busy"); SLICE/INSTANT: a named track of pid (e.g. "GPU0 queue 1"), or NULL for the
     * thread tid's own track */
    const char *track;
    const char *unit;     /* COUNTER: "%", "W", "C", "bytes", "MHz", "RPM", ... */
    double value;         /* COUNTER */
    const char *category; /* SLICE/INSTANT: "hip", "kernel", "copy", "region", "mark" */
    const char *name;     /* SLICE/INSTANT: what it is (API name, kernel, region) */
    uint64_t end_ns;      /* SLICE: its end, >= time_ns */
    uint64_t flow_out;    /* SLICE: non-zero: an arrow starts here (e.g. a HIP launch) ... */
    uint64_t flow_in;     /* SLICE: ... and ends at the slice with this flow_in (the dispatch) */
    /* SLICE/INSTANT: annotations as "key=value" lines separated by '\n', or NULL */
    const char *args;
};

/* How the session ended, for the writers' summaries. */
struct record_end {
    int exit_status;         /* the target's, as rocsys-top exits with it */
    const char *status_text; /* "exited with 0", "killed by SIGSEGV (core dumped)", ... */
    const char *ended_by;    /* why the session ended: "target ended", "SIGINT to rocsys-top" */
    char *const *argv;       /* the target's command line */
    int argc;
    int root_pid;
    const char *const *files; /* the recording's files (basenames), NULL-terminated */
    /* the files left incomplete, as "FILE: reason", NULL-terminated (NULL: none); filled by
     * record_set_close for the writers it closes after a failure (session.json, last) */
    const char *const *incomplete;
};

struct record_writer;

/* A writer: a row of record_writers[]. */
struct record_writer_class {
    const char *name; /* short name, e.g. "output-log" */
    /* Create the writer's file at path; returns NULL with a one-line message in err. The
     * model is the session's (for symbolization: model_symbolizer; tables), valid until close. */
    struct record_writer *(*open)(const char *path, struct model *m, char *err, size_t errlen);
    /* Take one event of the session; NULL for a writer that writes only from the model. */
    void (*event)(struct record_writer *w, const struct record_event *ev);
    /* Write what is pending and close; the model holds the aggregated profile. Returns 0, or
     * the errno of a write that failed (the file is incomplete). */
    int (*close)(struct record_writer *w, struct model *m, const struct record_end *end);
    /* 0, or the errno of the first write that failed so far (NULL: it writes only at close). */
    int (*error)(struct record_writer *w);
};

/* Create (or empty) a recording file: mode 0600 (less if the umask says so), not through a
 * symbolic link when nofollow (every file of a recording directory). Returns the fd or -1. */
int record_open(const char *path, int nofollow);
/* The same as a stdio stream (nofollow) that keeps its first failed write's errno, for
 * ostream_flush and ostream_close (base/ostream.h; record_file.c), or NULL with errno set. */
FILE *record_fopen(const char *path);
/* record_fopen, or NULL with "cannot write PATH: reason" in err (a writer's open). */
FILE *record_fopen_err(const char *path, char *err, size_t errlen);
/* s as a quoted CSV field (a quote inside doubled), on f (writer_kernels.c). */
void record_csv_string(FILE *f, const char *s);

/* --keep DURATION|SIZE: a rolling trace keeps the last ns of trace time or the last bytes
 * (one of them non-zero; both 0: the whole run). record_keep.c. */
struct record_keep {
    uint64_t ns, bytes;
};
#define RECORD_KEEP_MIN_BYTES (64ull << 10)
#define RECORD_KEEP_MIN_NS    2000000000ull
/* Parse "30s", "10m", "2h", "1d" (a duration) or "64K", "500M", "2G", "1T" (a size, powers of
 * 1024): a whole number and one suffix, nothing else. 0, or -1 with a one-line message. */
int record_keep_parse(const char *s, struct record_keep *k, char *err, size_t errlen);
/* The value as the shortest such text ("10m", "500M") in buf. */
void record_keep_text(const struct record_keep *k, char *buf, size_t n);

/* Writers, one file each. */
extern const struct record_writer_class record_output_log;    /* the target's full output */
extern const struct record_writer_class record_profile_txt;   /* per-thread call trees */
extern const struct record_writer_class record_stacks_folded; /* collapsed stacks */
extern const struct record_writer_class record_gpu_folded;    /* stacks weighted by GPU time */
extern const struct record_writer_class record_session_json;  /* what, and how it ended */
extern const struct record_writer_class record_kernels_csv;   /* kernels.csv (rocprof stats) */
extern const struct record_writer_class record_hip_api_csv;   /* hip_api.csv (rocprof stats) */
extern const struct record_writer_class record_copies_csv;    /* copies.csv */
extern const struct record_writer_class record_omp_csv;       /* omp.csv */
extern const struct record_writer_class record_mpi_csv;       /* mpi.csv (writer_mpi.c) */
extern const struct record_writer_class record_perfetto;      /* trace.pftrace (Perfetto) */
extern const struct record_writer_class record_gpu_csv;       /* gpu.csv: GPU time series */
extern const struct record_writer_class record_lines_txt;     /* lines.txt: samples per line */
extern const struct record_writer_class record_profile_pb;    /* profile.pb.gz (pprof) */
extern const struct record_writer_class record_profile_coz;   /* profile.coz (--causal) */
/* Sizes of a Perfetto writer's interning tables (tests: memory bounded by distinct stacks). */
void record_perfetto_stats(const struct record_writer *w, size_t *frames, size_t *stacks,
                           size_t *heap_bytes);

/* The files of a recording directory (--record DIR): one row per writer, in the order they are
 * opened and closed (session.json last: its presence marks a complete recording). */
struct record_file {
    const struct record_writer_class *cls;
    const char *file;
};
extern const struct record_file record_files[]; /* terminated by a row with cls NULL */

/* A set of open writers fed by the session. */
struct record_set;

struct record_set *record_set_new(void);
/* Open writer class c on path and add it to the set. Returns 0, or -1 with err set. */
int record_set_add(struct record_set *s, const struct record_writer_class *c, const char *path,
                   struct model *m, char *err, size_t errlen);
void record_set_event(struct record_set *s, const struct record_event *ev);
/* Whether a writer failed (a full disk, a vanished or read-only directory): 1 with "FILE:
 * reason" in msg, once and afterwards; 0 while all is well. From the first failure on, events
 * go to no writer: the files keep what was written (the trace stays readable up to there). */
int record_set_check(struct record_set *s, char *msg, size_t n);
/* Close every writer (session.json last, told which files are incomplete) and free s. Returns
 * the number of incomplete files, the first as "FILE: reason" in msg. */
int record_set_close(struct record_set *s, struct model *m, const struct record_end *end, char *msg,
                     size_t n);

#endif
