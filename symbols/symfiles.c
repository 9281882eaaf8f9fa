/* The ELF files symbols come from: one libdwfl Dwfl per file (path and build-id), shared by
 * every process that maps it, with the file's own addresses (the symbolizer subtracts each
 * mapping's load bias). Loading a file can take seconds: debug info downloaded by debuginfod,
 * or gigabytes of compressed DWARF inflated. In async mode a loader thread does it, one file
 * at a time, and the front end's loop never waits: the file is LOADING until the thread
 * publishes the finished Dwfl (READY), after which only the front end's thread touches it. */
#include "base/base.h"
#include "symbols/symbols_internal.h"

#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Compressed debug info that would inflate to more than this is not read: libdw inflates every
 * compressed .debug_* section into the heap when it opens the DWARF (elfutils 0.188), so a
 * file's lines and inlined frames would cost its whole debug info in memory (a 1 GB module:
 * 1 GB more RSS, bench/bigdebug.sh). Such a file gets its symbol table only, as a light file.
 * Uncompressed debug info is mapped from the file and read in place, whatever its size. */
#define SYMFILE_MAX_INFLATED ((uint64_t)256 << 20)

/* One ELF symbol of a file's index: [addr, addr + size), its binding's rank. */
struct symfile_sym {
    uint64_t addr, size;
    const char *name; /* owned by the file's Dwfl */
    uint32_t idx;     /* its place in the symbol table: the first of equals wins */
    int32_t sec;      /* the allocated section holding addr (sizeless symbols), -1: none */
    uint8_t rank;     /* 3 global, 2 unique, 1 weak, 0 local (libdwfl's preference) */
};

/* An allocated section's address range (the file's own addresses). */
struct symfile_sec {
    uint64_t lo, hi;
};

struct sym_file {
    char *path;      /* as the process maps it (names the module) */
    char *open_path; /* the file to read (the vDSO's copy), NULL: nothing to read */
    uint8_t *build_id;
    size_t build_id_len;
    uint32_t id;      /* 1, 2, ...: in the order files were first seen */
    int state;        /* SYMFILE_*, atomic: written by the loader, read by the front end */
    int light;        /* symbols only (its DWARF is not read): the file holds the light symbol, or
                       * its compressed debug info is too large (SYMFILE_MAX_INFLATED) */
    uint64_t too_big; /* the inflated size of debug info too large to read, else 0 */
    Dwfl *dwfl;       /* READY: the file's own Dwfl */
    Dwfl_Module *dm;
    struct symfile_range *ranges; /* symbols found so far, sorted (symbolize.c: symbol_at) */
    size_t nranges, capranges;
    struct symfile_sym *syms; /* every symbol, by address (READY), NULL when not built */
    size_t nsyms;
    struct symfile_sec *secs; /* allocated sections, by address */
    size_t nsecs;
    struct sym_file *next; /* in the loader's queue */
    char why[96];          /* FAILED: why the load failed (symfiles_describe) */
};

struct symbolizer_files {
    struct sym_file **files; /* every file seen (front end only) */
    size_t n, cap;
    int async;
    const char *light_symbol;
    pthread_mutex_t mu; /* the queue, current, stop */
    pthread_cond_t cv;
    pthread_t thread;
    int started, stop;
    struct sym_file *head, *tail; /* waiting to be loaded */
    struct sym_file *current;     /* being loaded */
};

static char *no_path; /* libdwfl's default debuginfo path (".debug", /usr/lib/debug) */

static const Dwfl_Callbacks file_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo, /* debug files, debuginfod */
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &no_path,
};

/* Whether dm's symbol table has a symbol whose name starts with prefix. */
static int has_symbol(Dwfl_Module *dm, const char *prefix)
{
    int n = dwfl_module_getsymtab(dm);
    size_t len = strlen(prefix);

    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        const char *name = dwfl_module_getsym(dm, i, &sym, NULL);
        if (name && strncmp(name, prefix, len) == 0)
            return 1;
    }
    return 0;
}

/* Order symbols by address, then by their place in the table. */
static int sym_cmp(const void *a, const void *b)
{
    const struct symfile_sym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Order sections by address. */
static int sec_cmp(const void *a, const void *b)
{
    const struct symfile_sec *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of the allocated section holding addr, -1 if none. */
static int32_t section_of(const struct sym_file *f, uint64_t addr)
{
    size_t lo = 0, hi = f->nsecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->secs[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo > 0 && addr < f->secs[lo - 1].hi ? (int32_t)(lo - 1) : -1;
}

/* The allocated sections of dm's main ELF file, for the sizeless symbols' rule. */
static void build_sections(struct sym_file *f, Dwfl_Module *dm)
{
    Dwarf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(dm, &bias);
    size_t n = 0;

    if (!elf || elf_getshdrnum(elf, &n) != 0 || n == 0)
        return;
    f->secs = xmalloc(n * sizeof(*f->secs));
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && sh.sh_size)
            f->secs[f->nsecs++] =
                (struct symfile_sec){sh.sh_addr + bias, sh.sh_addr + bias + sh.sh_size};
    }
    qsort(f->secs, f->nsecs, sizeof(*f->secs), sec_cmp);
}

/* The index of dm's symbols (symbol table, MiniDebugInfo): what dwfl_module_addrinfo would
 * search linearly for every address, sorted once. Symbols of no address (undefined, section,
 * file, TLS) are left out, as libdwfl does. */
static void build_index(struct sym_file *f, Dwfl_Module *dm)
{
    int n = dwfl_module_getsymtab(dm);
    size_t k = 0;

    if (n <= 1)
        return;
    build_sections(f, dm);
    f->syms = xmalloc((size_t)n * sizeof(*f->syms));
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        GElf_Word shndx;
        const char *name = dwfl_module_getsym_info(dm, i, &sym, &addr, &shndx, NULL, NULL);
        int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
        if (!name || !name[0] || sym.st_shndx == SHN_UNDEF || type == STT_SECTION ||
            type == STT_FILE || type == STT_TLS)
            continue;
        f->syms[k++] =
            (struct symfile_sym){.addr = addr,
                                 .size = sym.st_size,
                                 .name = name,
                                 .idx = (uint32_t)i,
                                 .sec = sym.st_shndx == SHN_ABS ? -1 : section_of(f, addr),
                                 .rank = (uint8_t)(bind == STB_GLOBAL       ? 3
                                                   : bind == STB_GNU_UNIQUE ? 2
                                                   : bind == STB_WEAK       ? 1
                                                                            : 0)};
    }
    f->nsyms = k;
    qsort(f->syms, k, sizeof(*f->syms), sym_cmp);
}

/* The size that elf's compressed .debug_* sections inflate to (their headers say it: nothing
 * is inflated here); *has_info: whether elf has DWARF (.debug_info) at all. */
static uint64_t inflated_debug_size(Elf *elf, int *has_info)
{
    size_t shstrndx;
    uint64_t total = 0;

    *has_info = 0;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
        return 0;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr sh;
        GElf_Chdr ch;
        const char *name;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
            !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
            continue;
        if (strncmp(name, ".debug_", 7) != 0 && strncmp(name, ".zdebug_", 8) != 0)
            continue;
        if (strcmp(name, ".debug_info") == 0 || strcmp(name, ".zdebug_info") == 0)
            *has_info = 1;
        if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch)) {
            total += ch.ch_size;
        } else if (name[1] == 'z') { /* the GNU style: "ZLIB", then the size, big-endian */
            Elf_Data *d = elf_rawdata(scn, NULL);
            const unsigned char *b = d ? d->d_buf : NULL;
            if (b && d->d_size >= 12 && memcmp(b, "ZLIB", 4) == 0)
                for (int i = 4; i < 12; i++)
                    total = total + ((uint64_t)b[i] << (8 * (11 - i)));
        }
    }
    return total;
}

/* The inflated size of the compressed debug info dm's DWARF would come from: its own file's,
 * else its separate debug file's (found as libdwfl will find it, which it then finds again in
 * the same place or debuginfod's cache). 0 when there is none or nothing is compressed. */
static uint64_t module_inflated_debug(Dwfl_Module *dm)
{
    Dwarf_Addr bias, start = 0;
    const char *name, *main_file = NULL, *debug_file = NULL;
    void **userdata;
    int has_info = 0, fd = -1;
    char *found = NULL;
    uint64_t size = inflated_debug_size(dwfl_module_getelf(dm, &bias), &has_info);

    if (has_info)
        return size;
    name = dwfl_module_info(dm, &userdata, &start, NULL, NULL, NULL, &main_file, &debug_file);
    if (debug_file) { /* found already, for its symbol table */
        fd = open(debug_file, O_RDONLY | O_CLOEXEC);
    } else {
        GElf_Word crc = 0;
        const char *link = dwelf_elf_gnu_debuglink(dwfl_module_getelf(dm, &bias), &crc);
        fd = dwfl_standard_find_debuginfo(dm, userdata, name, start, main_file, link, crc, &found);
    }
    size = 0;
    if (fd >= 0) {
        Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
        size = inflated_debug_size(elf, &has_info);
        elf_end(elf);
        close(fd);
    }
    free(found);
    return size;
}

/* Load f: its ELF, symbol table (MiniDebugInfo too), unwind tables and DWARF (which may be
 * downloaded), then publish. Runs on the loader thread (or inline in sync mode). */
static void load(struct sym_file *f, const char *light_symbol)
{
    Dwarf_Addr bias;
    Dwfl *dwfl = f->open_path ? dwfl_begin(&file_callbacks) : NULL;
    Dwfl_Module *dm = NULL;
    int state = SYMFILE_FAILED;
    const char *why = f->open_path ? "libdwfl refused it" : "no file"; /* (FAILED: f->why) */

    if (!dwfl)
        goto out;
    dwfl_report_begin(dwfl);
    dm = dwfl_report_elf(dwfl, f->path, f->open_path, -1, 0, true); /* its own addresses */
    dwfl_report_end(dwfl, NULL, NULL);
    if (!dm) {
        why = dwfl_errmsg(-1);
        goto out;
    }
    if (f->build_id_len) { /* the file on disk must be the one that was mapped */
        const unsigned char *bits = NULL;
        GElf_Addr vaddr;
        int len = dwfl_module_build_id(dm, &bits, &vaddr);
        size_t n = len > 0 && (size_t)len < f->build_id_len ? (size_t)len : f->build_id_len;
        if (len > 0 && memcmp(bits, f->build_id, n) != 0) { /* (the collector may truncate) */
            why = "not the build that was mapped";
            goto out;
        }
    }
    f->light = light_symbol && has_symbol(dm, light_symbol);
    build_index(f, dm);
    if (!f->light && (f->too_big = module_inflated_debug(dm)) > SYMFILE_MAX_INFLATED)
        f->light = 1; /* its symbol table only: the debug info would fill the heap */
    else
        f->too_big = 0;
    if (!f->light)
        dwfl_module_getdwarf(dm, &bias); /* finds (or downloads) and opens the debug info */
    dwfl_module_eh_cfi(dm, &bias);
    f->dwfl = dwfl;
    f->dm = dm;
    dwfl = NULL;
    state = SYMFILE_READY;
out:
    if (state == SYMFILE_FAILED) /* (written before the state that lets it be read) */
        snprintf(f->why, sizeof(f->why), "%s", why ? why : "?");
    if (dwfl)
        dwfl_end(dwfl);
    __atomic_store_n(&f->state, state, __ATOMIC_RELEASE);
}

/* The loader thread: files in the order they were asked for. */
static void *loader_main(void *arg)
{
    struct symbolizer_files *fs = arg;

    pthread_mutex_lock(&fs->mu);
    for (;;) {
        while (!fs->head && !fs->stop)
            pthread_cond_wait(&fs->cv, &fs->mu);
        if (fs->stop)
            break;
        struct sym_file *f = fs->head;
        fs->head = f->next;
        if (!fs->head)
            fs->tail = NULL;
        fs->current = f;
        pthread_mutex_unlock(&fs->mu);
        load(f, fs->light_symbol);
        pthread_mutex_lock(&fs->mu);
        fs->current = NULL;
        pthread_cond_broadcast(&fs->cv); /* for symfiles_wait */
    }
    pthread_mutex_unlock(&fs->mu);
    return NULL;
}

struct symbolizer_files *symfiles_new(void)
{
    struct symbolizer_files *fs = xcalloc(1, sizeof(*fs));
    pthread_mutex_init(&fs->mu, NULL);
    pthread_cond_init(&fs->cv, NULL);
    return fs;
}

void symfiles_set_async(struct symbolizer_files *fs, int async)
{
    fs->async = async;
}

void symfiles_set_light(struct symbolizer_files *fs, const char *symbol)
{
    fs->light_symbol = symbol;
}

struct sym_file *symfiles_get(struct symbolizer_files *fs, const char *path, const char *open_path,
                              const uint8_t *build_id, size_t build_id_len)
{
    for (size_t i = 0; i < fs->n; i++) {
        struct sym_file *f = fs->files[i];
        if (strcmp(f->path, path) == 0 && f->build_id_len == build_id_len &&
            (!build_id_len || memcmp(f->build_id, build_id, build_id_len) == 0))
            return f;
    }
    struct sym_file *f = xcalloc(1, sizeof(*f));
    f->path = xstrdup(path);
    f->open_path = open_path ? xstrdup(open_path) : NULL;
    if (build_id_len) {
        f->build_id = xmalloc(build_id_len);
        memcpy(f->build_id, build_id, build_id_len);
        f->build_id_len = build_id_len;
    }
    f->state = SYMFILE_LOADING;
    f->id = (uint32_t)fs->n + 1;
    xgrow(&fs->files, &fs->cap, fs->n + 1, sizeof(*fs->files));
    fs->files[fs->n++] = f;
    if (!fs->async || !f->open_path) {
        load(f, fs->light_symbol);
        return f;
    }
    pthread_mutex_lock(&fs->mu);
    if (!fs->started) /* (no thread if it cannot start: the file is loaded here) */
        fs->started = pthread_create(&fs->thread, NULL, loader_main, fs) == 0;
    if (fs->started) {
        if (fs->tail)
            fs->tail->next = f;
        else
            fs->head = f;
        fs->tail = f;
        pthread_cond_signal(&fs->cv);
    }
    pthread_mutex_unlock(&fs->mu);
    if (!fs->started)
        load(f, fs->light_symbol);
    return f;
}

uint32_t symfile_id(const struct sym_file *f)
{
    return f->id;
}

int symfile_state(const struct sym_file *f)
{
    return __atomic_load_n(&f->state, __ATOMIC_ACQUIRE);
}

Dwfl_Module *symfile_module(struct sym_file *f, int *light)
{
    if (symfile_state(f) != SYMFILE_READY)
        return NULL;
    *light = f->light;
    return f->dm;
}

void symfile_set_light(struct sym_file *f)
{
    f->light = 1;
}

/* Whether covering symbol e is a better answer than best, as libdwfl chooses: globals before
 * locals, then the nearest, then the better binding, then the first in the table. */
static int better(const struct symfile_sym *e, const struct symfile_sym *best)
{
    int eg = e->rank > 0, bg = best->rank > 0;
    if (eg != bg)
        return eg;
    if (e->addr != best->addr)
        return e->addr > best->addr;
    if (e->rank != best->rank)
        return e->rank > best->rank;
    return e->idx < best->idx;
}

const char *symfile_symbol(const struct sym_file *f, uint64_t addr, uint64_t *start)
{
    size_t lo = 0, hi = f->nsyms; /* first symbol above addr */
    const struct symfile_sym *best = NULL, *sizeless = NULL;
    uint64_t min_label = 0; /* where the sized symbols at or below addr end, at most */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->syms[mid].addr <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the symbols at or below addr, nearest first (a window: nesting is shallow) */
    for (size_t i = lo, seen = 0; i > 0 && seen < 64; i--, seen++) {
        const struct symfile_sym *e = &f->syms[i - 1];
        if (best && best->rank > 0 && e->addr < best->addr)
            break; /* nothing further down beats a nearer global */
        if (e->size && addr - e->addr < e->size && (!best || better(e, best)))
            best = e;
        if (e->size && e->addr + e->size > min_label)
            min_label = e->addr + e->size;
        /* a label without a size: the nearest in addr's own section (the first of equals) */
        if (!e->size && e->sec >= 0 &&
            (!sizeless ||
             (e->addr == sizeless->addr &&
              (e->rank > sizeless->rank || (e->rank == sizeless->rank && e->idx < sizeless->idx)))))
            if (!sizeless || e->addr == sizeless->addr)
                sizeless = e;
    }
    if (best) {
        *start = best->addr;
        return best->name;
    }
    if (sizeless && sizeless->addr >= min_label && sizeless->sec == section_of(f, addr)) {
        *start = sizeless->addr; /* hand-written assembly without sizes */
        return sizeless->name;
    }
    return NULL;
}

int symfile_indexed(const struct sym_file *f)
{
    return f->syms != NULL;
}

struct symfile_range **symfile_ranges(struct sym_file *f, size_t **n, size_t **cap)
{
    *n = &f->nranges;
    *cap = &f->capranges;
    return &f->ranges;
}

int symfiles_loading(struct symbolizer_files *fs, char *name, size_t cap)
{
    int n = 0;
    const char *cur = NULL;

    for (size_t i = 0; i < fs->n; i++)
        n += symfile_state(fs->files[i]) == SYMFILE_LOADING;
    if (n && name && cap) {
        pthread_mutex_lock(&fs->mu);
        cur = fs->current ? fs->current->path : (fs->head ? fs->head->path : NULL);
        const char *base = cur ? strrchr(cur, '/') : NULL;
        snprintf(name, cap, "%s", base ? base + 1 : cur ? cur : "?");
        pthread_mutex_unlock(&fs->mu);
    }
    return n;
}

int symfiles_names_only(struct symbolizer_files *fs, char *name, size_t cap, uint64_t *bytes)
{
    int n = 0;

    for (size_t i = 0; i < fs->n; i++) {
        const struct sym_file *f = fs->files[i];
        if (symfile_state(f) != SYMFILE_READY || !f->too_big) /* (read after the release) */
            continue;
        if (n++ == 0) {
            const char *base = strrchr(f->path, '/');
            snprintf(name, cap, "%s", base ? base + 1 : f->path);
            *bytes = f->too_big;
        }
    }
    return n;
}

int symfiles_describe(struct symbolizer_files *fs, const char *part, char *buf, size_t cap)
{
    size_t o = 0;
    int n = 0;

    if (cap)
        buf[0] = '\0';
    for (size_t i = 0; i < fs->n && o < cap; i++) {
        const struct sym_file *f = fs->files[i];
        if (!strstr(f->path, part))
            continue;
        int st = symfile_state(f);
        n++;
        o += (size_t)snprintf(buf + o, cap - o, "%s%s (build-id %zu bytes): %s%s%s", o ? "; " : "",
                              f->path, f->build_id_len,
                              st == SYMFILE_READY     ? "ready"
                              : st == SYMFILE_LOADING ? "loading"
                                                      : "failed",
                              st == SYMFILE_FAILED ? ": " : "", st == SYMFILE_FAILED ? f->why : "");
    }
    return n;
}

int symfiles_wait(struct symbolizer_files *fs, int timeout_ms)
{
    struct timespec until;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += timeout_ms / 1000;
    until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&fs->mu);
    while ((fs->head || fs->current) && pthread_cond_timedwait(&fs->cv, &fs->mu, &until) == 0)
        ;
    int left = (fs->head || fs->current) != 0;
    pthread_mutex_unlock(&fs->mu);
    return left ? -1 : 0;
}

void symfiles_give_up(struct symbolizer_files *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        int loading = SYMFILE_LOADING;
        __atomic_compare_exchange_n(&fs->files[i]->state, &loading, SYMFILE_FAILED, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
}

/* Free one file entry (not being loaded). */
static void file_free(struct sym_file *f)
{
    if (f->dwfl)
        dwfl_end(f->dwfl);
    free(f->ranges);
    free(f->syms);
    free(f->secs);
    free(f->path);
    free(f->open_path);
    free(f->build_id);
    free(f);
}

void symfiles_free(struct symbolizer_files *fs)
{
    struct sym_file *busy = NULL;

    if (!fs)
        return;
    pthread_mutex_lock(&fs->mu);
    fs->stop = 1;
    busy = fs->current;
    pthread_cond_broadcast(&fs->cv);
    pthread_mutex_unlock(&fs->mu);
    if (fs->started && !busy) {
        pthread_join(fs->thread, NULL);
    } else if (fs->started) {
        /* a load that may wait for a download: the thread and what it touches are left to
         * end with the process */
        pthread_detach(fs->thread);
        return;
    }
    for (size_t i = 0; i < fs->n; i++)
        file_free(fs->files[i]);
    free(fs->files);
    pthread_mutex_destroy(&fs->mu);
    pthread_cond_destroy(&fs->cv);
    free(fs);
}
