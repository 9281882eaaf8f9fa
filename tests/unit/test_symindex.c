/* Unit test of the symbol index (symbols/symfiles.c): for every few bytes of the executable code
 * of real files of this machine (libc, libstdc++, libm, libz, this test itself), the index's
 * answer must be libdwfl's dwfl_module_addrinfo answer, which it replaces (a linear scan of
 * the symbol table per address). Prints how many addresses were compared per file. */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "symbols/symbols_internal.h"

/* The path of the loaded object whose name contains part, via dl_iterate_phdr. */
struct find {
    const char *part;
    char path[4096];
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct find *f = arg;
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, f->part)) {
        snprintf(f->path, sizeof f->path, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

/* Monotonic nanoseconds. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Compare the index with dwfl_module_addrinfo over path's executable segments. */
static void compare_file(struct symbolizer_files *fs, const char *path, int stride)
{
    struct sym_file *f = symfiles_get(fs, path, path, NULL, 0);
    int light = 0;
    Dwfl_Module *dm = symfile_module(f, &light);
    Dwarf_Addr bias = 0;
    Elf *elf = dm ? dwfl_module_getelf(dm, &bias) : NULL;
    size_t nph = 0;
    long compared = 0, named = 0, differ = 0;
    double t_dwfl = 0, t_index = 0;

    CHECK_MSG(dm && elf && symfile_indexed(f), "%s: not loaded or not indexed", path);
    if (!dm || !elf || !symfile_indexed(f) || elf_getphdrnum(elf, &nph) != 0)
        return;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
            continue;
        for (uint64_t a = ph.p_vaddr + bias; a < ph.p_vaddr + bias + ph.p_memsz; a += stride) {
            GElf_Off off;
            GElf_Sym sym;
            uint64_t start;
            double t0 = now_ns();
            const char *want = dwfl_module_addrinfo(dm, a, &off, &sym, NULL, NULL, NULL);
            double t1 = now_ns();
            const char *got = symfile_symbol(f, a, &start);
            t_index += now_ns() - t1;
            t_dwfl += t1 - t0;
            compared++;
            named += want != NULL;
            if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
                if (differ++ < 5)
                    fprintf(stderr, "  %s+%#lx: libdwfl %s, index %s\n", path, (unsigned long)a,
                            want ? want : "(none)", got ? got : "(none)");
            }
        }
    }
    printf("%s: %ld addresses, %ld named, %ld differ; per lookup: libdwfl %.0f ns, index %.0f ns\n",
           path, compared, named, differ, compared ? t_dwfl / compared : 0,
           compared ? t_index / compared : 0);
    CHECK_MSG(compared > 100, "%s: only %ld addresses", path, compared);
    CHECK_MSG(differ == 0, "%s: %ld of %ld addresses differ from libdwfl", path, differ, compared);
}

int main(int argc, char **argv)
{
    struct symbolizer_files *fs = symfiles_new();
    const char *parts[] = {"libc.so", "libz.so", "libelf", "libdw"};

    (void)argc;
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        struct find f = {.part = parts[i]};
        dl_iterate_phdr(find_cb, &f);
        if (!f.path[0]) {
            printf("SKIP %s: not loaded in this test\n", parts[i]);
            continue;
        }
        compare_file(fs, f.path, 61); /* (libdwfl's answer costs a scan of the table) */
    }
    compare_file(fs, "/proc/self/exe", 3);
    (void)argv;
    symfiles_free(fs);
    return check_summary();
}
