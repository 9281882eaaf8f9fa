/* The symbol subsystem (symbols/): addresses of the profiled processes turned into source-level
 * frames (symbolize*.c with elfutils libdwfl; the ELF files and their debug info in symfiles.c,
 * code without a symbol in unnamed.c, JIT maps in perfmap.c) and stacks of threads seen from
 * outside unwound from perf's register and stack copies (unwind.c). It knows nothing of the
 * model: the model, the session and the writers use it. Front end only. */
#ifndef ROCSYS_SYMBOLS_SYMBOLS_H
#define ROCSYS_SYMBOLS_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

/* ---- symbolizer (symbolize.c, libdwfl) ---- */
struct symbolizer;

/* One source-level frame of a pc. Strings are owned by the symbolizer, stable until it is freed. */
struct sym_frame {
    const char *function;   /* demangled name, or "module+0xoffset" when the symbol is unknown */
    const char *module;     /* basename of the ELF object, e.g. "libc.so.6" */
    const char *file;       /* source file of the pc, NULL without debug info */
    int line;               /* source line of the pc, 0 if unknown */
    const char *decl_file;  /* where the function is defined, NULL if unknown */
    int decl_line;          /* 0 if unknown */
    uint64_t module_offset; /* pc - load bias: the address within the ELF file */
    int inlined;            /* 1 if this frame was inlined into the next (outer) one */
};

struct symbolizer *symbolizer_new(void);
void symbolizer_free(struct symbolizer *s);
/* Tell the symbolizer about one ELF object mapped in process pid (absolute addresses). */
void symbolizer_add_module(struct symbolizer *s, uint32_t pid, const char *path, uint64_t load_bias,
                           uint64_t start, uint64_t end, const uint8_t *build_id,
                           size_t build_id_len);
/* Resolve pc of process pid into source frames, innermost first (inlined callees before the
 * function they were inlined into). is_return_address: pc is a return address (look up pc-1).
 * Returns the number of frames written (>= 1 when a module covers pc), 0 when no module does,
 * -1 while the module's file is being loaded (symbolizer_set_async). */
int symbolizer_lookup(struct symbolizer *s, uint32_t pid, uint64_t pc, int is_return_address,
                      struct sym_frame *out, int max);
/* Resolve the modules that define ELF symbol (a prefix of its name) by their symbol tables
 * alone, without DWARF (no file:line, no inlined frames): the CPython interpreter, whose native
 * frames are hidden in Python stacks and whose evaluation loop is one enormous unit of debug
 * information that costs libdw tens of milliseconds per address. NULL: none. */
void symbolizer_set_light(struct symbolizer *s, const char *symbol);
/* async: files (their debug info, which may be downloaded, and their DWARF) are loaded on a
 * thread of the symbolizer's; symbolizer_lookup returns -1 for an address of a file not loaded
 * yet (ask again later). Off: loaded inline by the first lookup (the default). */
void symbolizer_set_async(struct symbolizer *s, int async);
/* How many files are not loaded yet; name gets the one being loaded (for a status line). */
int symbolizer_loading(struct symbolizer *s, char *name, size_t cap);
/* Files whose compressed debug info is too large to read (it would inflate into memory):
 * they get function names from their symbol table only. Returns how many; name and bytes (the
 * inflated size) of the first. */
int symbolizer_names_only(struct symbolizer *s, char *name, size_t cap, uint64_t *bytes);
/* A developer's check: the symbol files whose path holds part (one entry per path and build-id),
 * each with its state and why it failed, into buf; how many. */
int symbolizer_describe_files(struct symbolizer *s, const char *part, char *buf, size_t cap);
/* Wait at most timeout_ms for the files being loaded; 0, or -1 if some still are. */
int symbolizer_wait(struct symbolizer *s, int timeout_ms);
/* Stop waiting for the files being loaded: their addresses are named by offset from now on. */
void symbolizer_give_up(struct symbolizer *s);
/* Give to_pid the modules of from_pid (a fork child starts with its parent's address space). */
void symbolizer_copy_process(struct symbolizer *s, uint32_t from_pid, uint32_t to_pid);
/* Forget process pid's modules (the pid exited and its frames are already symbolized). */
void symbolizer_forget_process(struct symbolizer *s, uint32_t pid);
/* Whether a module of pid covers addr. */
int symbolizer_has_module(struct symbolizer *s, uint32_t pid, uint64_t addr);
/* Whether any module of pid is known (its own or, a fork child, its parent's). */
int symbolizer_has_modules(struct symbolizer *s, uint32_t pid);
/* The file name (basename) of the module of pid holding addr, or NULL. */
const char *symbolizer_module_name(struct symbolizer *s, uint32_t pid, uint64_t addr);

/* unwind.c: stacks of threads seen from outside (perf samples) */
/* Add pid's file-backed executable mappings from /proc/PID/maps to the symbolizer (each file
 * once, its load bias from its ELF program headers). Returns the modules added, -errno. */
int symbolizer_load_maps(struct symbolizer *s, uint32_t pid);
/* A thread's user registers as perf samples them (x86-64: AX BX CX DX SI DI BP SP IP FLAGS CS
 * SS R8..R15, PERF_REG_X86 order without DS..GS) and a copy of its stack from regs SP up. */
#define SYMBOLIZER_UNWIND_REGS 20
struct symbolizer_stack {
    uint32_t pid, tid;
    uint64_t regs[SYMBOLIZER_UNWIND_REGS];
    const uint8_t *stack;
    uint64_t stack_len;
};
/* How an unwind ended: at the outermost frame (its return address undefined by the CFI, as
 * _start's, clone's and clone3's, or 0: the thread's start), or cut: the stack copy ended
 * before the next return address (a deeper stack than the copy), max frames were taken, or
 * anything else stopped it (no rule, a frame that does not move up the stack). */
enum {
    SYMBOLIZER_END_OUTERMOST,
    SYMBOLIZER_END_COPY,
    SYMBOLIZER_END_FRAMES,
    SYMBOLIZER_END_OTHER,
    SYMBOLIZER_END_UNKNOWN, /* no module of the process is known yet: the pc alone, nothing
                               to say of the rest (not a cut stack) */
};
/* Unwind st with the CFI of pid's modules (libdwfl): pcs innermost first (the first is the
 * interrupted pc, the others return addresses), at most max, and (sps not NULL) each frame's
 * stack pointer (a caller's: the CFA of the frame below). *end (may be NULL) gets how it ended
 * (SYMBOLIZER_END_*). Returns how many (0: none). */
uint32_t symbolizer_unwind(struct symbolizer *s, const struct symbolizer_stack *st, uint64_t *out,
                           uint64_t *sps, uint32_t max, int *end);
/* How samples were unwound: by cached rules, else by libdwfl; with ROCSYS_UNWIND_CHECK=1 every
 * cached result is compared with libdwfl's (checked, of which differ). */
struct symbolizer_unwind_stats {
    uint64_t samples, cached, checked, differ;
};
void symbolizer_unwind_stats(struct symbolizer_unwind_stats *out);

/* The loaded file of pid's module at addr (dm at the file's own addresses, faddr, the file's
 * id): 1; 0 when its file is not loaded (or pid unknown); -1 when no module covers addr (JIT
 * code). For the unwinder and for causal profiling's address ranges (model/causal.c). */
typedef struct Dwfl_Module Dwfl_Module;
int symbolizer_file_of(struct symbolizer *s, uint32_t pid, uint64_t addr, Dwfl_Module **dm,
                       uint64_t *faddr, uint32_t *fid);

#endif
