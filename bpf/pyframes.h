/* What the BPF Python frame walker (bpf/pyframes.bpf.c) and the front end that loads it
 * (session/perf_python.c) share: the per-process layout the walker is given, and the event it
 * writes per sample. Plain fixed-size types only (compiled for the BPF target and the host). */
#ifndef ROCSYS_BPF_PYFRAMES_H
#define ROCSYS_BPF_PYFRAMES_H

#define PYF_MAX_FRAMES 128 /* Python frames kept per sample at most (then flagged cut) */
#define PYF_MAX_WALK                                                                               \
    4096                   /* frames walked per sample at most (runs of equal frames are kept      \
                              once: a recursion keeps its root) */
#define PYF_FRAME_READ 128 /* bytes of a frame read in one go (every field the walk needs) */
#define PYF_TS_READ    512 /* bytes of a thread state read in one go (its fields the walk needs) */
/* 3.11, 3.12: bytes of the C stack read from the _PyCFrame (3.12: the shim frame beside it) */
#define PYF_CSTACK_READ 256
#define PYF_WINDOW      16384 /* 3.11+: bytes of a data-stack chunk read in one go (a power of 2) */
#define PYF_MAX_PROCS   64    /* processes walked at once */
#define PYF_PID_NONE    0xffffffffu /* a slot of the table that no process matches */
#define PYF_MAX_INTERPS 4           /* interpreters looked at for a thread's state */
#define PYF_MAX_THREADS 64          /* thread states looked at per interpreter */

/* The layout of one process's CPython, from collector/python_layout.c (py_layout), filled in by
 * the front end in the first free slot of the walker's table. Offsets in bytes. */
struct pyf_proc {
    unsigned int pid; /* 0: the slot and the ones after it are free; PYF_PID_NONE: taken */
    unsigned long long runtime; /* address of _PyRuntime */
    unsigned int rt_interp_head, interp_next, interp_threads;
    unsigned int ts_next, ts_thread_id, ts_frame;
    unsigned int ts_read_lo, ts_read_len; /* the span of a thread state read at each sample
                                             (ts_thread_id, ts_frame, ts_datastack in it) */
    int ts_datastack;                     /* 3.11+: datastack_chunk, then datastack_top; else -1 */
    int cframe_current, cframe_previous;  /* 3.11, 3.12: tstate->cframe's fields, else -1 */
    unsigned int fr_back, fr_code, fr_lasti, fr_flags; /* fr_flags <= 3.10: ob_type (8) */
    unsigned int frame_read;                           /* bytes of a frame to read (<= 128) */
    unsigned int stop; /* bench/python_outside.sh's breakdown: 1 stop before the thread state,
                          2 before the frames, 3 before the walk is published; 0 the whole walk */
    unsigned int timed_gap_ns; /* non-zero (ROCSYS_BPF_TIMED): the walker times each walk into
                                  pyf_timing, a sample more than this after the thread's last
                                  one counted as the first after a pause ("cold") */
};

/* ROCSYS_BPF_TIMED: the walker's own time per walk (from its entry to the walk's publication
 * in its ring, or to its stop, by bpf_ktime_get_ns), [0] the thread's samples that follow its last
 * one within timed_gap_ns, [1] the first sample after the thread was off its CPU (or the first). */
#define PYF_TIME_BIN_NS 50
#define PYF_TIME_BINS   400 /* the last bin: 19.95 us and over */
struct pyf_timing {
    unsigned long long bins[2][PYF_TIME_BINS];
    unsigned long long sum_ns[2], count[2];
};

/* Event status bits. */
#define PYF_NO_TSTATE  1u /* the thread has no Python thread state (never ran Python) */
#define PYF_CUT        2u /* more frames than PYF_MAX_FRAMES */
#define PYF_UNREADABLE 4u /* a read failed: the chain after the last frame is unknown */
#define PYF_BAD_FIRST  8u /* the thread state's current frame could not be read */

/* One frame as read: its address, the words at fr_code, fr_lasti, fr_flags. The address's top
 * 16 bits count the frames equal to it (code, instruction, flags) that follow it in the chain
 * (a recursion), kept once. */
struct pyf_frame {
    unsigned long long addr, code, lasti, flags;
};
#define PYF_FRAME_ADDR(a) ((a) & ((1ull << 48) - 1))
#define PYF_FRAME_MORE(a) ((unsigned)((a) >> 48))
#define PYF_MORE_MAX      0xffffu

/* One sample's Python stack, innermost frame first: written by the walker at the perf
 * sample's overflow, paired by the front end with the sample of the same thread (time just
 * after the sample's, same user ip and sp). */
struct pyf_event {
    unsigned int pid, tid;
    unsigned long long time_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
    unsigned long long ip, sp;  /* the thread's user registers */
    unsigned long long tstate;
    unsigned long long expected;  /* 3.11, 3.12: the previous cframe's current frame (or 0) */
    unsigned long long last_next; /* the back link of the last frame read */
    unsigned int n, status;
    struct pyf_frame f[PYF_MAX_FRAMES];
};
#define PYF_EVENT_HEAD ((unsigned long)&((struct pyf_event *)0)->f)

/* Per CPU, the walks written there, one after the other (a walk: its pyf_event up to its n
 * frames), read by the front end from a mapping of the map (no reservation or lock: the
 * walker owns its CPU's ring). A ring is a pyf_ring then its bytes (ring_bytes, a power of 2
 * chosen by the front end: PYF_RING_BUDGET over the CPUs, within [PYF_RING_MIN, PYF_RING_MAX]),
 * then room for one walk (a walk runs on past the end, not around). The walker drops a walk
 * when the front end's published tail leaves no room for it, as a full ring buffer did. */
#define PYF_RING_MIN    (256u << 10)
#define PYF_RING_MAX    (2u << 20)
#define PYF_RING_BUDGET (32u << 20) /* all CPUs' rings */
struct pyf_ring {
    unsigned long long head;   /* bytes written; the next walk at head & (ring_bytes - 8) */
    unsigned long long pad[7]; /* (each word alone in its cache line) */
    unsigned long long tail;   /* the front end's: read up to here (published now and then) */
    unsigned long long pad2[7];
    unsigned long long dropped; /* walks dropped: no room */
    unsigned long long pad3[7];
};
#define PYF_RING_VALUE(bytes) (sizeof(struct pyf_ring) + (bytes) + sizeof(struct pyf_event))

#endif
