/* Can a program get the collector when it is exec'd? Shared by the launcher (which refuses
 * such a target with an explanation) and the collector's exec and posix_spawn wrappers (which
 * tell the front end that a child will run without it). No allocation, no stdio: the collector
 * calls it in a vfork child. */
#ifndef ROCSYS_COLLECTOR_PROGCHECK_H
#define ROCSYS_COLLECTOR_PROGCHECK_H

#include <stddef.h>

/* What rocsys_progcheck_inspect found (the reason codes of struct rocsys_rec_proc_exec). */
enum rocsys_progcheck {
    ROCSYS_PROG_OK = 0,     /* dynamically linked (or not inspectable): LD_PRELOAD applies */
    ROCSYS_PROG_NO_ENV = 1, /* its environment lacks the collector (set by the exec wrappers) */
    ROCSYS_PROG_SECURE = 2, /* set-user-ID/set-group-ID: secure execution ignores LD_PRELOAD */
    ROCSYS_PROG_STATIC = 3, /* statically linked: no dynamic loader to preload with */
};

/* Resolve name like execvp through path_env (a PATH value; NULL or "": the default search
 * path) into out. Returns 0 or the errno of the best failure (ENOENT, EACCES). */
int rocsys_progcheck_resolve(const char *name, const char *path_env, char *out, size_t cap);
/* Inspect the executable at path (a "#!" script: its interpreter) for the reasons above;
 * checked_out (may be NULL) gets the file that decided. ROCSYS_PROG_OK when it cannot be read. */
int rocsys_progcheck_inspect(const char *path, char *checked_out, size_t cap);
/* ELF file: 1 = dynamically linked (has PT_INTERP), 0 = static, -1 = not a 64-bit ELF. */
int rocsys_progcheck_elf_dynamic(const char *path);
/* A one-line reason for a code of enum rocsys_progcheck ("" for ROCSYS_PROG_OK). */
const char *rocsys_progcheck_reason(int code);

#endif
