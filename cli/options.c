/* Command-line options: one table drives parsing, range checks and --help. */
#include "cli/cli.h"
#include "model/model.h"
#include "record/record.h"
#include "session/session.h"
#include "tui/tui.h"

#include <stdlib.h>
#include <string.h>

enum opt_kind { OPT_FLAG, OPT_INT, OPT_STRING, OPT_CHOICE, OPT_PERCENT, OPT_LIST };

struct opt_def {
    const char *long_name;
    char short_name;
    enum opt_kind kind;
    const char *arg;     /* argument name in --help */
    long min, max;       /* OPT_INT range (OPT_PERCENT: 0 to 100, a double) */
    const char *choices; /* OPT_CHOICE: space-separated; the index is stored */
    size_t offset;       /* field of struct cli_options */
    int flag_value;      /* OPT_FLAG: value stored */
    const char *help;
};

#define OFF(f) offsetof(struct cli_options, f)

static const struct opt_def opt_table[] = {
    {"freq", 'f', OPT_INT, "HZ", 1, 10000, NULL, OFF(freq_hz), 0,
     "samples per second per thread (1-10000, default 1000)"},
    {"sample", 0, OPT_CHOICE, "cpu|wall", 0, 0, "cpu wall", OFF(wall), 0,
     "sample on thread CPU time (default) or wall time (shows where threads wait)"},
    {"engine", 0, OPT_CHOICE, "auto|perf|signal", 0, 0, "auto perf signal", OFF(engine), 0,
     "how threads are sampled: perf (from outside with perf events: no signal ever reaches the "
     "target, stacks unwound by rocsys-top) or signal (a handler in each thread: needed for "
     "Python frames); auto: by what the kernel grants (probed): perf where its events open "
     "(user-space samples only at perf_event_paranoid 2; wall mode needs 1; Python programs "
     "only where BPF reads their frames: root), signal for other Python programs, with an "
     "explicit --cpu-timer or where perf cannot run; the header's engine line says why and "
     "what would allow more"},
    {"cpu-timer", 0, OPT_CHOICE, "auto|perf|posix", 0, 0, "auto perf posix", OFF(cpu_timer), 0,
     "with --engine signal, what raises CPU samples: perf events (exact; an interrupt per sample, "
     "costly in a VM) or "
     "POSIX CPU timers (cheap; kernel-tick resolution); auto: perf (user time only where kernel "
     "samples are refused, posix where perf events are not permitted)"},
    {"delay", 'd', OPT_INT, "TENTHS", 1, 600, NULL, OFF(delay_tenths), 0,
     "refresh delay in tenths of a second (default 10)"},
    {"iterations", 'n', OPT_INT, "N", 1, 1000000, NULL, OFF(iterations), 0,
     "exit after N refreshes (the target is terminated if still running)"},
    {"batch", 'b', OPT_FLAG, NULL, 0, 0, NULL, OFF(batch), 1,
     "print the views as plain text frames on stdout, no curses (like top -b)"},
    {"rows", 0, OPT_INT, "N", 0, 100000, NULL, OFF(max_rows), 0,
     "rows per view in batch frames (default 40, 0 = all)"},
    {"window", 0, OPT_INT, "SECONDS", 1, 60, NULL, OFF(window_s), 0,
     "length of the sliding window the 'w' key shows (default 5)"},
    {"python", 0, OPT_CHOICE, "on|native|off", 0, 0, "on native off", OFF(python), 0,
     "Python programs: their functions in place of the interpreter's frames (on, default), "
     "with the interpreter's own native frames too (native), or native frames only (off)"},
    {"launch-stacks", 0, OPT_CHOICE, "on|off", 0, 0, "on off", OFF(launch_stacks_off), 0,
     "capture the call stack of every HIP kernel launch and MPI call (on, default: the Kernels "
     "view's launch paths, gpu.folded, the MPI view's call paths) or not (off: a little less "
     "cost per launch or call)"},
    {"no-follow", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(follow), 0,
     "do not profile processes the target starts"},
    {"stdin", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(use_stdin), 1,
     "give the target rocsys-top's stdin (default: /dev/null)"},
    {"pid", 'p', OPT_STRING, "PID[,PID...]", 0, 0, NULL, OFF(pids), 0,
     "attach to running processes instead of starting one: call trees of every thread (perf "
     "events from outside; leaving leaves them as they were), process metrics, GPU use"},
    {"record", 'o', OPT_STRING, "DIR", 0, 0, NULL, OFF(record_dir), 0,
     "also record the session into DIR: trace.pftrace (Perfetto), profile.txt, stacks.folded, "
     "profile.pb.gz (pprof), output.log, session.json, and gpu.csv, kernels.csv, hip_api.csv, "
     "copies.csv"},
    {"keep", 0, OPT_STRING, "DURATION|SIZE", 0, 0, NULL, OFF(keep), 0,
     "with --record: a rolling trace: trace.pftrace keeps only the last DURATION (30s, 10m, 2h, "
     "1d) or the last SIZE (64K, 500M, 2G) of the run, whole chunks dropped from the front; the "
     "profiles (profile.txt, profile.pb.gz, stacks.folded) still cover the whole run"},
    {"merge", 0, OPT_STRING, "DIR", 0, 0, NULL, OFF(merge_dir), 0,
     "merge the MPI ranks' recordings in DIR/rank-N into DIR/merged.pftrace, merged.folded, "
     "merged-gpu.folded, merged-profile.txt and merged.pb.gz, then exit"},
    {"replay", 0, OPT_STRING, "DIR", 0, 0, NULL, OFF(replay_dir), 0,
     "show the recording in DIR (the same views; w [ ] { } choose a time range), then exit"},
    {"live", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(live), 1,
     "with --replay: follow the recording (or DIR/rank-N, an MPI job's) while it is written"},
    {"range", 0, OPT_STRING, "START:END", 0, 0, NULL, OFF(range), 0,
     "with --replay: count only what happened from START to END seconds into the run"},
    {"diff", 0, OPT_STRING, "OLD", 0, 0, NULL, OFF(diff_dir), 0,
     "with --replay NEW: compare NEW with the recording OLD (before and after): hot functions, "
     "call tree, kernels and HIP API with both shares and the change, in the Diff view (d) and "
     "in -b frames"},
    {"source-path", 0, OPT_LIST, "OLD=NEW[,...]", 0, 0, NULL, OFF(source_path), 0,
     "the Source view (S) looks for a source file built under OLD in NEW instead (repeatable; "
     "the first OLD that is a prefix of the path applies)"},
    {"profile-min", 0, OPT_PERCENT, "PCT", 0, 100, NULL, OFF(profile_min_pct), 0,
     "with --record: profile.txt folds call-tree nodes below PCT % of their thread's samples "
     "into one line and stays under 1 MB (default 0.5; 0 = every node, no size limit); "
     "stacks.folded always has every stack"},
    {"force", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(force), 1,
     "with --record: overwrite a recording already in DIR"},
    {"no-tui", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(no_tui), 1,
     "with --record or --serve: no display, a status line on stderr (and with --record a "
     "summary at the end; the default when stdout is not a terminal)"},
    {"serve", 0, OPT_STRING, "[ADDR:]PORT", 0, 0, NULL, OFF(serve), 0,
     "serve /metrics (Prometheus text format) and /snapshot.json over HTTP on ADDR:PORT "
     "(default address 127.0.0.1; anyone on the host who can reach the port can read them, "
     "0.0.0.0 opens them to the network); nothing listens without it"},
    {"output-log", 0, OPT_STRING, "FILE", 0, 0, NULL, OFF(output_log), 0,
     "keep the target's full output in FILE (default: $TMPDIR/rocsys-top-PID.log)"},
    {"attach-gpu", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(attach_gpu), 1,
     "no program: the GPU dashboard of this machine (every GPU, every process using one); "
     "-n, -b and --record work here too"},
    {"gpu-interval", 0, OPT_INT, "MS", 0, 60000, NULL, OFF(gpu_interval_ms), 0,
     "GPU sampling interval in milliseconds (10-60000, default 1000; 0 = no GPU monitoring)"},
    {"causal", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(causal), 1,
     "causal profiling: functions of the program (and the hot lines of the top ones) are "
     "virtually sped up in turn (other threads paused) to predict how much faster the program "
     "would run (the Causal view, profile.coz "
     "with --record); needs a progress point; uses the signal engine and wall-time samples"},
    {"progress", 0, OPT_STRING, "FUNC", 0, 0, NULL, OFF(progress), 0,
     "with --causal: the calls of FUNC (a function of the program) are its progress point, "
     "counted exactly by a hardware breakpoint, without a rebuild; kernel:NAME: the completed "
     "dispatches of the GPU kernel NAME (HSA)"},
    {"no-color", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(color), 0, "monochrome display"},
    {"no-mouse", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(no_mouse), 1,
     "no mouse: clicks and the wheel stay the terminal's (to select text); by default a click "
     "on a tab switches the view, on a column heading sorts, on a row selects it"},
    {"no-config", 0, OPT_FLAG, NULL, 0, 0, NULL, OFF(no_config), 1,
     "neither read nor write the settings file ($XDG_CONFIG_HOME/rocsys-top/rocsys-toprc, "
     "default ~/.config/rocsys-top/rocsys-toprc: view, sort orders, columns, window, delay, "
     "mouse; written when the display closes, changed with F2)"},
    {"help", 'h', OPT_FLAG, NULL, 0, 0, NULL, OFF(help), 1, "show this help and exit"},
    {"version", 'V', OPT_FLAG, NULL, 0, 0, NULL, OFF(version), 1, "show the version and exit"},
    {NULL, 0, 0, NULL, 0, 0, NULL, 0, 0, NULL},
};

_Static_assert(sizeof(opt_table) / sizeof(opt_table[0]) <= 64, "cli_options.given: 64 bits");

/* Defaults, applied before parsing. */
static void set_defaults(struct cli_options *o)
{
    memset(o, 0, sizeof(*o));
    o->freq_hz = 1000;
    o->delay_tenths = 10;
    o->window_s = 5;
    o->follow = 1;
    o->color = 1;
    o->max_rows = 40;
    o->gpu_interval_ms = 1000;
    o->profile_min_pct = MODEL_PROFILE_MIN_PCT;
}

/* The table row for "--name" or "-c". */
static const struct opt_def *find_opt(const char *long_name, size_t len, char short_name)
{
    for (const struct opt_def *d = opt_table; d->long_name; d++) {
        if (long_name && strlen(d->long_name) == len && strncmp(d->long_name, long_name, len) == 0)
            return d;
        if (!long_name && short_name && d->short_name == short_name)
            return d;
    }
    return NULL;
}

/* Store value into the option's field; returns 0 or -1 with err set. */
static int apply(const struct opt_def *d, const char *value, struct cli_options *o, char *err,
                 size_t errlen)
{
    char *field = (char *)o + d->offset;
    char *end;
    long v;

    switch (d->kind) {
    case OPT_FLAG:
        *(int *)field = d->flag_value;
        return 0;
    case OPT_INT:
        v = strtol(value, &end, 10);
        if (!*value || *end || v < d->min || v > d->max) {
            snprintf(err, errlen, "--%s: '%s' is not a number from %ld to %ld", d->long_name, value,
                     d->min, d->max);
            return -1;
        }
        *(int *)field = (int)v;
        return 0;
    case OPT_PERCENT: {
        double pct = strtod(value, &end);
        if (!*value || *end || !(pct >= (double)d->min && pct <= (double)d->max)) {
            snprintf(err, errlen, "--%s: '%s' is not a percentage from %ld to %ld", d->long_name,
                     value, d->min, d->max);
            return -1;
        }
        *(double *)field = pct;
        return 0;
    }
    case OPT_STRING:
        if (!*value) {
            snprintf(err, errlen, "--%s: empty argument", d->long_name);
            return -1;
        }
        *(const char **)field = value;
        return 0;
    case OPT_LIST: { /* a char[4096] field: the values joined with ',' */
        size_t used = strlen(field);
        if (tui_source_spec_check(value, err, errlen) != 0)
            return -1;
        if (used + 1 + strlen(value) + 1 > 4096) {
            snprintf(err, errlen, "--%s: too long", d->long_name);
            return -1;
        }
        snprintf(field + used, 4096 - used, "%s%s", used ? "," : "", value);
        return 0;
    }
    case OPT_CHOICE: {
        int idx = 0;
        size_t n = strlen(value);
        for (const char *c = d->choices; *c; idx++) {
            size_t len = strcspn(c, " ");
            if (len == n && strncmp(c, value, n) == 0) {
                *(int *)field = idx;
                return 0;
            }
            c += len;
            while (*c == ' ')
                c++;
        }
        snprintf(err, errlen, "--%s: '%s' is not one of: %s", d->long_name, value, d->choices);
        return -1;
    }
    }
    return -1;
}

int cli_options_parse(int argc, char **argv, struct cli_options *o, char *err, size_t errlen)
{
    int i;

    set_defaults(o);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const struct opt_def *d;
        const char *value = NULL;

        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == '\0')
            break; /* the program: "rocsys-top ./app args" works like "-- ./app args" */
        if (a[1] == '-') {
            const char *eq = strchr(a + 2, '=');
            size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
            d = find_opt(a + 2, len, 0);
            if (!d) {
                snprintf(err, errlen, "unknown option '%s' (see --help)", a);
                return -1;
            }
            if (eq)
                value = eq + 1;
        } else {
            d = find_opt(NULL, 0, a[1]);
            if (!d) {
                snprintf(err, errlen, "unknown option '%s' (see --help)", a);
                return -1;
            }
            if (a[2])
                value = a + 2;
        }
        if (d->kind == OPT_FLAG) {
            if (value && a[1] == '-') {
                snprintf(err, errlen, "--%s takes no argument", d->long_name);
                return -1;
            }
            if (value) {
                snprintf(err, errlen, "unknown option '%s' (see --help)", a);
                return -1;
            }
        } else if (!value) {
            if (i + 1 >= argc) {
                snprintf(err, errlen, "--%s needs an argument (%s)", d->long_name, d->arg);
                return -1;
            }
            value = argv[++i];
        }
        if (apply(d, value, o, err, errlen) != 0)
            return -1;
        o->given |= 1ull << (d - opt_table);
    }
    if (o->keep && !o->record_dir) {
        snprintf(err, errlen, "--keep needs --record DIR");
        return -1;
    }
    if (o->keep) {
        struct record_keep k;
        if (record_keep_parse(o->keep, &k, err, errlen) != 0)
            return -1;
        o->keep_ns = k.ns;
        o->keep_bytes = k.bytes;
    }
    if (o->range && !o->replay_dir) {
        snprintf(err, errlen, "--range needs --replay DIR");
        return -1;
    }
    if (o->live && !o->replay_dir) {
        snprintf(err, errlen, "--live needs --replay DIR");
        return -1;
    }
    if (o->diff_dir && !o->replay_dir) {
        snprintf(err, errlen, "--diff OLD needs --replay NEW: rocsys-top --replay NEW --diff OLD");
        return -1;
    }
    if (o->diff_dir && o->live) {
        snprintf(err, errlen,
                 "--diff compares two finished recordings: it does not go with --live");
        return -1;
    }
    if (o->live && o->range) {
        snprintf(err, errlen, "--live follows the whole run: choose a range with w [ ] instead");
        return -1;
    }
    if (o->gpu_interval_ms > 0 && o->gpu_interval_ms < 10) {
        snprintf(err, errlen, "--gpu-interval: %d ms is too short (10 at least, or 0 = off)",
                 o->gpu_interval_ms);
        return -1;
    }
    if (o->attach_gpu && i < argc) {
        snprintf(err, errlen, "--attach-gpu takes no program (it watches every GPU)");
        return -1;
    }
    if (o->attach_gpu && o->gpu_interval_ms == 0) {
        snprintf(err, errlen, "--attach-gpu needs GPU monitoring (--gpu-interval is 0)");
        return -1;
    }
    if (o->pids && i < argc) {
        snprintf(err, errlen, "-p takes no program: rocsys-top -p PID[,PID...] [OPTIONS]");
        return -1;
    }
    if (o->pids) {
        char *end;
        for (const char *q = o->pids; *q; q = *end ? end + 1 : end) {
            long v = strtol(q, &end, 10);
            if (end == q || v <= 0 || v > 4194304 || (*end && *end != ',') ||
                (*end == ',' && !end[1])) {
                snprintf(err, errlen, "-p: '%s' is not a list of process ids (PID[,PID...])",
                         o->pids);
                return -1;
            }
        }
    }
    if (o->serve && (o->merge_dir || o->replay_dir)) {
        snprintf(err, errlen, "--serve serves a live session: not --merge or --replay");
        return -1;
    }
    if (o->progress && !o->causal) {
        snprintf(err, errlen, "--progress FUNC (or kernel:NAME) needs --causal");
        return -1;
    }
    if (o->causal && (o->pids || o->replay_dir || o->merge_dir || o->attach_gpu)) {
        snprintf(err, errlen,
                 "--causal runs experiments in a program it starts: rocsys-top "
                 "--causal -- PROGRAM");
        return -1;
    }
    if (o->causal && o->engine == SESSION_ENGINE_PERF) {
        snprintf(err, errlen,
                 "--causal needs the signal engine (perf events cannot pause a "
                 "thread): leave out --engine perf");
        return -1;
    }
    if (o->causal) { /* threads pause in their own handler; samples stand for wall time */
        o->engine = SESSION_ENGINE_SIGNAL;
        o->wall = 1;
    }
    if (o->help || o->version || o->merge_dir || o->replay_dir || o->attach_gpu || o->pids)
        return 0;
    if (i >= argc) {
        snprintf(err, errlen, "no program given: rocsys-top [OPTIONS] -- PROGRAM [ARGS...]");
        return -1;
    }
    o->target_argv = &argv[i];
    o->target_argc = argc - i;
    return 0;
}

int cli_option_given(const struct cli_options *o, const char *long_name)
{
    const struct opt_def *d = find_opt(long_name, strlen(long_name), 0);
    return d && (o->given >> (d - opt_table) & 1u);
}

void cli_options_help(FILE *out)
{
    fprintf(out, "Usage: rocsys-top [OPTIONS] -- PROGRAM [ARGS...]\n"
                 "       rocsys-top --record DIR [OPTIONS] -- PROGRAM [ARGS...]\n"
                 "       mpirun -np N rocsys-top --record DIR -- PROGRAM   (DIR/rank-R per rank)\n"
                 "       rocsys-top --replay DIR [--range START:END] [-b]\n"
                 "       rocsys-top --replay NEW --diff OLD [--range START:END] [-b]\n"
                 "       rocsys-top -p PID[,PID...] [-b] [-n N] [--record DIR]\n"
                 "       rocsys-top --attach-gpu [-b] [-n N] [--record DIR]\n"
                 "       rocsys-top --merge DIR\n"
                 "Live call-stack profiler: starts PROGRAM with a sampling collector injected\n"
                 "(LD_PRELOAD, HSA_TOOLS_LIB) and shows per-thread call trees, hot functions,\n"
                 "threads and the program's output. Exits with PROGRAM's exit status.\n\n"
                 "Options:\n");
    for (const struct opt_def *d = opt_table; d->long_name; d++) {
        char left[64];
        if (d->short_name)
            snprintf(left, sizeof(left), "-%c, --%s%s%s", d->short_name, d->long_name,
                     d->arg ? " " : "", d->arg ? d->arg : "");
        else
            snprintf(left, sizeof(left), "    --%s%s%s", d->long_name, d->arg ? " " : "",
                     d->arg ? d->arg : "");
        fprintf(out, "  %-28s %s\n", left, d->help);
    }
    tui_help_keys(out); /* from the view table */
}
