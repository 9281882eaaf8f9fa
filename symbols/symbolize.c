/* Symbolizer: turns (pid, pc) into source-level frames with elfutils libdwfl. One Dwfl per
 * process, modules reported lazily on first use; results are cached per (pid, pc, kind) and
 * every string handed out is interned, so it stays valid until symbolizer_free.
 * Not thread-safe: the front end calls it from one thread.
 * This file holds the string interning, the lookup cache and the API; symbolize_modules.c the
 * processes and modules, symbolize_dwarf.c the DWARF side (symbolize_internal.h). */
#define _GNU_SOURCE
#include "symbolize_internal.h"

/* ---- string interning (base/intern.h) ---- */

/* The one stable copy of str (NULL stays NULL). */
const char *sym_intern(struct symbolizer *s, const char *str)
{
    return intern_str(&s->strs, str);
}

/* Interned "base+0xoffset" for code without a symbol. */
const char *sym_intern_offset_name(struct symbolizer *s, const char *base, uint64_t offset)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s+0x%" PRIx64, base, offset);
    return sym_intern(s, buf);
}

/* ---- the lookup cache ---- */

/* Cache keys of files (pid field): above every pid, the file's id below. */
#define SYM_FILE_KEY 0x80000000u

/* Home slot of a (pid, pc, is_ret) key. */
static inline size_t cache_slot(uint32_t pid, uint64_t pc, int is_ret, size_t cap)
{
    return hashmap_mix(pc * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)pid << 1 | (uint64_t)is_ret)) &
           (cap - 1);
}

/* The cached result for (pid, pc, is_ret), or NULL. */
static inline const struct cache_entry *cache_find(const struct symbolizer *s, uint32_t pid,
                                                   uint64_t pc, int is_ret)
{
    if (!s->cache_cap)
        return NULL;
    size_t j = cache_slot(pid, pc, is_ret, s->cache_cap);
    for (;;) {
        const struct cache_entry *e = &s->cache[j];
        if (!e->count)
            return NULL;
        if (e->pc == pc && e->pid == pid && e->is_ret == is_ret)
            return e;
        j = (j + 1) & (s->cache_cap - 1);
    }
}

/* Put e into a table known to have room and not to contain its key. */
static void cache_place(struct cache_entry *tab, size_t cap, const struct cache_entry *e)
{
    size_t j = cache_slot(e->pid, e->pc, e->is_ret, cap);
    while (tab[j].count)
        j = (j + 1) & (cap - 1);
    tab[j] = *e;
}

/* Rebuild the table with capacity cap, dropping pid's entries whose pc lies in [lo, hi]. */
void sym_cache_rebuild(struct symbolizer *s, size_t cap, uint32_t pid, uint64_t lo, uint64_t hi)
{
    struct cache_entry *tab = xcalloc(cap, sizeof *tab);
    size_t count = 0;
    for (size_t i = 0; i < s->cache_cap; i++) {
        const struct cache_entry *e = &s->cache[i];
        if (!e->count || (e->pid == pid && e->pc >= lo && e->pc <= hi))
            continue;
        cache_place(tab, cap, e);
        count++;
    }
    free(s->cache);
    s->cache = tab;
    s->cache_cap = cap;
    s->cache_count = count;
}

/* Another key for frames already stored (first, n): the file's entry for a process's. */
static const struct cache_entry *cache_alias(struct symbolizer *s, uint32_t pid, uint64_t pc,
                                             int is_ret, uint32_t first, uint16_t n)
{
    if ((s->cache_count + 1) * 2 > s->cache_cap)
        sym_cache_rebuild(s, s->cache_cap ? s->cache_cap * 2 : 4096, 0, 1, 0);
    struct cache_entry e = {
        .pc = pc, .pid = pid, .first = first, .count = n, .is_ret = (uint8_t)is_ret};
    cache_place(s->cache, s->cache_cap, &e);
    s->cache_count++;
    return cache_find(s, pid, pc, is_ret);
}

/* Remember n frames as the result of (pid, pc, is_ret); returns the stored copy. */
static const struct cache_entry *cache_insert(struct symbolizer *s, uint32_t pid, uint64_t pc,
                                              int is_ret, const struct sym_frame *fr, int n)
{
    if ((s->cache_count + 1) * 2 > s->cache_cap)
        sym_cache_rebuild(s, s->cache_cap ? s->cache_cap * 2 : 4096, 0, 1, 0);
    if (s->nframes + (size_t)n > s->capframes) {
        s->capframes = s->capframes ? s->capframes * 2 : 4096;
        while (s->nframes + (size_t)n > s->capframes)
            s->capframes *= 2;
        s->frames = xrealloc(s->frames, s->capframes * sizeof *s->frames);
    }
    memcpy(s->frames + s->nframes, fr, (size_t)n * sizeof *fr);
    struct cache_entry e = {.pc = pc,
                            .pid = pid,
                            .first = (uint32_t)s->nframes,
                            .count = (uint16_t)n,
                            .is_ret = (uint8_t)is_ret};
    s->nframes += (size_t)n;
    cache_place(s->cache, s->cache_cap, &e);
    s->cache_count++;
    return cache_find(s, pid, pc, is_ret);
}

/* Resolve pc of pid without the cache; returns the frame count, 0 if no module covers it, -1
 * while its file is being loaded. */
static int resolve(struct symbolizer *s, uint32_t pid, uint64_t pc, int is_ret,
                   struct sym_frame *fr, int max)
{
    struct sym_proc *p = sym_proc_inherit(s, sym_proc_find(s, pid), 0);
    if (!p)
        return 0;
    /* A return address points after the call: pc - 1 is inside the calling instruction. */
    uint64_t addr = is_ret && pc > 0 ? pc - 1 : pc;
    struct sym_module *m = sym_module_find(p, addr);
    if (!m) { /* JIT code, if the runtime says so in /tmp/perf-PID.map */
        const char *name = symbolizer_jit_lookup(&p->jit, pid, addr);
        if (!name)
            return 0;
        memset(fr, 0, sizeof *fr);
        fr->function = sym_intern(s, name);
        fr->module = sym_intern(s, "[jit]");
        return 1;
    }
    const char *fallback_base = sym_is_vdso_path(m->path) ? "[vdso]" : m->name;
    sym_module_file(s, m);
    /* the state is read once: the loader can publish READY between two reads, and a LOADING
     * then READY read as "not READY, not LOADING" would name (and cache) the address as a
     * failed file's. A state other than LOADING is final. */
    int state = symfile_state(m->file), light = 0;
    if (state == SYMFILE_LOADING)
        return -1;
    Dwfl_Module *dm = state == SYMFILE_READY ? symfile_module(m->file, &light) : NULL;
    if (dm)
        return sym_resolve_dwfl(s, m, dm, light, addr - m->bias, fallback_base, fr, max);
    memset(fr, 0, sizeof *fr);
    fr->function = sym_intern_offset_name(s, fallback_base, addr - m->bias);
    fr->module = m->name;
    fr->module_offset = addr - m->bias;
    return 1;
}

/* ---- public interface ---- */

void symbolizer_set_light(struct symbolizer *s, const char *symbol)
{
    s->light_symbol = symbol;
    symfiles_set_light(s->files, symbol);
}

void symbolizer_set_async(struct symbolizer *s, int async)
{
    symfiles_set_async(s->files, async);
}

int symbolizer_loading(struct symbolizer *s, char *name, size_t cap)
{
    return s ? symfiles_loading(s->files, name, cap) : 0;
}

int symbolizer_names_only(struct symbolizer *s, char *name, size_t cap, uint64_t *bytes)
{
    return s ? symfiles_names_only(s->files, name, cap, bytes) : 0;
}

int symbolizer_describe_files(struct symbolizer *s, const char *part, char *buf, size_t cap)
{
    return s ? symfiles_describe(s->files, part, buf, cap) : 0;
}

int symbolizer_wait(struct symbolizer *s, int timeout_ms)
{
    return s ? symfiles_wait(s->files, timeout_ms) : 0;
}

void symbolizer_give_up(struct symbolizer *s)
{
    if (s)
        symfiles_give_up(s->files);
}

struct symbolizer *symbolizer_new(void)
{
    struct symbolizer *s = xcalloc(1, sizeof *s);
    s->vdso_fd = -1;
    s->vdso_state = MOD_NEW;
    s->files = symfiles_new();
    return s;
}

void symbolizer_free(struct symbolizer *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nprocs; i++) {
        sym_proc_clear(s->procs[i]);
        free(s->procs[i]->mods);
        free(s->procs[i]);
    }
    free(s->procs);
    free(s->cache);
    free(s->frames);
    intern_free(&s->strs);
    symfiles_free(s->files);
    hashmap_free(&s->file_rules);
    if (s->vdso_fd >= 0)
        close(s->vdso_fd);
    free(s);
}

int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc, int is_return_address,
                      struct sym_frame *out, int max)
{
    struct sym_frame tmp[SYM_MAX_FRAMES];
    int is_ret = is_return_address ? 1 : 0;
    if (!s || !out || max <= 0)
        return 0;
    const struct cache_entry *e = cache_find(s, pid, pc, is_ret);
    if (!e) {
        /* the same file at the same offset in another process (a build's hundred cc1s, MPI
         * ranks): the frames are the same, kept once under the file's key */
        uint32_t fkey = 0;
        uint64_t faddr = 0;
        struct sym_proc *p = sym_proc_inherit(s, sym_proc_find(s, pid), 0);
        struct sym_module *m = p ? sym_module_find(p, is_ret && pc > 0 ? pc - 1 : pc) : NULL;
        if (m && m->file && symfile_state(m->file) == SYMFILE_READY) {
            fkey = SYM_FILE_KEY | symfile_id(m->file);
            faddr = pc - m->bias;
            const struct cache_entry *fe = cache_find(s, fkey, faddr, is_ret);
            if (fe)
                e = cache_alias(s, pid, pc, is_ret, fe->first, fe->count);
        }
        if (!e) {
            int n = resolve(s, pid, pc, is_ret, tmp, SYM_MAX_FRAMES);
            if (n <= 0)
                return n; /* not cached: the module may still be reported, or its file loads */
            e = cache_insert(s, pid, pc, is_ret, tmp, n);
            if (fkey) {
                uint32_t first = e->first;
                uint16_t count = e->count;
                cache_alias(s, fkey, faddr, is_ret, first, count);
                e = cache_find(s, pid, pc, is_ret); /* (the table may have been rebuilt) */
            }
        }
    }
    int n = e->count < max ? e->count : max;
    memcpy(out, s->frames + e->first, (size_t)n * sizeof *out);
    return n;
}

struct hashmap *symbolizer_file_rules(struct symbolizer *s)
{
    return &s->file_rules;
}
