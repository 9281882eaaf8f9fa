/* The Perfetto reader's parts (perfetto_read.c: framing, packets, sequences and the API;
 * perfetto_read_tracks.c: track descriptors and track events; perfetto_read_stacks.c: interned
 * data, call stacks and samples; perfetto_read_clock.c: clock snapshots and timestamps): the
 * reader's state and what the parts call of each other. Private to those files. */
#ifndef ROCSYS_RECORD_PERFETTO_READ_INTERNAL_H
#define ROCSYS_RECORD_PERFETTO_READ_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "pb.h"
#include "perfetto_proto.h"
#include "perfetto_read.h"

enum {
    K_NAME = 1,
    K_PATH,
    K_MAPPING,
    K_FRAME,
    K_STACK,
    K_SUMSTACK,
    K_THREAD,
    K_PROC,
    K_TRACK,
    K_UUID,    /* uuid -> UUID_THREAD/UUID_NAMED << 32 | index, UUID_PROCESS << 32 | pid */
    K_OPENTOP, /* uuid -> 1 + index of the innermost open slice on it */
};
#define UUID_THREAD  1ull
#define UUID_NAMED   2ull
#define UUID_PROCESS 3ull

/* Key (kind, a, b) -> val in one open-addressing table. */
struct rent {
    uint64_t a, b, val;
    uint32_t kind;
    int used;
};

struct rmap {
    struct rent *e;
    size_t cap, count;
};

struct rframe {
    uint64_t name, mapping, rel_pc;
};

/* A sequence-scoped clock (ids 64..127) as trace_processor keeps it. */
struct rclock {
    int anchored;     /* a ClockSnapshot on the sequence gave it a value */
    int incremental;  /* timestamps are deltas from last_ns */
    int linked;       /* boot_minus_clock is known (BOOTTIME or MONOTONIC in its snapshot) */
    uint64_t unit_ns; /* unit_multiplier_ns */
    int64_t last_ns;  /* its latest value (an incremental clock's running sum) */
    int64_t snap_ns;  /* its value in the latest snapshot */
    int64_t boot_minus_clock;
};

#define SEQ_CLOCK_FIRST PF_CLOCK_SEQ_FIRST
#define SEQ_CLOCKS      PF_CLOCK_SEQ_COUNT

struct rseq {
    uint32_t id;
    uint64_t gen; /* globally unique per incremental-state generation; 0 = never cleared */
    int have_clock;
    int64_t boot_minus_mono;
    uint32_t default_clock; /* TracePacketDefaults.timestamp_clock_id of this generation */
    uint64_t snap_boot;     /* BOOTTIME of the latest snapshot (it must not go back) */
    struct rclock clocks[SEQ_CLOCKS];
};

struct reader {
    struct perfetto_summary *out;
    char *err;
    size_t errlen;
    struct rmap map;
    struct rseq *seqs;
    size_t nseqs;
    uint64_t gen;
    char **strs; /* interned strings of all generations */
    size_t nstrs, capstrs;
    uint64_t *pool; /* [n, id...] lists of mappings' paths and callstacks' frames */
    size_t npool, cappool;
    struct rframe *frames;
    size_t nframes, capframes;
    size_t capthreads, capprocs, capstacks, capsamples;
    size_t captracks, capcounters, capslices;
    int nested; /* reading the packets of a compressed bundle */
};

/* ---- perfetto_read.c ---- */

/* Set (kind, a, b) to val; pfr_rmap_get: its value in *val, 0 if found, -1 if not. */
void pfr_rmap_put(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b, uint64_t val);
int pfr_rmap_get(struct rmap *m, uint32_t kind, uint64_t a, uint64_t b, uint64_t *val);
/* Record a failed meaning check; the first one becomes the error message. */
__attribute__((format(printf, 2, 3))) void pfr_violation(struct reader *r, const char *fmt, ...);
/* Keep a copy of the n bytes at p as a string; returns its index in r->strs. */
uint64_t pfr_add_str(struct reader *r, const uint8_t *p, size_t n);
/* Append v to r->pool. */
void pfr_pool_push(struct reader *r, uint64_t v);
/* Sub-message fields (varints and strings) by number below max into v, has, s, sn; -1 if
 * malformed. */
int pfr_parse_flat(const uint8_t *p, size_t n, uint64_t *v, int *has, const uint8_t **s, size_t *sn,
                   uint32_t max);
/* Replace *dst with a string copy of the n bytes at p ("" for NULL). */
void pfr_set_name(char **dst, const uint8_t *p, size_t n);

/* ---- perfetto_read_tracks.c ---- */

/* A TrackDescriptor: declares a process, thread, named or counter track. -1 if malformed. */
int pfr_parse_track(struct reader *r, const uint8_t *p, size_t n);
/* A TrackEvent at mono: a counter value, a slice begin/end or an instant on a declared track. */
int pfr_parse_track_event(struct reader *r, const uint8_t *p, size_t n, int has_ts, uint64_t mono);

/* ---- perfetto_read_stacks.c ---- */

/* An InternedData message of sequence sq's current generation. */
int pfr_parse_interned(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n);
/* A PerfSample at (boot, mono): its thread and callstack must resolve. */
int pfr_parse_sample(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n, int has_ts,
                     uint64_t boot, uint64_t mono);

/* ---- perfetto_read_clock.c ---- */

/* A ClockSnapshot on sequence sq. */
int pfr_parse_clocks(struct reader *r, struct rseq *sq, const uint8_t *p, size_t n);
/* The packet's time in BOOTTIME and MONOTONIC; -1 (a violation) when it cannot be placed. */
int pfr_resolve_time(struct reader *r, struct rseq *sq, uint64_t ts, uint64_t clock_id,
                     uint64_t *boot, uint64_t *mono);

#endif
