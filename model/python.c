/* Python frames in the model: the code objects the collector announced (per process), their
 * names and line tables, and how a sample's Python frames take the place of the interpreter's
 * evaluation frames in its native stack. */
#define _GNU_SOURCE
#include <limits.h>
#include <string.h>

#include "collector/protocol.h"
#include "base/hashmap.h"
#include "model_internal.h"

const char model_python_module[] = "[python]";

/* One code object of one process. */
struct py_code {
    const char *name; /* qualified name (3.11+) or name, UTF-8, interned */
    const char *file; /* co_filename, UTF-8, interned */
    int first_line;
    int table_kind;
    uint8_t *table;
    size_t table_len;
};

struct model_python {
    struct py_code *codes;
    size_t ncodes, cap;
    struct hashmap map;  /* (pid, its image's generation, id) -> index + 1 */
    struct hashmap gens; /* pid -> images it exec'ed since its first (code ids start over) */
    uint8_t *roles;      /* per function id: 0 not looked at, ROLE_* */
    size_t nroles, roles_cap;
    /* modules holding _PyEval_EvalFrameDefault (one per interpreter build the session saw:
     * more than 8 in one session are not told apart from other code) */
    const char *interp[8];
    int ninterp;
    int show_native;
    char refused[200]; /* why Python frames cannot be read from outside */
    /* merges whose Python frames outnumbered the native evaluation frames (placed beyond the
     * native root), and the first one's native frames, for model_python_merge_check */
    uint64_t beyond;
    char beyond_text[1024];
};

enum { ROLE_OTHER = 1, ROLE_EVAL = 2, ROLE_INTERP = 3 };
/* roles[] of a function that is neither: ROLE_SEEN_OTHER + the number of interpreter modules
 * known when it was looked at (looked at again when that number grows), ROLE_TLS or-ed in for
 * ld.so's __tls_get_addr */
#define ROLE_SEEN_OTHER 16
#define ROLE_TLS        0x80

/* The model's Python state, created on first use. */
static struct model_python *py_state(struct model *m)
{
    if (!m->python)
        m->python = xcalloc(1, sizeof(*m->python));
    return m->python;
}

void model_python_free(struct model *m)
{
    struct model_python *p = m->python;
    if (!p)
        return;
    for (size_t i = 0; i < p->ncodes; i++)
        free(p->codes[i].table);
    free(p->codes);
    free(p->roles);
    hashmap_free(&p->map);
    hashmap_free(&p->gens);
    free(p);
    m->python = NULL;
}

/* The generation of pid's process image (0 until it execs). */
static uint32_t gen_of(struct model_python *p, uint32_t pid)
{
    uint32_t *slot = hashmap_slot(&p->gens, hashmap_mix(pid), 0);
    return slot ? *slot : 0;
}

/* The map key of code id of pid's image of generation gen. */
static uint64_t code_key(uint32_t pid, uint32_t gen, uint32_t id)
{
    return hashmap_mix(((uint64_t)pid << 32) | id | ((uint64_t)(gen & 0x1ff) << 23));
}

void model_python_exec(struct model *m, uint32_t pid)
{
    struct model_python *p = py_state(m);
    (*hashmap_slot(&p->gens, hashmap_mix(pid), 1))++;
}

uint64_t model_python_salt(struct model *m, uint32_t pid, uint64_t pc)
{
    struct model_python *p = py_state(m);
    uint32_t gen = gen_of(p, pid);
    int known = hashmap_slot(&p->map, code_key(pid, gen, ROCSYS_PY_FRAME_CODE(pc)), 0) != NULL;
    return hashmap_mix(((uint64_t)gen << 1 | (uint64_t)known) + 0x5bd1e995u);
}

void model_python_hide_interpreter(struct model *m, int hide)
{
    py_state(m)->show_native = !hide;
    /* hidden frames need no DWARF: the interpreter's module is read by its symbols alone */
    symbolizer_set_light(m->sym, hide ? "_PyEval_EvalFrameDefault" : NULL);
}

void model_python_info(struct model *m, uint32_t status, uint32_t version_hex)
{
    /* the collector's "frames can be read" does not undo the perf engine's refusal */
    if (m->session.python_status != MODEL_PY_REFUSED || status != ROCSYS_PY_OK)
        m->session.python_status = (int)status;
    m->session.python_version_hex = version_hex;
}

void model_python_refused(struct model *m, uint32_t version_hex, const char *why)
{
    struct model_python *p = py_state(m);

    snprintf(p->refused, sizeof(p->refused), "%s", why);
    model_python_info(m, MODEL_PY_REFUSED, version_hex);
}

int model_python_notice(const struct model *m, char *buf, size_t n)
{
    const struct model_session *s = &m->session;
    uint32_t v = s->python_version_hex;
    const char *why =
        s->python_status == ROCSYS_PY_FREE_THREAD ? "free-threaded builds are not supported"
        : s->python_status == ROCSYS_PY_MISMATCH && ((v >> 16) & 0xff) >= 13
            ? "the layout it publishes (_Py_DebugOffsets) failed a check"
        : s->python_status == ROCSYS_PY_MISMATCH ? "its layout failed a check"
        : s->python_status == ROCSYS_PY_GUARD_LOST
            ? "stopped: the program replaced the fault handler Python frames are "
              "read under"
        : s->python_status == MODEL_PY_REFUSED && m->python ? m->python->refused
                                                            : "supported: 3.8 and later";

    if (s->python_status < 0 || s->python_status == ROCSYS_PY_OK)
        return 0;
    snprintf(buf, n, "Python %u.%u: native frames only (%s)", v >> 24, (v >> 16) & 0xff, why);
    return 1;
}

void model_python_code(struct model *m, uint32_t pid, uint32_t id, int first_line, int table_kind,
                       const char *name, const char *file, const uint8_t *table, size_t table_len)
{
    struct model_python *p = py_state(m);
    uint32_t *slot = hashmap_slot(&p->map, code_key(pid, gen_of(p, pid), id), 1);
    struct py_code *c;

    if (*slot) { /* announced again (a retry, or a slot reused in a fork child): the newest */
        c = &p->codes[*slot - 1];
        free(c->table);
    } else {
        xgrow(&p->codes, &p->cap, p->ncodes + 1, sizeof(*p->codes));
        c = &p->codes[p->ncodes++];
        *slot = (uint32_t)p->ncodes;
    }
    c->name = model_intern(m, name && *name ? name : "?");
    c->file = model_intern(m, file && *file ? file : "?");
    c->first_line = first_line;
    c->table_kind = table_kind;
    c->table = table_len ? xmalloc(table_len) : NULL;
    if (table_len)
        memcpy(c->table, table, table_len);
    c->table_len = table_len;
}

void model_thread_python(struct model *m, uint32_t pid, uint32_t tid, int holds_gil,
                         uint32_t weight)
{
    uint32_t i = model_thread_discover(m, pid, tid, 0); /* may move m->threads: first */
    struct model_thread *t = &m->threads[i];

    t->py_samples += weight;
    t->gil_samples += holds_gil ? weight : 0;
}

/* ---- line tables (pure) ---- */

/* An unsigned varint of the 3.11+ location table (6-bit chunks, bit 6 = more). */
static unsigned varint(const uint8_t *t, size_t n, size_t *i)
{
    unsigned v = 0, shift = 0;
    uint8_t b;
    do {
        if (*i >= n || shift > 28)
            return v;
        b = t[(*i)++];
        v |= (unsigned)(b & 63) << shift;
        shift += 6;
    } while (b & 64);
    return v;
}

/* A line summed from a table's deltas as an int (a damaged table's sum may not be one). */
static int line_of(int64_t line)
{
    return line < INT_MIN ? INT_MIN : line > INT_MAX ? INT_MAX : (int)line;
}

int model_py_line(int kind, const uint8_t *t, size_t n, int first, uint32_t lasti)
{
    int64_t line = first;
    uint64_t addr = (uint64_t)lasti * 2, end = 0;
    size_t i = 0;

    if (lasti == ROCSYS_PY_LASTI_UNKNOWN)
        return first;
    switch (kind) {
    case ROCSYS_PY_TABLE_LNOTAB: /* (address delta, signed line delta) pairs */
        for (; i + 1 < n; i += 2) {
            end += t[i];
            if (end > addr)
                break;
            line += (int8_t)t[i + 1];
        }
        return line_of(line);
    case ROCSYS_PY_TABLE_LINETABLE: /* (byte length, signed line delta or -128: none) pairs */
        for (; i + 1 < n; i += 2) {
            uint64_t start = end;
            end += t[i];
            if ((int8_t)t[i + 1] != -128)
                line += (int8_t)t[i + 1];
            if (start < end && addr < end)
                return line_of(line);
        }
        return line_of(line);
    case ROCSYS_PY_TABLE_LOCATIONS: /* entries: a start byte (bit 7), then their data */
        while (i < n) {
            uint8_t b = t[i++];
            int code = (b >> 3) & 15, delta = 0;
            end += ((uint64_t)(b & 7) + 1) * 2;
            if (code == 13 || code == 14) { /* no columns / long form: a signed varint */
                size_t k = i;
                unsigned u = varint(t, n, &k);
                delta = (u & 1) ? -(int)(u >> 1) : (int)(u >> 1);
            } else if (code >= 10 && code <= 12) {
                delta = code - 10;
            }
            line += delta;
            if (addr < end)
                return line_of(line);
            while (i < n && !(t[i] & 0x80))
                i++;
        }
        return line_of(line);
    default:
        return first;
    }
}

/* The code units a line table covers: its entries' lengths summed. */
static uint32_t table_units(int kind, const uint8_t *t, size_t n)
{
    uint64_t bytes = 0;

    if (kind == ROCSYS_PY_TABLE_LOCATIONS) {
        for (size_t i = 0; i < n; i++)
            if (t[i] & 0x80) /* an entry's start byte: its length - 1 in code units */
                bytes += ((uint64_t)(t[i] & 7) + 1) * 2;
    } else if (kind == ROCSYS_PY_TABLE_LNOTAB || kind == ROCSYS_PY_TABLE_LINETABLE) {
        for (size_t i = 0; i + 1 < n; i += 2)
            bytes += t[i];
    }
    return bytes / 2 > 0xfffffe ? 0xfffffe : (uint32_t)(bytes / 2);
}

/* Keep span [start, end) among the count kept so far (at most max): in a free place, else in
 * place of the shortest kept when it is longer. */
static void keep_span(uint32_t *lo, uint32_t *hi, int *count, int max, uint32_t start, uint32_t end)
{
    int k = 0;

    if (*count < max) {
        k = (*count)++;
    } else {
        for (int j = 1; j < *count; j++)
            if (hi[j] - lo[j] < hi[k] - lo[k])
                k = j;
        if (max <= 0 || end - start <= hi[k] - lo[k])
            return;
    }
    lo[k] = start;
    hi[k] = end;
}

int model_py_line_spans(int kind, const uint8_t *t, size_t n, int first, int line, uint32_t *lo,
                        uint32_t *hi, int max)
{
    uint32_t units = table_units(kind, t, n), start = 0;
    int count = 0, in = 0;

    if (!n)
        return 0;
    /* u == units stands for the rest: a 3.8-3.9 table leaves out the last line's end, whose
     * line holds to the code's end (its span ends below ROCSYS_PY_LASTI_UNKNOWN) */
    for (uint32_t u = 0; u <= units; u++) {
        int here = model_py_line(kind, t, n, first, u) == line;
        if (here && !in)
            start = u;
        if (!here && in)
            keep_span(lo, hi, &count, max, start, u);
        in = here;
    }
    if (in)
        keep_span(lo, hi, &count, max, start, ROCSYS_PY_LASTI_UNKNOWN);
    for (int i = 1; i < count; i++) /* the longest first */
        for (int j = i; j > 0 && hi[j] - lo[j] > hi[j - 1] - lo[j - 1]; j--) {
            uint32_t a = lo[j], b = hi[j];
            lo[j] = lo[j - 1], hi[j] = hi[j - 1];
            lo[j - 1] = a, hi[j - 1] = b;
        }
    return count;
}

int model_python_line_spans(struct model *m, uint32_t pid, uint32_t code_id, int line, uint32_t *lo,
                            uint32_t *hi, int max)
{
    struct model_python *p = py_state(m);
    uint32_t *slot = hashmap_slot(&p->map, code_key(pid, gen_of(p, pid), code_id), 0);

    if (!slot)
        return 0;
    const struct py_code *c = &p->codes[*slot - 1];
    return model_py_line_spans(c->table_kind, c->table, c->table_len, c->first_line, line, lo, hi,
                               max);
}

size_t model_py_utf8(int kind, const uint8_t *raw, size_t nbytes, char *out, size_t cap)
{
    size_t o = 0;

    if (cap == 0)
        return 0;
    if (kind != 1 && kind != 2 && kind != 4)
        kind = 1;
    for (size_t i = 0; i + (size_t)kind <= nbytes; i += (size_t)kind) {
        uint32_t c = raw[i];
        if (kind >= 2)
            c |= (uint32_t)raw[i + 1] << 8;
        if (kind == 4)
            c |= (uint32_t)raw[i + 2] << 16 | (uint32_t)raw[i + 3] << 24;
        if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            c = 0xfffd;
        if (c < 0x80) {
            if (o + 1 >= cap)
                break;
            out[o++] = (char)(c ? c : '?');
        } else if (c < 0x800) {
            if (o + 2 >= cap)
                break;
            out[o++] = (char)(0xc0 | (c >> 6));
            out[o++] = (char)(0x80 | (c & 63));
        } else if (c < 0x10000) {
            if (o + 3 >= cap)
                break;
            out[o++] = (char)(0xe0 | (c >> 12));
            out[o++] = (char)(0x80 | ((c >> 6) & 63));
            out[o++] = (char)(0x80 | (c & 63));
        } else {
            if (o + 4 >= cap)
                break;
            out[o++] = (char)(0xf0 | (c >> 18));
            out[o++] = (char)(0x80 | ((c >> 12) & 63));
            out[o++] = (char)(0x80 | ((c >> 6) & 63));
            out[o++] = (char)(0x80 | (c & 63));
        }
    }
    out[o] = '\0';
    return o;
}

/* ---- frames ---- */

int model_python_frame(struct model *m, uint32_t pid, uint64_t pc, int final_try,
                       struct sym_frame *out)
{
    static const char unknown[] = "[unknown Python code]";
    static const char unreadable[] = "[Python frames unreadable]";
    struct model_python *p = py_state(m);
    uint32_t id = ROCSYS_PY_FRAME_CODE(pc);
    uint32_t *slot;

    if (!ROCSYS_IS_PY_FRAME(pc))
        return 0;
    memset(out, 0, sizeof(*out));
    out->module = model_python_module;
    if (id == ROCSYS_PY_CODE_UNREADABLE) { /* callers the collector could not read safely */
        out->function = unreadable;
        return 1;
    }
    slot = id == ROCSYS_PY_CODE_UNKNOWN
               ? NULL
               : hashmap_slot(&p->map, code_key(pid, gen_of(p, pid), id), 0);
    if (!slot) {
        if (!final_try && id != ROCSYS_PY_CODE_UNKNOWN)
            return -1; /* its PY_CODE may be in a ring not drained yet */
        out->function = unknown;
        return 1;
    }
    const struct py_code *c = &p->codes[*slot - 1];
    out->function = c->name;
    out->file = out->decl_file = c->file;
    out->line = out->decl_line = model_py_line(c->table_kind, c->table, c->table_len, c->first_line,
                                               ROCSYS_PY_FRAME_LASTI(pc));
    return 1;
}

/* Note module as one holding the interpreter (its other frames are the interpreter's too). */
static void note_interp(struct model_python *p, const char *module)
{
    for (int i = 0; i < p->ninterp; i++)
        if (p->interp[i] == module)
            return;
    if (module && p->ninterp < (int)(sizeof(p->interp) / sizeof(p->interp[0])))
        p->interp[p->ninterp++] = module;
}

/* Whether fn is one of Python 3.12+'s perf trampolines (-X perf), named "py::FUNCTION:FILE" in
 * perf-PID.map ([jit]). */
static int is_perf_trampoline(const struct model_func *fn)
{
    return fn->name && strncmp(fn->name, "py::", 4) == 0 && fn->module &&
           strcmp(fn->module, "[jit]") == 0;
}

/* The role of function f in merging: evaluation loop, other interpreter code, or neither. */
static int role_of(struct model *m, uint32_t f)
{
    struct model_python *p = m->python;
    const struct model_func *fn = &m->funcs[f];

    if (f >= p->nroles) {
        xgrow(&p->roles, &p->roles_cap, (size_t)f + 1, 1);
        memset(p->roles + p->nroles, 0, (size_t)f + 1 - p->nroles);
        p->nroles = (size_t)f + 1;
    }
    if (p->roles[f] == ROLE_EVAL || p->roles[f] == ROLE_INTERP)
        return p->roles[f];
    if ((p->roles[f] & ~ROLE_TLS) == ROLE_SEEN_OTHER + p->ninterp)
        return ROLE_OTHER;
    if (fn->name && strncmp(fn->name, "_PyEval_EvalFrameDefault", 24) == 0 &&
        (fn->name[24] == '\0' || fn->name[24] == '.')) {
        note_interp(p, fn->module);
        return p->roles[f] = ROLE_EVAL;
    }
    /* the program's start stays, though an interpreter linked into its executable (Debian's
     * python3.11) holds `_start` too: named once here, the role is kept per function */
    for (int i = 0; i < p->ninterp; i++)
        if (fn->module == p->interp[i] && fn->module && !(fn->name && !strcmp(fn->name, "_start")))
            return p->roles[f] = ROLE_INTERP;
    if (is_perf_trampoline(fn))
        return p->roles[f] = ROLE_INTERP;
    /* not (yet) known to be the interpreter's: looked at again once another module is */
    p->roles[f] = (uint8_t)(ROLE_SEEN_OTHER + p->ninterp +
                            (fn->name && strcmp(fn->name, "__tls_get_addr") == 0 ? ROLE_TLS : 0));
    return ROLE_OTHER;
}

/* Whether every group of Python frames says which native frame runs it (PY_AT), innermost group
 * at the innermost native frame: then the groups are placed by those indices. The outermost
 * group may say nothing (the callers a torn chain hides, or an evaluation call the native unwind
 * did not reach): it goes on the outermost side. */
static int groups_placed(const int *pentry, const uint32_t *pat, uint32_t np, uint32_t nn)
{
    int64_t prev = -1;
    int any = 0, open = 0; /* open: a group said nothing (only the outermost may) */

    for (uint32_t j = 0; j < np; j++) {
        if (!pentry[j])
            continue;
        if (open)
            return 0;
        if (pat[j] == ROCSYS_PY_AT_UNKNOWN) {
            open = 1;
            continue;
        }
        if (pat[j] >= nn || (int64_t)pat[j] <= prev)
            return 0;
        prev = pat[j];
        any = 1;
    }
    return any;
}

/* Count a merge that left `left` Python frames beyond the native root; the first one's native
 * functions (innermost first, "name@module", inline chains joined by '+') kept as text. */
static void note_beyond(struct model *m, const uint32_t *const *native, const uint32_t *nlen,
                        uint32_t nn, uint32_t left)
{
    struct model_python *p = m->python;

    if (p->beyond++)
        return;
    size_t o = (size_t)snprintf(p->beyond_text, sizeof(p->beyond_text), "%u left over;", left);
    for (uint32_t i = 0; i < nn && o < sizeof(p->beyond_text); i++)
        for (uint32_t k = 0; k < nlen[i] && o < sizeof(p->beyond_text); k++) {
            const struct model_func *fn = &m->funcs[native[i][k]];
            const char *mod = fn->module ? strrchr(fn->module, '/') : NULL;
            o += (size_t)snprintf(p->beyond_text + o, sizeof(p->beyond_text) - o, "%s%s@%s",
                                  k ? "+" : " ", fn->name ? fn->name : "?",
                                  mod          ? mod + 1
                                  : fn->module ? fn->module
                                               : "?");
        }
}

int model_python_hidden_alone(struct model *m, uint32_t f)
{
    if (!m->python || m->python->show_native || m->session.python_status != ROCSYS_PY_OK)
        return 0;
    return is_perf_trampoline(&m->funcs[f]) || role_of(m, f) == ROLE_EVAL;
}

uint32_t model_python_merge(struct model *m, const uint32_t *const *native, const uint32_t *nlen,
                            uint32_t nn, const uint32_t *const *py, const uint32_t *plen,
                            const int *pentry, const uint32_t *pat, uint32_t np, uint32_t *out,
                            uint32_t max)
{
    struct model_python *p = py_state(m);
    int placed = groups_placed(pentry, pat, np, nn);
    uint32_t o = 0, pi = 0, at = ROCSYS_PY_AT_UNKNOWN;

    if (placed) /* the frames that run Python code are the interpreter's, whatever their name */
        for (uint32_t j = 0; j < np; j++)
            if (pentry[j] && pat[j] < nn && nlen[pat[j]])
                note_interp(p, m->funcs[native[pat[j]][nlen[pat[j]] - 1]].module);
    for (uint32_t i = 0; i < nn; i++) /* the evaluation frames name the interpreter's modules */
        if (nlen[i])
            role_of(m, native[i][nlen[i] - 1]);
    for (uint32_t i = 0; i < nn; i++) {
        int role = nlen[i] ? role_of(m, native[i][nlen[i] - 1]) : ROLE_OTHER;
        if (placed) {
            /* the groups this native frame runs (the next group's end says where it runs) */
            for (;;) {
                at = ROCSYS_PY_AT_UNKNOWN;
                for (uint32_t j = pi; j < np && at == ROCSYS_PY_AT_UNKNOWN; j++)
                    at = pentry[j] ? pat[j] : at;
                if (at != i)
                    break;
                role = ROLE_EVAL;
                while (pi < np) {
                    for (uint32_t k = 0; k < plen[pi] && o < max; k++)
                        out[o++] = py[pi][k];
                    if (pentry[pi++])
                        break;
                }
            }
        } else if (role == ROLE_EVAL) { /* its group of Python frames, then (maybe) itself */
            while (pi < np) {
                for (uint32_t k = 0; k < plen[pi] && o < max; k++)
                    out[o++] = py[pi][k];
                if (pentry[pi++])
                    break;
            }
        }
        /* the dynamic TLS lookup libpython makes for its thread state is the interpreter's too */
        if (role == ROLE_OTHER && i + 1 < nn && nlen[i] && nlen[i + 1] &&
            role_of(m, native[i + 1][nlen[i + 1] - 1]) != ROLE_OTHER &&
            (p->roles[native[i][nlen[i] - 1]] & ROLE_TLS))
            role = ROLE_INTERP;
        if ((role == ROLE_EVAL || role == ROLE_INTERP) && !p->show_native)
            continue;
        for (uint32_t k = 0; k < nlen[i] && o < max; k++)
            out[o++] = native[i][k];
    }
    if (pi < np) /* (a developer's check: model_python_merge_check) */
        note_beyond(m, native, nlen, nn, np - pi);
    for (; pi < np; pi++) /* callers the native unwind did not reach */
        for (uint32_t k = 0; k < plen[pi] && o < max; k++)
            out[o++] = py[pi][k];
    return o;
}

uint64_t model_python_merge_check(const struct model *m, const char **first)
{
    *first = m->python && m->python->beyond ? m->python->beyond_text : "";
    return m->python ? m->python->beyond : 0;
}

void model_python_label(const struct model_func *f, char *buf, size_t n)
{
    const char *base;

    if (!f) {
        snprintf(buf, n, "?");
        return;
    }
    if (f->module != model_python_module || !f->file) {
        snprintf(buf, n, "%s", f->name ? f->name : "?");
        return;
    }
    base = strrchr(f->file, '/');
    base = base ? base + 1 : f->file;
    if (f->line > 0)
        snprintf(buf, n, "%s (%s:%d)", f->name, base, f->line);
    else
        snprintf(buf, n, "%s (%s)", f->name, base);
}
