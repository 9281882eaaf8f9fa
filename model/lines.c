/* Self samples per source line, for the Source view: one record per (function, file, line) that
 * was the exact pc of a sample's leaf, filled where the leaf address is symbolized (profile.c)
 * and counted with the sample, or loaded from a recording's lines.txt (replay).
 *
 * Memory is bounded: a record is made once per distinct leaf line (several addresses of a line
 * share it; each symbolized leaf address keeps the record's number), 24 bytes and a hash slot,
 * and never more than MODEL_LINES_MAX records: the lines found after that are not counted
 * (model_lines_summary's full says how many samples missed a line for that reason). */
#include <string.h>

#include "base/hashmap.h"
#include "model_internal.h"

#define MODEL_LINES_MAX (1u << 19) /* line records at most: about 20 MB with their hash slots */

struct line_rec {
    uint32_t func;
    int32_t line;
    const char *file; /* interned by the symbolizer (or the model, in a replay) */
    uint64_t count;   /* self samples since start (or the last reset) */
};

struct model_lines {
    struct line_rec *recs;
    size_t n, cap;
    struct hashmap map; /* (func, file, line) -> index + 1 */
    uint64_t full;      /* samples not counted: the table was full */
    uint64_t no_line;   /* leaf samples whose pc has no line (no debug info) */
    int recorded;       /* loaded from a recording: a reset (replay recount) keeps the counts */
};

/* Key of (func, file, line), well mixed. */
static uint64_t line_key(uint32_t func, const char *file, int line)
{
    return hashmap_mix(hashmap_mix((uint64_t)(uintptr_t)file) ^ ((uint64_t)func << 32) ^
                       (uint32_t)line);
}

/* The record of (func, file, line), made if new: its number (1, 2, ...), 0 without a file or
 * line, UINT32_MAX when the table is full. */
uint32_t model_lines_intern(struct model *m, uint32_t func, const char *file, int line)
{
    struct model_lines *l = m->lines;
    uint64_t key = line_key(func, file, line);
    uint32_t *slot;

    if (!file || line <= 0)
        return 0;
    if (!l)
        l = m->lines = xcalloc(1, sizeof(*l));
    for (;;) {
        slot = hashmap_slot(&l->map, key, 0);
        if (!slot)
            break;
        const struct line_rec *r = &l->recs[*slot - 1];
        if (r->func == func && r->line == line && r->file == file)
            return *slot;
        key = hashmap_mix(key + 1); /* a collision of mixed keys: probe with the next key */
    }
    if (l->n >= MODEL_LINES_MAX)
        return UINT32_MAX;
    xgrow(&l->recs, &l->cap, l->n + 1, sizeof(*l->recs));
    l->recs[l->n] = (struct line_rec){.func = func, .line = line, .file = file};
    *hashmap_slot(&l->map, key, 1) = (uint32_t)++l->n;
    return (uint32_t)l->n;
}

/* Count weight self samples of a sample whose leaf address has line record rec and whose
 * leaf function is leaf_func. */
void model_lines_count(struct model *m, uint32_t rec, uint32_t leaf_func, uint64_t weight)
{
    struct model_lines *l = m->lines;

    if (!l)
        l = m->lines = xcalloc(1, sizeof(*l));
    if (rec == UINT32_MAX)
        l->full += weight;
    else if (rec == 0 || rec > l->n || l->recs[rec - 1].func != leaf_func)
        l->no_line += weight; /* no line, or the leaf is another function (Python) */
    else
        l->recs[rec - 1].count += weight;
}

void model_lines_add(struct model *m, const char *function, const char *file, int line,
                     uint64_t count)
{
    uint32_t func = model_func_named(m, function);
    uint32_t rec = model_lines_intern(m, func, model_intern(m, file), line);

    if (rec && rec != UINT32_MAX)
        m->lines->recs[rec - 1].count += count;
    else if (m->lines)
        m->lines->full += count;
}

void model_lines_recorded(struct model *m)
{
    if (!m->lines)
        m->lines = xcalloc(1, sizeof(*m->lines));
    m->lines->recorded = 1;
}

void model_lines_reset(struct model *m)
{
    struct model_lines *l = m->lines;

    if (!l || l->recorded)
        return;
    for (size_t i = 0; i < l->n; i++)
        l->recs[i].count = 0;
    l->full = l->no_line = 0;
}

void model_lines_free(struct model *m)
{
    if (!m->lines)
        return;
    free(m->lines->recs);
    hashmap_free(&m->lines->map);
    free(m->lines);
    m->lines = NULL;
}

int model_func_lines(const struct model *m, int func, struct model_line_count **out)
{
    const struct model_lines *l = m->lines;
    int n = 0;

    *out = NULL;
    if (!l || func < 0)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        n += l->recs[i].func == (uint32_t)func && l->recs[i].count;
    if (!n)
        return 0;
    *out = xcalloc((size_t)n, sizeof(**out));
    n = 0;
    for (size_t i = 0; i < l->n; i++) {
        const struct line_rec *r = &l->recs[i];
        if (r->func == (uint32_t)func && r->count)
            (*out)[n++] =
                (struct model_line_count){.file = r->file, .line = r->line, .count = r->count};
    }
    return n;
}

void model_lines_summary(const struct model *m, struct model_lines_summary *out)
{
    const struct model_lines *l = m->lines;

    memset(out, 0, sizeof(*out));
    if (!l)
        return;
    out->records = l->n;
    out->full = l->full;
    out->no_line = l->no_line;
    out->recorded = l->recorded;
    for (size_t i = 0; i < l->n; i++)
        out->samples += l->recs[i].count;
}

/* File format (lines.txt): a "# rocsys-top lines 1" line, then one line per (function, file,
 * line) with self samples: "COUNT<TAB>LINE<TAB>FILE<TAB>FUNCTION" (FUNCTION last: it may hold
 * spaces); lines starting with '#' are comments. Fields holding a tab or a newline are not
 * written. */
int model_lines_write(const struct model *m, FILE *f)
{
    const struct model_lines *l = m->lines;

    fprintf(f,
            "# rocsys-top lines 1\n# self samples per source line: COUNT\tLINE\tFILE\tFUNCTION\n");
    for (size_t i = 0; l && i < l->n; i++) {
        const struct line_rec *r = &l->recs[i];
        const struct model_func *fn = model_func_at(m, (int)r->func);
        char label[MODEL_LABEL_MAX];
        if (!r->count || !fn || !fn->name || strpbrk(r->file, "\t\n"))
            continue;
        model_python_label(fn, label, sizeof(label));
        if (strpbrk(label, "\t\n"))
            continue;
        fprintf(f, "%llu\t%d\t%s\t%s\n", (unsigned long long)r->count, r->line, r->file, label);
    }
    return 0;
}

/* Parse one line of lines.txt into its fields (cut in place); 1, or 0 for a comment or a
 * malformed line. */
int model_lines_parse(char *s, uint64_t *count, int *line, const char **file, const char **func)
{
    char *f[4], *end;
    unsigned long long c;
    long ln;

    if (*s == '#' || !*s)
        return 0;
    for (int i = 0; i < 4; i++) {
        f[i] = s;
        s = i < 3 ? strchr(s, '\t') : s + strcspn(s, "\r\n");
        if (!s || (i < 3 && s == f[i]))
            return 0;
        *s++ = '\0';
    }
    c = strtoull(f[0], &end, 10);
    if (*end || end == f[0] || f[0][0] == '-')
        return 0;
    ln = strtol(f[1], &end, 10);
    if (*end || ln <= 0 || ln > INT32_MAX || !*f[3])
        return 0;
    *count = c;
    *line = (int)ln;
    *file = f[2];
    *func = f[3];
    return 1;
}
