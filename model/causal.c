/* Causal profiling results (model/causal.h): experiments per function and their predictions. */
#include "model/causal.h"
#include "collector/protocol.h"
#include "model/model.h"
#include "model_internal.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct model_causal *model_causal_new(void)
{
    return xcalloc(1, sizeof(struct model_causal));
}

void model_causal_free(struct model_causal *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->f[i].name);
        free(c->f[i].location);
        free(c->f[i].exp);
    }
    free(c->f);
    free(c->base);
    free(c);
}

/* The entry named name under parent (-1: a function), made when it is new. */
static struct model_causal_func *find_or_add(struct model_causal *c, int parent, const char *name,
                                             const char *location)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->f[i].parent == parent && strcmp(c->f[i].name, name) == 0)
            return &c->f[i];
    xgrow(&c->f, &c->cap, c->n + 1, sizeof(*c->f));
    struct model_causal_func *f = &c->f[c->n++];
    memset(f, 0, sizeof(*f));
    f->name = xstrdup(name);
    f->location = xstrdup(location ? location : "");
    f->parent = parent;
    return f;
}

struct model_causal_func *model_causal_func(struct model_causal *c, const char *name,
                                            const char *location)
{
    return find_or_add(c, -1, name, location);
}

struct model_causal_func *model_causal_line(struct model_causal *c, size_t parent, const char *name,
                                            const char *location)
{
    return find_or_add(c, (int)parent, name, location);
}

void model_causal_add(struct model_causal *c, struct model_causal_func *f,
                      const struct model_causal_exp *e)
{
    xgrow(&f->exp, &f->cap, f->nexp + 1, sizeof(*f->exp));
    f->exp[f->nexp++] = *e;
    if (e->speedup_pct == 0 && e->delta >= MODEL_CAUSAL_MIN_DELTA) {
        xgrow(&c->base, &c->base_cap, c->nbase + 1, sizeof(*c->base));
        c->base[c->nbase++] = *e;
    }
}

#define LOCAL_BASELINES 4 /* an experiment is compared with this many 0 % ones around it */

/* Time per progress point (latency points: mean latency) at 0 % around time t: the 0 % slices of
 * the experiment that started at t, else the LOCAL_BASELINES 0 % experiments nearest to t, pooled
 * (summed durations over summed progress, as Coz's viewer pools); 0 when there are none. */
static double local_baseline(const struct model_causal *c, uint64_t t, uint64_t *n)
{
    size_t lo = 0, hi = c->nbase; /* first baseline at or after t */
    uint64_t dur = 0, delta = 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->base[mid].start_ns < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < c->nbase && c->base[lo].start_ns == t) { /* the experiment's own 0 % slices */
        *n = c->base[lo].delta;
        return (double)(c->latency ? c->base[lo].area_ns : c->base[lo].duration_ns) /
               (double)c->base[lo].delta;
    }
    size_t before = lo, after = lo;
    for (int k = 0; k < LOCAL_BASELINES && (before > 0 || after < c->nbase); k++) {
        const struct model_causal_exp *b;
        if (after >= c->nbase ||
            (before > 0 && t - c->base[before - 1].start_ns < c->base[after].start_ns - t))
            b = &c->base[--before];
        else
            b = &c->base[after++];
        dur += c->latency ? b->area_ns : b->duration_ns;
        delta += b->delta;
    }
    *n = delta;
    return delta ? (double)dur / (double)delta : 0.0;
}

/* Experiment e's measured program speedup (fraction), against its local baseline, and its
 * weight in the fitted line: the progress points behind the less measured of its two rates
 * (each rate's error shrinks as its count grows; on a loaded machine the counts of one run's
 * experiments differ tenfold, and those with little progress are the noisiest). */
static int measured(const struct model_causal *c, const struct model_causal_exp *e, double *g,
                    double *w)
{
    uint64_t n = 0;

    if (e->delta < MODEL_CAUSAL_MIN_DELTA)
        return 0;
    double p0 = local_baseline(c, e->start_ns, &n);
    if (p0 <= 0)
        return 0;
    *g = (p0 - (double)(c->latency ? e->area_ns : e->duration_ns) / (double)e->delta) / p0;
    *w = (double)(n < e->delta ? n : e->delta);
    return 1;
}

void model_causal_curve(const struct model_causal *c, const struct model_causal_func *f,
                        struct model_causal_curve *out)
{
    double sxx = 0, sxy = 0, rss = 0, g, fw; /* weighted (measured's fw) */
    double wsum[MODEL_CAUSAL_STEPS] = {0}, gsum[MODEL_CAUSAL_STEPS] = {0};
    int npts = 0, nall = 0, lo_pct = 101, hi_pct = 0;

    memset(out, 0, sizeof(*out));
    for (int k = 0; k < MODEL_CAUSAL_STEPS; k++)
        out->gain[k] = NAN;
    for (size_t i = 0; i < f->nexp; i++) {
        const struct model_causal_exp *e = &f->exp[i];
        if (e->speedup_pct == 0 && e->delta >= MODEL_CAUSAL_MIN_DELTA)
            out->baselines++;
        if (!measured(c, e, &g, &fw))
            continue;
        double s = e->speedup_pct / 100.0, w = (double)e->duration_ns;
        int k = (e->speedup_pct + 5) / 10; /* 5 % goes to 10 %, 15 % to 20 % ... */
        if (e->speedup_pct % 10 == 5) {    /* between two steps: half to each */
            wsum[k - 1] += w / 2;
            gsum[k - 1] += w / 2 * g;
            w /= 2;
        }
        wsum[k] += w;
        gsum[k] += w * g;
        sxx += fw * s * s;
        sxy += fw * s * g;
        if (e->speedup_pct > 0) {
            npts++;
            lo_pct = e->speedup_pct < lo_pct ? e->speedup_pct : lo_pct;
            hi_pct = e->speedup_pct > hi_pct ? e->speedup_pct : hi_pct;
        }
        out->experiments++;
    }
    if (npts < 2 || lo_pct == hi_pct || sxx <= 0 || c->nbase == 0)
        return; /* a line needs a baseline and two speedups */
    out->slope = sxy / sxx;
    for (size_t i = 0; i < f->nexp; i++) {
        double s = f->exp[i].speedup_pct / 100.0;
        if (!measured(c, &f->exp[i], &g, &fw))
            continue;
        rss += fw * (g - out->slope * s) * (g - out->slope * s);
        nall++;
    }
    out->slope_ci = nall > 1 ? 1.96 * sqrt(rss / (nall - 1) / sxx) : NAN;
    for (int k = 0; k < MODEL_CAUSAL_STEPS; k++) {
        if (k == 0)
            out->gain[k] = 0;
        else if (wsum[k] > 0)
            out->gain[k] = gsum[k] / wsum[k];
        out->ci[k] = out->slope_ci * k / 10.0;
    }
    out->valid = 1;
}

/* The sort key: the predicted gain at 20 % (the fitted line's: every experiment counts, not
 * only the few near 20 %). */
static double gain20(const struct model_causal *c, const struct model_causal_func *f, int *valid)
{
    struct model_causal_curve cv;
    model_causal_curve(c, f, &cv);
    *valid = cv.valid;
    return cv.valid ? cv.slope * 0.2 : 0;
}

static const struct model_causal *sort_c;

/* qsort: valid curves first, by gain at 20 %, descending. */
static int by_gain(const void *a, const void *b)
{
    int va, vb;
    double ga = gain20(sort_c, &sort_c->f[*(const size_t *)a], &va);
    double gb = gain20(sort_c, &sort_c->f[*(const size_t *)b], &vb);
    if (va != vb)
        return vb - va;
    return ga < gb ? 1 : ga > gb ? -1 : 0;
}

size_t *model_causal_order(const struct model_causal *c)
{
    size_t *all = xmalloc((c->n + 1) * sizeof(*all)), *idx = xmalloc((c->n + 1) * sizeof(*idx));
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        all[i] = i;
    sort_c = c;
    qsort(all, c->n, sizeof(*all), by_gain);
    sort_c = NULL;
    for (size_t i = 0; i < c->n; i++) { /* each function, then its lines (in the same order) */
        if (c->f[all[i]].parent >= 0)
            continue;
        idx[k++] = all[i];
        for (size_t j = 0; j < c->n; j++)
            if (c->f[all[j]].parent == (int)all[i])
                idx[k++] = all[j];
    }
    for (size_t i = 0; i < c->n && k < c->n; i++) /* (a line whose function is unknown) */
        if (c->f[all[i]].parent >= (int)c->n)
            idx[k++] = all[i];
    free(all);
    return idx;
}

void model_causal_print(FILE *out, const struct model_causal *c, int max_rows)
{
    char stalled[64] = "";

    if (c->stalled)
        snprintf(stalled, sizeof(stalled), ", %llu dropped: a half stalled",
                 (unsigned long long)c->stalled);
    fprintf(out,
            "== Causal profile: progress %s (%llu reached); %llu experiments (%llu counted%s), "
            "%.1f s each now, delays slept %.1f s ==\n",
            c->progress[0] ? c->progress : "(none seen yet)", (unsigned long long)c->progress_total,
            (unsigned long long)c->experiments, (unsigned long long)c->kept, stalled,
            (double)c->exp_len_ns / 1e9, (double)c->paid_ns / 1e9);
    if (c->note[0])
        fprintf(out, "  %s\n", c->note);
    fprintf(out,
            "  %7s %6s %7s %6s %4s  program speedup (%%) if the function were 0 10 20 ... 100 "
            "%% faster  function\n",
            "gain@20", "+-95%", "@100%", "+-95%", "exps");
    size_t *idx = model_causal_order(c);
    for (size_t r = 0; r < c->n && (max_rows <= 0 || (int)r < max_rows); r++) {
        const struct model_causal_func *f = &c->f[idx[r]];
        struct model_causal_curve cv;
        char steps[MODEL_CAUSAL_STEPS * 6 + 1] = "";
        int valid;
        double g20 = gain20(c, f, &valid);
        model_causal_curve(c, f, &cv);
        for (int k = 0; k < MODEL_CAUSAL_STEPS; k++) {
            size_t len = strlen(steps);
            if (isnan(cv.gain[k]))
                snprintf(steps + len, sizeof(steps) - len, " %5s", ".");
            else
                snprintf(steps + len, sizeof(steps) - len, " %5.1f", 100 * cv.gain[k]);
        }
        const char *indent = f->parent >= 0 ? "    " : ""; /* a line, under its function */
        if (valid)
            fprintf(out, "  %6.1f%% %6.1f %6.1f%% %6.1f %4d %s  %s%s  %s\n", 100 * g20,
                    100 * cv.slope_ci * 0.2, 100 * cv.slope, 100 * cv.slope_ci, cv.experiments,
                    steps, indent, f->name, f->location);
        else
            fprintf(out, "  %7s %6s %7s %6s %4zu %s  %s%s  %s\n", "-", "-", "-", "-", f->nexp,
                    steps, indent, f->name, f->location);
    }
    free(idx);
}

int model_causal_func_range(struct model *m, uint32_t pid, uint64_t pc, const char *module,
                            uint64_t *lo, uint64_t *hi, char *name, size_t name_cap, char *loc,
                            size_t loc_cap)
{
    struct symbolizer *sym = model_symbolizer(m);
    const char *mod = symbolizer_module_name(sym, pid, pc);
    Dwfl_Module *dm;
    uint64_t faddr;
    uint32_t fid;
    GElf_Off off = 0;
    GElf_Sym es;
    struct sym_frame fr[16];

    if (!mod || (module && strcmp(mod, module) != 0))
        return 0;
    int rc = symbolizer_file_of(sym, pid, pc, &dm, &faddr, &fid);
    if (rc != 1)
        return rc == 0 ? -1 : 0;
    const char *raw = dwfl_module_addrinfo(dm, faddr, &off, &es, NULL, NULL, NULL);
    if (!raw || es.st_size == 0 || off >= es.st_size)
        return 0;
    *lo = pc - off;
    *hi = *lo + es.st_size;
    int k = symbolizer_lookup(sym, pid, pc, 0, fr, 16);
    if (k < 0)
        return -1;
    const struct sym_frame *outer = k > 0 ? &fr[k - 1] : NULL; /* the function, not inlined */
    snprintf(name, name_cap, "%s", outer && outer->function ? outer->function : raw);
    if (outer && outer->decl_file)
        snprintf(loc, loc_cap, "%s:%d", outer->decl_file, outer->decl_line);
    else
        snprintf(loc, loc_cap, "%s", mod);
    return 1;
}

int model_causal_python_func(struct model *m, uint32_t pid, uint32_t code_id, char *name,
                             size_t name_cap, char *loc, size_t loc_cap)
{
    struct sym_frame fr; /* (no instruction yet: the line of its definition) */

    if (model_python_frame(m, pid, ROCSYS_PY_FRAME(code_id, ROCSYS_PY_LASTI_UNKNOWN, 0), 0, &fr) !=
            1 ||
        !fr.file)
        return 0;
    snprintf(name, name_cap, "%s", fr.function);
    snprintf(loc, loc_cap, "%s:%d", fr.file, fr.decl_line);
    return 1;
}

int model_causal_python_line(struct model *m, uint32_t pid, uint64_t frame, char *file, size_t cap,
                             int *line)
{
    struct sym_frame fr;

    if (model_python_frame(m, pid, frame, 0, &fr) != 1 || !fr.file || fr.line <= 0)
        return 0;
    snprintf(file, cap, "%s", fr.file);
    *line = fr.line;
    return 1;
}

int model_causal_python_line_ranges(struct model *m, uint32_t pid, uint32_t code_id, int line,
                                    uint64_t *rlo, uint64_t *rhi, int max)
{
    uint32_t lo[ROCSYS_CAUSAL_RANGES], hi[ROCSYS_CAUSAL_RANGES];
    int n = model_python_line_spans(m, pid, code_id, line, lo, hi,
                                    max < ROCSYS_CAUSAL_RANGES ? max : ROCSYS_CAUSAL_RANGES);

    for (int i = 0; i < n; i++) {
        rlo[i] = (uint64_t)code_id << 24 | lo[i];
        rhi[i] = (uint64_t)code_id << 24 | hi[i];
    }
    return n;
}

uint64_t model_causal_symbol(struct model *m, uint32_t pid, uint64_t pc, const char *symbol)
{
    Dwfl_Module *dm;
    uint64_t faddr;
    uint32_t fid;

    if (symbolizer_file_of(model_symbolizer(m), pid, pc, &dm, &faddr, &fid) != 1)
        return 0;
    int n = dwfl_module_getsymtab(dm);
    for (int i = 1; i < n; i++) {
        GElf_Sym es;
        GElf_Addr addr;
        const char *nm = dwfl_module_getsym_info(dm, i, &es, &addr, NULL, NULL, NULL);
        if (nm && GELF_ST_TYPE(es.st_info) == STT_FUNC && es.st_shndx != SHN_UNDEF &&
            strcmp(nm, symbol) == 0)
            return pc - faddr + addr;
    }
    return 0;
}

int model_causal_pc_line(struct model *m, uint32_t pid, uint64_t pc, char *file, size_t cap,
                         int *line)
{
    Dwfl_Module *dm;
    uint64_t faddr;
    uint32_t fid;
    int ln = 0;

    if (symbolizer_file_of(model_symbolizer(m), pid, pc, &dm, &faddr, &fid) != 1)
        return 0;
    Dwfl_Line *l = dwfl_module_getsrc(dm, faddr);
    const char *src = l ? dwfl_lineinfo(l, NULL, &ln, NULL, NULL, NULL) : NULL;
    if (!src || ln <= 0)
        return 0;
    snprintf(file, cap, "%s", src);
    *line = ln;
    return 1;
}

struct line_range {
    uint64_t lo, hi;
};

/* qsort: the longest range first. */
static int by_length(const void *a, const void *b)
{
    const struct line_range *x = a, *y = b;
    uint64_t lx = x->hi - x->lo, ly = y->hi - y->lo;
    return lx < ly ? 1 : lx > ly ? -1 : 0;
}

#define LINE_RANGES_MAX 64

int model_causal_line_ranges(struct model *m, uint32_t pid, uint64_t pc, uint64_t lo, uint64_t hi,
                             const char *file, int line, uint64_t *rlo, uint64_t *rhi, int max)
{
    struct line_range r[LINE_RANGES_MAX];
    Dwfl_Module *dm;
    uint64_t faddr;
    uint32_t fid;
    Dwarf_Addr bias;
    Dwarf_Lines *lines;
    size_t n, nr = 0;

    if (symbolizer_file_of(model_symbolizer(m), pid, pc, &dm, &faddr, &fid) != 1)
        return 0;
    Dwarf_Die *cu = dwfl_module_addrdie(dm, faddr, &bias);
    if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0)
        return 0;
    uint64_t delta = pc - faddr; /* the file's addresses -> the process's */
    for (size_t i = 0; i + 1 < n; i++) {
        Dwarf_Line *l = dwarf_onesrcline(lines, i), *next = dwarf_onesrcline(lines, i + 1);
        Dwarf_Addr a, b;
        bool end = 0;
        int ln = 0;
        if (!l || !next || dwarf_lineendsequence(l, &end) != 0 || end ||
            dwarf_lineno(l, &ln) != 0 || ln != line || dwarf_lineaddr(l, &a) != 0 ||
            dwarf_lineaddr(next, &b) != 0 || b <= a)
            continue;
        const char *src = dwarf_linesrc(l, NULL, NULL);
        if (!src || strcmp(src, file) != 0)
            continue;
        uint64_t x = a + bias + delta, y = b + bias + delta;
        x = x < lo ? lo : x;
        y = y > hi ? hi : y;
        if (x >= y)
            continue;
        if (nr > 0 && r[nr - 1].hi == x) /* rows of the same line, one after the other */
            r[nr - 1].hi = y;
        else if (nr < LINE_RANGES_MAX)
            r[nr++] = (struct line_range){x, y};
    }
    qsort(r, nr, sizeof(r[0]), by_length);
    int k = 0;
    for (; k < max && (size_t)k < nr; k++) {
        rlo[k] = r[k].lo;
        rhi[k] = r[k].hi;
    }
    return k;
}
