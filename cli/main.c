/* rocsys-top: entry point. */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/ostream.h"
#include "collector/protocol.h"
#include "gpu/gpu.h"
#include "cli/cli.h"
#include "session/session.h"
#include "tui/tui.h"

/* What the session is asked to do, from the command line; the display's options built here,
 * once, for every mode that opens it. */
static void session_config_from(const struct cli_options *o, struct session_config *c)
{
    *c = (struct session_config){
        .freq_hz = o->freq_hz,
        .wall = o->wall,
        .cpu_timer = o->cpu_timer,
        .engine = o->engine,
        .iterations = o->iterations,
        .batch = o->batch,
        .window_s = o->window_s,
        .follow = o->follow,
        .python = o->python,
        .launch_stacks_off = o->launch_stacks_off,
        .use_stdin = o->use_stdin,
        .max_rows = o->max_rows,
        .profile_min_pct = o->profile_min_pct,
        .output_log = o->output_log,
        .record_dir = o->record_dir,
        .force = o->force,
        .keep_ns = o->keep_ns,
        .keep_bytes = o->keep_bytes,
        .no_tui = o->no_tui,
        .serve = o->serve,
        .replay_dir = o->replay_dir,
        .range = o->range,
        .diff_dir = o->diff_dir,
        .pids = o->pids,
        .gpu_interval_ms = o->gpu_interval_ms,
        .causal = o->causal,
        .progress = o->progress,
        .target_argv = o->target_argv,
        .target_argc = o->target_argc,
        .tui = {.color = o->color,
                .no_mouse = o->no_mouse,
                .delay_tenths = o->delay_tenths,
                .source_path = o->source_path},
    };
}

/* The modes that run sessions; their exit status. */
static int run(const struct cli_options *o)
{
    struct session_config c;

    if (o->merge_dir)
        return session_merge(o->merge_dir);
    session_config_from(o, &c);
    if (o->replay_dir)
        return o->live ? session_replay_live(&c) : session_replay(&c);
    if (o->attach_gpu)
        return session_attach_gpu(&c);
    return session_run(&c);
}

/* The settings file (unless --no-config) for an interactive display: its delay, window and
 * mouse where the command line did not give them; the TUI applies the rest and writes it back.
 * A file that is not valid gets one line, the defaults, and is left as it is. */
static void settings_apply(struct cli_options *o)
{
    struct tui_settings set;
    char path[4096], err[300];
    int interactive = !o->batch && !o->no_tui && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);

    tui_settings_defaults(&set);
    const char *env = getenv("ROCSYS_NO_CONFIG");
    if (o->no_config || (env && env[0] == '1') || !interactive ||
        tui_settings_path(path, sizeof(path)) != 0) {
        tui_settings_use(&set, NULL);
        return;
    }
    if (tui_settings_load(path, &set, err, sizeof(err)) < 0) {
        fprintf(stderr,
                "rocsys-top: ignoring the settings file %s: %s (defaults used; the file "
                "is left as it is)\n",
                path, err);
        tui_settings_use(&set, NULL);
        return;
    }
    if (!cli_option_given(o, "delay"))
        o->delay_tenths = set.delay_tenths;
    if (!cli_option_given(o, "window"))
        o->window_s = set.window_s;
    if (!cli_option_given(o, "no-mouse"))
        o->no_mouse = !set.mouse;
    tui_settings_use(&set, path);
}

/* Standard output written to the end, or one line and 74 (EX_IOERR) when rc was 0: a file
 * on a full disk must not pass for a whole run's frames (standard output that is not a
 * terminal keeps the reason of its first failed write). A reader that went away (EPIPE: `|
 * head`) is no error: the run went on for the target's sake. */
static int output_status(int rc)
{
    int err = ostream_flush(stdout);

    if (err && err != EPIPE) {
        fprintf(stderr, "rocsys-top: standard output is incomplete: %s\n", strerror(err));
        if (rc == 0)
            rc = 74;
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct cli_options o;
    char err[512];

    /* big tables (call trees built per frame, grown arrays) are mapped and unmapped on their
     * own, so memory a view freed goes back to the system instead of staying in the heap */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    mallopt(M_ARENA_MAX, 2);
    if (!isatty(STDOUT_FILENO))
        ostream_adopt_stdout();
    if (cli_options_parse(argc, argv, &o, err, sizeof(err)) != 0) {
        fprintf(stderr, "rocsys-top: %s\n", err);
        return 2;
    }
    if (o.help) {
        cli_options_help(stdout);
        return output_status(0);
    }
    if (o.version) {
        printf("rocsys-top %s (collector protocol %d)\n", ROCSYS_VERSION, ROCSYS_PROTOCOL_VERSION);
        return output_status(0);
    }
    settings_apply(&o);
    int rc = output_status(run(&o));
    if (gpu_monitor_left_behind()) {
        /* a thread is still inside the GPU library (it never answered): exit() would run the
         * library's destructors under it; everything of ours is closed and written already */
        fflush(NULL);
        _exit(rc);
    }
    return rc;
}
