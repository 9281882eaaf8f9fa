/* Unit test of the symbolizer (symbols/symbolize.c) against libsymtest.so, a stripped copy of
 * it, bogus modules and this process's own vDSO. Prints every failed check; exit 1 on any. */
#define _GNU_SOURCE /* dladdr1, dl_iterate_phdr */
#include "model/model.h"
#include "symtest.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>
#include <unistd.h>

#include "check.h"

#define PID_MAIN     1000 /* libsymtest.so */
#define PID_STRIPPED 1001 /* libsymtest-stripped.so at the same addresses */
#define PID_BOGUS    1002 /* modules whose files are missing, not ELF or mismatched */
#define PID_REPLACE  1003 /* a module range replaced twice */
#define PID_VDSO     1004
#define PID_VDSO_BAD 1005 /* the vDSO with a foreign build-id */
#define MAX_FRAMES   16

struct obj_range {
    uintptr_t addr; /* in: an address inside the object */
    uint64_t bias, start, end;
    int found;
};

/* dl_iterate_phdr callback: load bias and PT_LOAD span of the object containing r->addr. */
static int find_range_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct obj_range *r = arg;
    uint64_t lo = UINT64_MAX, hi = 0;
    int hit = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
        if (r->addr >= a && r->addr < b)
            hit = 1;
    }
    if (!hit)
        return 0;
    r->bias = info->dlpi_addr;
    r->start = lo;
    r->end = hi;
    r->found = 1;
    return 1;
}

static struct obj_range range_of(const void *addr)
{
    struct obj_range r = {.addr = (uintptr_t)addr};
    dl_iterate_phdr(find_range_cb, &r);
    return r;
}

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

static int str_eq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

static void print_frames(const char *what, const struct sym_frame *fr, int n)
{
    fprintf(stderr, "  %s: %d frame(s)\n", what, n);
    for (int i = 0; i < n; i++)
        fprintf(stderr, "    #%d %s [%s+0x%" PRIx64 "] %s:%d decl %s:%d%s\n", i, fr[i].function,
                fr[i].module, fr[i].module_offset, fr[i].file ? fr[i].file : "?", fr[i].line,
                fr[i].decl_file ? fr[i].decl_file : "?", fr[i].decl_line,
                fr[i].inlined ? " (inlined)" : "");
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A plain function: symbol, file, line, declaration, offset; return-address adjustment. */
static void test_leaf(struct symbolizer *s, uint64_t pc, const struct obj_range *r)
{
    struct sym_frame fr[MAX_FRAMES];
    int n = symbolizer_lookup(s, PID_MAIN, pc, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1, "symtest_leaf: %d frames", n);
    if (n < 1)
        return;
    CHECK_MSG(str_eq(fr[0].function, "symtest_leaf"), "got %s", fr[0].function);
    CHECK_MSG(str_eq(fr[0].module, "libsymtest.so"), "got %s", fr[0].module);
    CHECK_MSG(str_eq(base_name(fr[0].file), "symtest.c"), "got %s", fr[0].file);
    CHECK_MSG(fr[0].line >= SYMTEST_LEAF_LINE && fr[0].line <= SYMTEST_LEAF_END_LINE, "line %d",
              fr[0].line);
    CHECK_MSG(str_eq(base_name(fr[0].decl_file), "symtest.c"), "got %s", fr[0].decl_file);
    CHECK_MSG(fr[0].decl_line == SYMTEST_LEAF_LINE, "decl_line %d", fr[0].decl_line);
    CHECK_MSG(fr[0].module_offset == pc - r->bias, "offset 0x%" PRIx64, fr[0].module_offset);
    CHECK_MSG(!fr[0].inlined, "marked inlined");

    /* As a return address the pc after the call is looked up as pc - 1. */
    n = symbolizer_lookup(s, PID_MAIN, pc + 1, 1, fr, MAX_FRAMES);
    CHECK_MSG(n >= 1 && str_eq(fr[0].function, "symtest_leaf") &&
                  fr[0].module_offset == pc - r->bias,
              "return address pc+1 -> %s", n >= 1 ? fr[0].function : "(none)");
    /* The first byte of symtest_leaf as a return address belongs to what precedes it. */
    n = symbolizer_lookup(s, PID_MAIN, pc, 1, fr, MAX_FRAMES);
    CHECK_MSG(n >= 1 && !str_eq(fr[0].function, "symtest_leaf"), "return address pc -> %s",
              n >= 1 ? fr[0].function : "(none)");
}

/* Every pc of symtest_outer ends in symtest_outer; some are inside the inlined helper. */
static void test_inline(struct symbolizer *s, const void *outer)
{
    struct sym_frame fr[MAX_FRAMES];
    Dl_info info;
    const ElfW(Sym) *sym = NULL;
    if (!dladdr1(outer, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size) {
        CHECK_MSG(0, "no symbol size for symtest_outer");
        return;
    }
    int inlined_pcs = 0, bad_outer = 0, printed = 0;
    for (uint64_t pc = (uintptr_t)outer; pc < (uintptr_t)outer + sym->st_size; pc++) {
        int n = symbolizer_lookup(s, PID_MAIN, pc, 0, fr, MAX_FRAMES);
        if (n < 1 || !str_eq(fr[n - 1].function, "symtest_outer") || fr[n - 1].inlined) {
            bad_outer++;
            if (!printed++)
                print_frames("symtest_outer pc", fr, n);
            continue;
        }
        if (n == 2 && fr[0].inlined && str_eq(fr[0].function, "symtest_helper")) {
            inlined_pcs++;
            CHECK_MSG(fr[0].line >= SYMTEST_HELPER_LINE && fr[0].line <= SYMTEST_HELPER_END_LINE,
                      "helper line %d", fr[0].line);
            CHECK_MSG(fr[0].decl_line == SYMTEST_HELPER_LINE, "helper decl %d", fr[0].decl_line);
            CHECK_MSG(str_eq(base_name(fr[0].file), "symtest.c"), "helper file %s", fr[0].file);
            CHECK_MSG(fr[1].line == SYMTEST_CALL_LINE, "call site line %d", fr[1].line);
            CHECK_MSG(str_eq(base_name(fr[1].file), "symtest.c"), "call site file %s", fr[1].file);
            CHECK_MSG(fr[1].decl_line == SYMTEST_OUTER_LINE, "outer decl %d", fr[1].decl_line);
            CHECK_MSG(fr[0].module_offset == fr[1].module_offset, "offsets differ");
            if (check_failed && !printed++)
                print_frames("inlined pc", fr, n);
            /* A caller asking for fewer frames gets the innermost ones. */
            CHECK_MSG(symbolizer_lookup(s, PID_MAIN, pc, 0, fr, 1) == 1 && fr[0].inlined,
                      "max = 1");
        }
    }
    CHECK_MSG(bad_outer == 0, "%d pcs of symtest_outer did not end in symtest_outer", bad_outer);
    CHECK_MSG(inlined_pcs > 0, "no pc of symtest_outer resolved to the inlined helper");
    printf("symtest_outer: %zu bytes, %d pcs in the inlined helper\n", (size_t)sym->st_size,
           inlined_pcs);
}

/* Stripped code is named module@0xSTART, START where its function's unwind entry begins (one
 * name for all its pcs); a module's replacement invalidates its results. */
static void test_stripped(struct symbolizer *s, uint64_t hidden, const struct obj_range *r)
{
    struct sym_frame fr[MAX_FRAMES];
    char want[256];
    snprintf(want, sizeof want, "libsymtest-stripped.so@0x%" PRIx64, hidden - r->bias);

    int n = symbolizer_lookup(s, PID_MAIN, hidden, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "symtest_hidden"), "unstripped hidden -> %s",
              n ? fr[0].function : "(none)");

    symbolizer_add_module(s, PID_STRIPPED, SYMTEST_STRIPPED_LIB, r->bias, r->start, r->end, NULL,
                          0);
    n = symbolizer_lookup(s, PID_STRIPPED, hidden, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, want), "stripped -> %s, want %s",
              n ? fr[0].function : "(none)", want);
    CHECK_MSG(n == 1 && fr[0].file == NULL && fr[0].line == 0, "stripped has a file");
    CHECK_MSG(n == 1 && str_eq(fr[0].module, "libsymtest-stripped.so"), "module %s",
              n ? fr[0].module : "(none)");
    /* a pc inside the function (a return address there): the same function, the same name */
    n = symbolizer_lookup(s, PID_STRIPPED, hidden + 5, 1, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, want), "stripped, inside -> %s, want %s",
              n ? fr[0].function : "(none)", want);
    CHECK_MSG(n == 1 && fr[0].module_offset == hidden + 4 - r->bias, "inside: offset %#" PRIx64,
              n ? fr[0].module_offset : 0);

    /* Same range: stripped, then unstripped (dlclose + dlopen), then stripped again. */
    symbolizer_add_module(s, PID_REPLACE, SYMTEST_STRIPPED_LIB, r->bias, r->start, r->end, NULL, 0);
    n = symbolizer_lookup(s, PID_REPLACE, hidden, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, want), "replace 1 -> %s", n ? fr[0].function : "-");
    symbolizer_add_module(s, PID_REPLACE, SYMTEST_LIB, r->bias, r->start, r->end, NULL, 0);
    n = symbolizer_lookup(s, PID_REPLACE, hidden, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "symtest_hidden"), "replace 2 -> %s",
              n ? fr[0].function : "-");
    symbolizer_add_module(s, PID_REPLACE, SYMTEST_STRIPPED_LIB, r->bias, r->start, r->end, NULL, 0);
    n = symbolizer_lookup(s, PID_REPLACE, hidden, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, want), "replace 3 -> %s", n ? fr[0].function : "-");
}

/* File address of the section called name in the ELF file path, and its first word in *word
 * (an .init_array's or .fini_array's first function, as GNU ld writes it) when word is not
 * NULL; 0 for both when it has none. */
static uint64_t file_section(const char *path, const char *name, uint64_t *word)
{
    uint64_t addr = 0;
    size_t shstrndx;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    elf_version(EV_CURRENT);
    Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
    if (word)
        *word = 0;
    if (elf && elf_getshdrstrndx(elf, &shstrndx) == 0) {
        for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn && !addr; scn = elf_nextscn(elf, scn)) {
            GElf_Shdr sh;
            Elf_Data *d;
            const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
            if (!n || strcmp(n, name) != 0)
                continue;
            addr = sh.sh_addr;
            if (word && (d = elf_getdata(scn, NULL)) && d->d_buf && d->d_size >= 8)
                memcpy(word, d->d_buf, 8);
        }
    }
    if (elf)
        elf_end(elf);
    if (fd >= 0)
        close(fd);
    return addr;
}

/* Stripped code without an unwind entry: _init and _fini by their sections, one name per
 * section of stubs, per function after an entry of .fini_array, per instruction elsewhere in
 * .text (the module is PID_STRIPPED's). */
static void test_stripped_sections(struct symbolizer *s, const struct obj_range *r)
{
    struct sym_frame fr[MAX_FRAMES];
    uint64_t init = file_section(SYMTEST_STRIPPED_LIB, ".init", NULL);
    uint64_t fini = file_section(SYMTEST_STRIPPED_LIB, ".fini", NULL);
    uint64_t text = file_section(SYMTEST_STRIPPED_LIB, ".text", NULL);
    CHECK_MSG(init && fini && text,
              "sections of %s: .init %#" PRIx64 " .fini %#" PRIx64 " .text %#" PRIx64,
              SYMTEST_STRIPPED_LIB, init, fini, text);
    if (!init || !fini || !text)
        return;
    /* the first instruction of _init (a sample while its page is read in), a return inside */
    int n = symbolizer_lookup(s, PID_STRIPPED, r->bias + init, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "_init") &&
                  str_eq(fr[0].module, "libsymtest-stripped.so"),
              ".init -> %s in %s, want _init", n ? fr[0].function : "-", n ? fr[0].module : "-");
    n = symbolizer_lookup(s, PID_STRIPPED, r->bias + init + 5, 1, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "_init"), ".init + 4 -> %s, want _init",
              n ? fr[0].function : "-");
    n = symbolizer_lookup(s, PID_STRIPPED, r->bias + fini, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "_fini"), ".fini -> %s, want _fini",
              n ? fr[0].function : "-");
    /* .text's first bytes are the toolchain's startup helpers, compiled without unwind entries */
    char want[128];
    snprintf(want, sizeof want, "libsymtest-stripped.so+0x%" PRIx64, text);
    n = symbolizer_lookup(s, PID_STRIPPED, r->bias + text, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && (str_eq(fr[0].function, want) ||
                         strncmp(fr[0].function, "libsymtest-stripped.so@0x", 25) == 0),
              ".text start -> %s, want %s (or @0x where the toolchain wrote unwind entries)",
              n ? fr[0].function : "-", want);
    /* .fini_array's function (the toolchain's __do_global_dtors_aux, without an unwind entry: a
     * sample lands at its first read of .bss at exit), after its first instruction */
    uint64_t dtors = 0;
    file_section(SYMTEST_STRIPPED_LIB, ".fini_array", &dtors);
    CHECK_MSG(dtors > text, ".fini_array of %s: %#" PRIx64, SYMTEST_STRIPPED_LIB, dtors);
    if (dtors <= text)
        return;
    snprintf(want, sizeof want, "libsymtest-stripped.so@0x%" PRIx64, dtors);
    n = symbolizer_lookup(s, PID_STRIPPED, r->bias + dtors + 4, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, want), ".fini_array's function + 4 -> %s, want %s",
              n ? fr[0].function : "-", want);
}

/* Missing files, non-ELF files, a wrong build-id, garbage pcs: fallback names, no crash. */
static void test_bogus(struct symbolizer *s, const struct obj_range *r)
{
    struct sym_frame fr[MAX_FRAMES];
    static const uint8_t wrong_id[20] = {0xde, 0xad, 0xbe, 0xef};
    symbolizer_add_module(s, PID_BOGUS, "[unknown]", 0x10000, 0x10000, 0x20000, NULL, 0);
    symbolizer_add_module(s, PID_BOGUS, "/nonexistent/dir/libgone.so (deleted)", 0x20000, 0x20000,
                          0x30000, NULL, 0);
    symbolizer_add_module(s, PID_BOGUS, "/etc/passwd", 0x30000, 0x30000, 0x40000, NULL, 0);
    symbolizer_add_module(s, PID_BOGUS, SYMTEST_LIB, r->bias, r->start, r->end, wrong_id,
                          sizeof wrong_id);

    int n = symbolizer_lookup(s, PID_BOGUS, 0x10abc, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "[unknown]+0xabc"), "-> %s",
              n ? fr[0].function : "-");
    n = symbolizer_lookup(s, PID_BOGUS, 0x20abc, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "libgone.so (deleted)+0xabc"), "-> %s",
              n ? fr[0].function : "-");
    n = symbolizer_lookup(s, PID_BOGUS, 0x30abc, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "passwd+0xabc"), "-> %s", n ? fr[0].function : "-");
    uint64_t leaf = (uintptr_t)dlsym(RTLD_DEFAULT, "symtest_leaf");
    char want[128];
    snprintf(want, sizeof want, "libsymtest.so+0x%" PRIx64, leaf - r->bias);
    n = symbolizer_lookup(s, PID_BOGUS, leaf, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, want), "wrong build-id -> %s",
              n ? fr[0].function : "-");

    /* Outside every module, unknown pid, extreme values. */
    CHECK_MSG(symbolizer_lookup(s, PID_MAIN, 0x10, 0, fr, MAX_FRAMES) == 0, "pc 0x10");
    CHECK_MSG(symbolizer_lookup(s, PID_MAIN, 0, 1, fr, MAX_FRAMES) == 0, "return address 0");
    CHECK_MSG(symbolizer_lookup(s, PID_MAIN, UINT64_MAX, 0, fr, MAX_FRAMES) == 0, "pc max");
    CHECK_MSG(symbolizer_lookup(s, PID_MAIN, r->end, 0, fr, MAX_FRAMES) == 0, "pc at end");
    CHECK_MSG(symbolizer_lookup(s, 4242, leaf, 0, fr, MAX_FRAMES) == 0, "unknown pid");
    CHECK_MSG(symbolizer_lookup(s, PID_MAIN, leaf, 0, fr, 0) == 0, "max 0");

    /* Every few bytes of the library's whole span (data included) resolve to something. */
    int bad = 0;
    for (uint64_t pc = r->start; pc < r->end; pc += 7) {
        n = symbolizer_lookup(s, PID_MAIN, pc, pc & 8 ? 1 : 0, fr, MAX_FRAMES);
        if (n < 1 || !fr[0].function || !fr[0].function[0] ||
            !str_eq(fr[0].module, "libsymtest.so"))
            bad++;
    }
    CHECK_MSG(bad == 0, "%d pcs of the library did not resolve", bad);
}

/* The vDSO is read from this process's memory: its functions get their names. */
static void test_vdso(struct symbolizer *s)
{
    struct sym_frame fr[MAX_FRAMES];
    const void *ehdr = (const void *)getauxval(AT_SYSINFO_EHDR);
    if (!ehdr) {
        printf("no vDSO in this process: vDSO checks skipped\n");
        return;
    }
    struct obj_range r = range_of(ehdr);
    CHECK_MSG(r.found, "vDSO not in dl_iterate_phdr");
    if (!r.found)
        return;
    static const uint8_t wrong_id[20] = {1, 2, 3};
    symbolizer_add_module(s, PID_VDSO, "linux-vdso.so.1", r.bias, r.start, r.end, NULL, 0);
    symbolizer_add_module(s, PID_VDSO_BAD, "linux-vdso.so.1", r.bias, r.start, r.end, wrong_id,
                          sizeof wrong_id);
    int named = 0, clock = 0, bad = 0, fallback = 0;
    for (uint64_t pc = r.start; pc < r.end; pc++) {
        int n = symbolizer_lookup(s, PID_VDSO, pc, 0, fr, MAX_FRAMES);
        if (n < 1 || !fr[0].function || !fr[0].function[0] ||
            !str_eq(fr[0].module, "linux-vdso.so.1")) {
            bad++;
            continue;
        }
        if (strncmp(fr[0].function, "[vdso]", 6) != 0)
            named++;
        if (strstr(fr[0].function, "clock_gettime"))
            clock++;
        n = symbolizer_lookup(s, PID_VDSO_BAD, pc, 0, fr, MAX_FRAMES);
        if (n == 1 && strncmp(fr[0].function, "[vdso]+0x", 9) == 0)
            fallback++;
    }
    CHECK_MSG(bad == 0, "%d vDSO pcs without a frame", bad);
    CHECK_MSG(clock > 0, "no vDSO pc named *clock_gettime* (%d named)", named);
    CHECK_MSG(fallback == (int)(r.end - r.start), "foreign vDSO: %d of %d pcs named [vdso]+0x..",
              fallback, (int)(r.end - r.start));
    printf("vDSO: %" PRIu64 " bytes, %d pcs named, %d in *clock_gettime*\n", r.end - r.start, named,
           clock);
}

/* JIT code named by /tmp/perf-PID.map: hex with and without 0x, bad lines skipped, the newest of
 * overlapping lines wins, lines added later found, a line still being written not read. */
static void test_jit(struct symbolizer *s, const struct obj_range *r)
{
    struct sym_frame fr[MAX_FRAMES];
    uint32_t pid = (uint32_t)getpid() | 0x40000000u; /* beyond any real pid: a file of our own */
    char path[64];
    FILE *f;
    int n;

    snprintf(path, sizeof path, "/tmp/perf-%u.map", pid);
    f = fopen(path, "w");
    CHECK_MSG(f != NULL, "cannot write %s", path);
    if (!f)
        return;
    fputs("1000 100 first\n0x2000 0x10 hex name\nnot a line\n", f);
    fflush(f);
    symbolizer_add_module(s, pid, SYMTEST_LIB, r->bias, r->start, r->end, NULL, 0);
    n = symbolizer_lookup(s, pid, 0x1050, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "first") && str_eq(fr[0].module, "[jit]"),
              "jit 0x1050 -> %s %s", n ? fr[0].function : "-", n ? fr[0].module : "-");
    n = symbolizer_lookup(s, pid, 0x2008, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "hex name"), "jit 0x2008 -> %s",
              n ? fr[0].function : "-");
    CHECK_MSG(symbolizer_lookup(s, pid, 0x3004, 0, fr, MAX_FRAMES) == 0, "0x3004 before its line");
    fputs("1040 20 newer\n3000 10 late\n4000 10 part", f);
    fflush(f);
    n = symbolizer_lookup(s, pid, 0x1048, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "newer"), "overlap 0x1048 -> %s",
              n ? fr[0].function : "-");
    n = symbolizer_lookup(s, pid, 0x1070, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "first"), "0x1070 -> %s", n ? fr[0].function : "-");
    n = symbolizer_lookup(s, pid, 0x3004, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "late"), "grown 0x3004 -> %s",
              n ? fr[0].function : "-");
    CHECK_MSG(symbolizer_lookup(s, pid, 0x4004, 0, fr, MAX_FRAMES) == 0, "half a line read");
    fputs("ial\n", f);
    fclose(f);
    n = symbolizer_lookup(s, pid, 0x4008, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "partial"), "completed line 0x4008 -> %s",
              n ? fr[0].function : "-");
    unlink(path);
}

/* A file that finishes loading while an address is looked up: the loader thread publishes
 * READY between any two reads of the state. Every lookup must either wait (-1: not yet) or
 * name the function; none may get the fallback name of a failed file ("lib+0xOFFSET"), which
 * the cache would keep for the rest of the run. Many loads, each looked up in a tight loop,
 * so the moment of publishing falls inside a lookup now and then. */
static void test_async_publish(const struct obj_range *r, uint64_t leaf)
{
    enum { LOADS = 400 };
    struct sym_frame fr[MAX_FRAMES];
    int wrong = 0, waited = 0;
    const char *first_wrong = NULL;

    for (int i = 0; i < LOADS; i++) {
        struct symbolizer *s = symbolizer_new();
        int n;
        symbolizer_set_async(s, 1);
        symbolizer_add_module(s, PID_MAIN, SYMTEST_LIB, r->bias, r->start, r->end, NULL, 0);
        while ((n = symbolizer_lookup(s, PID_MAIN, leaf, 0, fr, MAX_FRAMES)) < 0)
            waited++;
        if (n < 1 || !str_eq(fr[0].function, "symtest_leaf")) {
            if (!wrong++)
                first_wrong = n > 0 && fr[0].function ? strdup(fr[0].function) : NULL;
        }
        symbolizer_free(s);
    }
    CHECK_MSG(wrong == 0, "%d of %d loads named symtest_leaf otherwise (the first: %s)", wrong,
              LOADS, first_wrong ? first_wrong : "(nothing)");
    printf("async loads: %d, lookups that waited for the file: %d\n", LOADS, waited);
    free((void *)first_wrong);
}

int main(void)
{
    struct sym_frame fr[MAX_FRAMES], again[MAX_FRAMES];
    void *h = dlopen(SYMTEST_LIB, RTLD_NOW | RTLD_GLOBAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", SYMTEST_LIB, dlerror());
        return 1;
    }
    void *leaf = dlsym(h, "symtest_leaf");
    void *outer = dlsym(h, "symtest_outer");
    void *cxx = dlsym(h, SYMTEST_CXX_MANGLED);
    void *(*hidden_addr)(void) = (void *(*)(void))dlsym(h, "symtest_hidden_addr");
    if (!leaf || !outer || !cxx || !hidden_addr) {
        fprintf(stderr, "missing symbols in %s\n", SYMTEST_LIB);
        return 1;
    }
    struct obj_range r = range_of(leaf);
    if (!r.found) {
        fprintf(stderr, "libsymtest.so not found by dl_iterate_phdr\n");
        return 1;
    }

    struct symbolizer *s = symbolizer_new();
    symbolizer_add_module(s, PID_MAIN, SYMTEST_LIB, r.bias, r.start, r.end, NULL, 0);
    symbolizer_add_module(s, PID_MAIN, SYMTEST_LIB, r.bias, r.start, r.end, NULL, 0); /* dup */

    test_leaf(s, (uintptr_t)leaf, &r);
    test_inline(s, outer);

    int n = symbolizer_lookup(s, PID_MAIN, (uintptr_t)cxx, 0, fr, MAX_FRAMES);
    CHECK_MSG(n == 1 && str_eq(fr[0].function, "symtest_ns::compute(int)"), "C++ -> %s",
              n ? fr[0].function : "(none)");
    CHECK_MSG(n == 1 && fr[0].decl_line > 0 && str_eq(base_name(fr[0].file), "symtest_cxx.cpp"),
              "C++ file %s decl %d", n ? fr[0].file : "-", n ? fr[0].decl_line : 0);

    test_stripped(s, (uintptr_t)hidden_addr(), &r);
    test_stripped_sections(s, &r);
    test_bogus(s, &r);
    test_vdso(s);
    test_jit(s, &r);
    test_async_publish(&r, (uintptr_t)leaf);

    /* Cached: the same frames, the same (interned) pointers. */
    n = symbolizer_lookup(s, PID_MAIN, (uintptr_t)leaf, 0, fr, MAX_FRAMES);
    int m = symbolizer_lookup(s, PID_MAIN, (uintptr_t)leaf, 0, again, MAX_FRAMES);
    CHECK_MSG(n == 1 && m == n && memcmp(fr, again, sizeof fr[0] * (size_t)n) == 0,
              "second lookup differs");
    m = symbolizer_lookup(s, PID_MAIN, (uintptr_t)leaf + 2, 0, again, MAX_FRAMES);
    CHECK_MSG(m == 1 && again[0].function == fr[0].function && again[0].file == fr[0].file,
              "strings not interned");

    /* After forget: cached results stay (same pointers), new pcs find no module. */
    symbolizer_forget_process(s, PID_MAIN);
    m = symbolizer_lookup(s, PID_MAIN, (uintptr_t)leaf, 0, again, MAX_FRAMES);
    CHECK_MSG(m == 1 && memcmp(fr, again, sizeof fr[0]) == 0, "cached lookup lost after forget");
    CHECK_MSG(symbolizer_lookup(s, PID_MAIN, (uintptr_t)leaf + 3, 0, again, MAX_FRAMES) == 0,
              "uncached lookup after forget found a module");
    /* The pid comes back (reused): stale results are dropped, new modules work. */
    symbolizer_add_module(s, PID_MAIN, SYMTEST_STRIPPED_LIB, r.bias, r.start, r.end, NULL, 0);
    m = symbolizer_lookup(s, PID_MAIN, (uintptr_t)hidden_addr(), 0, again, MAX_FRAMES);
    CHECK_MSG(m == 1 && strncmp(again[0].function, "libsymtest-stripped.so@0x", 25) == 0,
              "reused pid -> %s", m ? again[0].function : "-");
    symbolizer_forget_process(s, PID_MAIN);
    symbolizer_add_module(s, PID_MAIN, SYMTEST_LIB, r.bias, r.start, r.end, NULL, 0);
    m = symbolizer_lookup(s, PID_MAIN, (uintptr_t)leaf, 0, again, MAX_FRAMES);
    CHECK_MSG(m == 1 && again[0].function == fr[0].function, "re-added pid");

    /* Informational: the cost of a cached lookup. */
    enum { ROUNDS = 1000000 };
    uint64_t pcs[4] = {(uintptr_t)leaf, (uintptr_t)leaf + 1, (uintptr_t)leaf + 2,
                       (uintptr_t)leaf + 3};
    for (int i = 0; i < 4; i++)
        symbolizer_lookup(s, PID_MAIN, pcs[i], 0, again, MAX_FRAMES);
    uint64_t t0 = now_ns();
    long total = 0;
    for (int i = 0; i < ROUNDS; i++)
        total += symbolizer_lookup(s, PID_MAIN, pcs[i & 3], 0, again, MAX_FRAMES);
    uint64_t t1 = now_ns();
    CHECK_MSG(total == ROUNDS, "cached lookups returned %ld frames", total);
    printf("cached lookup: %.1f ns on average over %d lookups\n", (double)(t1 - t0) / ROUNDS,
           ROUNDS);

    symbolizer_free(s);
    dlclose(h);
    return check_summary();
}
