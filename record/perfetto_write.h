/* The Perfetto writer's parts (record/writer_perfetto.c emits the events, perfetto_write_encode.c
 * frames packets and writes them out, perfetto_write_intern.c keeps the interning tables): the
 * writer's state and what the parts call of each other. Private to those three files. */
#ifndef ROCSYS_RECORD_PERFETTO_WRITE_H
#define ROCSYS_RECORD_PERFETTO_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "base/hash.h"
#include "base/hashmap.h"
#include "pb.h"
#include "perfetto_proto.h"
#include "record.h"

#define PF_CHUNK       65536 /* write the buffer out once it holds this much */
#define PF_ZLIB_LEVEL  1     /* deflate level of each chunk (fast; see docs/performance.md) */
#define PF_FLUSH_NS    1000000000ull      /* and at least once a second of trace time */
#define PF_MAX_REPEAT  60000              /* heaviest weight written as repeated samples */
#define PF_CLOCK_DELTA PF_CLOCK_SEQ_FIRST /* sequence-scoped incremental clock of samples */
#define PF_REORDER_NS  250000000u         /* samples held back this far behind the newest one */
#define PF_REORDER_MAX 65536              /* ... and never more than this many */

#define PF_TRACK_KIND_NAMED   0 /* a named track of slices (e.g. a GPU queue) */
#define PF_TRACK_KIND_COUNTER 1

/* One slot of an open-addressing table; the meaning of k, a, b, c, d depends on the table. */
struct ient {
    uint64_t h, k;
    uint32_t a, b, c, d;
    int used;
};

struct itab {
    struct ient *e;
    size_t cap, count;
};

/* A chunk file of a rolling trace (--keep): a trace readable on its own. */
struct pf_chunk {
    uint32_t index;          /* its file: NNNNNN.pftrace in the chunk directory */
    uint64_t first_ns;       /* its earliest packet (MONOTONIC), UINT64_MAX while none */
    uint64_t start_ns;       /* when it was started (its anchor's time) */
    uint64_t last_ns, bytes; /* its latest packet; bytes written so far */
};

#define PF_KEEP_PARTS 4 /* a rolling trace's chunk: a quarter of what --keep keeps */

/* A sample waiting in the reorder window. */
struct pf_pending {
    uint64_t mono_ns, order; /* order: arrival, to keep equal times in arrival order */
    uint32_t pid, tid, stack, repeat;
};

struct record_writer {
    int fd;
    int failed; /* a write failed: the rest is dropped */
    int err;    /* its errno */
    struct model *m;
    uint32_t seq;
    int64_t boot_offset; /* BOOTTIME - MONOTONIC at open */
    struct pb out;       /* packets waiting to be written */
    z_stream z;          /* deflates each chunk of out into one compressed_packets packet */
    int z_ok;            /* z is set up (else chunks are written as they are) */
    struct pb zout;      /* a compressed chunk with its packet header in front */
    char label[128];     /* every process's label: "host=NAME" and " rank=N" under MPI */
    uint64_t pkt_ns;     /* the latest packet time so far */
    uint64_t flushed_ns; /* pkt_ns at the last flush */
    struct pb pkt, tmp, sub;
    struct pb in_fn, in_path, in_map, in_frame, in_stack; /* new interned entries */
    struct itab names;      /* function name -> iid a (string strs[k]) */
    struct itab modules;    /* module basename -> mapping iid a == path iid (strs[k]) */
    struct hashmap threads; /* mixed (pid << 32 | tid) -> 1 + index in strs of its name */
    struct hashmap procs;   /* mixed pid -> 1: its process track is declared */
    struct itab tracks;     /* (pid a, kind b, name strs[k]) -> a named or counter track */
    char **strs;
    size_t nstrs, capstrs;
    uint32_t *func_frames; /* model function f -> its frame iid, 0 until written */
    size_t cap_func_frames;
    uint64_t *stack_written; /* bit p: the callstack of model path p (iid p) is written */
    size_t cap_stack_written, nstacks;
    uint32_t *stack; /* scratch: the current sample's frame iids */
    size_t capstack;
    uint32_t next_name, next_module, next_frame;
    uint64_t delta_base_ns;  /* BOOTTIME of the last packet written on PF_CLOCK_DELTA */
    struct pf_pending *heap; /* the reorder window: a min-heap on (mono_ns, order) */
    size_t nheap, capheap;
    uint64_t newest_ns, arrivals; /* latest sample time seen; samples seen */
    struct pb pend_in;            /* interned data for the next sample packet written */
    /* Rolling trace (--keep, perfetto_write_roll.c): the trace is chunk files in chunk_dir,
     * concatenated into final_path at the close; each chunk clears the incremental state and
     * declares again what its packets use. gen numbers the chunks: an interned entry (string,
     * frame) whose generation is older is written again before its next use. */
    uint32_t gen;
    uint64_t keep_ns, keep_bytes; /* both 0: one file, the whole run */
    char *final_path, *chunk_dir;
    struct pf_chunk *chunks; /* on disk, oldest first; the last one is being written */
    size_t nchunks, capchunks;
    uint32_t next_chunk;
    int roll_due;                           /* roll before the next event */
    uint64_t chunks_dropped, bytes_dropped; /* dropped from the front so far */
    uint64_t anchor_ns;                     /* the latest anchor's time (MONOTONIC) */
    uint32_t *func_gen;                     /* model function f -> gen its frame was written in */
    uint64_t *decl_threads; /* (pid << 32 | tid) declared, to declare again in a new chunk */
    size_t ndecl_threads, capdecl_threads;
    uint32_t *decl_procs; /* pids declared */
    size_t ndecl_procs, capdecl_procs;
};

/* ---- encoding (perfetto_write_encode.c) ---- */

/* Write the packets buffered in out (compressed when zlib is set up) with one write. */
void pfw_flush_out(struct record_writer *w);
/* Start a packet at an absolute time: BOOTTIME with its clock id, sequence id and flags. */
void pfw_packet_begin(struct record_writer *w, uint64_t mono_ns, uint32_t flags);
/* Start a sample packet: a delta on the sequence's incremental clock (or an absolute time). */
void pfw_packet_begin_delta(struct record_writer *w, uint64_t mono_ns);
/* Frame the packet as a Trace.packet record into the output buffer (written out when full). */
void pfw_packet_end(struct record_writer *w);
/* The sequence's first packet: clears the incremental state, makes clock 64 the default and
 * anchors it (and MONOTONIC) to BOOTTIME. */
void pfw_packet_anchor(struct record_writer *w, uint64_t mono, uint64_t boot, int first);

/* ---- rolling (perfetto_write_roll.c) ---- */

/* Open the trace at path: one file, or with --keep the first chunk file (the chunk directory
 * beside path). 0, or -1 with errno set. */
int pfw_roll_open(struct record_writer *w, const char *path);
/* After bytes of the current file were written: note them (a full chunk is due to roll). */
void pfw_roll_written(struct record_writer *w, size_t bytes);
/* Close the current chunk and start the next file (the packets buffered are written first);
 * drop the oldest chunks past what --keep keeps. 0, or -1 (w->failed set). */
int pfw_roll_next_file(struct record_writer *w);
/* Delete the oldest chunk files past what --keep keeps (the current one stays). */
void pfw_roll_drop(struct record_writer *w);
/* Close the trace: with --keep, the kept chunks concatenated into the final file (written
 * beside it, then renamed), the chunk files removed; what was kept told to the session. */
void pfw_roll_close(struct record_writer *w);

/* ---- interning (perfetto_write_intern.c) ---- */

/* The track uuid of thread (pid, tid); tid 0 is the process. */
uint64_t pfw_track_uuid(uint32_t pid, uint32_t tid);
/* Whether pid's process track is declared; pfw_process_mark says it is. */
int pfw_process_declared(struct record_writer *w, uint32_t pid);
void pfw_process_mark(struct record_writer *w, uint32_t pid);
/* Whether thread (pid, tid) has a descriptor in the file. */
int pfw_thread_declared(struct record_writer *w, uint32_t pid, uint32_t tid);
/* Note name as thread (pid, tid)'s; 1 when it must be declared (new or renamed), else 0. */
int pfw_thread_set_name(struct record_writer *w, uint32_t pid, uint32_t tid, const char *name);
/* The name thread (pid, tid) was declared with ("" if none). */
const char *pfw_thread_name(struct record_writer *w, uint32_t pid, uint32_t tid);
/* The uuid of the track of an entry of w->tracks (what pfw_track_intern gave for it). */
uint64_t pfw_track_uuid_of(const struct ient *e);
/* The uuid of pid's track called name of kind PF_TRACK_KIND_* in *uuid; 1 when it is new. */
int pfw_track_intern(struct record_writer *w, uint32_t pid, uint32_t kind, const char *name,
                     const char *unit, uint64_t *uuid);
/* The callstack iid of model path p, its frames and callstack added to the in_* buffers on
 * first use. */
uint32_t pfw_intern_path(struct record_writer *w, uint32_t p);
/* A new chunk: every interned entry is written again before its next use. */
void pfw_intern_new_gen(struct record_writer *w);
/* Free the interning tables. */
void pfw_intern_free(struct record_writer *w);

#endif
