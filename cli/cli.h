/* The command line: its options (one table drives parsing, range checks and --help, in
 * cli/options.c) and the dispatch to the modes (cli/main.c). The top of the front end: it fills
 * the session's configuration (struct session_config) and nothing below sees these options. */
#ifndef ROCSYS_CLI_CLI_H
#define ROCSYS_CLI_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct cli_options {
    int freq_hz;                  /* samples per second per thread */
    int wall;                     /* --sample wall */
    int cpu_timer;                /* --cpu-timer: SESSION_TIMER_AUTO, _PERF or _POSIX */
    int engine;                   /* --engine: SESSION_ENGINE_AUTO, _PERF or _SIGNAL */
    int delay_tenths;             /* -d: refresh delay */
    int iterations;               /* -n: refreshes before exiting, 0 = unlimited */
    int batch;                    /* -b: text frames, no curses */
    int window_s;                 /* sliding-window length */
    int follow;                   /* profile children (default on; --no-follow) */
    int python;                   /* --python: SESSION_PYTHON_ON, _NATIVE or _OFF */
    int launch_stacks_off;        /* --launch-stacks off: no call stacks of kernel launches */
    int use_stdin;                /* --stdin: the target reads our stdin */
    int color;                    /* --no-color turns it off */
    int no_mouse;                 /* --no-mouse: clicks and the wheel stay the terminal's */
    int max_rows;                 /* --rows: rows per view in batch frames, 0 = all */
    double profile_min_pct;       /* --profile-min: profile.txt's pruning threshold, % */
    const char *output_log;       /* --output-log FILE */
    const char *record_dir;       /* --record DIR */
    int force;                    /* --force: overwrite a recording in DIR */
    const char *keep;             /* --keep DURATION|SIZE: a rolling trace, NULL: the whole run */
    uint64_t keep_ns, keep_bytes; /* --keep parsed (record_keep) */
    int no_tui;                   /* --no-tui: headless recording (or --serve) */
    const char *serve;            /* --serve [ADDR:]PORT: the HTTP endpoint, NULL: none */
    const char *merge_dir;        /* --merge DIR: merge the ranks' recordings in DIR */
    const char *replay_dir;       /* --replay DIR: show a recording */
    const char *range;            /* --range START:END: the part of a replayed run (seconds) */
    int live;                     /* --live: follow the replayed recording(s) as they are written */
    const char *diff_dir;         /* --diff OLD: compare the replayed recording with OLD */
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
int cli_options_parse(int argc, char **argv, struct cli_options *o, char *err, size_t errlen);
/* Whether the option --long_name was on the command line. */
int cli_option_given(const struct cli_options *o, const char *long_name);
/* Print --help (generated from the option table). */
void cli_options_help(FILE *out);

#endif
