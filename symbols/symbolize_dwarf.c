/* The symbolizer's DWARF side (symbolize_internal.h): one address of a file resolved to frames,
 * innermost first: inlined instances from the DWARF scopes holding it, the function from the
 * ELF symbol table (or its DWARF subprogram), file and line from the line table; a module
 * resolved light gets its ELF symbol only. */
#define _GNU_SOURCE
#include "symbolize_internal.h"

/* libstdc++'s demangler (the front end links libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

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
    out = sym_intern(s, omp_outlined_name(status == 0 && dem ? dem : name, omp, sizeof(omp)));
    free(dem);
    free(plain);
    return out;
}

/* The name of code without a symbol in Dwfl module dm: "base@0xSTART", START where its
 * function begins by the unwind tables (one name per function, which `objdump -d
 * --start-address=0xSTART` shows). Code without an unwind entry: "_init" / "_fini" in the
 * sections the ABI gives those functions (the first instruction of a library's .init is where a
 * sample lands while its page is read in), "base@SECTION" in another section of stubs (.plt.got),
 * "base@0xSTART" in .text after an entry of .init_array / .fini_array (the toolchain's
 * frame_dummy and __do_global_dtors_aux: the latter's first read of .bss at exit is another
 * such page), and "base+0xOFFSET" (one name per instruction) elsewhere in .text (assembly
 * written without unwind entries: its hot instructions stay apart) or where no section tells. */
static const char *unnamed_function(struct symbolizer *s, Dwfl_Module *dm, uint64_t addr,
                                    const char *base)
{
    uint64_t start;
    char buf[512];

    if (dm && symbolizer_function_start(dm, addr, &start)) {
        snprintf(buf, sizeof buf, "%s@0x%" PRIx64, base, start);
        return sym_intern(s, buf);
    }
    const char *section = dm ? symbolizer_section_name(dm, addr) : NULL;
    if (section && strcmp(section, ".text") == 0 &&
        symbolizer_array_entry_start(dm, addr, &start)) {
        snprintf(buf, sizeof buf, "%s@0x%" PRIx64, base, start);
        return sym_intern(s, buf);
    }
    if (!section || strcmp(section, ".text") == 0)
        return sym_intern_offset_name(s, base, addr);
    if (strcmp(section, ".init") == 0 || strcmp(section, ".fini") == 0)
        return sym_intern(s, strcmp(section, ".init") == 0 ? "_init" : "_fini");
    snprintf(buf, sizeof buf, "%s@%s", base, section);
    return sym_intern(s, buf);
}

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
    fr->decl_file = sym_intern(s, dwarf_decl_file(die));
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
int sym_resolve_dwfl(struct symbolizer *s, struct sym_module *m, Dwfl_Module *dm, int light,
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
                    f->function = sym_intern_offset_name(s, fallback_base, addr);
                f->file = sym_intern(s, file);
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
    f->file = sym_intern(s, file);
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
