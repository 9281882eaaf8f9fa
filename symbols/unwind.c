/* Stacks of threads seen from outside: the modules of a process from /proc/PID/maps, and DWARF
 * unwinding (libdwfl) of a perf sample's registers and stack copy, with the Dwfl the
 * symbolizer keeps per process (its ELF files and parsed CFI live as long as the process). */
#define _GNU_SOURCE
#include "base/hashmap.h"
#include "base/base.h"
#include "symbols/symbols_internal.h"

#include <dwarf.h>
#include <elfutils/libdw.h>

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

/* The sample being unwound (the front end's main thread unwinds one at a time), and whether
 * libdwfl asked for a word past the end of its stack copy. */
static const struct symbolizer_stack *cur;
static bool read_past_copy;

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
    if (addr + 8 == sp) { /* the slot an epilogue popped rbp from (as walk_rules) */
        *result = cur->regs[R_BP];
        return true;
    }
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, addr);
    Dwarf_Addr bias;
    Elf *elf = mod ? dwfl_module_getelf(mod, &bias) : NULL;
    size_t n;
    if (!mod && addr >= sp + cur->stack_len)
        read_past_copy = true; /* the stack goes on above the copy */
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
    uint64_t *out, *sps;
    uint32_t n, max;
    uint64_t sp; /* the last frame's stack pointer: each caller's must be higher */
    int end;     /* SYMBOLIZER_END_* when the callback ended the walk */
    void *rules; /* the process's rules (struct proc_rules), NULL: none */
};

/* Whether the last walk ended at a zero frame pointer (outermost by the ABI, cut for libdwfl:
 * the unwind check allows that difference). */
static bool walk_zero_fp;
static bool frame_no_cfi(void *rules, uint64_t at);

/* One frame: its pc (a return address for every frame but the first). */
static int on_frame(Dwfl_Frame *state, void *arg)
{
    struct walk *w = arg;
    Dwarf_Addr pc;
    bool activation;

    Dwarf_Word sp;

    if (!dwfl_frame_pc(state, &pc, &activation))
        return DWARF_CB_ABORT;
    if (pc == 0) { /* a return address of 0: the end of the chain */
        w->end = SYMBOLIZER_END_OUTERMOST;
        return DWARF_CB_ABORT;
    }
    /* a frame that does not move up the stack would repeat forever (recursion does move) */
    if (dwfl_frame_reg(state, 7 /* rsp */, &sp) == 0) {
        if (w->n > 0 && sp <= w->sp)
            return DWARF_CB_ABORT;
        w->sp = sp;
    }
    if (w->sps)
        w->sps[w->n] = w->sp;
    w->out[w->n++] = pc;
    /* code without CFI whose frame pointer is 0: the ABI's outermost frame, as walk_rules takes
     * it (libdwfl calls it cut: the dynamic loader's entry below a lazy binding's resolver,
     * whose CFI only libdwfl follows, was a [truncated] stack) */
    Dwarf_Word bp;
    if (w->rules && dwfl_frame_reg(state, 6 /* rbp */, &bp) == 0 && bp == 0 &&
        frame_no_cfi(w->rules, activation ? pc : pc - 1)) {
        w->end = SYMBOLIZER_END_OUTERMOST;
        walk_zero_fp = true;
        return DWARF_CB_ABORT;
    }
    if (w->n < w->max)
        return DWARF_CB_OK;
    w->end = SYMBOLIZER_END_FRAMES;
    return DWARF_CB_ABORT;
}

/* The full unwinder: libdwfl's, every register tracked, every kind of CFI rule, frame-pointer
 * fallback where a module has no CFI. *end: how it ended. */
static uint32_t unwind_dwfl(Dwfl *dwfl, const struct symbolizer_stack *st, void *rules,
                            uint64_t *out, uint64_t *sps, uint32_t max, int *end)
{
    struct walk w = {
        .out = out, .sps = sps, .max = max, .end = SYMBOLIZER_END_OTHER, .rules = rules};

    cur = st;
    read_past_copy = false;
    if (rules) /* (the unwind check's reference walk keeps the cached walk's) */
        walk_zero_fp = false;
    w.sp = st->regs[R_SP];
    /* 0: the outermost frame was reached (or a return address could not be read: libdwfl
     * takes it as undefined too); else an error or the callback ended the chain */
    int rc = dwfl_getthread_frames(dwfl, (pid_t)st->tid, on_frame, &w);
    cur = NULL;
    if (rc == 0 && w.n > 0)
        *end = read_past_copy ? SYMBOLIZER_END_COPY : SYMBOLIZER_END_OUTERMOST;
    else if (rc == DWARF_CB_ABORT)
        *end = w.end;
    else
        *end = read_past_copy ? SYMBOLIZER_END_COPY : SYMBOLIZER_END_OTHER;
    return w.n;
}

/*
 * The cached unwinder. Nearly every x86-64 frame follows one simple rule: CFA = rsp or rbp +
 * offset, the return address at CFA - 8, the caller's rsp = CFA, rbp unchanged or saved at
 * CFA + offset. libdw decodes the CFI of a pc once; the rule is kept per process, packed in 32
 * bits, and a sample's frames then cost a hash lookup and two loads each. A pc whose rule is
 * anything else (expressions, a signal frame, no CFI, other registers) sends the whole sample
 * to libdwfl, so results are libdwfl's exactly (ROCSYS_UNWIND_CHECK=1 compares every sample).
 */
enum {
    RULE_SIMPLE = 1,  /* the fields below hold the rule */
    RULE_COMPLEX = 2, /* libdwfl unwinds the sample */
    RULE_NOMOD = 3,   /* no module (JIT code): frame pointers, as libdwfl's fallback */
    RULE_CFA_RBP = 1u << 2,
    RULE_BP_AT = 1u << 3,    /* rbp saved at CFA + bp_off (else same value) */
    RULE_BP_UNDEF = 1u << 4, /* rbp unknown in the caller */
    RULE_RA_UNDEF = 1u << 5, /* the outermost frame */
    RULE_BP_SHIFT = 6,       /* bp_off / 8: RULE_BP_BITS, signed */
    RULE_BP_BITS = 7,
    RULE_CFA_SHIFT = 13, /* cfa_off: RULE_CFA_BITS, signed (up to bit 30: 31 is RULE_NO_CFI) */
    RULE_CFA_BITS = 18,
    RULE_NO_CFI = 1u << 31, /* a module's code without CFI (frame pointers, as libdwfl) */
};
_Static_assert(RULE_BP_SHIFT + RULE_BP_BITS <= RULE_CFA_SHIFT, "rule: bp_off overlaps cfa_off");
_Static_assert(RULE_CFA_SHIFT + RULE_CFA_BITS <= 31, "rule: cfa_off overlaps RULE_NO_CFI");

/* Code without CFI (JIT code, V8's builtins): libdwfl falls back to the frame pointer; as a
 * rule: CFA = rbp + 16, the return address at CFA - 8, the caller's rbp at CFA - 16. */
#define RULE_FRAME_POINTER                                                                         \
    (RULE_SIMPLE | RULE_CFA_RBP | 16u << RULE_CFA_SHIFT | RULE_BP_AT |                             \
     ((uint32_t)-2 & ((1u << RULE_BP_BITS) - 1)) << RULE_BP_SHIFT)

/* Sign-extend the bits of v from shift up (width bits). */
static int32_t rule_field(uint32_t v, int shift, int width)
{
    int32_t x = (int32_t)((v >> shift) & ((1u << width) - 1));
    return x >= 1 << (width - 1) ? x - (1 << width) : x;
}

/* Whether ops say "CFA + k" as a location (value = 0) or as a value (value = 1). */
static bool ops_cfa_plus(const Dwarf_Op *ops, size_t nops, int value, int64_t *k)
{
    size_t i = 0;
    *k = 0;
    if (nops < 1 || ops[i++].atom != DW_OP_call_frame_cfa)
        return false;
    if (i < nops && ops[i].atom == DW_OP_plus_uconst)
        *k = (int64_t)ops[i++].number;
    if (value && (i >= nops || ops[i++].atom != DW_OP_stack_value))
        return false;
    return i == nops;
}

/* The rule of one CFI frame, RULE_COMPLEX if it is not a simple one. */
static uint32_t rule_of(Dwarf_Frame *fr)
{
    Dwarf_Op mem[3], *ops;
    size_t nops;
    bool signal = false;
    int64_t k, cfa_off;
    uint32_t r = RULE_SIMPLE;

    if (dwarf_frame_info(fr, NULL, NULL, &signal) != 16 || signal)
        return RULE_COMPLEX;
    if (dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1)
        return RULE_COMPLEX;
    if (ops[0].atom == DW_OP_bregx && (ops[0].number == 6 || ops[0].number == 7)) {
        r |= ops[0].number == 6 ? RULE_CFA_RBP : 0;
        cfa_off = (int64_t)ops[0].number2;
    } else if (ops[0].atom == DW_OP_breg6 || ops[0].atom == DW_OP_breg7) {
        r |= ops[0].atom == DW_OP_breg6 ? RULE_CFA_RBP : 0;
        cfa_off = (int64_t)ops[0].number;
    } else {
        return RULE_COMPLEX;
    }
    if (cfa_off < -(1 << (RULE_CFA_BITS - 1)) || cfa_off >= 1 << (RULE_CFA_BITS - 1))
        return RULE_COMPLEX;
    r |= ((uint32_t)cfa_off & ((1u << RULE_CFA_BITS) - 1)) << RULE_CFA_SHIFT;
    /* the caller's rsp is the CFA */
    if (dwarf_frame_register(fr, 7, mem, &ops, &nops) != 0 || !ops_cfa_plus(ops, nops, 1, &k) ||
        k != 0)
        return RULE_COMPLEX;
    /* the return address (register 16) */
    if (dwarf_frame_register(fr, 16, mem, &ops, &nops) != 0)
        return RULE_COMPLEX;
    if (nops == 0 && ops == mem)
        r |= RULE_RA_UNDEF;
    else if (!ops_cfa_plus(ops, nops, 0, &k) || k != -8)
        return RULE_COMPLEX;
    /* rbp (register 6) */
    if (dwarf_frame_register(fr, 6, mem, &ops, &nops) != 0)
        return RULE_COMPLEX;
    if (nops == 0 && ops == mem) {
        r |= RULE_BP_UNDEF;
    } else if (nops == 0 && ops == NULL) {
        /* same value */
    } else if (ops_cfa_plus(ops, nops, 0, &k) && k % 8 == 0 &&
               k >= -8 * (1 << (RULE_BP_BITS - 1)) && k < 8 * (1 << (RULE_BP_BITS - 1))) {
        r |= RULE_BP_AT | ((uint32_t)(k / 8) & ((1u << RULE_BP_BITS) - 1)) << RULE_BP_SHIFT;
    } else {
        return RULE_COMPLEX;
    }
    return r;
}

/* The rule for pc (already the call site for callers), decoded as libdwfl would: the first of
 * .eh_frame and .debug_frame that has an entry for it. */
static uint32_t rule_lookup(Dwfl *dwfl, uint64_t pc)
{
    Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
    Dwarf_CFI *cfis[2];
    Dwarf_Addr bias[2];

    if (!mod)
        return RULE_NOMOD;
    cfis[0] = dwfl_module_eh_cfi(mod, &bias[0]);
    cfis[1] = NULL;
    for (int i = 0; i < 2; i++) {
        Dwarf_Frame *fr = NULL;
        if (i == 1)
            cfis[1] = dwfl_module_dwarf_cfi(mod, &bias[1]);
        if (!cfis[i] || dwarf_cfi_addrframe(cfis[i], pc - bias[i], &fr) != 0)
            continue;
        uint32_t r = rule_of(fr);
        free(fr);
        return r;
    }
    return RULE_FRAME_POINTER | RULE_NO_CFI; /* no CFI: libdwfl's frame-pointer fallback */
}

/* A word of the stack copy at addr. */
static bool stack_word(const struct symbolizer_stack *st, uint64_t addr, uint64_t *out)
{
    uint64_t sp = st->regs[R_SP];
    if (addr < sp || addr - sp + 8 > st->stack_len)
        return false;
    memcpy(out, st->stack + (addr - sp), 8);
    return true;
}

/* Whether addr is past the end of st's stack copy (the stack goes on above it). */
static bool past_copy(const struct symbolizer_stack *st, uint64_t addr)
{
    return addr >= st->regs[R_SP] && addr - st->regs[R_SP] + 8 > st->stack_len;
}

/* Walk st's frames by the rules rule(ctx, pc) gives (pc: the call site for callers), each
 * frame's stack pointer into sps (may be NULL), how the walk ended into *end. Returns the
 * frames, or -1 when a rule is not a simple one (libdwfl must unwind the sample). */
typedef uint32_t (*rule_fn)(void *ctx, uint64_t at);
static int walk_rules(const struct symbolizer_stack *st, rule_fn rule, void *ctx, uint64_t *out,
                      uint64_t *sps, uint32_t max, int *end)
{
    uint64_t pc = st->regs[R_IP], sp = st->regs[R_SP], bp = st->regs[R_BP], last_sp = 0;
    bool bp_ok = true, bp_past = false;
    uint32_t n = 0;

    *end = SYMBOLIZER_END_OTHER;
    walk_zero_fp = false;
    for (;;) {
        if (pc == 0) { /* a return address of 0: the end of the chain */
            *end = n > 0 ? SYMBOLIZER_END_OUTERMOST : SYMBOLIZER_END_OTHER;
            break;
        }
        if (n > 0 && sp <= last_sp)
            break;
        last_sp = sp;
        if (sps)
            sps[n] = sp;
        out[n++] = pc;
        uint32_t r = rule(ctx, n == 1 ? pc : pc - 1); /* a return address: look up the call */
        if ((r & 3) != RULE_SIMPLE)
            return -1;
        if (r & RULE_RA_UNDEF) {
            *end = SYMBOLIZER_END_OUTERMOST;
            break;
        }
        if (n == max) {
            *end = SYMBOLIZER_END_FRAMES;
            break;
        }
        if ((r & RULE_CFA_RBP) && !bp_ok) {
            *end = bp_past ? SYMBOLIZER_END_COPY : SYMBOLIZER_END_OTHER;
            break;
        }
        if ((r & RULE_NO_CFI) && bp_ok && bp == 0) {
            /* a module's code without CFI whose frame pointer is 0: the ABI's mark of the
             * outermost frame (the dynamic loader's entry, _start and _dl_start_user, has no
             * CFI; libdwfl calls these stacks cut) */
            *end = SYMBOLIZER_END_OUTERMOST;
            walk_zero_fp = true;
            break;
        }
        uint64_t cfa =
            (r & RULE_CFA_RBP ? bp : sp) + (int64_t)rule_field(r, RULE_CFA_SHIFT, RULE_CFA_BITS);
        if (!stack_word(st, cfa - 8, &pc)) {
            *end = past_copy(st, cfa - 8) ? SYMBOLIZER_END_COPY : SYMBOLIZER_END_OTHER;
            break;
        }
        if (r & RULE_BP_UNDEF) {
            bp_ok = false;
            bp_past = false;
        } else if (r & RULE_BP_AT) {
            uint64_t at = cfa + 8 * (int64_t)rule_field(r, RULE_BP_SHIFT, RULE_BP_BITS);
            /* just below the sampled sp, in the innermost frame: its epilogue popped rbp (the
             * CFI still names the slot until the return), so rbp holds the caller's already;
             * the copy starts at sp (frame-pointer builds such as Debian's CPython 3.14+,
             * sampled between "leave" and a tail call's jmp; memory_read does the same) */
            if (!(n == 1 && at + 8 == st->regs[R_SP])) {
                bp_ok = stack_word(st, at, &bp);
                bp_past = !bp_ok && past_copy(st, at);
            }
        }
        sp = cfa;
    }
    return (int)n;
}

/* The rules of one process's Dwfl, cached per pc. */
struct proc_rules {
    Dwfl *dwfl;
    struct hashmap *rules;
};

/* walk_rules' rule_fn for a process's Dwfl. */
static uint32_t proc_rule(void *ctx, uint64_t at)
{
    struct proc_rules *c = ctx;
    uint32_t *slot = hashmap_slot(c->rules, hashmap_mix(at), 1);
    if (*slot == 0)
        *slot = rule_lookup(c->dwfl, at);
    if ((*slot & 3) == RULE_NOMOD) { /* JIT code: its frame pointer, as libdwfl's fallback */
        *slot = 0;                   /* (not kept: the module may be reported later) */
        return RULE_FRAME_POINTER;
    }
    return *slot;
}

/* Whether at (a pc, or a return address less 1) is a module's code without CFI. */
static bool frame_no_cfi(void *rules, uint64_t at)
{
    uint32_t r = proc_rule(rules, at);
    return (r & 3) == RULE_SIMPLE && (r & RULE_NO_CFI);
}

/* The rule of pc in its file (eh_frame only, as the process's Dwfl sees it first), cached per
 * (file, file address) for every process mapping the file; RULE_COMPLEX: ask libdwfl. */
static uint32_t file_rule(struct symbolizer *s, Dwfl_Module *dm, uint64_t faddr, uint32_t fid)
{
    Dwarf_Addr bias = 0;
    Dwarf_CFI *cfi;
    Dwarf_Frame *fr = NULL;

    if (fid >= 1u << 16 || faddr >= 1ull << 48)
        return RULE_COMPLEX;
    uint32_t *slot =
        hashmap_slot(symbolizer_file_rules(s), hashmap_mix((uint64_t)fid << 48 | faddr), 1);
    if (*slot)
        return *slot;
    cfi = dwfl_module_eh_cfi(dm, &bias);
    if (cfi && dwarf_cfi_addrframe(cfi, faddr - bias, &fr) == 0) {
        *slot = rule_of(fr);
        free(fr);
    } else {
        *slot = RULE_COMPLEX; /* .debug_frame or no CFI: the process's Dwfl decides */
    }
    return *slot;
}

/* What file_pc_rule needs. */
struct file_rules {
    struct symbolizer *s;
    uint32_t pid;
};

/* walk_rules' rule_fn for the rules of files (no per-process state): RULE_COMPLEX when the
 * process's Dwfl must decide (the pc's file not loaded yet, a rule that is not simple). */
static uint32_t file_pc_rule(void *ctx, uint64_t at)
{
    struct file_rules *c = ctx;
    Dwfl_Module *dm = NULL;
    uint64_t faddr = 0;
    uint32_t fid = 0;
    int in = symbolizer_file_of(c->s, c->pid, at, &dm, &faddr, &fid);

    if (in < 0)
        return RULE_FRAME_POINTER; /* JIT code: its frame pointer, as libdwfl's fallback */
    return in ? file_rule(c->s, dm, faddr, fid) : RULE_COMPLEX;
}

/* Counters of the cached unwinder (the front end unwinds on one thread). */
static struct symbolizer_unwind_stats stats;
static int check_mode = -1; /* ROCSYS_UNWIND_CHECK=1: compare every sample with libdwfl */

void symbolizer_unwind_stats(struct symbolizer_unwind_stats *out)
{
    *out = stats;
}

uint32_t symbolizer_unwind(struct symbolizer *s, const struct symbolizer_stack *st, uint64_t *out,
                           uint64_t *sps, uint32_t max, int *end)
{
    struct hashmap *rules = NULL;
    Dwfl *dwfl;
    int n, how = SYMBOLIZER_END_OTHER;

    if (!end)
        end = &how;
    *end = SYMBOLIZER_END_OTHER;
    if (max == 0)
        return 0;
    if (check_mode < 0) {
        const char *e = getenv("ROCSYS_UNWIND_CHECK");
        check_mode = e && e[0] == '1';
    }
    /* the files' rules first: most samples need no per-process Dwfl at all (a build's
     * hundreds of short processes would each build one) */
    struct file_rules fr = {.s = s, .pid = st->pid};
    if (!check_mode && (n = walk_rules(st, file_pc_rule, &fr, out, sps, max, end)) > 0) {
        stats.samples++;
        stats.cached++;
        return (uint32_t)n;
    }
    dwfl = symbolizer_dwfl_all(s, st->pid, &rules);
    if (!dwfl || (dwfl_pid(dwfl) <= 0 &&
                  !dwfl_attach_state(dwfl, NULL, (pid_t)st->pid, &thread_callbacks, NULL))) {
        /* no module known yet (or the architecture from the reported modules, once per Dwfl:
         * a new one after exec, could not be set): the pc alone */
        out[0] = st->regs[R_IP];
        if (sps)
            sps[0] = st->regs[R_SP];
        *end = SYMBOLIZER_END_UNKNOWN;
        return 1;
    }
    /* (a pc outside every module, JIT code, is unwound by its frame pointer: libdwfl's
     * fallback where there is no CFI) */
    stats.samples++;
    struct proc_rules pr = {.dwfl = dwfl, .rules = rules};
    n = check_mode ? walk_rules(st, file_pc_rule, &fr, out, sps, max, end) : -1;
    if (n < 0)
        n = walk_rules(st, proc_rule, &pr, out, sps, max, end);
    if (n >= 0) {
        stats.cached++;
        if (check_mode) {
            uint64_t ref[max];
            int ref_end;
            uint32_t m = unwind_dwfl(dwfl, st, NULL, ref, NULL, max, &ref_end);
            stats.checked++;
            if (m == 0)
                ref[m++] = st->regs[R_IP];
            /* the same frames, and never whole where libdwfl's is cut (libdwfl also ends as if
             * outermost where it cannot go on: frame pointers ending in JIT code, a return
             * address it cannot read; the cached rules call those cut) */
            bool same = m == (uint32_t)n && memcmp(ref, out, m * sizeof(*out)) == 0 &&
                        (ref_end == SYMBOLIZER_END_OUTERMOST || *end != SYMBOLIZER_END_OUTERMOST ||
                         walk_zero_fp);
            if (!same && stats.differ++ < 3) { /* the first few, for a developer */
                fprintf(stderr, "unwind check: tid %u differs (ends: libdwfl %d, cached %d):\n",
                        st->tid, ref_end, *end);
                for (uint32_t i = 0; i < m || i < (uint32_t)n; i++)
                    fprintf(stderr, "  %2u libdwfl %#" PRIx64 "  cached %#" PRIx64 "\n", i,
                            i < m ? ref[i] : 0, i < (uint32_t)n ? out[i] : 0);
            }
        }
    } else {
        n = (int)unwind_dwfl(dwfl, st, &pr, out, sps, max, end);
    }
    if (n == 0) {
        out[n++] = st->regs[R_IP];
        if (sps)
            sps[0] = st->regs[R_SP];
    }
    return (uint32_t)n;
}
