/* Unit tests of the CPython layouts (collector/python_layout.c): the _Py_DebugOffsets of real
 * interpreters (3.13.0 pyenv, Debian sid's 3.14.10 and 3.15.2, copied from their _PyRuntime)
 * give the offsets their headers say; a broken cookie, another version, a free-threaded build,
 * or offsets laid out otherwise (a field inserted, as a later version may) are refused with a
 * reason; a later minor with the newest layout is read, without the TSS key. */
#include <stdint.h>
#include <string.h>

#include "collector/python_layout.h"
#include "check.h"

/* clang-format off */
/* 3.13: after the cookie (72 words) */
static const uint64_t dbg_313[] = {
    51183856, 0, 283320, 608, 632, 194968, 7272, 7264, 7344, 7400, 7656, 7640, 7648, 16, 7752,
    0, 7768, 7760, 304, 0, 8, 16, 72, 152, 160, 232, 32, 80, 8, 0, 56, 72, 70, 208, 112, 120,
    128, 136, 68, 52, 96, 104, 200, 16, 8, 416, 24, 88, 168, 32, 24, 16, 40, 24, 16, 48, 32, 40,
    24, 16, 32, 16, 24, 40, 16, 32, 64, 32, 16, 40, 240, 200};

/* 3.14: after the cookie (94 words) */
static const uint64_t dbg_314[] = {
    51251952, 0, 316616, 784, 808, 225864, 7280, 7272, 7344, 7360, 7408, 7688, 7672, 7680, 16,
    7784, 0, 7800, 7792, 7992, 0, 832, 0, 8, 16, 72, 152, 160, 232, 32, 88, 8, 0, 56, 80, 74,
    64, 0, 216, 112, 120, 128, 136, 68, 52, 96, 104, 208, 0, 16, 8, 416, 24, 88, 168, 40, 32,
    16, 40, 24, 16, 200, 24, 40, 32, 48, 32, 40, 24, 16, 32, 16, 24, 40, 16, 32, 64, 32, 16, 40,
    264, 192, 160, 24, 72, 67, 0, 8, 24, 304, 8076, 0, 4, 512};

/* 3.15: after the cookie (110 words) */
static const uint64_t dbg_315[] = {
    51315440, 0, 346568, 912, 936, 226240, 7272, 7264, 7336, 7352, 7400, 7592, 7576, 7584, 16,
    7736, 0, 7752, 7744, 7944, 0, 888, 0, 8, 16, 72, 80, 88, 96, 176, 184, 256, 32, 36, 40, 136,
    288, 0, 88, 8, 0, 56, 80, 74, 64, 0, 216, 112, 120, 128, 136, 68, 52, 96, 104, 208, 0, 16,
    8, 424, 24, 88, 168, 32, 288, 944, 888, 40, 32, 16, 40, 24, 16, 200, 24, 40, 32, 48, 32, 40,
    24, 16, 32, 16, 24, 40, 16, 32, 64, 32, 16, 40, 56, 176, 112, 120, 1120, 104, 160, 24, 72,
    67, 0, 8, 24, 344, 8028, 0, 4, 512};
/* clang-format on */

/* The debug offsets' bytes: the cookie, then words (version first). */
static size_t blob(uint8_t *out, const uint64_t *words, size_t n)
{
    memcpy(out, "xdebugpy", 8);
    memcpy(out + 8, words, n * 8);
    return 8 + n * 8;
}

struct expect {
    int minor;
    const uint64_t *words;
    size_t n;
    int32_t tss;
    uint32_t ts_frame, ts_thread_id, fr_owner, co_adaptive, co_firsttrace, interp_head;
    uint64_t mask;
};

/* Each real interpreter's published layout is taken, with the facts of its headers. */
static void test_real(void)
{
    const struct expect ex[] = {
        {13, dbg_313, sizeof(dbg_313) / 8, 2160, 72, 152, 70, 200, 184, 632, ~0ull},
        {14, dbg_314, sizeof(dbg_314) / 8, 2336, 72, 152, 74, 208, 192, 808, ~1ull},
        {15, dbg_315, sizeof(dbg_315) / 8, -1, 72, 176, 74, 208, 192, 936, ~3ull},
    };
    for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
        uint8_t b[PY_DEBUG_OFFSETS_MAX] = {0};
        struct py_layout l;
        const char *why;
        size_t n = blob(b, ex[i].words, ex[i].n);
        CHECK(py_layout_for((uint32_t)ex[i].words[0], b, n, &l, &why) == PY_LAYOUT_OK);
        CHECK(l.minor == ex[i].minor && l.from_debug);
        CHECK(l.tss == ex[i].tss);
        CHECK(l.ts_frame == ex[i].ts_frame && l.ts_thread_id == ex[i].ts_thread_id);
        CHECK(l.ts_interp == 16 && l.fr_back == 8 && l.fr_code == 0 && l.fr_lasti == 56);
        CHECK(l.fr_owner == (int32_t)ex[i].fr_owner &&
              l.fr_flags == 64 + (ex[i].minor >= 14 ? 8 : 0));
        CHECK(l.co_adaptive == (int32_t)ex[i].co_adaptive);
        CHECK(l.co_firsttrace == (int32_t)ex[i].co_firsttrace);
        CHECK(l.co_filename == 112 && l.co_name == 128 && l.co_table == 136 &&
              l.co_firstlineno == 68);
        CHECK(l.rt_interp_head == (int32_t)ex[i].interp_head);
        CHECK(l.interp_gil == 16 && l.gil_last_holder == 8 && l.gil_locked == 16);
        CHECK(l.code_mask == ex[i].mask);
        /* tstate->datastack_chunk (offsetof in each version's PyThreadState) */
        CHECK(l.ts_datastack == (ex[i].minor >= 15 ? 256 : 232));
        /* too short a copy */
        CHECK(py_layout_for((uint32_t)ex[i].words[0], b, 64, &l, &why) == PY_LAYOUT_BAD_OFFSETS);
    }
}

/* What cannot be trusted is refused, and why is said. */
static void test_refused(void)
{
    uint8_t b[PY_DEBUG_OFFSETS_MAX] = {0}, c[PY_DEBUG_OFFSETS_MAX];
    struct py_layout l;
    const char *why;
    size_t n = blob(b, dbg_314, sizeof(dbg_314) / 8);
    uint32_t v = (uint32_t)dbg_314[0];

    memcpy(c, b, sizeof(c));
    c[0] = 'y';
    CHECK(py_layout_for(v, c, n, &l, &why) == PY_LAYOUT_BAD_OFFSETS && *why);
    CHECK(py_layout_for(v, NULL, 0, &l, &why) == PY_LAYOUT_BAD_OFFSETS);
    /* the running version is not the one the offsets were made for */
    CHECK(py_layout_for(0x030d00f0, b, n, &l, &why) == PY_LAYOUT_BAD_OFFSETS);
    /* a free-threaded build */
    memcpy(c, b, sizeof(c));
    c[16] = 1;
    CHECK(py_layout_for(v, c, n, &l, &why) == PY_LAYOUT_FREE_THREAD && strstr(why, "free"));
    /* a later version that inserted a field into the thread state's group: what follows moved */
    memcpy(c, b, 8 + 8 * 25);
    memset(c + 8 + 8 * 25, 0, 8);
    memcpy(c + 8 + 8 * 26, b + 8 + 8 * 25, n - 8 - 8 * 25);
    memcpy(c + 8, &(uint64_t){0x031000a0}, 8);
    CHECK(py_layout_for(0x031000a0, c, n + 8, &l, &why) == PY_LAYOUT_BAD_OFFSETS && *why);
    /* an offset outside its struct */
    memcpy(c, b, sizeof(c));
    memcpy(c + 208, &(uint64_t){1u << 20}, 8); /* thread_state.current_frame */
    CHECK(py_layout_for(v, c, n, &l, &why) == PY_LAYOUT_BAD_OFFSETS);
    /* not CPython 3.8+ */
    CHECK(py_layout_for(0x020712f0, NULL, 0, &l, &why) == PY_LAYOUT_UNSUPPORTED);
    CHECK(py_layout_for(0x030710f0, NULL, 0, &l, &why) == PY_LAYOUT_UNSUPPORTED);
}

/* 3.8-3.12 come from the table; a later minor laid out as the newest one is read. */
static void test_versions(void)
{
    uint8_t b[PY_DEBUG_OFFSETS_MAX] = {0};
    struct py_layout l;
    const char *why;
    size_t n = blob(b, dbg_315, sizeof(dbg_315) / 8);

    CHECK(py_layout_for(0x030c01f0, NULL, 0, &l, &why) == PY_LAYOUT_OK && l.minor == 12);
    CHECK(!l.from_debug && l.tss == 1544 && l.code_mask == ~0ull && l.ts_datastack == 232);
    CHECK(py_layout_for(0x030b07f0, NULL, 0, &l, &why) == PY_LAYOUT_OK && l.ts_datastack == 296);
    CHECK(py_layout_for(0x030800f0, NULL, 0, &l, &why) == PY_LAYOUT_OK && l.minor == 8);
    CHECK(l.ts_datastack == -1);
    memcpy(b + 8, &(uint64_t){0x031000a0}, 8);
    CHECK(py_layout_for(0x031000a0, b, n, &l, &why) == PY_LAYOUT_OK && l.minor == 16);
    CHECK(l.tss == -1 && l.code_mask == ~7ull && l.ts_thread_id == 176);
}

int main(void)
{
    test_real();
    test_refused();
    test_versions();
    return check_summary();
}
