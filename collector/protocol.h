/* rocsys-top collector <-> front-end protocol: the one versioned header both sides share.
 *
 * Transport: one shared-memory file per session (path in ROCSYS_SHM). It starts with a
 * struct rocsys_shm_header, followed by ring_count + gpu_ring_count struct rocsys_ring_ctl,
 * followed by ring_count data areas of ring_bytes each, then gpu_ring_count data areas of
 * gpu_ring_bytes each. Every thread of every profiled process owns one ring while it lives
 * (single producer); a thread that writes GPU records (ROCr's async-events thread: kernel
 * dispatches, copies) also owns one of the larger GPU rings for them. The front end is the
 * single consumer of all rings.
 *
 * A ring carries records: a struct rocsys_rec_header followed by a payload; every record's
 * size is a multiple of 8. A record never wraps: when it does not fit before the end of the
 * data area, the producer writes a ROCSYS_REC_PAD covering the rest and starts again at 0.
 *
 * Record type numbers are allocated in ranges; retired numbers stay listed, marked unused.
 *   0x0001-0x000f  process lifecycle      0x0010-0x001f  threads
 *   0x0020-0x002f  modules                0x0030-0x003f  CPU samples
 *   0x0040-0x005f  HIP API                0x0060-0x007f  HSA dispatches
 *   0x0080-0x009f  user regions          0x00a0-0x00af  Python (CPython frames)
 *   0x00c0-0x00cf  MPI
 *   0x00d0-0x00df  OpenMP (OMPT) and Kokkos Tools
 *   0x00e0-0x00e7  wait leaves (their ends that no call's record says)
 * A reader skips record types it does not know (their size is always valid).
 *
 * Flow control (version 2): a producer whose ring passes half full bumps the header's doorbell
 * futex word (and wakes the front end with FUTEX_WAKE when it sleeps on it), so the front end
 * drains at once instead of at its next 50 ms tick; that is async-signal-safe and never blocks.
 * A producer in normal context whose record must not be lost (HIP API, dispatches, copies,
 * names) waits for room when its ring is full: it rings the doorbell and sleeps on drain_seq,
 * which the front end bumps (and wakes) after every drain pass and every 256 records of a
 * ring while a producer waits. The wait is bounded: 500 ms without a drain pass marks the front
 * end stalled (stalled_seq: nobody waits again until it drains once more); a front end that
 * keeps draining is waited for up to 2 s per record. A submitting thread is held back (at most
 * 500 ms) while the GPU ring is past 3/4 full; that never marks a stall by itself.
 * The futex words are shared between processes: FUTEX_WAIT/WAKE without FUTEX_PRIVATE_FLAG.
 */
#ifndef ROCSYS_COLLECTOR_PROTOCOL_H
#define ROCSYS_COLLECTOR_PROTOCOL_H

#include <stdatomic.h>
#include <stdint.h>

#define ROCSYS_PROTOCOL_VERSION 11
#define ROCSYS_SHM_MAGIC        0x53594352u /* "RCYS" little-endian */

/* The one environment variable the front end sets for the collector (besides LD_PRELOAD and
 * HSA_TOOLS_LIB), comma-separated keys, shm last (the path runs to the end of the value):
 *   protocol=N    must equal ROCSYS_PROTOCOL_VERSION
 *   hz=N          samples per second per thread, 1..10000
 *   mode=cpu|wall
 *   follow=0|1    profile child processes too
 *   timer=perf|posix|none  CPU mode: perf events (cycles, else task-clock, else POSIX timers) or
 *                 POSIX timers; none: no sampling in the target (the front end samples it from
 *                 outside with perf events, in either mode)
 *   python=0|1    read CPython frames (--python off: 0)
 *   lstacks=0|1   capture the call stacks of kernel launches (--launch-stacks off: 0)
 *   root=PID      pid of the launched target (added by the launcher in the child)
 *   shm=PATH      the session's shared-memory file
 * One variable rather than eight: some runtimes scan the whole environment on every call
 * (libamdhip64 without a device does, see docs/performance.md), so each variable we add costs
 * the target time. */
#define ROCSYS_ENV_SESSION "ROCSYS_SESSION"
#define ROCSYS_ENV_LOG     "ROCSYS_COLLECTOR_LOG" /* optional debug log file of the collector */

#define ROCSYS_MAX_FRAMES   128 /* deepest stack a sample carries */
#define ROCSYS_MAX_PATH     4096
#define ROCSYS_MAX_BUILD_ID 32
#define ROCSYS_THREAD_NAME  16 /* as the kernel's comm, NUL included */
/* The name (comm) of the collector's helper thread, which the front end leaves out of the
 * program's threads; /proc/PID/task/TID/comm holds it followed by a newline. */
#define ROCSYS_HELPER_THREAD "rocsys-modmap"

enum rocsys_ring_state {
    ROCSYS_RING_FREE = 0,     /* no owner; a producer may claim it with CAS */
    ROCSYS_RING_OWNED = 1,    /* a live thread writes to it */
    ROCSYS_RING_RELEASED = 2, /* the owner is done; the consumer drains it, then frees it */
};

/* Causal profiling (--causal, version 8): the front end runs one experiment at a time in
 * process pid: while it runs, a sample whose pc lies in one of the nranges [lo, hi) ranges (or,
 * version 11, whose innermost Python frame's ROCSYS_PY_AT_KEY does: python) adds
 * speedup_pct % of the time it stands for to the thread's own delay count, global_delay_ns is
 * the largest count, and every thread sleeps, at its next sample or before it wakes another
 * thread, until its own count reaches the global one (Coz's virtual speedup). The front end writes
 * the experiment under seq (odd while it writes); the collector counts the progress points. */
#define ROCSYS_CAUSAL_RANGES 4
enum {
    ROCSYS_CAUSAL_PP_MARK = 0,   /* rocsys_user_mark, roctxMarkA, rocsys.mark */
    ROCSYS_CAUSAL_PP_REGION = 1, /* a region's end, a ROCTx range's stop */
    ROCSYS_CAUSAL_PP_FUNC = 2,   /* calls of the --progress function (a breakpoint) */
    ROCSYS_CAUSAL_PP_BEGIN = 3,  /* rocsys_user_begin: a latency point's arrivals (version 9) */
    ROCSYS_CAUSAL_PP_END = 4,    /* rocsys_user_end: its departures (version 9) */
    ROCSYS_CAUSAL_PP_KERNEL = 5, /* completions of the --progress kernel:NAME (version 10) */
    ROCSYS_CAUSAL_PP_COUNT = 6,
};
#define ROCSYS_CAUSAL_KERNELS 8 /* kernel objects of the --progress kernel (version 10) */
struct rocsys_causal_ctl {
    uint32_t enabled;               /* front end, before the launch: causal mode */
    uint32_t pid;                   /* front end: the process experiments run in */
    _Atomic uint64_t progress_addr; /* front end: where the --progress function starts, 0 */
    _Atomic uint32_t seq;           /* front end: odd while the experiment is written */
    uint32_t nranges;               /* 0: no experiment */
    uint64_t lo[ROCSYS_CAUSAL_RANGES], hi[ROCSYS_CAUSAL_RANGES];
    uint32_t speedup_pct;              /* virtual speedup, 0-100 */
    _Atomic int32_t progress_err;      /* collector: errno of the breakpoint (0: counting) */
    _Atomic uint64_t global_delay_ns;  /* collector: delays every thread owes, summed */
    _Atomic uint64_t selected_samples; /* collector: samples in the ranges */
    _Atomic uint64_t paid_ns;          /* collector: delays the threads slept */
    _Atomic uint64_t progress[ROCSYS_CAUSAL_PP_COUNT]; /* collector: progress points */
    /* version 9, latency (Little's law): the time of every arrival and departure, summed
     * (CLOCK_MONOTONIC, modulo 2^64): the area under the count in flight up to time T is
     * end_sum_ns - begin_sum_ns + (arrivals - departures) x T; and what the inserted delays
     * cut from that area (the count in flight x each rise of global_delay_ns) */
    _Atomic uint64_t begin_sum_ns, end_sum_ns, skipped_area_ns;
    /* version 9, the program's own clock: while own_clock is 1 (front end: the process has one
     * thread of its own), the time the sampled thread waited for a CPU (its run delay, from
     * /proc/thread-self/schedstat, read at each sample) is left out of what its samples stand
     * for, and own_ns sums what they stand for: the program's elapsed time less those waits
     * (other programs' use of the CPUs is not the program's), measured at the samples, so that
     * a wait that straddles the front end's slice boundary is not split wrongly */
    _Atomic uint32_t own_clock;
    uint32_t pad9;
    _Atomic uint64_t own_ns;
    _Atomic uint64_t own_area_ns; /* the latency points' area on that clock: the count in
                                     flight x the thread's own time, summed at each begin, end
                                     and sample */
    /* version 10, --progress kernel:NAME: the kernel objects (HSA) the front end found named
     * NAME, kernel_object[0 .. nkernels) (each written before nkernels grows past it); the
     * collector counts each completed dispatch of one as ROCSYS_CAUSAL_PP_KERNEL */
    _Atomic uint32_t nkernels;
    /* version 11, an experiment on Python code (front end, under seq): 1 when lo/hi are not
     * addresses but ROCSYS_PY_AT_KEY values: a sample is in the code when its innermost Python
     * frame's key lies in a range (a function: [ROCSYS_PY_AT_KEY of its code id and
     * instruction 0, that of the next code id), which holds the C it calls, as a Python profile
     * shows it; a line: its instructions); 0: pc ranges */
    uint32_t python;
    uint64_t kernel_object[ROCSYS_CAUSAL_KERNELS];
};

struct rocsys_shm_header {
    uint32_t magic;
    uint32_t version;
    uint32_t ring_count;
    uint32_t ring_bytes;               /* size of each data area, a power of two */
    uint64_t rings_offset;             /* byte offset of the rocsys_ring_ctl array */
    uint64_t data_offset;              /* byte offset of ring 0's data area */
    _Atomic uint32_t next_instance;    /* collector instances (process images) handed out */
    _Atomic uint32_t collectors_alive; /* instances started minus instances that said goodbye */
    _Atomic uint64_t dropped_no_ring;  /* samples and records lost: every ring was taken */
    _Atomic uint64_t threads_no_ring;  /* threads that lost samples or records that way (never
                                          got a ring, or got one only later) */
    _Atomic uint32_t doorbell;         /* futex word: bumped when a ring passes half full */
    _Atomic uint32_t doorbell_waiting; /* 1 while the front end sleeps on doorbell */
    _Atomic uint32_t drain_seq;        /* futex word: bumped after every drain pass */
    _Atomic uint32_t space_waiters;    /* producers waiting for room right now */
    _Atomic uint32_t stalled_seq;      /* drain_seq + 1 when a wait for room timed out (0: none) */
    _Atomic uint32_t consumer_gone;    /* 1: the front end drains no more: never wait */
    uint32_t gpu_ring_count;          /* rings for GPU records, after the ring_count thread rings */
    uint32_t gpu_ring_bytes;          /* size of each of their data areas, a power of two */
    _Atomic uint64_t records_no_ring; /* of dropped_no_ring, records (events), not samples */
    uint64_t reserved[3];
    struct rocsys_causal_ctl causal; /* --causal (version 8) */
};

/* Control block of one ring: producer and consumer cursors on separate cache lines. */
struct rocsys_ring_ctl {
    _Atomic uint32_t state; /* enum rocsys_ring_state */
    uint32_t pid;
    uint32_t tid;
    uint32_t instance;                /* collector instance that owns the ring */
    _Atomic uint64_t dropped_samples; /* samples that did not fit */
    _Atomic uint64_t dropped_records; /* other records that did not fit */
    _Atomic uint64_t sample_cost_ns;  /* handler CPU time of the measured samples, summed */
    _Atomic uint64_t cost_measured;   /* samples whose handler CPU time was measured */
    _Atomic uint64_t waits;           /* times the owner waited for the consumer to make room */
    _Atomic uint64_t waited_ns;       /* time it waited, summed */
    _Atomic uint64_t head; /* bytes ever written (producer); offset = head % ring_bytes */
    uint8_t pad1[56];
    _Atomic uint64_t tail; /* bytes ever consumed (consumer) */
    uint8_t pad2[56];
};

struct rocsys_rec_header {
    uint16_t type;  /* enum rocsys_rec_type */
    uint16_t flags; /* per type */
    uint32_t size;  /* bytes including this header, a multiple of 8 */
};

enum rocsys_rec_type {
    ROCSYS_REC_PAD = 0x0000,          /* filler up to the end of the data area */
    ROCSYS_REC_PROC_START = 0x0001,   /* struct rocsys_rec_proc_start */
    ROCSYS_REC_PROC_EXIT = 0x0002,    /* struct rocsys_rec_proc_exit */
    ROCSYS_REC_PROC_EXEC = 0x0003,    /* struct rocsys_rec_proc_exec */
    ROCSYS_REC_THREAD_START = 0x0010, /* struct rocsys_rec_thread */
    ROCSYS_REC_THREAD_NAME = 0x0011,  /* struct rocsys_rec_thread */
    ROCSYS_REC_THREAD_EXIT = 0x0012,  /* struct rocsys_rec_thread */
    ROCSYS_REC_MODULE = 0x0020,       /* struct rocsys_rec_module */
    ROCSYS_REC_SAMPLE = 0x0030,       /* struct rocsys_rec_sample */
    ROCSYS_REC_HIP_NAME = 0x0040,     /* struct rocsys_rec_name: HIP kernel name id -> name */
    ROCSYS_REC_HIP_API = 0x0041,      /* struct rocsys_rec_hip_api */
    ROCSYS_REC_LAUNCH_STACK = 0x0042, /* struct rocsys_rec_launch_stack */
    ROCSYS_REC_GPU_WAIT = 0x0043,     /* struct rocsys_rec_gpu_wait: any wait leaf's begin */
    ROCSYS_REC_HSA_SYMBOL = 0x0060,   /* struct rocsys_rec_name: kernel object -> name */
    ROCSYS_REC_HSA_DISPATCH = 0x0061, /* struct rocsys_rec_hsa_dispatch */
    ROCSYS_REC_HSA_COPY = 0x0062,     /* struct rocsys_rec_hsa_copy */
    ROCSYS_REC_HSA_TABLE = 0x0063,    /* struct rocsys_rec_hsa_table */
    ROCSYS_REC_REGION_NAME = 0x0080,  /* struct rocsys_rec_region_name */
    ROCSYS_REC_REGION_BEGIN = 0x0081, /* struct rocsys_rec_region */
    ROCSYS_REC_REGION_END = 0x0082,   /* struct rocsys_rec_region */
    ROCSYS_REC_REGION_MARK = 0x0083,  /* struct rocsys_rec_region (depth unused) */
    ROCSYS_REC_REGION_ERROR = 0x0084, /* struct rocsys_rec_region: flags = ROCSYS_REGION_ERR_* */
    ROCSYS_REC_REGION_RANGE = 0x0085, /* struct rocsys_rec_region_range */
    ROCSYS_REC_SAMPLING = 0x0086,     /* struct rocsys_rec_region: flags = ROCSYS_SAMPLING_* */
    ROCSYS_REC_PY_INFO = 0x00a0,      /* struct rocsys_rec_py_info */
    ROCSYS_REC_PY_CODE = 0x00a1,      /* struct rocsys_rec_py_code */
    ROCSYS_REC_MPI_CALL = 0x00c0,     /* struct rocsys_rec_mpi_call */
    ROCSYS_REC_OMP_PARALLEL = 0x00d0, /* struct rocsys_rec_omp_parallel */
    ROCSYS_REC_WAIT_END = 0x00e0,     /* struct rocsys_rec_wait_end (version 9) */
};

/* PROC_START: a collector instance began in a process image (after exec or fork). */
struct rocsys_rec_proc_start {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t ppid;
    uint32_t instance;
    uint32_t flags;       /* ROCSYS_PROC_* */
    uint64_t time_ns;     /* CLOCK_MONOTONIC */
    uint32_t exe_len;     /* bytes of exe path following, no NUL */
    uint32_t cmdline_len; /* bytes of NUL-separated argv following the path */
    /* char exe[exe_len]; char cmdline[cmdline_len]; padding to 8 */
};
#define ROCSYS_PROC_FORKED 1u /* started by fork() of a profiled process, not by exec */

/* PROC_EXIT: the process image is going away (exit() or exec()). */
struct rocsys_rec_proc_exit {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t instance;
    uint64_t time_ns;
};

/* PROC_EXEC: a process is about to run a program that the collector will not be in (exec of
 * the calling process, or a child started by posix_spawn or in a vfork child), and why; or,
 * with reason 0, that such an exec failed and the process goes on with the collector. */
struct rocsys_rec_proc_exec {
    struct rocsys_rec_header h;
    uint32_t pid;      /* the process that runs the program */
    uint32_t ppid;     /* its parent */
    uint32_t reason;   /* enum rocsys_progcheck (collector/progcheck.h); 0: exec failed */
    uint32_t path_len; /* bytes of the program's path following, no NUL */
    uint64_t time_ns;  /* CLOCK_MONOTONIC */
    uint32_t argv_len; /* bytes of NUL-separated argv following the path */
    uint32_t pad;
    /* char path[path_len]; char argv[argv_len]; padding to 8 */
};

/* THREAD_START / THREAD_NAME / THREAD_EXIT. */
struct rocsys_rec_thread {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t tid;
    uint64_t time_ns;
    char name[ROCSYS_THREAD_NAME];
};

/* MODULE: one loaded ELF object. Addresses are absolute in the process. */
struct rocsys_rec_module {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t generation; /* module-map generation this belongs to */
    uint64_t load_bias;  /* dlpi_addr: file vaddr + load_bias = address */
    uint64_t start;      /* lowest PT_LOAD address */
    uint64_t end;        /* one past the highest PT_LOAD address */
    uint8_t build_id_len;
    uint8_t build_id[ROCSYS_MAX_BUILD_ID];
    uint8_t pad[3];
    uint32_t path_len; /* bytes of path following, no NUL */
    /* char path[path_len]; padding to 8 */
};

/* SAMPLE: one call stack of the ring's owner thread. frames[0] is the interrupted pc, the
 * rest are return addresses (callers), innermost first. */
struct rocsys_rec_sample {
    struct rocsys_rec_header h; /* flags: ROCSYS_SAMPLE_* */
    uint16_t nframes;
    uint16_t weight;  /* timer periods this sample stands for (1 + the timer's overrun): CPU-time
                         timers fire at most once per kernel tick, so at rates above CONFIG_HZ
                         one signal covers several periods */
    uint32_t cost_ns; /* time the handler spent on this sample (unwinding and region frames,
                         on CLOCK_MONOTONIC); 0 = not measured (one sample in
                         COLLECTOR_COST_STRIDE is) */
    uint64_t time_ns; /* CLOCK_MONOTONIC */
    uint64_t frames[];
};
#define ROCSYS_SAMPLE_WALL      1u /* taken on the wall-clock timer */
#define ROCSYS_SAMPLE_TRUNCATED 2u /* the stack was deeper than ROCSYS_MAX_FRAMES */
#define ROCSYS_SAMPLE_TICK                                                                         \
    4u                          /* taken by a POSIX CPU-time timer (kernel-tick resolution)        \
                                   instead of a perf event */
#define ROCSYS_SAMPLE_CYCLES 8u /* taken by the cycles perf event (else task-clock) */
/* the perf event counts user time only: kernel samples are refused (perf_event_paranoid >= 2),
 * so time in system calls is not sampled */
#define ROCSYS_SAMPLE_USER_ONLY 512u
/* the outermost frames are user regions open on the thread: ROCSYS_REGION_FRAME(id), the
 * innermost region first (so that every region is a node of the call tree, above the code) */
#define ROCSYS_SAMPLE_REGIONS 16u
/* the thread runs CPython: after the native frames (and before any region frames) come its
 * Python frames, ROCSYS_PY_FRAME(...), innermost first */
#define ROCSYS_SAMPLE_PYTHON   32u
#define ROCSYS_SAMPLE_GIL      64u  /* the thread held the GIL when sampled */
#define ROCSYS_SAMPLE_PYTSTATE 128u /* the thread has a Python thread state (runs Python) */
#define ROCSYS_SAMPLE_PY_DROPPED                                                                   \
    256u /* the Python frame chain could not be read safely past some frame (torn or unreadable):  \
            the frames after it are one ROCSYS_PY_CODE_UNREADABLE frame */

/* User regions (push/pop of a named region, marks, start/stop ranges) of rocsys-top's user API,
 * ROCTx and ROCm Systems Profiler's user API. Names are interned per process: a region id is
 * announced by REGION_NAME in a thread's ring before that thread first uses it. */
#define ROCSYS_REGION_NAME_MAX  127 /* bytes of a name, longer names are cut (UTF-8 aware) */
#define ROCSYS_REGION_DEPTH_MAX 64  /* open regions per thread; deeper pushes are counted only */
/* A pseudo-frame for region id in a sample: a kernel-half address no user pc can have. */
#define ROCSYS_REGION_FRAME_TAG   0xffff000000000000ull
#define ROCSYS_REGION_FRAME(id)   (ROCSYS_REGION_FRAME_TAG | (uint64_t)(uint32_t)(id))
#define ROCSYS_IS_REGION_FRAME(a) (((a)&0xffffffff00000000ull) == ROCSYS_REGION_FRAME_TAG)

/* REGION_NAME: id (per process) -> name. */
struct rocsys_rec_region_name {
    struct rocsys_rec_header h;
    uint32_t id;       /* 1.. (0 is never used) */
    uint32_t name_len; /* bytes following, no NUL, <= ROCSYS_REGION_NAME_MAX */
    /* char name[name_len]; padding to 8 */
};

/* REGION_BEGIN / REGION_END / REGION_MARK / REGION_ERROR / SAMPLING, of the ring's thread. */
struct rocsys_rec_region {
    struct rocsys_rec_header h; /* flags: per type */
    uint32_t id;                /* region name id (0: none, e.g. ERROR, SAMPLING) */
    uint16_t depth;             /* BEGIN/END: nesting level, 0 = outermost */
    uint16_t source;            /* ROCSYS_REGION_SRC_*: which API the call came through */
    uint64_t time_ns;           /* CLOCK_MONOTONIC */
};
#define ROCSYS_REGION_SRC_ROCSYS     0 /* rocsys_user_* */
#define ROCSYS_REGION_SRC_ROCTX      1 /* roctx* */
#define ROCSYS_REGION_SRC_ROCPROFSYS 2 /* rocprofsys_user_* */
#define ROCSYS_REGION_SRC_OMPT       3 /* an OpenMP parallel region (OMPT, collector/ompt.c) */
#define ROCSYS_REGION_SRC_KOKKOS     4 /* a Kokkos kernel, fence, copy or region (kokkos.c) */
#define ROCSYS_REGION_ERR_UNBALANCED 1 /* a pop with no open region */
#define ROCSYS_REGION_ERR_TOO_DEEP   2 /* a push deeper than ROCSYS_REGION_DEPTH_MAX */
#define ROCSYS_REGION_ERR_NAMES_FULL 3 /* the name table is full: the push is counted only */
#define ROCSYS_REGION_ERR_RANGES     4 /* a start/stop range with no free slot or unknown id */
#define ROCSYS_SAMPLING_OFF          0 /* the program stopped sampling (process-wide) */
#define ROCSYS_SAMPLING_ON           1 /* ... and started it again */
#define ROCSYS_SAMPLING_THREAD       2 /* or-ed in: this thread only */

/* REGION_RANGE: a completed start/stop range (may start and stop on different threads); in
 * the ring of the thread that stopped it. */
struct rocsys_rec_region_range {
    struct rocsys_rec_header h;
    uint32_t id;        /* region name id */
    uint32_t start_tid; /* thread that started it */
    uint64_t begin_ns;
    uint64_t end_ns;
};

/* ---- OpenMP and Kokkos (0x00d0-0x00df) ----
 * An OpenMP parallel region is a user region (REGION_BEGIN/END, source ROCSYS_REGION_SRC_OMPT)
 * named "omp parallel @PID:0xADDR": ADDR is the region's codeptr_ra (the return address of the
 * runtime call that forks the team, in the function the construct is written in), which the
 * front end symbolizes into "omp parallel FUNCTION (FILE:LINE)". The encountering thread's
 * instance spans the whole region (parallel begin to end); each other thread's, its implicit
 * task up to its arrival at the region's closing barrier. A Kokkos kernel, fence, deep copy or
 * profiling region is a user region of source ROCSYS_REGION_SRC_KOKKOS. */
#define ROCSYS_OMP_NAME_PREFIX "omp parallel @"

/* OMP_PARALLEL: one parallel region instance ended; in the encountering thread's ring. Per
 * thread of the team: work = its time in the region minus its waits (barriers, task waits). */
struct rocsys_rec_omp_parallel {
    struct rocsys_rec_header h;
    uint32_t id;          /* the region's name id (REGION_NAME) */
    uint32_t nthreads;    /* threads of the team that reported */
    uint64_t begin_ns;    /* parallel begin, CLOCK_MONOTONIC */
    uint64_t end_ns;      /* parallel end */
    uint64_t work_max_ns; /* the longest work of a thread */
    uint64_t work_sum_ns; /* the threads' work, summed */
    uint64_t barrier_ns;  /* time in barriers (implicit, explicit), summed over the threads */
    uint64_t taskwait_ns; /* time in taskwait / taskgroup waits, summed */
};

/* ---- Python (0x00a0-0x00af) ----
 * A CPython frame in a sample is one pseudo-frame: the code object's id (per process, announced
 * by PY_CODE in some ring of the process, maybe after the sample that first uses it) and the
 * instruction being executed, in code units. Every evaluation call (a native frame of
 * _PyEval_EvalFrameDefault, named or not) runs one group of Python frames: ENTRY marks the
 * outermost frame of each group, maybe followed by a PY_AT word naming that native frame. */
#define ROCSYS_MAX_PY_FRAMES   512 /* words of Python frames a sample carries, innermost first */
#define ROCSYS_PY_FRAME_TAG    0xfffe000000000000ull
#define ROCSYS_PY_FRAME_ENTRY  (1ull << 47)
#define ROCSYS_PY_CODE_BITS    23
#define ROCSYS_PY_CODE_UNKNOWN 0u        /* the code object could not be announced (table full) */
#define ROCSYS_PY_CODE_NONE    0x7fffffu /* an empty group: the eval call's frames are hidden */
#define ROCSYS_PY_CODE_UNREADABLE                                                                  \
    0x7ffffeu /* the rest of the chain (outer frames) could not be read safely */
#define ROCSYS_PY_LASTI_UNKNOWN 0xffffffu /* not started yet: the definition line */
#define ROCSYS_PY_FRAME(code_id, lasti, entry)                                                     \
    (ROCSYS_PY_FRAME_TAG | ((entry) ? ROCSYS_PY_FRAME_ENTRY : 0) |                                 \
     ((uint64_t)((code_id)&0x7fffffu) << 24) | (uint64_t)((lasti)&0xffffffu))
#define ROCSYS_IS_PY_FRAME(a) (((a)&0xffff000000000000ull) == ROCSYS_PY_FRAME_TAG)
/* After a Python frame: that same frame REPEAT_COUNT more times (recursion, run-length coded) */
#define ROCSYS_PY_REPEAT_TAG      0xfffd000000000000ull
#define ROCSYS_PY_REPEAT(k)       (ROCSYS_PY_REPEAT_TAG | (uint64_t)(uint32_t)(k))
#define ROCSYS_IS_PY_REPEAT(a)    (((a)&0xffff000000000000ull) == ROCSYS_PY_REPEAT_TAG)
#define ROCSYS_PY_REPEAT_COUNT(a) ((uint32_t)((a)&0xffffffffu))
#define ROCSYS_MAX_PY_DEPTH       4096 /* Python frames walked at most (py-spy's cap too) */
#define ROCSYS_PY_FRAME_CODE(a)   ((uint32_t)(((a) >> 24) & 0x7fffffu))
#define ROCSYS_PY_FRAME_LASTI(a)  ((uint32_t)((a)&0xffffffu))
/* A Python frame's code id and instruction as one number, code id x 2^24 + instruction: the
 * instructions of one code object are one range of these (--causal, version 11) */
#define ROCSYS_PY_AT_KEY(a) ((a) & ((1ull << 47) - 1))
/* After a group's ENTRY frame (protocol 7): the native frame that runs the group, as an index
 * into the sample's native frames (0 = innermost), found by stack address: the evaluation call
 * whose stack range [its SP, its caller's SP) holds the group's entry frame (3.12+: the
 * interpreter's entry/shim frame is on the C stack). Without it (3.8-3.11, launch stacks, no
 * match) the front end places groups by the name _PyEval_EvalFrameDefault. */
#define ROCSYS_PY_AT_TAG       0xfffa000000000000ull
#define ROCSYS_PY_AT(index)    (ROCSYS_PY_AT_TAG | (uint64_t)(uint32_t)(index))
#define ROCSYS_IS_PY_AT(a)     (((a)&0xffff000000000000ull) == ROCSYS_PY_AT_TAG)
#define ROCSYS_PY_AT_NATIVE(a) ((uint32_t)((a)&0xffffffffu))
#define ROCSYS_PY_AT_UNKNOWN   0xffffffffu /* no native frame was found: placed by name */
/* any word of the Python part of a sample */
#define ROCSYS_IS_PY_WORD(a) (ROCSYS_IS_PY_FRAME(a) || ROCSYS_IS_PY_REPEAT(a) || ROCSYS_IS_PY_AT(a))

/* PY_INFO: what the collector made of the CPython in the process (once per process image). */
struct rocsys_rec_py_info {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t status;      /* ROCSYS_PY_* */
    uint32_t version_hex; /* PY_VERSION_HEX of the interpreter (0 if unknown) */
    uint32_t pad;
};
#define ROCSYS_PY_OK          0 /* Python frames are read */
#define ROCSYS_PY_UNSUPPORTED 1 /* a version whose layout the collector does not know */
#define ROCSYS_PY_FREE_THREAD 2 /* a free-threaded (no GIL) build: not supported */
#define ROCSYS_PY_MISMATCH    3 /* the layout failed a check against the running interpreter */
#define ROCSYS_PY_GUARD_LOST                                                                       \
    4 /* frames were read, then stopped: the program replaced the fault guard by a raw syscall */

/* PY_CODE: a code object of the process: id -> qualified name, file, first line, line table. The
 * strings are CPython's raw storage: kind 1 (ASCII / Latin-1), 2 (UCS-2) or 4 (UCS-4) bytes per
 * character, little-endian; name_len and file_len count bytes. */
struct rocsys_rec_py_code {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t id;
    int32_t first_line;
    uint8_t name_kind, file_kind;
    uint8_t table_kind; /* ROCSYS_PY_TABLE_* */
    uint8_t flags;      /* ROCSYS_PY_CODE_CUT_*: parts that were cut */
    uint32_t name_len, file_len, table_len;
    uint32_t pad;
    /* name bytes, file bytes, line table bytes; padding to 8 */
};
#define ROCSYS_PY_TABLE_LNOTAB    0     /* 3.8-3.9 co_lnotab: address in bytes */
#define ROCSYS_PY_TABLE_LINETABLE 1     /* 3.10 co_linetable (PEP 626): address in bytes */
#define ROCSYS_PY_TABLE_LOCATIONS 2     /* 3.11+ location table: address in code units x 2 */
#define ROCSYS_PY_NAME_MAX        1024  /* bytes of name or file kept */
#define ROCSYS_PY_TABLE_MAX       16384 /* bytes of line table kept (later lines: unknown) */
#define ROCSYS_PY_CODE_CUT_TABLE  1u

/* ---- HIP API (0x0040-0x005f) and HSA dispatches (0x0060-0x007f) ---- */

#include "protocol_hip.h"      /* ROCSYS_HIP_API_LIST(X): X(id, name, launch) */
#define ROCSYS_HIP_API_MAX 512 /* ids are below this */

/* Whether a HIP call waits for the device: the calling thread blocks until work queued on the
 * GPU is done (synchronizations, blocking copies and sets). Samples of a thread inside one are
 * "[gpu wait] NAME" leaves (ROCSYS_GPU_WAIT_FRAME) under the code that made the call. */
static inline int rocsys_hip_api_waits(int api)
{
    switch (api) {
    case 15:  /* hipMemcpy */
    case 17:  /* hipMemcpyHtoD */
    case 18:  /* hipMemcpyDtoH */
    case 19:  /* hipMemcpyDtoD */
    case 23:  /* hipMemset */
    case 25:  /* hipDeviceSynchronize */
    case 26:  /* hipStreamSynchronize */
    case 27:  /* hipEventSynchronize */
    case 40:  /* hipMemcpyWithStream */
    case 41:  /* hipMemcpyPeer */
    case 43:  /* hipMemcpy2D */
    case 45:  /* hipMemcpyToSymbol */
    case 47:  /* hipMemcpyFromSymbol */
    case 49:  /* hipMemsetD8 */
    case 51:  /* hipMemsetD16 */
    case 53:  /* hipMemsetD32 */
    case 55:  /* hipMemset2D */
    case 62:  /* hipMemcpy_spt */
    case 64:  /* hipMemset_spt */
    case 67:  /* hipMemcpy3D */
    case 73:  /* hipMemcpyParam2D */
    case 80:  /* hipMemcpy2DToArray */
    case 82:  /* hipMemcpy2DFromArray */
    case 84:  /* hipMemcpyToArray */
    case 85:  /* hipMemcpyFromArray */
    case 86:  /* hipMemcpyAtoH */
    case 87:  /* hipMemcpyHtoA */
    case 91:  /* hipMemset3D */
    case 93:  /* hipMemcpy2D_spt */
    case 94:  /* hipMemcpy2DToArray_spt */
    case 95:  /* hipMemcpy2DFromArray_spt */
    case 96:  /* hipMemcpy3D_spt */
    case 97:  /* hipMemcpyToSymbol_spt */
    case 98:  /* hipMemcpyFromSymbol_spt */
    case 99:  /* hipMemset2D_spt */
    case 100: /* hipMemset3D_spt */
    case 101: /* hipStreamSynchronize_spt */
    case 127: /* hipMemcpyFromArray_spt */
    case 130: /* hipMemcpy2DArrayToArray */
    case 131: /* hipMemcpyAtoA */
    case 132: /* hipMemcpyAtoD */
    case 134: /* hipMemcpyDtoA */
    case 136: /* hipDrvMemcpy2DUnaligned */
    case 137: /* hipDrvMemcpy3D */
    case 381: /* hipCtxSynchronize */
        return 1;
    default:
        return 0;
    }
}

/* Wait leaves: a sample taken while its thread waits inside a call that the collector wraps
 * (a HIP call waiting for the device, an MPI call waiting for other ranks, ...) ends in one
 * pseudo-frame "[KIND wait] CALL" that replaces the frames of the runtime and of the wrapper,
 * under the code that made the call: waiting is told apart from computing. The frame carries
 * the kind (bits 32-47) and the call's id in its kind's table (bits 0-31); kind 0 is the GPU's
 * (the frames recordings made before the kinds came). Both engines make them: the in-target
 * sampler reads the thread's collector_tls.wait_frame; the perf engine pairs its samples by
 * time with the GPU_WAIT record (the wait's begin, with its kind) and the call's own record
 * (its end). A new kind: a row here; its wrappers call collector_wait_begin(kind, id, t0) and
 * collector_wait_end() around the call (collector.h; COLLECTOR_WAIT_WRAPPER marks the wrapper
 * whose frame is cut at, else the first of the collector's frames is); a label in
 * model/states.c (wait_label); the record that ends the wait in session/source_rings.c (with
 * the kind's check of GPU_WAIT there). A wait seen through callbacks has no wrapper frame: its
 * kind says where to cut (OpenMP's: at the innermost run of the OpenMP runtime's frames) and its
 * end comes in a WAIT_END record (no call's record ends it). */
enum rocsys_wait_kind {
    ROCSYS_WAIT_GPU = 0, /* HIP call waiting for the device: id of ROCSYS_HIP_API_LIST */
    ROCSYS_WAIT_MPI = 1, /* MPI call waiting for other ranks: id of ROCSYS_MPI_CALL_LIST */
    ROCSYS_WAIT_OMP = 2, /* OpenMP barrier or task wait: id = its ompt_sync_region_t (1..10) */
    ROCSYS_WAIT_KINDS
};
#define ROCSYS_OMP_WAIT_IDS   11 /* OMP wait ids are below this (ompt_sync_region_t, OpenMP 5.2) */
#define ROCSYS_WAIT_FRAME_TAG 0xfffb000000000000ull
#define ROCSYS_WAIT_FRAME(kind, id)                                                                \
    (ROCSYS_WAIT_FRAME_TAG | ((uint64_t)(uint16_t)(kind) << 32) | (uint64_t)(uint32_t)(id))
#define ROCSYS_IS_WAIT_FRAME(a)   (((a)&0xffff000000000000ull) == ROCSYS_WAIT_FRAME_TAG)
#define ROCSYS_WAIT_FRAME_KIND(a) ((int)(((a) >> 32) & 0xffffu))
#define ROCSYS_WAIT_FRAME_ID(a)   ((int)((a)&0xffffffffu))
/* The GPU's wait leaf of HIP call api (rocsys_hip_api_waits). */
#define ROCSYS_GPU_WAIT_FRAME(api) ROCSYS_WAIT_FRAME(ROCSYS_WAIT_GPU, api)

/* A sample's n native frames (innermost first) taken inside a wrapped call that waits, frame k
 * being the collector's wrapper (k = n: not found): frames 0..k become the one wait frame
 * (ROCSYS_WAIT_FRAME), as both engines make them. Returns the new count. AS-safe. */
static inline uint32_t rocsys_wait_cut(uint64_t *frames, uint32_t n, uint32_t k, uint64_t frame)
{
    if (k >= n) /* no wrapper frame found: the stack stays as it is */
        return n;
    frames[0] = frame;
    for (uint32_t i = k + 1; i < n; i++)
        frames[i - k] = frames[i];
    return n - k;
}

/* The innermost Python frame of a sample's n frames (innermost first): its index, n when it
 * has none (an empty group's placeholder, ROCSYS_PY_CODE_NONE, is not a frame). Its code id is
 * known unless it is ROCSYS_PY_CODE_UNKNOWN or ROCSYS_PY_CODE_UNREADABLE (rocsys_py_code_known).
 * Both ends use it: --causal's experiments on Python code. AS-safe. */
static inline uint32_t rocsys_py_innermost(const uint64_t *frames, uint32_t n)
{
    uint32_t i = 0;
    while (i < n && (!ROCSYS_IS_PY_FRAME(frames[i]) ||
                     ROCSYS_PY_FRAME_CODE(frames[i]) == ROCSYS_PY_CODE_NONE))
        i++;
    return i;
}
static inline int rocsys_py_code_known(uint64_t frame)
{
    uint32_t id = ROCSYS_PY_FRAME_CODE(frame);
    return id != ROCSYS_PY_CODE_UNKNOWN && id != ROCSYS_PY_CODE_UNREADABLE;
}

/* Whether a launch's grid and block are known (hipLaunchByPtr's stay in the runtime: all 0). */
static inline int rocsys_launch_dims_known(const uint32_t grid[3], const uint32_t block[3])
{
    return (grid[0] | grid[1] | grid[2] | block[0] | block[1] | block[2]) != 0;
}

/* The launch column of ROCSYS_HIP_API_LIST for an id (0 for an unknown id). */
static inline int rocsys_hip_api_launch(int api)
{
    switch (api) {
#define ROCSYS_HIP_API_LAUNCH(id, name, launch)                                                    \
    case id:                                                                                       \
        return launch;
        ROCSYS_HIP_API_LIST(ROCSYS_HIP_API_LAUNCH)
#undef ROCSYS_HIP_API_LAUNCH
    default:
        return 0;
    }
}

/* HIP_NAME: a kernel name id of the process (from __hipRegisterFunction or hipModuleGetFunction),
 * announced once before the first HIP_API record using it. HSA_SYMBOL: a kernel object of the
 * process (from hsa_executable_freeze) -> its symbol name, ".kd" already stripped. */
struct rocsys_rec_name {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t name_len; /* bytes following, no NUL */
    uint64_t key;      /* HIP_NAME: the name id; HSA_SYMBOL: the kernel object */
    /* char name[name_len]; padding to 8 */
};
#define ROCSYS_KERNEL_NAME_MAX 4000 /* longer names are cut */

/* HIP_API: one completed call of the ring's thread. */
struct rocsys_rec_hip_api {
    struct rocsys_rec_header h;
    uint16_t api; /* id of ROCSYS_HIP_API_LIST */
    uint16_t pad;
    int32_t result;       /* the hipError_t the application got (0 = hipSuccess) */
    uint64_t start_ns;    /* CLOCK_MONOTONIC */
    uint64_t end_ns;      /* CLOCK_MONOTONIC */
    uint64_t correlation; /* launches: per-process id, repeated in the HSA_DISPATCH it made */
    uint64_t stream;      /* launches, async copies: the hipStream_t (0 = null stream) */
    uint64_t bytes;       /* allocations, copies, memsets */
    uint32_t name_id;     /* launches: kernel name id (0 = unknown) */
    uint32_t copy_kind;   /* copies: hipMemcpyKind (0 HtoH, 1 HtoD, 2 DtoH, 3 DtoD, 4 default) */
    uint32_t grid[3];     /* launches: grid size in work-groups (blocks) */
    uint32_t block[3];    /* launches: work-group size in work-items (grid and block all 0:
                           * not known, hipLaunchByPtr's configuration is in the runtime) */
    uint32_t pad2;
    uint64_t stack; /* launches: key of the launching call stack (a LAUNCH_STACK record of this
                       thread's ring, sent before, carries it), 0 = not captured */
    uint64_t wait_cpu_ns; /* calls that wait for the device (rocsys_hip_api_waits): the CPU time
                             the thread burned inside (spinning); the rest it was blocked */
};

/* LAUNCH_STACK: the call stack a kernel launch was made from, sent once per thread the first
 * time the stack is seen (a thread's launches from the same place repeat only its key). Frames
 * as a sample's (innermost first, Python frames and user regions after the native ones, flags
 * ROCSYS_SAMPLE_PYTHON / _REGIONS / _TRUNCATED); frame 0 is the launch call's return address
 * minus one (inside the call instruction): every frame is a caller. */
struct rocsys_rec_launch_stack {
    struct rocsys_rec_header h; /* flags: ROCSYS_SAMPLE_* */
    uint32_t pid;
    uint32_t nframes;
    uint64_t key; /* never 0; unique within the process */
    uint64_t frames[];
};
/* GPU_WAIT: the calling thread begins to wait inside wrapped call api of wait kind kind
 * (enum rocsys_wait_kind; 0: for the device in HIP call api). Sent only when the front end
 * samples from outside (timer=none): its samples meanwhile become wait leaves by time; the
 * call's own record (HIP_API, MPI_CALL) ends the wait. */
struct rocsys_rec_gpu_wait {
    struct rocsys_rec_header h;
    uint32_t api;
    uint32_t kind;    /* enum rocsys_wait_kind (was padding before version 8: 0, the GPU's) */
    uint64_t time_ns; /* CLOCK_MONOTONIC */
};

/* WAIT_END (version 9): the wait leaf that thread tid of the ring's process began (GPU_WAIT)
 * ended at time_ns, for waits whose end no call's record says: OpenMP's (collector/ompt.c: the
 * waiting thread's sync-region-wait end; a worker's wait in a region's closing barrier ends
 * when the team joins, written by the encountering thread). Sent only with timer=none. */
struct rocsys_rec_wait_end {
    struct rocsys_rec_header h;
    uint32_t tid;  /* 0: the ring's thread */
    uint32_t kind; /* enum rocsys_wait_kind */
    uint64_t time_ns;
};

#define ROCSYS_LAUNCH_NATIVE_MAX 64  /* native frames of a launch stack, at most */
#define ROCSYS_LAUNCH_PY_MAX     128 /* words of Python frames of a launch stack, at most */

/* HSA_DISPATCH: one kernel dispatch timed by the GPU (from the ring of the thread that saw it
 * complete: ROCr's async-events thread). */
struct rocsys_rec_hsa_dispatch {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t agent;    /* GPU ordinal: agents numbered in the order their first queue came */
    uint64_t queue_id; /* hsa_queue_t.id */
    uint64_t kernel_object;
    uint64_t start_ns;    /* CLOCK_MONOTONIC (converted from the HSA system clock) */
    uint64_t end_ns;      /* CLOCK_MONOTONIC */
    uint64_t correlation; /* the HIP launch it came from (same thread, same call), or 0 */
    uint32_t submit_tid;  /* thread that submitted the packet */
    uint32_t grid[3];     /* grid size in work-items, from the AQL packet */
    uint16_t block[3];    /* work-group size in work-items */
    uint16_t pad;
};
#define ROCSYS_DISPATCH_BAD_TIME 1u /* flags: the runtime gave no valid timestamps */

/* HSA_COPY: one hsa_amd_memory_async_copy timed by the runtime. */
struct rocsys_rec_hsa_copy {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t submit_tid;
    uint64_t bytes;
    uint64_t start_ns; /* CLOCK_MONOTONIC */
    uint64_t end_ns;
    uint64_t src_agent; /* hsa_agent_t handles */
    uint64_t dst_agent;
};

/* HSA_TABLE: what OnLoad made of the HSA runtime's API table (once per OnLoad with a session):
 * the version fields of its root, core and AMD extension tables (major, step, size in bytes;
 * zeros for one not read), the known release whose layout it is read with, and why not. */
struct rocsys_rec_hsa_table {
    struct rocsys_rec_header h;
    uint32_t pid;
    uint32_t status;  /* ROCSYS_HSA_TABLE_* */
    uint32_t root[3]; /* major, step, bytes */
    uint32_t core[3]; /* major, step, bytes */
    uint32_t amd[3];  /* major, step, bytes */
    uint32_t pad;
    char release[16]; /* the layout used ("6.4.3"), NUL-terminated; "" when refused */
    char why[112];    /* refused or compatible: why, NUL-terminated */
};
#define ROCSYS_HSA_TABLE_EXACT      0 /* a known release's table: patched */
#define ROCSYS_HSA_TABLE_COMPATIBLE 1 /* a known release's majors, other sizes: patched */
#define ROCSYS_HSA_TABLE_UNKNOWN    2 /* majors no known release has: declined, untouched */
#define ROCSYS_HSA_TABLE_UNUSABLE   3 /* a table missing, too small or an entry empty: declined */

/* MPI calls, interposed through the profiling interface (collector/mpi.c): the collector
 * defines MPI_NAME and forwards to PMPI_NAME. X(id, name, waits): waits = 1 for the calls that
 * wait for other ranks (blocking receives, waits, probes, barriers, collectives, synchronous
 * sends): samples inside them are "[mpi wait] NAME" leaves (ROCSYS_WAIT_MPI). Ids are stable
 * (they are in recordings' names only, but the table is the protocol's). */
/* clang-format off */
#define ROCSYS_MPI_CALL_LIST(X) \
    X(1, MPI_Init, 0) X(2, MPI_Init_thread, 0) X(3, MPI_Finalize, 1) \
    X(4, MPI_Send, 0) X(5, MPI_Recv, 1) X(6, MPI_Isend, 0) X(7, MPI_Irecv, 0) \
    X(8, MPI_Wait, 1) X(9, MPI_Waitall, 1) X(10, MPI_Waitany, 1) X(11, MPI_Waitsome, 1) \
    X(12, MPI_Test, 0) X(13, MPI_Testall, 0) X(14, MPI_Barrier, 1) X(15, MPI_Bcast, 1) \
    X(16, MPI_Reduce, 1) X(17, MPI_Allreduce, 1) X(18, MPI_Gather, 1) X(19, MPI_Allgather, 1) \
    X(20, MPI_Scatter, 1) X(21, MPI_Alltoall, 1) X(22, MPI_Sendrecv, 1) X(23, MPI_Ssend, 1) \
    X(24, MPI_Probe, 1) X(25, MPI_Iprobe, 0) X(26, MPI_Reduce_scatter, 1) \
    X(27, MPI_Alltoallv, 1) X(28, MPI_Allgatherv, 1) X(29, MPI_Gatherv, 1) \
    X(30, MPI_Scatterv, 1) X(31, MPI_Scan, 1) X(32, MPI_Exscan, 1) X(33, MPI_Ibarrier, 0) \
    X(34, MPI_Ibcast, 0) X(35, MPI_Iallreduce, 0) X(36, MPI_Bsend, 0) X(37, MPI_Rsend, 0) \
    X(38, MPI_Sendrecv_replace, 1) X(39, MPI_Testany, 0) X(40, MPI_Testsome, 0) \
    X(41, MPI_Comm_split, 1) X(42, MPI_Comm_dup, 1) X(43, MPI_Reduce_scatter_block, 1) \
    X(44, MPI_Issend, 0) X(45, MPI_Ireduce, 0) X(46, MPI_Iallgather, 0) X(47, MPI_Ialltoall, 0)
/* clang-format on */
#define ROCSYS_MPI_CALL_MAX 64 /* ids are below this */

/* Whether MPI call id waits for other ranks (the waits column of ROCSYS_MPI_CALL_LIST). */
static inline int rocsys_mpi_call_waits(int id)
{
    switch (id) {
#define ROCSYS_MPI_CALL_WAITS(cid, name, waits)                                                    \
    case cid:                                                                                      \
        return waits;
        ROCSYS_MPI_CALL_LIST(ROCSYS_MPI_CALL_WAITS)
#undef ROCSYS_MPI_CALL_WAITS
    default:
        return 0;
    }
}

/* MPI_CALL: one completed MPI call of the ring's thread. */
struct rocsys_rec_mpi_call {
    struct rocsys_rec_header h; /* flags: 0 */
    uint16_t call;              /* id of ROCSYS_MPI_CALL_LIST */
    uint16_t pad;
    int32_t result;     /* what the program got (0 = MPI_SUCCESS) */
    uint64_t start_ns;  /* CLOCK_MONOTONIC */
    uint64_t end_ns;    /* CLOCK_MONOTONIC */
    uint64_t bytes;     /* the payload: count x the datatype's size (sends, receives, the
                           caller's buffer of collectives; v-variants and waits: 0) */
    int32_t peer;       /* point-to-point: the destination or source rank (-1: any or none) */
    uint32_t comm_size; /* the communicator's size (0: the call has none) */
    uint64_t stack;     /* key of the calling stack (a LAUNCH_STACK record of this thread's
                           ring, sent before, carries it), 0 = not captured */
};

/* Round a record size up to the 8-byte record alignment. */
static inline uint32_t rocsys_rec_align(uint32_t n)
{
    return (n + 7u) & ~7u;
}

#endif
