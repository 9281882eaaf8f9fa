/* Stacks of threads seen from outside: the modules of a process from /proc/PID/maps, and DWARF
 * unwinding (libdwfl) of a perf sample's registers and stack copy, with the Dwfl the
 * symbolizer keeps per process (its ELF files and parsed CFI live as long as the process). */
#define _GNU_SOURCE
#include "model_internal.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* perf's x86-64 register order (PERF_REG_X86_*, DS..GS left out) */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS, R_CS, R_SS, R_R8 };

/* The sample being unwound (the front end's main thread unwinds one at a time). */
static const struct symbolizer_stack *cur;

/* The load bias of the ELF file at path mapped at start from file offset off: start minus the
 * virtual address of that file offset. 0 and -1 when the file cannot be read. */
static int elf_bias(const char *path, uint64_t start, uint64_t off, uint64_t *bias)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
    Elf *elf = NULL;
    size_t n;

    if (fd < 0)
        return -1;
    elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf || elf_getphdrnum(elf, &n) != 0)
        goto out;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        uint64_t pg = ph.p_offset & ~(uint64_t)0xfff;
        if (off >= pg && off < ph.p_offset + ph.p_filesz) {
            *bias = start - (ph.p_vaddr - (ph.p_offset - off));
            rc = 0;
            break;
        }
    }
out:
    if (elf)
        elf_end(elf);
    close(fd);
    return rc;
}

int symbolizer_load_maps(struct symbolizer *s, uint32_t pid)
{
    char path[64], line[4352], file[4096], prev[4096] = "";
    uint64_t lo, hi, off, span_lo = 0, span_hi = 0, bias = 0;
    int added = 0, have = 0, have_bias = 0;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%u/maps", pid);
    f = fopen(path, "re");
    if (!f)
        return -errno;
    elf_version(EV_CURRENT);
    /* a file's mappings are adjacent: its span runs from its first to its last mapping */
    while (fgets(line, sizeof(line), f)) {
        char perms[8];
        file[0] = '\0';
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095[^\n]", &lo, &hi,
                   perms, &off, file) < 4)
            continue;
        char *name = file + strspn(file, " ");
        if (have && strcmp(name, prev) != 0) {
            if (have_bias) {
                symbolizer_add_module(s, pid, prev, bias, span_lo, span_hi, NULL, 0);
                added++;
            }
            have = have_bias = 0;
        }
        if (name[0] != '/' && strcmp(name, "[vdso]") != 0)
            continue;
        if (!have) {
            snprintf(prev, sizeof(prev), "%s", name);
            span_lo = lo;
            have = 1;
        }
        span_hi = hi;
        if (perms[2] == 'x' && !have_bias) {
            if (name[0] == '[') { /* the vDSO: an ELF image at its mapping, bias = start */
                bias = lo;
                have_bias = 1;
            } else {
                char root[4200];
                snprintf(root, sizeof(root), "/proc/%u/root%s", pid, name);
                have_bias =
                    elf_bias(root, lo, off, &bias) == 0 || elf_bias(name, lo, off, &bias) == 0;
            }
        }
    }
    if (have && have_bias) {
        symbolizer_add_module(s, pid, prev, bias, span_lo, span_hi, NULL, 0);
        added++;
    }
    fclose(f);
    return added;
}

/* libdwfl asks for the one thread being unwound by its tid. */
static bool get_thread(Dwfl *dwfl, pid_t tid, void *dwfl_arg, void **thread_argp)
{
    (void)dwfl;
    (void)dwfl_arg;
    *thread_argp = (void *)cur;
    return cur && (uint32_t)tid == cur->tid;
}

/* Iteration over threads: only the one being unwound. */
static pid_t next_thread(Dwfl *dwfl, void *dwfl_arg, void **thread_argp)
{
    (void)dwfl;
    (void)dwfl_arg;
    if (*thread_argp || !cur)
        return 0;
    *thread_argp = (void *)cur;
    return (pid_t)cur->tid;
}

/* A word of the thread's memory: from the stack copy, else from the file of the module that
 * maps it (read-only data the CFI may refer to). */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *dwfl_arg)
{
    uint64_t sp = cur->regs[R_SP];
    (void)dwfl_arg;

    if (addr >= sp && addr - sp + 8 <= cur->stack_len) {
        memcpy(result, cur->stack + (addr - sp), 8);
        return true;
    }
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    Dwarf_Addr bias;
    Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
    size_t n;
    if (!elf || elf_getphdrnum(elf, &n) != 0)
        return false;
    for (size_t i = 0; i < n; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
            continue;
        uint64_t v = addr - bias;
        if (v >= ph.p_vaddr && v + 8 <= ph.p_vaddr + ph.p_filesz) {
            Elf_Data *d =
                elf_getdata_rawchunk(elf, (int64_t)(ph.p_offset + v - ph.p_vaddr), 8, ELF_T_BYTE);
            if (!d || !d->d_buf)
                return false;
            memcpy(result, d->d_buf, 8);
            return true;
        }
    }
    return false;
}

/* The sampled registers in DWARF order: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip. */
static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const struct symbolizer_stack *st = thread_arg;
    Dwarf_Word r[17] = {st->regs[R_AX], st->regs[R_DX], st->regs[R_CX], st->regs[R_BX],
                        st->regs[R_SI], st->regs[R_DI], st->regs[R_BP], st->regs[R_SP]};

    for (int i = 0; i < 8; i++)
        r[8 + i] = st->regs[R_R8 + i];
    r[16] = st->regs[R_IP];
    return dwfl_thread_state_registers(thread, 0, 17, r);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

/* Where frames are collected. */
struct walk {
    uint64_t *out;
    uint32_t n, max;
    uint64_t sp; /* the last frame's stack pointer: each caller's must be higher */
};

/* One frame: its pc (a return address for every frame but the first). */
static int on_frame(Dwfl_Frame *state, void *arg)
{
    struct walk *w = arg;
    Dwarf_Addr pc;
    bool activation;

    Dwarf_Word sp;

    if (!dwfl_frame_pc(state, &pc, &activation) || pc == 0)
        return DWARF_CB_ABORT;
    /* a frame that does not move up the stack would repeat forever (recursion does move) */
    if (dwfl_frame_reg(state, 7 /* rsp */, &sp) == 0) {
        if (w->n > 0 && sp <= w->sp)
            return DWARF_CB_ABORT;
        w->sp = sp;
    }
    w->out[w->n++] = pc;
    return w->n < w->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

uint32_t symbolizer_unwind(struct symbolizer *s, const struct symbolizer_stack *st, uint64_t *out,
                           uint32_t max)
{
    struct walk w = {.out = out, .n = 0, .max = max};
    Dwfl *dwfl;

    if (max == 0)
        return 0;
    dwfl = symbolizer_dwfl_all(s, st->pid);
    if (!dwfl || !dwfl_addrmodule(dwfl, st->regs[R_IP])) {
        out[0] = st->regs[R_IP]; /* no CFI for the pc: the pc alone */
        return 1;
    }
    /* the architecture comes from the reported modules; once per Dwfl (a new one after exec) */
    if (dwfl_pid(dwfl) <= 0 &&
        !dwfl_attach_state(dwfl, NULL, (pid_t)st->pid, &thread_callbacks, NULL)) {
        out[0] = st->regs[R_IP];
        return 1;
    }
    cur = st;
    dwfl_getthread_frames(dwfl, (pid_t)st->tid, on_frame, &w); /* an error ends every chain */
    cur = NULL;
    if (w.n == 0)
        out[w.n++] = st->regs[R_IP];
    return w.n;
}
