/* Private header of the symbol subsystem (symbols/): what its files call of each other. */
#ifndef ROCSYS_SYMBOLS_SYMBOLS_INTERNAL_H
#define ROCSYS_SYMBOLS_SYMBOLS_INTERNAL_H

#include "symbols/symbols.h"

/* symbolize.c: pid's Dwfl with every module the symbolizer knows reported (for unwinding);
 * NULL when it knows none. *rules: pid's cache of unwind rules (unwind.c), emptied whenever
 * a module of pid goes away. */
typedef struct Dwfl Dwfl;
struct hashmap;
Dwfl *symbolizer_dwfl_all(struct symbolizer *s, uint32_t pid, struct hashmap **rules);
/* The unwind rules of files, shared by every process (unwind.c). */
struct hashmap *symbolizer_file_rules(struct symbolizer *s);
/* unnamed.c: where the function holding addr (absolute) starts, in dm's own addresses, by the
 * unwind tables; 0 when they do not tell. */
typedef struct Dwfl_Module Dwfl_Module;
int symbolizer_function_start(Dwfl_Module *dm, uint64_t addr, uint64_t *start);
/* Where the function holding addr (absolute), which no unwind entry covers, starts, in dm's own
 * addresses: the entry of .init_array, .fini_array or .preinit_array nearest below it with no
 * function of the unwind tables starting between; 0 when none. */
int symbolizer_array_entry_start(Dwfl_Module *dm, uint64_t addr, uint64_t *start);
/* The name of the executable ELF section holding addr (absolute), NULL when none does. */
const char *symbolizer_section_name(Dwfl_Module *dm, uint64_t addr);
/* The same by a .eh_frame_hdr's bytes (len of them, at hdr_vaddr) for file address v. */
int symbolizer_eh_table_start(const uint8_t *hdr, size_t len, uint64_t hdr_vaddr, uint64_t v,
                              uint64_t *start);
/* symfiles.c: the ELF files symbols come from, each with its own Dwfl at the file's own
 * addresses, loaded inline or (async) on a loader thread. */
enum { SYMFILE_LOADING, SYMFILE_READY, SYMFILE_FAILED };
struct sym_file;
struct symbolizer_files;
struct symfile_range { /* a symbol found in a file, covering [lo, hi) */
    uint64_t lo, hi;
    const char *name;
};
struct symbolizer_files *symfiles_new(void);
void symfiles_free(struct symbolizer_files *fs);
void symfiles_set_async(struct symbolizer_files *fs, int async);
void symfiles_set_light(struct symbolizer_files *fs, const char *symbol);
/* The file (path, build-id), created and loaded (or queued) on first use; open_path is the
 * file to read, NULL when there is none (the file is then FAILED). */
struct sym_file *symfiles_get(struct symbolizer_files *fs, const char *path, const char *open_path,
                              const uint8_t *build_id, size_t build_id_len);
int symfile_state(const struct sym_file *f);
uint32_t symfile_id(const struct sym_file *f); /* 1, 2, ... (small: a cache key) */
/* READY: the file's module (its own addresses) and whether it is read light; else NULL. */
Dwfl_Module *symfile_module(struct sym_file *f, int *light);
void symfile_set_light(struct sym_file *f);
struct symfile_range **symfile_ranges(struct sym_file *f, size_t **n, size_t **cap);
/* The ELF symbol covering addr (the file's own address) by the file's sorted index, and where
 * it starts; NULL if none. Only for an indexed file (symfile_indexed). */
const char *symfile_symbol(const struct sym_file *f, uint64_t addr, uint64_t *start);
int symfile_indexed(const struct sym_file *f);
/* Files not loaded yet; name gets the one being loaded. */
int symfiles_loading(struct symbolizer_files *fs, char *name, size_t cap);
/* Files read for their symbols alone because their compressed debug info inflates past the
 * limit: how many, the first one's name and inflated size. */
int symfiles_names_only(struct symbolizer_files *fs, char *name, size_t cap, uint64_t *bytes);
/* The file entries whose path holds part, each with its build-id's length, its state and why
 * it failed, into buf (a developer's check); how many. */
int symfiles_describe(struct symbolizer_files *fs, const char *part, char *buf, size_t cap);
/* Wait until nothing is being loaded, at most timeout_ms; 0, or -1 on timeout. */
int symfiles_wait(struct symbolizer_files *fs, int timeout_ms);
/* Files still loading count as FAILED from now on (a load that ends later is still used). */
void symfiles_give_up(struct symbolizer_files *fs);

/* perfmap.c: the name /tmp/perf-PID.map gives the JIT code at pc (the newest line covering
 * it, the file re-read when it grew), or NULL; *jit is created on first use. */
struct symbolizer_jit;
const char *symbolizer_jit_lookup(struct symbolizer_jit **jit, uint32_t pid, uint64_t pc);
void symbolizer_jit_free(struct symbolizer_jit *jit);

#endif
