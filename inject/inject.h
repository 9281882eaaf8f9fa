/* The launcher: check a program, find the collector, and start the program with the collector
 * injected (LD_PRELOAD, HSA_TOOLS_LIB), its output on pipes. */
#ifndef ROCSYS_INJECT_INJECT_H
#define ROCSYS_INJECT_INJECT_H

#include <stddef.h>
#include <sys/types.h>

/* Result of checking the program before starting it. */
struct inject_program {
    char path[4096]; /* resolved executable */
    int exit_code;   /* 0 if it can be started; 126/127 or 1 otherwise */
    char error[512]; /* one-line explanation when exit_code != 0 */
    int is_static;   /* no dynamic loader: nothing can be injected */
};
/* Resolve name like execvp and check that the collector can be injected into it. */
void inject_check_program(const char *name, struct inject_program *out);

/* Find librocsys-collector.so next to the executable (build tree or install prefix). */
int inject_find_collector(char *buf, size_t cap);
/* The directory of the `rocsys` Python module (python/rocsys/__init__.py) beside the collector,
 * else beside the executable like the collector; an absolute path in buf. 0, or -ENOENT. */
int inject_find_python_dir(const char *collector, char *buf, size_t cap);

/* A started target. */
struct inject_target {
    pid_t pid;
    int out_fd, err_fd; /* read ends of its stdout and stderr pipes */
    int own_group;      /* it leads its own process group */
};
/* What the launcher is asked to start. */
struct inject_launch {
    char **argv;   /* PROGRAM [ARGS...], NULL-terminated */
    int use_stdin; /* the target reads our stdin (else /dev/null, in a process group of its own) */
    int causal;    /* the causal profiler's wrappers are preloaded after the collector */
};
/* Fork and exec the target with the collector injected. env_extra: "NAME=value" strings to
 * set. before_exec (if given) runs with the child's pid while the child waits before its exec.
 * Returns 0, or an exit code (126/127) with a message in err when exec failed. */
int inject_spawn(const struct inject_launch *l, const struct inject_program *prog,
                 const char *collector, char *const *env_extra, struct inject_target *t, char *err,
                 size_t errlen, void (*before_exec)(pid_t pid, void *ctx), void *ctx);
/* Whether the program runs CPython: a python executable, a script whose #! line names one, or
 * an executable linked with libpython. */
int inject_program_is_python(const char *path);
/* Whether the collector will read a Python program's frames, as far as its files tell before
 * launch: the version and free-threading flag in the _Py_DebugOffsets of the executable's
 * .PyRuntime (3.13+, validated as the collector does), else "libpython3.N" or the name python3.N;
 * 1 when nothing tells (the collector still decides and says so). */
int inject_python_frames_readable(const char *path);

#endif
