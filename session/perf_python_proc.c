/* A process's CPython seen from outside (the perf engine's Python frames): the mapped file that
 * defines _PyRuntime, its type objects, its version, the layout of its objects
 * (collector/python_layout.c), and reads of its memory. */
#define _GNU_SOURCE
#include "session/perf_python_proc.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "session/perf_python.h"

/* n bytes of process pid at addr into dst: 0, or -1. */
int perf_python_peek(uint32_t pid, uint64_t addr, void *dst, size_t n)
{
    struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)addr, n};

    return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}

enum { SYM_RUNTIME, SYM_VERSION, SYM_CODE, SYM_UNICODE, SYM_BYTES, SYM_FRAME, NSYMS };
static const char *const sym_names[NSYMS] = {"_PyRuntime",     "Py_Version",   "PyCode_Type",
                                             "PyUnicode_Type", "PyBytes_Type", "PyFrame_Type"};

/* The symbols of sym_names in ELF file path into val (0: absent), and the address its first
 * loadable segment asks for into *first_vaddr. 0, or -1 if not an ELF file. */
static int elf_syms(const char *path, uint64_t *val, uint64_t *first_vaddr, int *is_exec)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
    Elf *e;
    Elf_Scn *scn = NULL;
    size_t nph;

    memset(val, 0, NSYMS * sizeof(*val));
    if (fd < 0)
        return -1;
    elf_version(EV_CURRENT);
    e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &nph) != 0)
        goto out;
    GElf_Ehdr eh;
    if (!gelf_getehdr(e, &eh))
        goto out;
    *is_exec = eh.e_type == ET_EXEC;
    *first_vaddr = 0;
    for (size_t i = 0; i < nph; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
            *first_vaddr = ph.p_vaddr & ~(uint64_t)4095;
            break;
        }
    }
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        Elf_Data *d;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_DYNSYM && sh.sh_type != SHT_SYMTAB) ||
            !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
            continue;
        for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
            GElf_Sym s;
            const char *name;
            if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
                !(name = elf_strptr(e, sh.sh_link, s.st_name)))
                continue;
            for (int k = 0; k < NSYMS; k++)
                if (!val[k] && strcmp(name, sym_names[k]) == 0)
                    val[k] = s.st_value;
        }
    }
    rc = 0;
out:
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

/* The minor version a file name says (python3.N, libpython3.N.so...), or -1. */
static int minor_of_name(const char *path)
{
    const char *b = strrchr(path, '/'), *p;

    b = b ? b + 1 : path;
    p = strstr(b, "python3.");
    return p ? atoi(p + 8) : -1;
}

/* Find process pid's CPython (the mapped file defining _PyRuntime) into *pp: 0, or -1. */
int perf_python_find(uint32_t pid, struct py_proc *pp)
{
    char maps[64], line[4096 + 128], path[4096 + 64];
    FILE *f;
    int found = -1;

    memset(pp, 0, sizeof(*pp));
    pp->pid = pid;
    snprintf(maps, sizeof(maps), "/proc/%u/maps", pid);
    f = fopen(maps, "re");
    if (!f)
        return -1;
    while (found != 0 && fgets(line, sizeof(line), f)) {
        unsigned long long start, end, off;
        int pos = 0;
        if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &start, &end, &off, &pos) < 3 || !pos ||
            off != 0)
            continue;
        char *file = line + pos;
        file[strcspn(file, "\n")] = '\0';
        if (file[0] != '/' || !strstr(file, "python"))
            continue;
        uint64_t val[NSYMS], first = 0;
        int is_exec = 0;
        snprintf(path, sizeof(path), "/proc/%u/root%s", pid, file);
        if (elf_syms(path, val, &first, &is_exec) != 0 && elf_syms(file, val, &first, &is_exec))
            continue;
        if (!val[SYM_RUNTIME])
            continue;
        uint64_t bias = is_exec ? 0 : start - first;
        uint32_t v = 0;
        pp->runtime = val[SYM_RUNTIME] + bias;
        pp->code_type = val[SYM_CODE] ? val[SYM_CODE] + bias : 0;
        pp->unicode_type = val[SYM_UNICODE] ? val[SYM_UNICODE] + bias : 0;
        pp->bytes_type = val[SYM_BYTES] ? val[SYM_BYTES] + bias : 0;
        pp->frame_type = val[SYM_FRAME] ? val[SYM_FRAME] + bias : 0;
        if (val[SYM_VERSION] && perf_python_peek(pid, val[SYM_VERSION] + bias, &v, 4) == 0 &&
            (v >> 24) == 3)
            pp->version_hex = v;
        else if (minor_of_name(file) >= 0)
            pp->version_hex = 3u << 24 | (uint32_t)minor_of_name(file) << 16;
        found = 0;
    }
    fclose(f);
    return found;
}

int perf_python_probe(uint32_t pid, uint32_t *version_hex)
{
    struct py_proc p;

    *version_hex = 0;
    if (perf_python_find(pid, &p) != 0)
        return 0;
    *version_hex = p.version_hex;
    return 1;
}

/* The layout of p's interpreter into p->l: 0, or -1 with why. */
int perf_python_layout(struct py_proc *p, char *why, size_t cap)
{
    static uint8_t dbg[PY_DEBUG_OFFSETS_MAX];
    const char *reason = "";
    int minor = (int)((p->version_hex >> 16) & 0xff);

    if (minor >= 13 && perf_python_peek(p->pid, p->runtime, dbg, sizeof(dbg)) != 0) {
        snprintf(why, cap, "the interpreter's memory could not be read");
        return -1;
    }
    if (py_layout_for(p->version_hex, minor >= 13 ? dbg : NULL, sizeof(dbg), &p->l, &reason) !=
        PY_LAYOUT_OK) {
        snprintf(why, cap, "Python %d.%d: %s", (int)(p->version_hex >> 24), minor, reason);
        return -1;
    }
    return 0;
}
