/* Reader of the Perfetto traces rocsys-top writes (record/writer_perfetto.c): parses the
 * packet framing, decodes the TracePacket fields the writer uses and checks their meaning
 * (sequence flags, interned ids, declared tracks, frames with mappings). Tests use its
 * summary; a replay mode can use it too. */
#ifndef ROCSYS_RECORD_PERFETTO_READ_H
#define ROCSYS_RECORD_PERFETTO_READ_H

#include <stddef.h>
#include <stdint.h>

struct perfetto_read_thread {
    uint32_t pid, tid;
    char *name; /* latest name declared, "" if none */
    uint64_t samples;
};

struct perfetto_read_process {
    uint32_t pid;
    char *name;    /* latest process_name, "" if none */
    char host[64]; /* its label's host=NAME, "" if none */
    int rank;      /* its label's rank=N (MPI), -1 if none */
};

/* A distinct call stack as function names, root first, leaf last. */
struct perfetto_read_stack {
    uint32_t n;
    char **functions;
};

struct perfetto_read_sample {
    uint64_t time_ns; /* BOOTTIME, the trace's time (delta timestamps resolved) */
    uint64_t mono_ns; /* CLOCK_MONOTONIC via the sequence's ClockSnapshot, else time_ns */
    uint32_t pid, tid;
    uint32_t stack; /* index into stacks */
};

/* A track that is neither a process nor a thread: a named slice track (a GPU queue) or a
 * counter track. */
struct perfetto_read_track {
    uint64_t uuid;
    char *name;
    uint32_t pid; /* of the parent process track, 0 for a top-level track */
    int counter;  /* 1: a counter track */
    char *unit;   /* counter unit: "bytes", "ns", or the unit_name text; "" if none */
};

struct perfetto_read_counter {
    uint32_t track; /* index into tracks */
    uint64_t mono_ns;
    double value;
};

/* A slice (begin + end) or an instant, on a thread track or a named track. */
struct perfetto_read_slice {
    uint32_t pid, tid; /* the thread's (thread tracks) */
    int32_t track;     /* index into tracks, or -1 for a thread track */
    char *name, *category;
    char *args;                /* debug annotations as "key=value\n" lines, "" if none */
    uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC; end_ns 0 while open (a truncated trace) */
    uint64_t flow_out, flow_in;
    int instant;
    int32_t parent_open; /* (reader's bookkeeping) the slice open below this one, -1 if none */
};

struct perfetto_summary {
    struct perfetto_read_track *tracks;
    size_t ntracks;
    struct perfetto_read_counter *counters;
    size_t ncounters;
    struct perfetto_read_slice *slices;
    size_t nslices;
    struct perfetto_read_thread *threads; /* in order of first declaration */
    size_t nthreads;
    struct perfetto_read_process *processes;
    size_t nprocesses;
    struct perfetto_read_stack *stacks;
    size_t nstacks;
    struct perfetto_read_sample *samples;
    size_t nsamples;
    uint64_t packets;     /* complete packets read */
    uint64_t sequences;   /* distinct trusted_packet_sequence_ids */
    uint64_t valid_bytes; /* bytes of complete packets */
    int truncated;        /* the file ends inside a packet (a killed run) */
    uint64_t violations;  /* meaning checks that failed (the first is in err) */
};

/* Read and check the trace at path. Returns 0 when it parses and every check passes (a
 * truncated tail is not an error: see out->truncated), -1 with a one-line message in err
 * otherwise (out still holds what was read). Free out with perfetto_read_free. A directory at
 * path is a rolling trace's chunk directory (--keep, a run that could not finish): its
 * NNNNNN.pftrace files in order, read as one trace. */
int perfetto_read_file(const char *path, struct perfetto_summary *out, char *err, size_t errlen);
/* The same on bytes in memory. */
int perfetto_read_buffer(const uint8_t *data, size_t len, struct perfetto_summary *out, char *err,
                         size_t errlen);
void perfetto_read_free(struct perfetto_summary *s);

/* A trace read as it grows (a recording still being written): the reader's state (interned
 * data, clocks, open slices) is kept between feeds and the summary accumulates. */
struct perfetto_stream;
struct perfetto_stream *perfetto_stream_new(void);
/* Read the complete packets at the start of data (the bytes after what was consumed so far).
 * Returns the bytes consumed (a packet cut short, e.g. still being written, is left for the
 * next call), or -1 with a one-line message in err when the bytes are not a trace. Checks of
 * meaning do not fail the read here (see the summary's violations). */
long perfetto_stream_feed(struct perfetto_stream *st, const uint8_t *data, size_t len, char *err,
                          size_t errlen);
/* What was read so far (valid until the next feed). The reader only appends to it: the
 * caller may renumber the pids of what it has seen (ranks of different hosts that share pids). */
struct perfetto_summary *perfetto_stream_summary(struct perfetto_stream *st);
/* Bytes consumed so far: where the next feed's data starts in the file. */
uint64_t perfetto_stream_offset(const struct perfetto_stream *st);
void perfetto_stream_free(struct perfetto_stream *st);

/* Self samples of one function name: a sample counts for its leaf. */
struct perfetto_read_count {
    const char *function; /* owned by the summary */
    uint64_t self;
};

/* Self-sample counts per function name of thread tid (0: all threads), most first, ties by
 * name. Returns the number of entries; *out is malloc'ed (free it). */
size_t perfetto_read_self_counts(const struct perfetto_summary *s, uint32_t tid,
                                 struct perfetto_read_count **out);
/* The track called name (of pid; any pid if pid is 0), or -1. */
int perfetto_read_track_find(const struct perfetto_summary *s, uint32_t pid, const char *name);

/* The thread entry of (pid, tid), or NULL. */
const struct perfetto_read_thread *perfetto_read_thread_find(const struct perfetto_summary *s,
                                                             uint32_t pid, uint32_t tid);

#endif
