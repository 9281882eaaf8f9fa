/* Symbolizer: turns (pid, pc) into source-level frames with elfutils libdwfl. One Dwfl per
 * process, modules reported lazily on first use; results are cached per (pid, pc, kind) and
 * every string handed out is interned, so it stays valid until symbolizer_free.
 * Not thread-safe: the front end calls it from one thread. */
#define _GNU_SOURCE /* memfd_create, mkostemp */
#include "hashmap.h"
#include "model.h"
#include "model_internal.h"

#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

/* libstdc++'s demangler (the front end links libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define SYM_MAX_FRAMES 32          /* inline depth kept per pc (deeper chains are cut) */
#define STR_CHUNK_SIZE (64 * 1024) /* interned strings are carved out of chunks this big */
#define VDSO_NAME      "linux-vdso.so.1"
#define VDSO_MAX_SIZE  (1u << 20) /* sanity bound for the in-memory vDSO image */

typedef ElfW(Ehdr) native_ehdr; /* this process's ELF class (the vDSO's) */
typedef ElfW(Phdr) native_phdr;

enum mod_state { MOD_NEW, MOD_OK, MOD_FAILED };

struct str_chunk {
    struct str_chunk *next;
    size_t used, cap;
    char data[];
};

/* Open-addressing set of interned strings (slots hold pointers into the chunks). */
struct intern_table {
    const char **slots;
    size_t cap, count; /* cap is a power of two */
    struct str_chunk *chunks;
};

/* One cached lookup; count == 0 marks an empty slot (a cached result has >= 1 frame). */
struct cache_entry {
    uint64_t pc;
    uint32_t pid;
    uint32_t first; /* index into symbolizer.frames */
    uint16_t count;
    uint8_t is_ret;
};

struct sym_module {
    char *path;
    const char *name; /* interned basename */
    uint64_t bias, start, end;
    uint8_t *build_id;
    size_t build_id_len;
    Dwfl_Module *dwmod;    /* non-NULL once reported to the process's Dwfl */
    enum mod_state state;  /* in the process's Dwfl (unwinding) */
    struct sym_file *file; /* where its symbols come from (symfiles.c), on first need */
};

struct sym_proc {
    uint32_t pid;
    int forgotten;  /* symbolizer_forget_process ran: a new module means the pid was reused */
    int dwfl_dirty; /* modules that were reported got removed: drop them before reporting more */
    Dwfl *dwfl;     /* created lazily */
    struct sym_module *mods; /* sorted by start, non-overlapping */
    int nmods, capmods;
    struct hashmap unwind_rules; /* pc -> unwind rule (unwind.c) */
    struct symbolizer_jit *jit;  /* names of JIT code (perfmap.c), read on first need */
    uint32_t forked_from;        /* the parent it was forked from (its modules, if none yet) */
};

struct symbolizer {
    struct intern_table strs;
    struct cache_entry *cache;
    size_t cache_cap, cache_count;
    struct sym_frame *frames; /* cached frames, referenced by cache entries */
    size_t nframes, capframes;
    struct sym_proc **procs; /* sorted by pid */
    int nprocs, capprocs;
    int vdso_state; /* MOD_NEW: not tried yet */
    int vdso_fd;
    char vdso_path[64];
    const char *light_symbol; /* a module holding this ELF symbol is resolved light */
    struct symbolizer_files *files;
    struct hashmap file_rules; /* (file, file address) -> unwind rule (unwind.c) */
};

static char *debuginfo_path; /* NULL: libdwfl's default (".debug" and /usr/lib/debug) */

/* The processes' Dwfls unwind with the files' own .eh_frame and .debug_frame: they never look
 * for separate debug files (which may be downloaded: symfiles.c does that off this thread). */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                        const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                        char **debuginfo_file_name)
{
    (void)mod, (void)userdata, (void)modname, (void)base, (void)file_name, (void)debuglink_file;
    (void)debuglink_crc, (void)debuginfo_file_name;
    return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = no_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

/* ---- hashing and string interning ---- */

/* Spread all input bits over the result (the model's mixer; never 0). */
static inline uint64_t mix64(uint64_t x)
{
    return hashmap_mix(x);
}

/* FNV-1a over a NUL-terminated string. */
static uint64_t hash_str(const char *str)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)str; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return mix64(h);
}

/* Copy str into chunk storage that lives until the table is freed. */
static const char *intern_store(struct intern_table *t, const char *str)
{
    size_t n = strlen(str) + 1;
    struct str_chunk *c = t->chunks;
    if (!c || c->cap - c->used < n) {
        size_t cap = n > STR_CHUNK_SIZE / 4 ? n : STR_CHUNK_SIZE;
        c = xmalloc(sizeof *c + cap);
        c->used = 0;
        c->cap = cap;
        if (cap == n && t->chunks) { /* oversized: keep the current chunk in front */
            c->next = t->chunks->next;
            t->chunks->next = c;
        } else {
            c->next = t->chunks;
            t->chunks = c;
        }
    }
    char *dst = c->data + c->used;
    memcpy(dst, str, n);
    c->used += n;
    return dst;
}

/* Double the slot array and rehash every interned string. */
static void intern_grow(struct intern_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 1024;
    const char **slots = xcalloc(cap, sizeof *slots);
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i])
            continue;
        size_t j = hash_str(t->slots[i]) & (cap - 1);
        while (slots[j])
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
}

/* The one stable copy of str (NULL stays NULL). */
static const char *intern(struct symbolizer *s, const char *str)
{
    struct intern_table *t = &s->strs;
    if (!str)
        return NULL;
    if ((t->count + 1) * 2 > t->cap)
        intern_grow(t);
    size_t j = hash_str(str) & (t->cap - 1);
    while (t->slots[j]) {
        if (strcmp(t->slots[j], str) == 0)
            return t->slots[j];
        j = (j + 1) & (t->cap - 1);
    }
    t->slots[j] = intern_store(t, str);
    t->count++;
    return t->slots[j];
}

/* GCC's outlined OpenMP region bodies ("foo._omp_fn.3", demangled C++ "foo() [clone
 * ._omp_fn.3]"): "foo [omp parallel 3]" in buf (libgomp has no tool interface; the frame is
 * what names the region). Returns buf, or name when it is not one. */
static const char *omp_outlined_name(const char *name, char *buf, size_t cap)
{
    const char *p = strstr(name, "._omp_fn."), *n, *end;
    size_t keep;

    if (!p)
        return name;
    n = p + strlen("._omp_fn.");
    end = n;
    while (*end >= '0' && *end <= '9')
        end++;
    if (end == n)
        return name;
    keep = (size_t)(p - name);
    if (keep >= strlen(" [clone ") && strncmp(p - strlen(" [clone "), " [clone ", 8) == 0 &&
        *end == ']' && end[1] == '\0')
        keep -= strlen(" [clone ");
    else if (*end != '\0')
        return name;
    snprintf(buf, cap, "%.*s [omp parallel %.*s]", (int)keep, name, (int)(end - n), n);
    return buf;
}

/* Interned, demangled form of an ELF or DWARF linkage name (non-C++ names unchanged), without
 * an ELF symbol version ("clock_gettime@@GLIBC_2.17" -> "clock_gettime"); GCC's outlined
 * OpenMP bodies as "foo [omp parallel N]". */
static const char *intern_demangled(struct symbolizer *s, const char *name)
{
    char omp[512];
    const char *out;
    char *dem = NULL, *plain = NULL;
    int status = -1;
    if (!name || !*name)
        return NULL;
    const char *at = strchr(name, '@');
    if (at && at != name) {
        plain = strndup(name, (size_t)(at - name));
        if (plain)
            name = plain;
    }
    if (name[0] == '_' && name[1] == 'Z')
        dem = __cxa_demangle(name, NULL, NULL, &status);
    out = intern(s, omp_outlined_name(status == 0 && dem ? dem : name, omp, sizeof(omp)));
    free(dem);
    free(plain);
    return out;
}

/* Interned "base+0xoffset" for code without a symbol. */
static const char *intern_offset_name(struct symbolizer *s, const char *base, uint64_t offset)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s+0x%" PRIx64, base, offset);
    return intern(s, buf);
}

/* The name of code without a symbol in Dwfl module dm: "base@0xSTART", START where its
 * function begins by the unwind tables (one name per function, which `objdump -d
 * --start-address=0xSTART` shows); "base+0xOFFSET" (one name per instruction) without them. */
static const char *unnamed_function(struct symbolizer *s, Dwfl_Module *dm, uint64_t addr,
                                    const char *base)
{
    uint64_t start;
    char buf[512];

    if (!dm || !symbolizer_function_start(dm, addr, &start))
        return intern_offset_name(s, base, addr);
    snprintf(buf, sizeof buf, "%s@0x%" PRIx64, base, start);
    return intern(s, buf);
}

/* ---- the lookup cache ---- */

/* Cache keys of files (pid field): above every pid, the file's id below. */
#define SYM_FILE_KEY 0x80000000u

/* Home slot of a (pid, pc, is_ret) key. */
static inline size_t cache_slot(uint32_t pid, uint64_t pc, int is_ret, size_t cap)
{
    return mix64(pc * 0x9e3779b97f4a7c15ULL ^ ((uint64_t)pid << 1 | (uint64_t)is_ret)) & (cap - 1);
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
static void cache_rebuild(struct symbolizer *s, size_t cap, uint32_t pid, uint64_t lo, uint64_t hi)
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
        cache_rebuild(s, s->cache_cap ? s->cache_cap * 2 : 4096, 0, 1, 0);
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
        cache_rebuild(s, s->cache_cap ? s->cache_cap * 2 : 4096, 0, 1, 0);
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

/* ---- processes and modules ---- */

/* Index of pid in the sorted process table, or -(insertion point) - 1. */
static int proc_index(const struct symbolizer *s, uint32_t pid)
{
    int lo = 0, hi = s->nprocs - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        uint32_t p = s->procs[mid]->pid;
        if (p == pid)
            return mid;
        if (p < pid)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -lo - 1;
}

/* The process entry for pid, or NULL. */
static struct sym_proc *proc_find(const struct symbolizer *s, uint32_t pid)
{
    int i = proc_index(s, pid);
    return i >= 0 ? s->procs[i] : NULL;
}

/* The process entry for pid, created on first use. */
static struct sym_proc *proc_get(struct symbolizer *s, uint32_t pid)
{
    int i = proc_index(s, pid);
    if (i >= 0)
        return s->procs[i];
    i = -i - 1;
    if (s->nprocs == s->capprocs) {
        s->capprocs = s->capprocs ? s->capprocs * 2 : 16;
        s->procs = xrealloc(s->procs, (size_t)s->capprocs * sizeof *s->procs);
    }
    memmove(s->procs + i + 1, s->procs + i, (size_t)(s->nprocs - i) * sizeof *s->procs);
    struct sym_proc *p = xcalloc(1, sizeof *p);
    p->pid = pid;
    s->procs[i] = p;
    s->nprocs++;
    return p;
}

/* Free what a module entry owns. */
static void module_release(struct sym_module *m)
{
    free(m->path);
    free(m->build_id);
}

/* Drop all of p's modules and its Dwfl (the cache is untouched). */
static void proc_clear(struct sym_proc *p)
{
    for (int i = 0; i < p->nmods; i++)
        module_release(&p->mods[i]);
    p->nmods = 0;
    hashmap_free(&p->unwind_rules);
    symbolizer_jit_free(p->jit);
    p->jit = NULL;
    if (p->dwfl)
        dwfl_end(p->dwfl);
    p->dwfl = NULL;
    p->dwfl_dirty = 0;
}

/* The module of p covering addr, or NULL. */
static struct sym_module *module_find(struct sym_proc *p, uint64_t addr)
{
    int lo = 0, hi = p->nmods - 1, best = -1;
    while (lo <= hi) { /* last module with start <= addr */
        int mid = lo + (hi - lo) / 2;
        if (p->mods[mid].start <= addr) {
            best = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (best < 0 || addr >= p->mods[best].end)
        return NULL;
    return &p->mods[best];
}

/* Copy the modules of from_pid to to_pid. */
static void copy_modules(struct symbolizer *s, uint32_t from_pid, uint32_t to_pid)
{
    struct sym_proc *from = proc_find(s, from_pid);
    if (!from || from_pid == to_pid || from->nmods == 0)
        return;
    /* copy the list first: adding modules to to_pid may reallocate the process table */
    int n = from->nmods;
    struct sym_module *mods = xcalloc((size_t)n + 1, sizeof(*mods));
    memcpy(mods, from->mods, (size_t)n * sizeof(*mods));
    for (int i = 0; i < n; i++)
        symbolizer_add_module(s, to_pid, mods[i].path, mods[i].bias, mods[i].start, mods[i].end,
                              mods[i].build_id, mods[i].build_id_len);
    free(mods);
}

/* A forked process with no module of its own yet takes its parent's, now: the parent's own
 * records can be decoded after the child's (they come through different rings), as with a
 * daemon's double fork, whose middle process exits at once. */
static struct sym_proc *proc_inherit(struct symbolizer *s, struct sym_proc *p, int depth)
{
    if (!p || p->nmods > 0 || !p->forked_from || depth > 8)
        return p;
    uint32_t pid = p->pid, parent = p->forked_from;
    proc_inherit(s, proc_find(s, parent), depth + 1);
    copy_modules(s, parent, pid);
    return proc_find(s, pid);
}

/* Whether path names the vDSO as the collector reports it. */
static int is_vdso_path(const char *path)
{
    return strcmp(path, VDSO_NAME) == 0 || strcmp(path, "[vdso]") == 0;
}

/* ---- the vDSO ---- */

/* Size of the ELF image at ehdr: it covers the headers, every PT_LOAD's file bytes and the
 * section headers (the kernel maps the whole vDSO image, section headers included). */
static size_t elf_image_size(const native_ehdr *eh)
{
    size_t size = sizeof *eh;
    const native_phdr *ph = (const native_phdr *)((const char *)eh + eh->e_phoff);
    if (eh->e_phoff + (size_t)eh->e_phnum * sizeof *ph > size)
        size = eh->e_phoff + (size_t)eh->e_phnum * sizeof *ph;
    for (int i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD && ph[i].p_offset + ph[i].p_filesz > size)
            size = ph[i].p_offset + ph[i].p_filesz;
    if (eh->e_shoff && eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > size)
        size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
    return size;
}

/* A file holding this process's vDSO image (the same image every process on this kernel
 * maps), written once; NULL if that is not possible. */
static const char *vdso_file(struct symbolizer *s)
{
    int fd = -1;
    if (s->vdso_state != MOD_NEW)
        goto done;
    s->vdso_state = MOD_FAILED;
    const native_ehdr *eh = (const native_ehdr *)getauxval(AT_SYSINFO_EHDR);
    if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
        goto done;
    size_t size = elf_image_size(eh);
    if (size > VDSO_MAX_SIZE)
        goto done;
    fd = memfd_create("rocsys-vdso", MFD_CLOEXEC);
    if (fd < 0) {
        char tmpl[] = "/tmp/rocsys-vdso-XXXXXX";
        fd = mkostemp(tmpl, O_CLOEXEC);
        if (fd < 0)
            goto done;
        unlink(tmpl); /* reached through /proc/self/fd from now on */
    }
    for (size_t off = 0; off < size;) {
        ssize_t w = write(fd, (const char *)eh + off, size - off);
        if (w <= 0)
            goto done;
        off += (size_t)w;
    }
    snprintf(s->vdso_path, sizeof s->vdso_path, "/proc/self/fd/%d", fd);
    if (access(s->vdso_path, R_OK) != 0)
        goto done;
    s->vdso_fd = fd;
    fd = -1;
    s->vdso_state = MOD_OK;
done:
    if (fd >= 0)
        close(fd);
    return s->vdso_state == MOD_OK ? s->vdso_path : NULL;
}

/* ---- reporting modules to libdwfl ---- */

/* Remove modules that left p's table from its Dwfl: re-report the ones still in use. */
static void proc_drop_removed_modules(struct sym_proc *p)
{
    dwfl_report_begin(p->dwfl); /* everything not reported again is freed at report_end */
    for (int i = 0; i < p->nmods; i++) {
        struct sym_module *m = &p->mods[i];
        if (!m->dwmod)
            continue;
        Dwarf_Addr lo = 0, hi = 0;
        const char *name = dwfl_module_info(m->dwmod, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
        Dwfl_Module *dm = NULL;
        if (m->state == MOD_OK && name)
            dm = dwfl_report_module(p->dwfl, name, lo, hi); /* finds the existing module */
        if (dm != m->dwmod && m->state == MOD_OK)
            m->state = MOD_FAILED;
        m->dwmod = dm == m->dwmod ? dm : NULL;
    }
    dwfl_report_end(p->dwfl, NULL, NULL);
    p->dwfl_dirty = 0;
}

/* Whether the reported ELF matches what the collector saw (build-id, address range). */
static int module_matches_elf(const struct sym_module *m, Dwfl_Module *dm)
{
    Dwarf_Addr lo = 0, hi = 0;
    dwfl_module_info(dm, NULL, &lo, &hi, NULL, NULL, NULL, NULL);
    if (hi <= m->start || lo >= m->end)
        return 0;
    const unsigned char *bits = NULL;
    GElf_Addr vaddr;
    int len = dwfl_module_build_id(dm, &bits, &vaddr);
    size_t n = len > 0 && (size_t)len < m->build_id_len ? (size_t)len : m->build_id_len;
    if (len > 0 && n && memcmp(bits, m->build_id, n) != 0) /* the collector may truncate */
        return 0;
    return 1;
}

/* m's Dwfl module, reporting it to p's Dwfl on first use; NULL if its ELF is unusable. */
static Dwfl_Module *module_dwfl(struct symbolizer *s, struct sym_proc *p, struct sym_module *m)
{
    if (m->state != MOD_NEW)
        return m->state == MOD_OK ? m->dwmod : NULL;
    m->state = MOD_FAILED;
    const char *file = m->path;
    if (is_vdso_path(m->path))
        file = vdso_file(s);
    else if (m->path[0] == '[' || m->path[0] == '\0')
        file = NULL; /* "[unknown]", "[anon]": nothing to open */
    if (!file)
        return NULL;
    if (!p->dwfl) {
        p->dwfl = dwfl_begin(&offline_callbacks);
        p->dwfl_dirty = 0;
        if (!p->dwfl)
            return NULL;
    }
    if (p->dwfl_dirty)
        proc_drop_removed_modules(p);
    dwfl_report_begin_add(p->dwfl);
    /* base is the load bias: with add_p_vaddr = true libdwfl uses it as the module's bias for
     * ET_DYN (start = base + first p_vaddr) and ignores it (bias 0) for ET_EXEC. */
    Dwfl_Module *dm = dwfl_report_elf(p->dwfl, m->path, file, -1, m->bias, true);
    dwfl_report_end(p->dwfl, NULL, NULL);
    m->dwmod = dm;
    if (dm && module_matches_elf(m, dm))
        m->state = MOD_OK;
    return m->state == MOD_OK ? dm : NULL;
}

/* ---- resolving one address ---- */

/* Demangled linkage name of a DWARF function DIE, else its plain name (following origins). */
static const char *die_function_name(struct symbolizer *s, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = NULL;
    if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
        dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr))
        name = dwarf_formstring(&attr);
    if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
        name = dwarf_formstring(&attr);
    return intern_demangled(s, name);
}

/* Definition file and line of a function DIE (abstract origin / specification followed). */
static void die_decl(struct symbolizer *s, Dwarf_Die *die, struct sym_frame *fr)
{
    int line = 0;
    fr->decl_file = intern(s, dwarf_decl_file(die));
    fr->decl_line = dwarf_decl_line(die, &line) == 0 ? line : 0;
}

/* Call site (DW_AT_call_file / DW_AT_call_line) of an inlined-subroutine DIE. */
static void die_call_site(Dwarf_Die *die, const char **file, int *line)
{
    Dwarf_Attribute attr;
    Dwarf_Word word;
    Dwarf_Die cu;
    Dwarf_Files *files;
    size_t nfiles;
    *file = NULL;
    *line = 0;
    if (dwarf_attr(die, DW_AT_call_line, &attr) && dwarf_formudata(&attr, &word) == 0)
        *line = (int)word;
    if (dwarf_attr(die, DW_AT_call_file, &attr) && dwarf_formudata(&attr, &word) == 0 &&
        dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 &&
        word < nfiles)
        *file = dwarf_filesrc(files, word, NULL, NULL);
}

/* The ELF symbol covering addr, NULL if none. dwfl_module_addrinfo reads the whole symbol
 * table for every address (its cost grows with the table: about 1 ms per address in node or a
 * debug libpython); each sized symbol it finds is kept, so that the other addresses of the
 * same function are found by a binary search. */
static const char *symbol_at(struct sym_file *f, Dwfl_Module *dm, uint64_t addr)
{
    uint64_t start;
    if (symfile_indexed(f)) /* the file's sorted index (built by the loader) */
        return symfile_symbol(f, addr, &start);

    size_t *nranges, *cap;
    struct symfile_range **ranges = symfile_ranges(f, &nranges, &cap);
    size_t lo = 0, hi = *nranges; /* first range with lo > addr */
    GElf_Off off = 0;
    GElf_Sym sym;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if ((*ranges)[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && addr < (*ranges)[lo - 1].hi)
        return (*ranges)[lo - 1].name;
    const char *name = dwfl_module_addrinfo(dm, addr, &off, &sym, NULL, NULL, NULL);
    if (!name || sym.st_size == 0 || off >= sym.st_size)
        return name;
    struct symfile_range r = {.lo = addr - off, .hi = addr - off + sym.st_size, .name = name};
    /* (a symbol found inside another one's range is not kept: ranges never overlap) */
    if ((lo > 0 && r.lo < (*ranges)[lo - 1].hi) || (lo < *nranges && r.hi > (*ranges)[lo].lo))
        return name;
    xgrow(ranges, cap, *nranges + 1, sizeof(**ranges));
    memmove(*ranges + lo + 1, *ranges + lo, (*nranges - lo) * sizeof(**ranges));
    (*ranges)[lo] = r;
    (*nranges)++;
    return name;
}

/* The subprogram among parent's children (and in namespaces, modules) whose code holds pc;
 * types are stepped over whole, not walked (their members are most of a large CU). */
static int find_subprogram(Dwarf_Die *parent, Dwarf_Addr pc, Dwarf_Die *out, int depth)
{
    Dwarf_Die die;

    if (depth > 16 || dwarf_child(parent, &die) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&die);
        if (tag == DW_TAG_subprogram && dwarf_haspc(&die, pc) == 1) {
            *out = die;
            return 1;
        }
        if ((tag == DW_TAG_namespace || tag == DW_TAG_module) &&
            find_subprogram(&die, pc, out, depth + 1))
            return 1;
    } while (dwarf_siblingof(&die, &die) == 0);
    return 0;
}

/* Whether a DIE of this tag can be a scope holding code (libdw's dwarf_getscopes' set). */
static int code_scope_tag(int tag)
{
    return tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine ||
           tag == DW_TAG_subprogram || tag == DW_TAG_with_stmt || tag == DW_TAG_catch_block ||
           tag == DW_TAG_try_block || tag == DW_TAG_entry_point;
}

/* The concrete nesting of pc, innermost first, up to the subprogram holding it (what
 * dwarf_getscopes_die(dwarf_getscopes(...)[0]) gives up to there): the CU's top-level DIEs,
 * then only the scopes holding pc. dwarf_getscopes and dwarf_getscopes_die each walk every DIE
 * of the CU before pc's, type members too (~25 ms an address in a 13 MB CU: a first frame of
 * new addresses stalled ~1 s). *chain is malloc'ed; 0 if no subprogram holds pc. */
static int pc_chain(Dwarf_Die *cudie, Dwarf_Addr pc, Dwarf_Die **chain)
{
    Dwarf_Die *out = NULL, die;
    size_t n = 0, cap = 0;

    if (!find_subprogram(cudie, pc, &die, 0))
        return 0;
    for (int more = 1; more && n < 4096;) {
        xgrow(&out, &cap, n + 1, sizeof(*out));
        out[n++] = die; /* outermost first, reversed below */
        Dwarf_Die child;
        more = 0;
        if (dwarf_child(&out[n - 1], &child) == 0)
            do {
                if (code_scope_tag(dwarf_tag(&child)) && dwarf_haspc(&child, pc) == 1) {
                    die = child;
                    more = 1;
                    break;
                }
            } while (dwarf_siblingof(&child, &child) == 0);
    }
    for (size_t i = 0; i < n / 2; i++) {
        Dwarf_Die t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    *chain = out;
    return (int)n;
}

/* Frames of addr (the file's own address) in m's file, module dm, innermost first; returns
 * the count (>= 1). */
static int resolve_dwfl(struct symbolizer *s, struct sym_module *m, Dwfl_Module *dm, int light,
                        uint64_t addr, const char *fallback_base, struct sym_frame *fr, int max)
{
    Dwarf_Die *scopes = NULL, *chain = NULL, *subprogram = NULL;
    int n = 0, nchain = 0, line = 0;
    const char *file = NULL;

    const char *sym_name = symbol_at(m->file, dm, addr);
    if (s->light_symbol && sym_name &&
        strncmp(sym_name, s->light_symbol, strlen(s->light_symbol)) == 0 && !light) {
        symfile_set_light(m->file);
        light = 1;
    }
    if (light) { /* the ELF symbol alone: the module's DWARF is not read */
        struct sym_frame *f = &fr[0];
        memset(f, 0, sizeof *f);
        f->function = intern_demangled(s, sym_name);
        if (!f->function)
            f->function = unnamed_function(s, dm, addr, fallback_base);
        f->module = m->name;
        f->module_offset = addr;
        return 1;
    }
    Dwfl_Line *ln = dwfl_module_getsrc(dm, addr);
    if (ln)
        file = dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL);
    if (!file)
        line = 0;

    Dwarf_Addr dwbias = 0;
    Dwarf_Die *cudie = dwfl_module_addrdie(dm, addr, &dwbias);
    if (cudie)
        nchain = pc_chain(cudie, addr - dwbias, &chain);
    if (cudie && nchain <= 0 && dwarf_getscopes(cudie, addr - dwbias, &scopes) > 0)
        nchain = dwarf_getscopes_die(&scopes[0], &chain); /* the concrete nesting */

    /* Each inlined instance is a frame at the current location; its call site becomes the
     * location in the frame around it. The first subprogram is the real function. */
    for (int i = 0; i < nchain && !subprogram; i++) {
        int tag = dwarf_tag(&chain[i]);
        if (tag == DW_TAG_subprogram) {
            subprogram = &chain[i];
        } else if (tag == DW_TAG_inlined_subroutine) {
            if (n < max - 1) { /* deeper chains lose their outer inlined frames */
                struct sym_frame *f = &fr[n++];
                memset(f, 0, sizeof *f);
                f->function = die_function_name(s, &chain[i]);
                if (!f->function)
                    f->function = intern_offset_name(s, fallback_base, addr);
                f->file = intern(s, file);
                f->line = file ? line : 0;
                die_decl(s, &chain[i], f);
                f->inlined = 1;
            }
            die_call_site(&chain[i], &file, &line);
        }
    }

    struct sym_frame *f = &fr[n++];
    memset(f, 0, sizeof *f);
    f->function = intern_demangled(s, sym_name);
    if (!f->function && subprogram)
        f->function = die_function_name(s, subprogram);
    if (!f->function)
        f->function = unnamed_function(s, dm, addr, fallback_base);
    f->file = intern(s, file);
    f->line = f->file ? line : 0;
    if (subprogram)
        die_decl(s, subprogram, f);

    for (int i = 0; i < n; i++) {
        fr[i].module = m->name;
        fr[i].module_offset = addr;
    }
    free(chain);
    free(scopes);
    return n;
}

/* m's file (symfiles.c), asked for on first need. */
static struct sym_file *module_file(struct symbolizer *s, struct sym_module *m)
{
    if (!m->file) {
        const char *open = m->path; /* "[unknown]", "[anon]": nothing to open */
        if (is_vdso_path(m->path))
            open = vdso_file(s);
        else if (m->path[0] == '[' || m->path[0] == '\0')
            open = NULL;
        m->file = symfiles_get(s->files, m->path, open, m->build_id, m->build_id_len);
    }
    return m->file;
}

/* Resolve pc of pid without the cache; returns the frame count, 0 if no module covers it, -1
 * while its file is being loaded. */
static int resolve(struct symbolizer *s, uint32_t pid, uint64_t pc, int is_ret,
                   struct sym_frame *fr, int max)
{
    struct sym_proc *p = proc_inherit(s, proc_find(s, pid), 0);
    if (!p)
        return 0;
    /* A return address points after the call: pc - 1 is inside the calling instruction. */
    uint64_t addr = is_ret && pc > 0 ? pc - 1 : pc;
    struct sym_module *m = module_find(p, addr);
    if (!m) { /* JIT code, if the runtime says so in /tmp/perf-PID.map */
        const char *name = symbolizer_jit_lookup(&p->jit, pid, addr);
        if (!name)
            return 0;
        memset(fr, 0, sizeof *fr);
        fr->function = intern(s, name);
        fr->module = intern(s, "[jit]");
        return 1;
    }
    const char *fallback_base = is_vdso_path(m->path) ? "[vdso]" : m->name;
    module_file(s, m);
    int light = 0;
    Dwfl_Module *dm = symfile_module(m->file, &light);
    if (dm)
        return resolve_dwfl(s, m, dm, light, addr - m->bias, fallback_base, fr, max);
    if (symfile_state(m->file) == SYMFILE_LOADING)
        return -1;
    memset(fr, 0, sizeof *fr);
    fr->function = intern_offset_name(s, fallback_base, addr - m->bias);
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
        proc_clear(s->procs[i]);
        free(s->procs[i]->mods);
        free(s->procs[i]);
    }
    free(s->procs);
    free(s->cache);
    free(s->frames);
    free(s->strs.slots);
    for (struct str_chunk *c = s->strs.chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    symfiles_free(s->files);
    hashmap_free(&s->file_rules);
    if (s->vdso_fd >= 0)
        close(s->vdso_fd);
    free(s);
}

void symbolizer_add_module(struct symbolizer *s, uint32_t pid, const char *path, uint64_t load_bias,
                           uint64_t start, uint64_t end, const uint8_t *build_id,
                           size_t build_id_len)
{
    if (!s || !path || end <= start)
        return;
    struct sym_proc *p = proc_get(s, pid);
    if (p->forgotten) { /* the pid was reused by a new process: old results are stale */
        cache_rebuild(s, s->cache_cap ? s->cache_cap : 4096, pid, 0, UINT64_MAX);
        p->forgotten = 0;
    }

    /* Same object reported again: keep what we have. */
    for (int i = 0; i < p->nmods; i++)
        if (p->mods[i].start == start && strcmp(p->mods[i].path, path) == 0)
            return;

    /* Anything overlapping the new range was unmapped (dlclose, then a new dlopen). */
    int w = 0;
    for (int i = 0; i < p->nmods; i++) {
        struct sym_module *o = &p->mods[i];
        if (o->start < end && start < o->end) {
            if (o->dwmod)
                p->dwfl_dirty = 1;
            hashmap_free(&p->unwind_rules);
            cache_rebuild(s, s->cache_cap ? s->cache_cap : 4096, pid, o->start, o->end);
            module_release(o);
            continue;
        }
        p->mods[w++] = *o;
    }
    p->nmods = w;

    if (p->nmods == p->capmods) {
        p->capmods = p->capmods ? p->capmods * 2 : 16;
        p->mods = xrealloc(p->mods, (size_t)p->capmods * sizeof *p->mods);
    }
    int at = 0;
    while (at < p->nmods && p->mods[at].start < start)
        at++;
    memmove(p->mods + at + 1, p->mods + at, (size_t)(p->nmods - at) * sizeof *p->mods);
    p->nmods++;

    struct sym_module *m = &p->mods[at];
    memset(m, 0, sizeof *m);
    m->path = xstrdup(path);
    const char *slash = strrchr(path, '/');
    m->name = intern(s, slash && slash[1] ? slash + 1 : path);
    m->bias = load_bias;
    m->start = start;
    m->end = end;
    if (build_id && build_id_len) {
        m->build_id = xmalloc(build_id_len);
        memcpy(m->build_id, build_id, build_id_len);
        m->build_id_len = build_id_len;
    }
    m->state = MOD_NEW;
}

void symbolizer_copy_process(struct symbolizer *s, uint32_t from_pid, uint32_t to_pid)
{
    if (!s || from_pid == to_pid)
        return;
    proc_get(s, to_pid)->forked_from = from_pid;
    copy_modules(s, from_pid, to_pid);
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
        struct sym_proc *p = proc_inherit(s, proc_find(s, pid), 0);
        struct sym_module *m = p ? module_find(p, is_ret && pc > 0 ? pc - 1 : pc) : NULL;
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

void symbolizer_forget_process(struct symbolizer *s, uint32_t pid)
{
    struct sym_proc *p = s ? proc_find(s, pid) : NULL;
    if (!p)
        return;
    proc_clear(p);
    p->forgotten = 1;
}

Dwfl *symbolizer_dwfl_all(struct symbolizer *s, uint32_t pid, struct hashmap **rules)
{
    struct sym_proc *p = s ? proc_inherit(s, proc_find(s, pid), 0) : NULL;
    if (!p)
        return NULL;
    for (int i = 0; i < p->nmods; i++)
        if (p->mods[i].state == MOD_NEW) {
            module_dwfl(s, p, &p->mods[i]);
            p = proc_find(s, pid); /* (no reallocation happens here, but stay safe) */
        }
    *rules = &p->unwind_rules;
    return p->dwfl;
}

int symbolizer_file_of(struct symbolizer *s, uint32_t pid, uint64_t addr, Dwfl_Module **dm,
                       uint64_t *faddr, uint32_t *fid)
{
    struct sym_proc *p = s ? proc_inherit(s, proc_find(s, pid), 0) : NULL;
    struct sym_module *m = p ? module_find(p, addr) : NULL;
    int light;

    if (!p)
        return 0;
    if (!m)
        return -1;
    struct sym_file *f = module_file(s, m);
    if (!(*dm = symfile_module(f, &light)))
        return 0;
    *faddr = addr - m->bias;
    *fid = symfile_id(f);
    return 1;
}

struct hashmap *symbolizer_file_rules(struct symbolizer *s)
{
    return &s->file_rules;
}

int symbolizer_has_module(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
    struct sym_proc *p = s ? proc_inherit(s, proc_find(s, pid), 0) : NULL;
    return p && module_find(p, addr) != NULL;
}

const char *symbolizer_module_name(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
    struct sym_proc *p = s ? proc_inherit(s, proc_find(s, pid), 0) : NULL;
    struct sym_module *m = p ? module_find(p, addr) : NULL;

    return m ? m->name : NULL;
}
