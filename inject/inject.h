/* Launcher and session: options, starting the target with the collector injected, and the
 * front end's main loop (drain rings, read the target's output, refresh the views). */
#ifndef ROCSYS_INJECT_INJECT_H
#define ROCSYS_INJECT_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct inject_options {
    int freq_hz;            /* samples per second per thread */
    int wall;               /* --sample wall */
    int cpu_timer;          /* --cpu-timer: SESSION_TIMER_AUTO, _PERF or _POSIX */
    int engine;             /* --engine: SESSION_ENGINE_AUTO, _PERF or _SIGNAL */
    int delay_tenths;       /* -d: refresh delay */
    int iterations;         /* -n: refreshes before exiting, 0 = unlimited */
    int batch;              /* -b: text frames, no curses */
    int window_s;           /* sliding-window length */
    int follow;             /* profile children (default on; --no-follow) */
    int python;             /* --python: SESSION_PYTHON_ON, _NATIVE or _OFF */
    int launch_stacks_off;  /* --launch-stacks off: no call stacks of kernel launches */
    int use_stdin;          /* --stdin: the target reads our stdin */
    int color;              /* --no-color turns it off */
    int no_mouse;           /* --no-mouse: clicks and the wheel stay the terminal's */
    int max_rows;           /* --rows: rows per view in batch frames, 0 = all */
    double profile_min_pct; /* --profile-min: profile.txt's pruning threshold, % */
    const char *output_log; /* --output-log FILE */
    const char *record_dir; /* --record DIR */
    int force;              /* --force: overwrite a recording in DIR */
    int no_tui;             /* --no-tui: headless recording (or --serve) */
    const char *serve;      /* --serve [ADDR:]PORT: the HTTP endpoint, NULL: none */
    const char *merge_dir;  /* --merge DIR: merge the ranks' recordings in DIR */
    const char *replay_dir; /* --replay DIR: show a recording */
    const char *range;      /* --range START:END: the part of a replayed run (seconds) */
    int live;               /* --live: follow the replayed recording(s) as they are written */
    const char *diff_dir;   /* --diff OLD: compare the replayed recording with OLD */
    char source_path[4096]; /* --source-path OLD=NEW (repeated: joined with ','), "" if none */
    int attach_gpu;         /* --attach-gpu: no target, the GPU dashboard */
    const char *pids;       /* -p PID[,PID...]: attach to running processes */
    int gpu_interval_ms;    /* --gpu-interval: GPU sampling interval, 0 = no GPU monitoring */
    int no_config;          /* --no-config: no settings file read or written */
    uint64_t given;         /* bit i: the option of row i of the options table was given */
    int causal;             /* --causal: causal profiling experiments */
    const char *progress;   /* --progress FUNC: its calls are the progress point */
    int help, version;
    char **target_argv; /* PROGRAM [ARGS...], NULL-terminated */
    int target_argc;
};

/* Parse the command line. Returns 0, or -1 with a one-line message in err. */
int inject_options_parse(int argc, char **argv, struct inject_options *o, char *err, size_t errlen);
/* Whether the option --long_name was on the command line. */
int inject_option_given(const struct inject_options *o, const char *long_name);
/* Print --help (generated from the option table). */
void inject_options_help(FILE *out);

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
