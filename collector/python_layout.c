/* CPython layouts: by hand for 3.8-3.12, from the interpreter's own _Py_DebugOffsets from 3.13
 * (see python_layout.h); the pseudo-frame words both readers write. Facts:
 * ../shared/notes/python-frames.md, each version's headers. */
#include "python_layout.h"

#include <string.h>

#include "protocol.h"

/* Offsets in bytes, x86-64, from each version's headers (../shared/notes/python-frames.md §8). */
static const struct py_layout py_known[] = {
    {.minor = 8,
     .tss = 1392,
     .tstate_current = 1368,
     .interp_gil = -1,
     .ts_interp = 16,
     .ts_thread_id = 176,
     .ts_frame = 24,
     .cframe_current = -1,
     .ts_datastack = -1,
     .cframe_previous = -1,
     .fr_back = 24,
     .fr_code = 32,
     .fr_lasti = 104,
     .fr_is_entry = -1,
     .fr_owner = -1,
     .co_firstlineno = 40,
     .co_filename = 104,
     .co_name = 112,
     .co_table = 120,
     .co_adaptive = -1,
     .co_firsttrace = -1,
     .lasti_kind = PY_LASTI_BYTES,
     .table_kind = ROCSYS_PY_TABLE_LNOTAB,
     .str_ascii_size = 48,
     .str_compact_size = 72,
     .gil_last_holder = -1,
     .gil_locked = -1,
     .fr_flags = -1,
     .rt_interp_head = 32,
     .interp_next = 0,
     .interp_threads = 8,
     .ts_next = 8,
     .code_mask = ~0ull},
    {.minor = 9,
     .tss = 584,
     .tstate_current = 568,
     .interp_gil = -1,
     .ts_interp = 16,
     .ts_thread_id = 176,
     .ts_frame = 24,
     .cframe_current = -1,
     .ts_datastack = -1,
     .cframe_previous = -1,
     .fr_back = 24,
     .fr_code = 32,
     .fr_lasti = 104,
     .fr_is_entry = -1,
     .fr_owner = -1,
     .co_firstlineno = 40,
     .co_filename = 104,
     .co_name = 112,
     .co_table = 120,
     .co_adaptive = -1,
     .co_firsttrace = -1,
     .lasti_kind = PY_LASTI_BYTES,
     .table_kind = ROCSYS_PY_TABLE_LNOTAB,
     .str_ascii_size = 48,
     .str_compact_size = 72,
     .gil_last_holder = -1,
     .gil_locked = -1,
     .fr_flags = -1,
     .rt_interp_head = 32,
     .interp_next = 0,
     .interp_threads = 8,
     .ts_next = 8,
     .code_mask = ~0ull},
    {.minor = 10,
     .tss = 584,
     .tstate_current = 568,
     .interp_gil = -1,
     .ts_interp = 16,
     .ts_thread_id = 176,
     .ts_frame = 24,
     .cframe_current = -1,
     .ts_datastack = -1,
     .cframe_previous = -1,
     .fr_back = 24,
     .fr_code = 32,
     .fr_lasti = 96,
     .fr_is_entry = -1,
     .fr_owner = -1,
     .co_firstlineno = 40,
     .co_filename = 104,
     .co_name = 112,
     .co_table = 120,
     .co_adaptive = -1,
     .co_firsttrace = -1,
     .lasti_kind = PY_LASTI_UNITS,
     .table_kind = ROCSYS_PY_TABLE_LINETABLE,
     .str_ascii_size = 48,
     .str_compact_size = 72,
     .gil_last_holder = -1,
     .gil_locked = -1,
     .fr_flags = -1,
     .rt_interp_head = 32,
     .interp_next = 0,
     .interp_threads = 8,
     .ts_next = 8,
     .code_mask = ~0ull},
    {.minor = 11,
     .tss = 592,
     .tstate_current = 576,
     .interp_gil = -1,
     .ts_interp = 16,
     .ts_thread_id = 152,
     .ts_frame = 56,
     .cframe_current = 8,
     .ts_datastack = 296,
     .cframe_previous = 16,
     .ts_root_cframe = 336,
     .fr_back = 48,
     .fr_code = 32,
     .fr_lasti = 56,
     .fr_is_entry = 68,
     .fr_owner = 69,
     .co_firstlineno = 72,
     .co_filename = 112,
     .co_name = 128,
     .co_table = 136,
     .co_adaptive = 184,
     .co_firsttrace = 168,
     .lasti_kind = PY_LASTI_POINTER,
     .table_kind = ROCSYS_PY_TABLE_LOCATIONS,
     .str_ascii_size = 48,
     .str_compact_size = 72,
     .gil_last_holder = -1,
     .gil_locked = -1,
     .fr_flags = 64,
     .rt_interp_head = 40,
     .interp_next = 0,
     .interp_threads = 16,
     .ts_next = 8,
     .code_mask = ~0ull},
    {.minor = 12,
     .tss = 1544,
     .tstate_current = -1,
     .interp_gil = 384,
     .ts_interp = 16,
     .ts_thread_id = 136,
     .ts_frame = 56,
     .cframe_current = 0,
     .ts_datastack = 232,
     .cframe_previous = 8,
     .ts_root_cframe = 272,
     .fr_back = 8,
     .fr_code = 0,
     .fr_lasti = 56,
     .fr_is_entry = -1,
     .fr_owner = 70,
     .co_firstlineno = 68,
     .co_filename = 112,
     .co_name = 128,
     .co_table = 136,
     .co_adaptive = 192,
     .co_firsttrace = 176,
     .lasti_kind = PY_LASTI_POINTER,
     .table_kind = ROCSYS_PY_TABLE_LOCATIONS,
     .str_ascii_size = 40,
     .str_compact_size = 56,
     .gil_last_holder = 8,
     .gil_locked = 16,
     .fr_flags = 64,
     .rt_interp_head = 40,
     .interp_next = 0,
     .interp_threads = 72,
     .ts_next = 8,
     .code_mask = ~0ull},
};

/* Where _Py_DebugOffsets keeps the fields the reader needs: byte positions in the struct of
 * each minor version (its declaration in Include/internal/pycore_debug_offsets.h). */
enum {
    D_RT_SIZE,
    D_RT_IHEAD,
    D_IS_SIZE,
    D_IS_NEXT,
    D_IS_THREADS,
    D_IS_CEVAL_GIL,
    D_IS_GIL,
    D_IS_GIL_LOCKED,
    D_IS_GIL_HOLDER,
    D_TS_SIZE,
    D_TS_NEXT,
    D_TS_INTERP,
    D_TS_FRAME,
    D_TS_THREAD_ID,
    D_FR_SIZE,
    D_FR_PREVIOUS,
    D_FR_EXECUTABLE,
    D_FR_INSTR,
    D_FR_OWNER,
    D_CO_SIZE,
    D_CO_FILENAME,
    D_CO_QUALNAME,
    D_CO_LINETABLE,
    D_CO_FIRSTLINENO,
    D_CO_ADAPTIVE,
    D_OB_SIZE,
    D_OB_TYPE,
    D_BY_SIZE,
    D_BY_OB_SIZE,
    D_BY_SVAL,
    D_UN_SIZE,
    D_UN_STATE,
    D_UN_LENGTH,
    D_UN_ASCII,
    D_TS_DATASTACK,
    D_FIELDS
};

struct py_debug_desc {
    int minor;
    uint16_t at[D_FIELDS];
    uint16_t size;      /* sizeof(_Py_DebugOffsets) */
    int32_t tss;        /* not published: _PyRuntime.autoTSSkey, -1 when there is none */
    uint64_t code_mask; /* not published: _PyStackRef's tag bits cleared */
};

/* clang-format off */
static const struct py_debug_desc py_descs[] = {
    {13, {24,40, 48,64,72,112,120,136,144, 152,168,176,184,192, 224,232,240,248,264,
          272,280,296,304,312,344, 352,360, 512,520,528, 536,544,552,560, 208}, 584, 2160, ~0ull},
    {14, {24,40, 48,64,72,120,128,144,152, 176,192,200,208,216, 248,256,264,272,288,
          312,320,336,344,352,384, 400,408, 592,600,608, 616,624,632,640, 232}, 760, 2336, ~1ull},
    {15, {24,40, 48,64,72,120,128,144,152, 176,192,200,208,240, 312,320,328,336,352,
          376,384,400,408,416,448, 464,472, 688,696,704, 712,720,728,736, 256}, 888, -1, ~3ull},
};
/* clang-format on */

/* Field f of the debug offsets d (as laid out by desc). */
static uint64_t dget(const uint8_t *d, const struct py_debug_desc *desc, int f)
{
    uint64_t v;
    memcpy(&v, d + desc->at[f], 8);
    return v;
}

/* Whether offset off and 8 bytes from it lie in a struct of size bytes. */
static int inside(uint64_t off, uint64_t size)
{
    return size >= 8 && off <= size - 8;
}

/* The layout from debug offsets d of minor version minor: 0, or -1 with *why. */
static int from_debug(int minor, const uint8_t *d, size_t len, struct py_layout *l,
                      const char **why)
{
    const struct py_debug_desc *desc = &py_descs[sizeof(py_descs) / sizeof(py_descs[0]) - 1];
    uint64_t v[D_FIELDS];

    for (size_t i = 0; i < sizeof(py_descs) / sizeof(py_descs[0]); i++)
        if (py_descs[i].minor == minor)
            desc = &py_descs[i];
    if (len < desc->size) {
        *why = "its debug offsets could not be read";
        return -1;
    }
    for (int f = 0; f < D_FIELDS; f++)
        v[f] = dget(d, desc, f);
    /* the fixed facts of every object header: wrong where fields moved inside the struct */
    if (v[D_OB_SIZE] != 16 || v[D_OB_TYPE] != PY_OB_TYPE || v[D_BY_OB_SIZE] != PY_OB_SIZE ||
        v[D_BY_SVAL] != PY_BYTES_DATA || v[D_UN_STATE] != PY_STR_STATE ||
        v[D_UN_LENGTH] != PY_STR_LENGTH || v[D_UN_ASCII] != 40) {
        *why = "its debug offsets are laid out differently";
        return -1;
    }
    if (v[D_RT_SIZE] > (1u << 24) || v[D_IS_SIZE] > (1u << 24) || v[D_TS_SIZE] > (1u << 16) ||
        v[D_FR_SIZE] < 48 || v[D_FR_SIZE] > 512 || v[D_CO_SIZE] < 128 || v[D_CO_SIZE] > 1024 ||
        !inside(v[D_RT_IHEAD], v[D_RT_SIZE]) || !inside(v[D_IS_NEXT], v[D_IS_SIZE]) ||
        !inside(v[D_IS_THREADS], v[D_IS_SIZE]) || !inside(v[D_IS_CEVAL_GIL], v[D_IS_SIZE]) ||
        !inside(v[D_IS_GIL_LOCKED], v[D_IS_SIZE]) || !inside(v[D_IS_GIL_HOLDER], v[D_IS_SIZE]) ||
        v[D_IS_GIL_LOCKED] < v[D_IS_GIL] || v[D_IS_GIL_LOCKED] - v[D_IS_GIL] > 256 ||
        v[D_IS_GIL_HOLDER] < v[D_IS_GIL] || v[D_IS_GIL_HOLDER] - v[D_IS_GIL] > 256 ||
        !inside(v[D_TS_NEXT], v[D_TS_SIZE]) || !inside(v[D_TS_INTERP], v[D_TS_SIZE]) ||
        !inside(v[D_TS_FRAME], v[D_TS_SIZE]) || !inside(v[D_TS_THREAD_ID], v[D_TS_SIZE]) ||
        !inside(v[D_TS_DATASTACK] + 8, v[D_TS_SIZE]) || !inside(v[D_FR_PREVIOUS], v[D_FR_SIZE]) ||
        !inside(v[D_FR_EXECUTABLE], v[D_FR_SIZE]) || !inside(v[D_FR_INSTR], v[D_FR_SIZE]) ||
        v[D_FR_OWNER] >= v[D_FR_SIZE] || !inside(v[D_CO_FILENAME], v[D_CO_SIZE]) ||
        !inside(v[D_CO_QUALNAME], v[D_CO_SIZE]) || !inside(v[D_CO_LINETABLE], v[D_CO_SIZE]) ||
        !inside(v[D_CO_FIRSTLINENO], v[D_CO_SIZE]) || v[D_CO_ADAPTIVE] < 32 ||
        v[D_CO_ADAPTIVE] >= v[D_CO_SIZE] || (v[D_CO_ADAPTIVE] & 7) ||
        ((v[D_TS_NEXT] | v[D_TS_INTERP] | v[D_TS_FRAME] | v[D_TS_THREAD_ID] | v[D_IS_NEXT] |
          v[D_IS_THREADS] | v[D_IS_CEVAL_GIL] | v[D_RT_IHEAD] | v[D_FR_PREVIOUS] |
          v[D_FR_EXECUTABLE] | v[D_FR_INSTR] | v[D_CO_FILENAME] | v[D_CO_QUALNAME] |
          v[D_TS_DATASTACK] | v[D_CO_LINETABLE]) &
         7)) {
        *why = "its debug offsets failed a check";
        return -1;
    }
    memset(l, 0, sizeof(*l));
    l->minor = minor;
    /* not published: the TSS key of the checked versions (none from 3.15: the thread list) */
    l->tss = minor == desc->minor ? desc->tss : -1;
    l->tstate_current = -1;
    l->interp_gil = (int32_t)v[D_IS_CEVAL_GIL];
    l->gil_locked = (int32_t)(v[D_IS_GIL_LOCKED] - v[D_IS_GIL]);
    l->gil_last_holder = (int32_t)(v[D_IS_GIL_HOLDER] - v[D_IS_GIL]);
    l->rt_interp_head = (int32_t)v[D_RT_IHEAD];
    l->interp_next = (uint32_t)v[D_IS_NEXT];
    l->interp_threads = (uint32_t)v[D_IS_THREADS];
    l->ts_next = (uint32_t)v[D_TS_NEXT];
    l->ts_interp = (uint32_t)v[D_TS_INTERP];
    l->ts_thread_id = (uint32_t)v[D_TS_THREAD_ID];
    l->ts_frame = (uint32_t)v[D_TS_FRAME];
    l->cframe_current = l->cframe_previous = -1;
    /* datastack_top is not published: it follows datastack_chunk (3.11-3.15) */
    l->ts_datastack = (int32_t)v[D_TS_DATASTACK];
    l->fr_back = (uint32_t)v[D_FR_PREVIOUS];
    l->fr_code = (uint32_t)v[D_FR_EXECUTABLE];
    l->fr_lasti = (uint32_t)v[D_FR_INSTR];
    l->fr_is_entry = -1;
    l->fr_owner = (int32_t)v[D_FR_OWNER];
    l->fr_flags = (int32_t)(v[D_FR_OWNER] & ~7ull);
    l->co_firstlineno = (uint32_t)v[D_CO_FIRSTLINENO];
    l->co_filename = (uint32_t)v[D_CO_FILENAME];
    l->co_name = (uint32_t)v[D_CO_QUALNAME];
    l->co_table = (uint32_t)v[D_CO_LINETABLE];
    l->co_adaptive = (int32_t)v[D_CO_ADAPTIVE];
    /* not published: _co_firsttraceable, then co_extra, then co_code_adaptive (3.11-3.15) */
    l->co_firsttrace = (int32_t)v[D_CO_ADAPTIVE] - 16;
    l->lasti_kind = PY_LASTI_POINTER;
    l->table_kind = ROCSYS_PY_TABLE_LOCATIONS;
    l->str_ascii_size = 40;
    l->str_compact_size = 56;
    /* any tag a later version puts in a pointer's low bits (objects are 8-byte aligned) */
    l->code_mask = minor == desc->minor ? desc->code_mask : ~7ull;
    l->from_debug = 1;
    return 0;
}

int py_layout_for(uint32_t version_hex, const uint8_t *dbg, size_t len, struct py_layout *out,
                  const char **why)
{
    int minor = (int)((version_hex >> 16) & 0xff);
    const char *dummy;
    uint64_t ver, ft;

    why = why ? why : &dummy;
    *why = "";
    if ((version_hex >> 24) != 3 || minor < 8) {
        *why = "supported: 3.8 and later";
        return PY_LAYOUT_UNSUPPORTED;
    }
    if (minor <= 12) {
        for (size_t i = 0; i < sizeof(py_known) / sizeof(py_known[0]); i++)
            if (py_known[i].minor == minor)
                *out = py_known[i];
        return PY_LAYOUT_OK;
    }
    if (!dbg || len < 24 || memcmp(dbg, "xdebugpy", 8) != 0) {
        *why = "no debug offsets in _PyRuntime";
        return PY_LAYOUT_BAD_OFFSETS;
    }
    memcpy(&ver, dbg + 8, 8);
    memcpy(&ft, dbg + 16, 8);
    if ((ver >> 16) != (version_hex >> 16)) {
        *why = "its debug offsets are of another version";
        return PY_LAYOUT_BAD_OFFSETS;
    }
    if (ft) {
        *why = "free-threaded builds are not supported";
        return PY_LAYOUT_FREE_THREAD;
    }
    return from_debug(minor, dbg, len, out, why) == 0 ? PY_LAYOUT_OK : PY_LAYOUT_BAD_OFFSETS;
}

uint32_t py_put_frame(uint64_t *out, uint32_t n, uint32_t room, uint64_t f)
{
    if (n >= 2 && ROCSYS_IS_PY_REPEAT(out[n - 1]) && out[n - 2] == f) {
        out[n - 1]++;
        return n;
    }
    if (n >= 1 && out[n - 1] == f && n < room) {
        out[n] = ROCSYS_PY_REPEAT(1);
        return n + 1;
    }
    if (n < room)
        out[n++] = f;
    return n;
}

uint32_t py_end_group(uint64_t *out, uint32_t n, uint32_t room, int had_frames)
{
    if (had_frames && n > 1 && ROCSYS_IS_PY_REPEAT(out[n - 1])) {
        /* the last of the repeated frames ends the group: take it out of the run */
        uint64_t f = out[n - 2] | ROCSYS_PY_FRAME_ENTRY;
        if (ROCSYS_PY_REPEAT_COUNT(out[n - 1]) == 1)
            out[n - 1] = f;
        else if (n < room)
            out[n - 1]--, out[n++] = f;
        return n;
    }
    if (had_frames && n > 0) {
        out[n - 1] |= ROCSYS_PY_FRAME_ENTRY;
        return n;
    }
    return py_put_frame(out, n, room, ROCSYS_PY_FRAME(ROCSYS_PY_CODE_NONE, 0, 1));
}
