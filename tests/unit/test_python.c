/* Unit tests of the model's Python parts: the three CPython line-table formats (tables and
 * expected lines taken from CPython 3.8-3.13's own code objects: dis / co_lines) and the
 * instructions of each line, raw string
 * storage to UTF-8, and the merge of Python frames into a native stack. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "collector/protocol.h"
#include "model/model.h"
#include "model/model_internal.h"
#include "symbols/symbols.h"
#include "check.h"

struct line_case {
    int kind, first;
    const uint8_t *table;
    size_t len;
    int pairs[64][2]; /* lasti in code units, line (-1: no line, not checked) */
    int npairs;
};

/* def sample(a, b):            line 2
 *     x = a + b                     3
 *     if x > 3:                     4
 *         y = [i * 2                5
 *              for i in range(x)]   6
 *     else:
 *         y = None                  8
 *
 *     return x, y                   10 */
/* clang-format off */
static const struct line_case cases[] = {
/* 3.8 */ {0, 2, (const uint8_t[]){0,1,8,1,8,1,6,1,6,255,8,3,4,2}, 14, {{0,3},{1,3},{2,3},{3,3},{4,4},{5,4},{6,4},{7,4},{8,5},{9,5},{10,5},{11,6},{12,6},{13,6},{14,5},{15,5},{16,5},{17,5},{18,8},{19,8},{20,10},{21,10},{22,10},{23,10}}, 24},
/* 3.9 */ {0, 2, (const uint8_t[]){0,1,8,1,8,1,6,1,6,255,8,3,4,2}, 14, {{0,3},{1,3},{2,3},{3,3},{4,4},{5,4},{6,4},{7,4},{8,5},{9,5},{10,5},{11,6},{12,6},{13,6},{14,5},{15,5},{16,5},{17,5},{18,8},{19,8},{20,10},{21,10},{22,10},{23,10}}, 24},
/* 3.10 */ {1, 2, (const uint8_t[]){8,1,8,1,6,1,6,1,6,255,8,5,4,254,8,2}, 16, {{0,3},{1,3},{2,3},{3,3},{4,4},{5,4},{6,4},{7,4},{8,5},{9,5},{10,5},{11,6},{12,6},{13,6},{14,5},{15,5},{16,5},{17,10},{18,10},{19,10},{20,10},{21,8},{22,8},{23,10},{24,10},{25,10},{26,10}}, 27},
/* 3.11 */ {2, 2, (const uint8_t[]){128,0,216,8,9,136,65,137,5,128,65,216,7,8,136,49,130,117,128,117,240,2,1,13,32,240,0,1,13,32,221,22,27,152,65,145,104,148,104,240,3,1,13,32,241,0,1,13,32,244,0,1,13,32,136,1,136,1,240,6,0,13,17,136,1,224,11,12,136,97,136,52,128,75}, 74, {{0,2},{1,3},{2,3},{3,3},{5,3},{6,4},{7,4},{8,4},{11,4},{12,5},{13,5},{14,6},{20,6},{21,6},{23,6},{28,5},{29,5},{31,5},{36,5},{37,5},{38,8},{39,8},{40,10},{41,10},{42,10},{43,10}}, 26},
/* 3.12 */ {2, 2, (const uint8_t[]){128,0,216,8,9,136,65,137,5,128,65,216,7,8,136,49,130,117,228,22,27,152,65,147,104,246,3,1,13,32,216,17,18,240,3,0,14,15,144,17,139,85,240,0,1,13,32,136,1,240,0,1,13,32,240,10,0,12,13,136,97,136,52,128,75,240,5,0,13,17,136,1,224,11,12,136,97,136,52,128,75,249,242,11,1,13,32}, 87, {{0,2},{1,3},{2,3},{3,3},{5,3},{6,4},{7,4},{8,4},{10,4},{11,6},{16,6},{17,6},{21,5},{22,5},{23,5},{24,5},{25,5},{26,5},{28,6},{29,5},{30,5},{31,5},{33,5},{34,5},{35,5},{36,5},{37,5},{38,10},{39,10},{40,10},{41,10},{42,8},{43,8},{44,10},{45,10},{46,10},{47,10},{48,-1},{49,-1},{50,5},{51,5},{52,5}}, 42},
/* 3.13 */ {2, 2, (const uint8_t[]){128,0,216,8,9,137,5,128,65,216,7,8,136,49,131,117,228,22,27,152,65,148,104,243,3,1,13,32,217,22,30,144,17,240,3,0,14,15,144,17,140,85,217,22,30,240,3,0,9,10,240,0,1,13,32,240,10,0,12,13,136,52,128,75,240,5,0,13,17,136,1,224,11,12,136,52,128,75,249,242,11,1,13,32}, 84, {{0,2},{1,3},{2,3},{4,3},{5,4},{6,4},{7,4},{9,4},{11,6},{16,6},{17,6},{21,6},{22,5},{23,5},{24,5},{25,5},{26,6},{28,6},{29,5},{30,5},{31,5},{33,5},{34,5},{36,6},{37,6},{38,5},{39,5},{40,10},{41,10},{42,10},{43,8},{44,8},{45,10},{46,10},{47,10},{48,-1},{49,-1},{50,5},{51,5},{52,5}}, 40},
};
/* clang-format on */

/* Every instruction of the sample function gets the line CPython gives it. */
static void test_lines(void)
{
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const struct line_case *k = &cases[c];
        for (int i = 0; i < k->npairs; i++) {
            int got = model_py_line(k->kind, k->table, k->len, k->first, (uint32_t)k->pairs[i][0]);
            if (k->pairs[i][1] >= 0)
                CHECK_MSG(got == k->pairs[i][1], "case %zu lasti %d: got %d want %d", c,
                          k->pairs[i][0], got, k->pairs[i][1]);
        }
        /* not started yet: the definition line; an empty or cut table never reads past it */
        CHECK(model_py_line(k->kind, k->table, k->len, k->first, ROCSYS_PY_LASTI_UNKNOWN) ==
              k->first);
        CHECK(model_py_line(k->kind, k->table, 0, k->first, 5) == k->first);
        (void)model_py_line(k->kind, k->table, k->len / 2, k->first, 100000);
    }
}

/* The instructions of a line (causal experiments on Python lines): every instruction CPython
 * gives the line is in one of its spans and no other is, for each line of the sample; the
 * longest span comes first; with room for one span, it is the longest. */
static void test_line_spans(void)
{
    static const int lines[] = {3, 4, 5, 6, 8, 10};
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const struct line_case *k = &cases[c];
        for (size_t l = 0; l < sizeof(lines) / sizeof(lines[0]); l++) {
            uint32_t lo[8], hi[8], lo1, hi1;
            int n = model_py_line_spans(k->kind, k->table, k->len, k->first, lines[l], lo, hi, 8);
            CHECK_MSG(n >= 1, "case %zu line %d: no span", c, lines[l]);
            for (int i = 0; i < k->npairs; i++) {
                uint32_t at = (uint32_t)k->pairs[i][0];
                int in = 0;
                for (int j = 0; j < n; j++)
                    in |= at >= lo[j] && at < hi[j];
                if (k->pairs[i][1] >= 0)
                    CHECK_MSG(in == (k->pairs[i][1] == lines[l]),
                              "case %zu line %d: lasti %u (line %d) %s its spans", c, lines[l], at,
                              k->pairs[i][1], in ? "in" : "not in");
            }
            for (int j = 1; j < n; j++)
                CHECK_MSG(hi[j] - lo[j] <= hi[j - 1] - lo[j - 1], "case %zu line %d: order", c,
                          lines[l]);
            int one =
                model_py_line_spans(k->kind, k->table, k->len, k->first, lines[l], &lo1, &hi1, 1);
            CHECK_MSG(one == 1 && n >= 1 && hi1 - lo1 == hi[0] - lo[0],
                      "case %zu line %d: the one span kept is not the longest", c, lines[l]);
        }
        uint32_t lo[2], hi[2];
        CHECK(model_py_line_spans(k->kind, k->table, k->len, k->first, 99, lo, hi, 2) == 0);
        CHECK(model_py_line_spans(k->kind, k->table, 0, k->first, 3, lo, hi, 2) == 0);
    }
}

/* CPython's 1-, 2- and 4-byte string kinds become UTF-8; output is always terminated. */
static void test_utf8(void)
{
    char out[64];
    const uint8_t latin1[] = {'g', 'r', 0xf6, 0xdf, 'e'};
    const uint8_t ucs2[] = {0xbb, 0x03, '_', 0, 'w', 0};        /* λ_w */
    const uint8_t ucs4[] = {0x0d, 0xf4, 0x01, 0, 'x', 0, 0, 0}; /* 🐍x */
    model_py_utf8(1, latin1, sizeof(latin1), out, sizeof(out));
    CHECK_STR(out, "gr\xc3\xb6\xc3\x9f"
                   "e");
    model_py_utf8(2, ucs2, sizeof(ucs2), out, sizeof(out));
    CHECK_STR(out, "\xce\xbb_w");
    model_py_utf8(4, ucs4, sizeof(ucs4), out, sizeof(out));
    CHECK_STR(out, "\xf0\x9f\x90\x8dx");
    CHECK(model_py_utf8(4, ucs4, sizeof(ucs4), out, 3) == 0 && out[0] == '\0');
    CHECK(model_py_utf8(2, ucs2, 3, out, sizeof(out)) == 2); /* an odd byte count */
}

/* A function of the model named name in module (an interned pointer, as the symbolizer's). */
static uint32_t func_in(struct model *m, const char *name, const char *module)
{
    uint32_t f = model_func_named(m, name);
    m->funcs[f].module = module;
    return f;
}

/* Merging a sample's Python groups into its native frames: by the native frame each group's
 * PY_AT word names (a stripped interpreter whose loop has no name), else by the name
 * _PyEval_EvalFrameDefault; Python frames nobody takes go on the outermost side. */
static void test_merge(void)
{
    struct model *m = model_new();
    const char *exe = model_intern(m, "python3.14"), *libc = model_intern(m, "libc.so.6");
    const char *ext = model_intern(m, "libext.so");
    uint32_t leaf = func_in(m, "ext_leaf", ext), unnamed = func_in(m, "python3.14@0x43fb58", exe);
    uint32_t call = func_in(m, "PyObject_Call", exe), start = func_in(m, "__libc_start_main", libc);
    uint32_t inner = func_in(m, "inner", model_python_module);
    uint32_t outer = func_in(m, "outer", model_python_module);
    /* innermost first: ext_leaf, the loop running inner, PyObject_Call, the loop running outer */
    const uint32_t n0[] = {leaf}, n1[] = {unnamed}, n2[] = {call}, n3[] = {unnamed}, n4[] = {start};
    const uint32_t *native[] = {n0, n1, n2, n3, n4}, nlen[] = {1, 1, 1, 1, 1};
    const uint32_t p0[] = {inner}, p1[] = {outer};
    const uint32_t *py[] = {p0, p1}, plen[] = {1, 1};
    const int pentry[] = {1, 1};
    const uint32_t at[] = {1, 3}, none[] = {ROCSYS_PY_AT_UNKNOWN, ROCSYS_PY_AT_UNKNOWN};
    const uint32_t bad[] = {3, 1}; /* out of order: not trusted */
    uint32_t out[16], n;

    const char *first;
    n = model_python_merge(m, native, nlen, 5, py, plen, pentry, at, 2, out, 16);
    CHECK(n == 4);
    CHECK(n == 4 && out[0] == leaf && out[1] == inner && out[2] == outer && out[3] == start);
    CHECK(model_python_merge_check(m, &first) == 0); /* every frame placed */
    /* unplaced, and no frame named _PyEval_EvalFrameDefault: the Python frames go outermost */
    n = model_python_merge(m, native, nlen, 5, py, plen, pentry, none, 2, out, 16);
    CHECK(n >= 3 && out[n - 2] == inner && out[n - 1] == outer);
    /* the developer's check counts it and names the first one's native frames */
    CHECK(model_python_merge_check(m, &first) == 1);
    CHECK_MSG(strstr(first, "2 left over;") && strstr(first, " ext_leaf@libext.so") &&
                  strstr(first, " __libc_start_main@libc.so.6"),
              "merge check: \"%s\"", first);
    n = model_python_merge(m, native, nlen, 5, py, plen, pentry, bad, 2, out, 16);
    CHECK(n >= 3 && out[n - 2] == inner && out[n - 1] == outer);
    /* the outermost group unplaced (a torn chain's rest): placed ones in place, it outermost */
    const uint32_t half[] = {1, ROCSYS_PY_AT_UNKNOWN}, half_inner[] = {ROCSYS_PY_AT_UNKNOWN, 3};
    n = model_python_merge(m, native, nlen, 5, py, plen, pentry, half, 2, out, 16);
    CHECK(n == 4 && out[0] == leaf && out[1] == inner && out[2] == start && out[3] == outer);
    /* an inner group unplaced: nothing is trusted, the name rule (none here): all outermost */
    n = model_python_merge(m, native, nlen, 5, py, plen, pentry, half_inner, 2, out, 16);
    CHECK(n >= 3 && out[n - 2] == inner && out[n - 1] == outer);
    model_free(m);

    /* a named evaluation loop (3.8-3.11, unstripped): placed by name */
    m = model_new();
    exe = model_intern(m, "libpython3.11.so.1.0");
    libc = model_intern(m, "libc.so.6");
    ext = model_intern(m, "libext.so");
    leaf = func_in(m, "ext_leaf", ext);
    uint32_t eval = func_in(m, "_PyEval_EvalFrameDefault", exe);
    call = func_in(m, "PyObject_Call", exe);
    start = func_in(m, "__libc_start_main", libc);
    inner = func_in(m, "inner", model_python_module);
    outer = func_in(m, "outer", model_python_module);
    const uint32_t e1[] = {eval}, e2[] = {call}, e3[] = {eval}, e0[] = {leaf}, e4[] = {start};
    const uint32_t *named[] = {e0, e1, e2, e3, e4};
    const uint32_t q0[] = {inner}, q1[] = {outer};
    const uint32_t *py2[] = {q0, q1};
    n = model_python_merge(m, named, nlen, 5, py2, plen, pentry, none, 2, out, 16);
    CHECK(n == 4 && out[0] == leaf && out[1] == inner && out[2] == outer && out[3] == start);
    model_free(m);

    /* an interpreter linked into the executable (Debian's python3.11): its functions are hidden,
     * the program's _start (in the same executable) stays as the root */
    m = model_new();
    exe = model_intern(m, "python3.11");
    ext = model_intern(m, "libext.so");
    leaf = func_in(m, "ext_leaf", ext);
    eval = func_in(m, "_PyEval_EvalFrameDefault", exe);
    call = func_in(m, "PyObject_Call", exe);
    start = func_in(m, "_start", exe);
    inner = func_in(m, "inner", model_python_module);
    outer = func_in(m, "outer", model_python_module);
    const uint32_t x0[] = {leaf}, x1[] = {eval}, x2[] = {call}, x3[] = {eval}, x4[] = {start};
    const uint32_t *linked[] = {x0, x1, x2, x3, x4};
    const uint32_t r0[] = {inner}, r1[] = {outer};
    const uint32_t *py3[] = {r0, r1};
    for (int twice = 0; twice < 2; twice++) { /* the role, once known, is kept */
        n = model_python_merge(m, linked, nlen, 5, py3, plen, pentry, none, 2, out, 16);
        CHECK(n == 4 && out[0] == leaf && out[1] == inner && out[2] == outer && out[3] == start);
    }
    model_free(m);
}

/* A perf sample's native stack may be deeper than the in-target sampler's 128 frames (CPython's
 * nested imports went 130-150 deep in an attached PyTorch program): its Python frames still
 * take their evaluation frame's place, and the stack keeps its native root (the Python frames
 * were put at the root above the whole native stack). */
static void test_merge_deep(void)
{
    enum { NATIVE = 200, AT = 150 };
    struct model *m = model_new();
    uint32_t pid = (uint32_t)getpid();
    uint64_t frames[NATIVE + 2];
    uint32_t funcs[NATIVE + 2], n = 0;

    /* innermost first: this program's test_lines, but libc's fclose at AT (the frame that runs
     * the Python frames: the interpreter's, hidden, whatever its name) */
    CHECK(symbolizer_load_maps(model_symbolizer(m), pid) > 0);
    for (uint32_t i = 0; i < NATIVE; i++)
        frames[i] = (uint64_t)(uintptr_t)test_lines + 4;
    frames[AT] = (uint64_t)(uintptr_t)fclose + 4;
    frames[NATIVE] = ROCSYS_PY_FRAME(ROCSYS_PY_CODE_UNREADABLE, 0, 1);
    frames[NATIVE + 1] = ROCSYS_PY_AT(AT);
    for (uint32_t p = model_sample_path(m, pid, frames, NATIVE + 2); p && n < NATIVE + 2;
         p = model_path_parent(m, p))
        funcs[n++] = model_path_func(m, p); /* innermost first */
    const char *py = "[Python frames unreadable]";
    /* the evaluation frame at index AT is replaced: NATIVE functions, the Python one at AT */
    CHECK_MSG(n == NATIVE, "%u functions, want %u", n, (unsigned)NATIVE);
    CHECK_MSG(n == NATIVE && strcmp(m->funcs[funcs[AT]].name, py) == 0 &&
                  strcmp(m->funcs[funcs[n - 1]].name, "test_lines") == 0,
              "the Python frame is not at the native frame that runs it (%u of %u)", AT, n);
    model_free(m);
}

/* A cut native stack (the perf engine's [truncated] root) whose Python callers the unwind did
 * not reach: [truncated] stays the root, the Python frames below it (they were put above it, as
 * top-level functions, in 12 of 958 samples of a PyTorch program attached while importing). */
static void test_merge_cut(void)
{
    struct model *m = model_new();
    uint32_t pid = (uint32_t)getpid();
    uint64_t frames[4];
    uint32_t funcs[8], n = 0;

    CHECK(symbolizer_load_maps(model_symbolizer(m), pid) > 0);
    frames[0] = frames[1] = (uint64_t)(uintptr_t)test_lines + 4; /* innermost first */
    frames[2] = model_state_frame(m, MODEL_TRUNCATED_FRAME);
    frames[3] = ROCSYS_PY_FRAME(ROCSYS_PY_CODE_UNREADABLE, 0, 1); /* no PY_AT: unplaced */
    for (uint32_t p = model_sample_path(m, pid, frames, 4); p && n < 8; p = model_path_parent(m, p))
        funcs[n++] = model_path_func(m, p);
    CHECK_MSG(n == 4 && strcmp(m->funcs[funcs[3]].name, MODEL_TRUNCATED_FRAME) == 0 &&
                  strcmp(m->funcs[funcs[2]].name, "[Python frames unreadable]") == 0,
              "root %s, then %s (%u functions)", n ? m->funcs[funcs[n - 1]].name : "none",
              n > 1 ? m->funcs[funcs[n - 2]].name : "none", n);
    model_free(m);
}

/* A stand-in named like CPython's evaluation loop: only its address and name are used. */
__attribute__((noinline)) int _PyEval_EvalFrameDefault(int x);
__attribute__((noinline)) int _PyEval_EvalFrameDefault(int x)
{
    return x * 3 + 1;
}

/* The leaf of a sample with no Python frames (innermost first: frames[0]), or NULL. */
static const char *alone_leaf(struct model *m, const uint64_t *frames, uint32_t n)
{
    uint32_t p = model_sample_path(m, (uint32_t)getpid(), frames, n);
    return p ? m->funcs[model_path_func(m, p)].name : NULL;
}

/* A sample in an evaluation call that has not linked its Python frame yet, or has unlinked it
 * (3.8's first import at startup: the thread's frame is still NULL), carries no Python frames:
 * its evaluation frame is hidden all the same, unless --python native or frames are not read
 * (seen in CI: one such sample named _PyEval_EvalFrameDefault in the default view). */
static void test_eval_alone(void)
{
    const uint64_t frames[] = {(uint64_t)(uintptr_t)_PyEval_EvalFrameDefault + 4,
                               (uint64_t)(uintptr_t)test_lines + 4};
    const char *leaf;

    for (int mode = 0; mode < 3; mode++) { /* default, --python native, frames not read */
        struct model *m = model_new();
        CHECK(symbolizer_load_maps(model_symbolizer(m), (uint32_t)getpid()) > 0);
        model_python_hide_interpreter(m, mode != 1);
        model_python_info(m, mode == 2 ? ROCSYS_PY_UNSUPPORTED : ROCSYS_PY_OK, 0x030812f0);
        leaf = alone_leaf(m, frames, 2);
        CHECK_MSG(leaf && strcmp(leaf, mode == 0 ? "test_lines" : "_PyEval_EvalFrameDefault") == 0,
                  "mode %d: the leaf is %s", mode, leaf ? leaf : "none");
        model_free(m);
    }
}

int main(void)
{
    test_merge_cut();
    test_eval_alone();
    test_lines();
    test_line_spans();
    test_utf8();
    test_merge();
    test_merge_deep();
    return check_summary();
}
