/* CPython layouts for the frame reader (x86-64, GIL builds): a table kept by hand for 3.8-3.12,
 * and for 3.13 and later the layout the interpreter publishes itself in _Py_DebugOffsets (the
 * first member of _PyRuntime), validated; and the pseudo-frame words both frame readers write.
 * Pure functions over bytes: used by the collector on the live interpreter, by the front end on
 * the executable's or libpython's file (to know before launch whether frames will be read) and
 * on the BPF walker's copies, and by the unit tests. */
#ifndef ROCSYS_PYTHON_LAYOUT_H
#define ROCSYS_PYTHON_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

enum { PY_LASTI_BYTES, PY_LASTI_UNITS, PY_LASTI_POINTER };

struct py_layout {
    int minor;
    int32_t tss;             /* _PyRuntime: the GIL-state Py_tss_t (_key @+4); -1: none (3.15+) */
    int32_t tstate_current;  /* _PyRuntime: gilstate.tstate_current (<= 3.11), else -1 */
    int32_t interp_gil;      /* 3.12+: interp->ceval.gil (a pointer), else -1 */
    int32_t rt_interp_head;  /* _PyRuntime.interpreters.head (the thread lists) */
    uint32_t interp_next;    /* interp->next */
    uint32_t interp_threads; /* interp->tstate_head (<= 3.10), ->threads.head */
    uint32_t ts_next;        /* tstate->next */
    uint32_t ts_interp;      /* tstate->interp */
    uint32_t ts_thread_id;   /* tstate->thread_id (pthread_self()) */
    uint32_t ts_frame;       /* tstate->frame (<= 3.10), ->cframe (3.11, 3.12), ->current_frame */
    int32_t cframe_current;  /* _PyCFrame.current_frame (3.11, 3.12), else -1 */
    int32_t cframe_previous; /* _PyCFrame.previous (3.11, 3.12), else -1 */
    uint32_t ts_root_cframe; /* 3.11, 3.12: tstate->root_cframe (an outermost eval's previous
                                cframe), else 0 */
    int32_t ts_datastack;    /* 3.11+: tstate->datastack_chunk, then datastack_top (the frames'
                                chunk and where its used part ends), else -1 */
    uint32_t fr_back;        /* f_back / previous */
    uint32_t fr_code;        /* f_code / f_executable (a tagged _PyStackRef from 3.14) */
    uint32_t fr_lasti;       /* f_lasti (int) / prev_instr / instr_ptr */
    int32_t fr_is_entry;     /* 3.11 is_entry (bool), else -1 */
    int32_t fr_owner;        /* 3.11+ owner (char), else -1 */
    uint32_t co_firstlineno; /* int */
    uint32_t co_filename;
    uint32_t co_name;      /* co_qualname (3.11+), co_name before */
    uint32_t co_table;     /* co_lnotab / co_linetable (bytes) */
    int32_t co_adaptive;   /* 3.11+ co_code_adaptive (inline code units), else -1 */
    int32_t co_firsttrace; /* 3.11+ _co_firsttraceable (int), else -1 */
    int lasti_kind;
    int table_kind;
    uint32_t str_ascii_size;   /* sizeof(PyASCIIObject) */
    uint32_t str_compact_size; /* sizeof(PyCompactUnicodeObject) */
    int32_t gil_last_holder;   /* 3.12+: struct _gil_runtime_state.last_holder, else -1 */
    int32_t gil_locked;        /* 3.12+: .locked (int), else -1 */
    int32_t fr_flags;          /* 3.11+: the 8-byte word holding is_entry / owner, else -1 */
    uint64_t code_mask;        /* and-ed with fr_code: clears _PyStackRef tag bits (3.14+) */
    int from_debug;            /* 1: taken from the interpreter's _Py_DebugOffsets */
};

/* Object layout shared by the GIL builds of 3.8 and later (checked against _Py_DebugOffsets
 * from 3.13): ob_type, ob_size, bytes data, str fields */
#define PY_OB_TYPE    8
#define PY_OB_SIZE    16
#define PY_BYTES_DATA 32
#define PY_STR_LENGTH 16
#define PY_STR_STATE  32

/* FRAME_OWNED_BY_GENERATOR; owners from 3 up are frames CPython never shows: the entry (shim)
 * frame each evaluation call pushes (FRAME_OWNED_BY_CSTACK 3.12-3.13, _INTERPRETER 3.14+) */
#define PY_OWNER_GENERATOR 1
#define PY_OWNER_SHIM      3

/* The newest minor version whose layout was checked on a real interpreter. */
#define PY_LAYOUT_NEWEST_CHECKED 15

/* Why a layout cannot be had (py_layout_for's result). */
enum {
    PY_LAYOUT_OK = 0,
    PY_LAYOUT_UNSUPPORTED, /* not 3.8 or later */
    PY_LAYOUT_FREE_THREAD, /* a free-threaded build */
    PY_LAYOUT_BAD_OFFSETS, /* 3.13+: no cookie, another version, or offsets that fail a check */
};

/* The layout of CPython version_hex into *out, from the bytes of its _Py_DebugOffsets (dbg, len:
 * required from 3.13; NULL before). PY_LAYOUT_*; *why (may be NULL) says what failed. */
int py_layout_for(uint32_t version_hex, const uint8_t *dbg, size_t len, struct py_layout *out,
                  const char **why);

/* The bytes of _Py_DebugOffsets py_layout_for reads (the prefix of _PyRuntime to copy). */
#define PY_DEBUG_OFFSETS_MAX 1024

/* The pseudo-frame words (protocol.h's ROCSYS_PY_*) both readers write, the in-target one
 * (collector/python.c) and the one from outside (session/perf_python.c): out holds n words of
 * room. Append frame word f, run-length coding a frame equal to the one before: the new n. */
uint32_t py_put_frame(uint64_t *out, uint32_t n, uint32_t room, uint64_t f);
/* End an evaluation call's group of frames: mark the last frame written as its outermost
 * (had_frames), else write an empty group. The new n. */
uint32_t py_end_group(uint64_t *out, uint32_t n, uint32_t room, int had_frames);

#endif
