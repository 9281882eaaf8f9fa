/* Unit test: command-line parsing (the option table): defaults, forms, ranges, errors. */
#include <string.h>

#include "check.h"
#include "cli/cli.h"
#include "session/session.h"

/* Parse a NULL-terminated argv; returns the parse status. */
static int parse(struct cli_options *o, char *err, const char **args)
{
    int argc = 0;
    while (args[argc])
        argc++;
    return cli_options_parse(argc, (char **)args, o, err, 256);
}

int main(void)
{
    struct cli_options o;
    char err[256];

    const char *a1[] = {"rocsys-top", "--", "./app", "x", NULL};
    CHECK(parse(&o, err, a1) == 0);
    CHECK(o.freq_hz == 1000 && o.delay_tenths == 10 && !o.wall && o.follow && !o.batch &&
          o.window_s == 5 && !o.use_stdin && o.color && o.iterations == 0);
    CHECK(o.target_argc == 2 && strcmp(o.target_argv[0], "./app") == 0 &&
          strcmp(o.target_argv[1], "x") == 0);

    const char *a2[] = {"rocsys-top", "-f",          "500",          "--sample", "wall",
                        "-b",         "-n3",         "-d",           "5",        "--no-follow",
                        "--stdin",    "--window=10", "--output-log", "/tmp/o",   "--no-color",
                        "--rows",     "0",           "./app",        "-f",       "7",
                        NULL};
    CHECK(parse(&o, err, a2) == 0);
    CHECK(o.freq_hz == 500 && o.wall && o.batch && o.iterations == 3 && o.delay_tenths == 5 &&
          !o.follow && o.use_stdin && o.window_s == 10 && !o.color && o.max_rows == 0);
    CHECK(o.output_log && strcmp(o.output_log, "/tmp/o") == 0);
    /* options after the program belong to the program */
    CHECK(o.target_argc == 3 && strcmp(o.target_argv[1], "-f") == 0);

    const char *a3[] = {"rocsys-top", "--freq=99", "--sample=cpu", "--", "app", NULL};
    CHECK(parse(&o, err, a3) == 0 && o.freq_hz == 99 && !o.wall);
    CHECK(o.cpu_timer == SESSION_TIMER_AUTO);
    const char *a4[] = {"rocsys-top", "--cpu-timer", "posix", "--", "app", NULL};
    CHECK(parse(&o, err, a4) == 0 && o.cpu_timer == SESSION_TIMER_POSIX);
    CHECK(session_resolve_cpu_timer(SESSION_TIMER_PERF) == SESSION_TIMER_PERF);
    CHECK(session_resolve_cpu_timer(SESSION_TIMER_AUTO) != SESSION_TIMER_AUTO);
    CHECK(parse(&o, err, a3) == 0 && o.profile_min_pct == 0.5);
    const char *a5[] = {"rocsys-top", "--profile-min", "0", "--", "app", NULL};
    CHECK(parse(&o, err, a5) == 0 && o.profile_min_pct == 0);
    const char *a6[] = {"rocsys-top", "--profile-min=2.5", "--", "app", NULL};
    CHECK(parse(&o, err, a6) == 0 && o.profile_min_pct == 2.5);

    const char *bad[][6] = {
        {"rocsys-top", "-f", "0", "--", "app", NULL},
        {"rocsys-top", "-f", "10001", "--", "app", NULL},
        {"rocsys-top", "-f", "12x", "--", "app", NULL},
        {"rocsys-top", "--sample", "gpu", "--", "app", NULL},
        {"rocsys-top", "--bogus", "--", "app", NULL, NULL},
        {"rocsys-top", "-f", NULL, NULL, NULL, NULL},
        {"rocsys-top", "-b", NULL, NULL, NULL, NULL},
        {"rocsys-top", "--batch=1", "--", "app", NULL, NULL},
        {"rocsys-top", "-d", "0", "--", "app", NULL},
        {"rocsys-top", "--cpu-timer", "fast", "--", "app", NULL},
        {"rocsys-top", "--profile-min", "-1", "--", "app", NULL},
        {"rocsys-top", "--profile-min", "100.5", "--", "app", NULL},
        {"rocsys-top", "--profile-min", "1%", "--", "app", NULL},
        {"rocsys-top", "--profile-min", "nan", "--", "app", NULL},
        {"rocsys-top", "--diff", "old", NULL, NULL, NULL},
        {"rocsys-top", "--live", "--replay=new", "--diff=old", NULL, NULL},
        {"rocsys-top", "--source-path", "/build", "--", "app", NULL},
        {"rocsys-top", "--source-path", "=/here", "--", "app", NULL},
        {"rocsys-top", "--source-path", "/a=/b,,/c=/d", "--", "app", NULL},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        CHECK_MSG(parse(&o, err, bad[i]) == -1, "case %zu accepted", i);
        CHECK_MSG(err[0] != '\0' && !strchr(err, '\n'), "case %zu: no one-line message", i);
    }

    const char *a7[] = {"rocsys-top", "--replay", "new", "--diff", "old", "-b", NULL};
    CHECK(parse(&o, err, a7) == 0 && o.diff_dir && strcmp(o.diff_dir, "old") == 0 && o.batch);
    CHECK(parse(&o, err, a1) == 0 && o.diff_dir == NULL);

    /* --source-path: repeated, or comma-separated, joined in order */
    const char *a8[] = {"rocsys-top", "--source-path", "/b=/l", "--source-path=/c=/m,/d=/n",
                        "--",         "app",           NULL};
    CHECK(parse(&o, err, a8) == 0);
    CHECK(strcmp(o.source_path, "/b=/l,/c=/m,/d=/n") == 0);
    CHECK(parse(&o, err, a1) == 0 && o.source_path[0] == '\0');

    const char *h[] = {"rocsys-top", "--help", NULL};
    CHECK(parse(&o, err, h) == 0 && o.help);
    const char *nc[] = {"rocsys-top", "--no-config", "-d", "3", "--", "./app", NULL};
    CHECK(parse(&o, err, nc) == 0 && o.no_config && cli_option_given(&o, "delay") &&
          cli_option_given(&o, "no-config") && !cli_option_given(&o, "window"));
    const char *v[] = {"rocsys-top", "-V", NULL};
    CHECK(parse(&o, err, v) == 0 && o.version);
    return check_summary();
}
