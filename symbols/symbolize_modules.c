/* The symbolizer's processes and modules (symbolize_internal.h): each process's module table
 * (sorted, non-overlapping; a fork takes its parent's), the vDSO written to a file libdwfl can
 * open, modules reported to the process's Dwfl on first need, and the API calls that change
 * or read the tables. */
#define _GNU_SOURCE /* memfd_create, mkostemp */
#include "symbolize_internal.h"

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
struct sym_proc *sym_proc_find(const struct symbolizer *s, uint32_t pid)
{
    int i = proc_index(s, pid);
    return i >= 0 ? s->procs[i] : NULL;
}

/* The process entry for pid, created on first use. */
struct sym_proc *sym_proc_get(struct symbolizer *s, uint32_t pid)
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
void sym_proc_clear(struct sym_proc *p)
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
struct sym_module *sym_module_find(struct sym_proc *p, uint64_t addr)
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
    struct sym_proc *from = sym_proc_find(s, from_pid);
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
struct sym_proc *sym_proc_inherit(struct symbolizer *s, struct sym_proc *p, int depth)
{
    if (!p || p->nmods > 0 || !p->forked_from || depth > 8)
        return p;
    uint32_t pid = p->pid, parent = p->forked_from;
    sym_proc_inherit(s, sym_proc_find(s, parent), depth + 1);
    copy_modules(s, parent, pid);
    return sym_proc_find(s, pid);
}

/* Whether path names the vDSO as the collector reports it. */
int sym_is_vdso_path(const char *path)
{
    return strcmp(path, VDSO_NAME) == 0 || strcmp(path, "[vdso]") == 0;
}

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
    if (sym_is_vdso_path(m->path))
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

/* m's file (symfiles.c), asked for on first need. */
struct sym_file *sym_module_file(struct symbolizer *s, struct sym_module *m)
{
    if (!m->file) {
        const char *open = m->path; /* "[unknown]", "[anon]": nothing to open */
        if (sym_is_vdso_path(m->path))
            open = vdso_file(s);
        else if (m->path[0] == '[' || m->path[0] == '\0')
            open = NULL;
        m->file = symfiles_get(s->files, m->path, open, m->build_id, m->build_id_len);
    }
    return m->file;
}

void symbolizer_add_module(struct symbolizer *s, uint32_t pid, const char *path, uint64_t load_bias,
                           uint64_t start, uint64_t end, const uint8_t *build_id,
                           size_t build_id_len)
{
    if (!s || !path || end <= start)
        return;
    struct sym_proc *p = sym_proc_get(s, pid);
    if (p->forgotten) { /* the pid was reused by a new process: old results are stale */
        sym_cache_rebuild(s, s->cache_cap ? s->cache_cap : 4096, pid, 0, UINT64_MAX);
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
            sym_cache_rebuild(s, s->cache_cap ? s->cache_cap : 4096, pid, o->start, o->end);
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
    m->name = sym_intern(s, slash && slash[1] ? slash + 1 : path);
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
    sym_proc_get(s, to_pid)->forked_from = from_pid;
    copy_modules(s, from_pid, to_pid);
}

void symbolizer_forget_process(struct symbolizer *s, uint32_t pid)
{
    struct sym_proc *p = s ? sym_proc_find(s, pid) : NULL;
    if (!p)
        return;
    sym_proc_clear(p);
    p->forgotten = 1;
}

Dwfl *symbolizer_dwfl_all(struct symbolizer *s, uint32_t pid, struct hashmap **rules)
{
    struct sym_proc *p = s ? sym_proc_inherit(s, sym_proc_find(s, pid), 0) : NULL;
    if (!p)
        return NULL;
    for (int i = 0; i < p->nmods; i++)
        if (p->mods[i].state == MOD_NEW) {
            module_dwfl(s, p, &p->mods[i]);
            p = sym_proc_find(s, pid); /* (no reallocation happens here, but stay safe) */
        }
    *rules = &p->unwind_rules;
    return p->dwfl;
}

int symbolizer_file_of(struct symbolizer *s, uint32_t pid, uint64_t addr, Dwfl_Module **dm,
                       uint64_t *faddr, uint32_t *fid)
{
    struct sym_proc *p = s ? sym_proc_inherit(s, sym_proc_find(s, pid), 0) : NULL;
    struct sym_module *m = p ? sym_module_find(p, addr) : NULL;
    int light;

    if (!p)
        return 0;
    if (!m)
        return -1;
    struct sym_file *f = sym_module_file(s, m);
    if (!(*dm = symfile_module(f, &light)))
        return 0;
    *faddr = addr - m->bias;
    *fid = symfile_id(f);
    return 1;
}

int symbolizer_has_module(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
    struct sym_proc *p = s ? sym_proc_inherit(s, sym_proc_find(s, pid), 0) : NULL;
    return p && sym_module_find(p, addr) != NULL;
}

int symbolizer_has_modules(struct symbolizer *s, uint32_t pid)
{
    struct sym_proc *p = s ? sym_proc_inherit(s, sym_proc_find(s, pid), 0) : NULL;
    return p && p->nmods > 0;
}

const char *symbolizer_module_name(struct symbolizer *s, uint32_t pid, uint64_t addr)
{
    struct sym_proc *p = s ? sym_proc_inherit(s, sym_proc_find(s, pid), 0) : NULL;
    struct sym_module *m = p ? sym_module_find(p, addr) : NULL;

    return m ? m->name : NULL;
}
