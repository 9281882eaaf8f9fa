/* The symbolizer's parts (symbolize.c: string interning, the lookup cache, the API;
 * symbolize_modules.c: processes, modules, the vDSO, reporting modules to libdwfl;
 * symbolize_dwarf.c: one address resolved to frames with DWARF and the ELF symbol table): the
 * symbolizer's state and what the parts call of each other. Private to those files. */
#ifndef ROCSYS_MODEL_SYMBOLIZE_INTERNAL_H
#define ROCSYS_MODEL_SYMBOLIZE_INTERNAL_H

#include "base/hashmap.h"
#include "base/intern.h"
#include "base/base.h"
#include "symbols/symbols_internal.h"

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

#define SYM_MAX_FRAMES 32 /* inline depth kept per pc (deeper chains are cut) */
#define VDSO_NAME      "linux-vdso.so.1"
#define VDSO_MAX_SIZE  (1u << 20) /* sanity bound for the in-memory vDSO image */

typedef ElfW(Ehdr) native_ehdr; /* this process's ELF class (the vDSO's) */
typedef ElfW(Phdr) native_phdr;

enum mod_state { MOD_NEW, MOD_OK, MOD_FAILED };

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

/* ---- symbolize.c ---- */

/* The one stable copy of str (NULL stays NULL). */
const char *sym_intern(struct symbolizer *s, const char *str);
/* Interned "base+0xoffset" for code without a symbol. */
const char *sym_intern_offset_name(struct symbolizer *s, const char *base, uint64_t offset);
/* Rebuild the cache with cap slots, dropping pid's entries for pcs in [lo, hi). */
void sym_cache_rebuild(struct symbolizer *s, size_t cap, uint32_t pid, uint64_t lo, uint64_t hi);

/* ---- symbolize_modules.c ---- */

/* The process entry for pid, or NULL; sym_proc_get creates it on first use. */
struct sym_proc *sym_proc_find(const struct symbolizer *s, uint32_t pid);
struct sym_proc *sym_proc_get(struct symbolizer *s, uint32_t pid);
/* p, given its parent's modules first when it is a fork without modules of its own. */
struct sym_proc *sym_proc_inherit(struct symbolizer *s, struct sym_proc *p, int depth);
/* Drop all of p's modules and its Dwfl (the cache is untouched). */
void sym_proc_clear(struct sym_proc *p);
/* The module of p covering addr, or NULL. */
struct sym_module *sym_module_find(struct sym_proc *p, uint64_t addr);
/* m's file (symfiles.c), asked for on first need. */
struct sym_file *sym_module_file(struct symbolizer *s, struct sym_module *m);
/* Whether path names the vDSO as the collector reports it. */
int sym_is_vdso_path(const char *path);

/* ---- symbolize_dwarf.c ---- */

/* Frames of addr (the file's own address) in m's file, module dm, innermost first; returns
 * the count (>= 1). */
int sym_resolve_dwfl(struct symbolizer *s, struct sym_module *m, Dwfl_Module *dm, int light,
                     uint64_t addr, const char *fallback_base, struct sym_frame *fr, int max);

#endif
