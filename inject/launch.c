/* Starting the target: resolve the program like execvp, refuse what cannot be profiled (static
 * binaries, setuid programs) with an explanation, find the collector, fork and exec with
 * LD_PRELOAD / HSA_TOOLS_LIB set, the `rocsys` Python module on PYTHONPATH and stdout/stderr
 * captured. */
#define _GNU_SOURCE
#include "inject.h"
#include "collector/progcheck.h"
#include "collector/protocol.h"
#include "collector/python_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define COLLECTOR_NAME "librocsys-collector.so"
#define CAUSAL_NAME    "librocsys-causal.so" /* --causal's pthread wrappers */
#define PYTHON_MODULE  "rocsys/__init__.py"  /* under the python directory */

void inject_check_program(const char *name, struct inject_program *out)
{
    struct stat st;
    int e;
    char checked[4096];

    memset(out, 0, sizeof(*out));
    e = rocsys_progcheck_resolve(name, getenv("PATH"), out->path, sizeof(out->path));
    if (e == ENOENT || e == ENOTDIR) {
        out->exit_code = 127;
        snprintf(out->error, sizeof(out->error), "%s: command not found", name);
        return;
    }
    if (e != 0 || stat(out->path, &st) != 0) {
        out->exit_code = 126;
        snprintf(out->error, sizeof(out->error), "%s: %s", name, strerror(e ? e : errno));
        return;
    }
    if (S_ISDIR(st.st_mode)) {
        out->exit_code = 126;
        snprintf(out->error, sizeof(out->error), "%s: is a directory", name);
        return;
    }
    if (access(out->path, X_OK) != 0) {
        out->exit_code = 126;
        snprintf(out->error, sizeof(out->error), "%s: permission denied (not executable)", name);
        return;
    }
    switch (rocsys_progcheck_inspect(out->path, checked, sizeof(checked))) {
    case ROCSYS_PROG_SECURE:
        out->exit_code = 1;
        snprintf(out->error, sizeof(out->error),
                 "%.200s is setuid/setgid: the dynamic loader ignores LD_PRELOAD for it, so it "
                 "cannot be profiled (run a non-setuid copy)",
                 name);
        break;
    case ROCSYS_PROG_STATIC:
        out->exit_code = 1;
        out->is_static = 1;
        snprintf(out->error, sizeof(out->error),
                 "%.200s is statically linked: there is no dynamic loader to inject the collector "
                 "into it; relink it dynamically to profile it",
                 checked);
        break;
    default:
        break;
    }
}

/* The directory rocsys-top's executable is in, into exe; 0, or -ENOENT. */
static int exe_dir(char *exe, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", exe, cap - 1);

    if (n <= 0)
        return -ENOENT;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    return 0;
}

/* The first of the directories beside the executable that holds file (a path relative to
 * them), as "DIR/file" in buf: the build tree's lib (build/rocsys-top, build/lib/FILE), then
 * the install prefix's (PREFIX/bin/rocsys-top, PREFIX/lib/rocsys-top/FILE). 0, or -ENOENT. */
static int find_beside_exe(const char *file, char *buf, size_t cap)
{
    char exe[4096];

    if (exe_dir(exe, sizeof(exe)) != 0)
        return -ENOENT;
    snprintf(buf, cap, "%s/lib/%s", exe, file);
    if (access(buf, R_OK) == 0)
        return 0;
    snprintf(buf, cap, "%s/%s/%s", exe, ROCSYS_BIN_TO_LIB, file);
    if (access(buf, R_OK) == 0)
        return 0;
    return -ENOENT;
}

int inject_find_collector(char *buf, size_t cap)
{
    const char *env = getenv("ROCSYS_COLLECTOR_PATH");

    if (env && *env) {
        snprintf(buf, cap, "%s", env);
        return access(buf, R_OK) == 0 ? 0 : -ENOENT;
    }
    return find_beside_exe(COLLECTOR_NAME, buf, cap);
}

/* librocsys-causal.so beside the collector injected (also one chosen with
 * ROCSYS_COLLECTOR_PATH), else beside the executable like the collector. 0, or -ENOENT. */
static int find_causal(const char *collector, char *buf, size_t cap)
{
    const char *slash = strrchr(collector, '/');

    snprintf(buf, cap, "%.*s%s", slash ? (int)(slash + 1 - collector) : 0, collector, CAUSAL_NAME);
    if (access(buf, R_OK) == 0)
        return 0;
    return find_beside_exe(CAUSAL_NAME, buf, cap);
}

int inject_find_python_dir(const char *collector, char *buf, size_t cap)
{
    char path[PATH_MAX + 64], *slash;

    /* beside the collector injected (also one chosen with ROCSYS_COLLECTOR_PATH) ... */
    snprintf(path, sizeof(path), "%s", collector ? collector : "");
    slash = strrchr(path, '/');
    if (slash)
        *slash = '\0';
    else
        snprintf(path, sizeof(path), ".");
    size_t len = strlen(path);
    snprintf(path + len, sizeof(path) - len, "/python/%s", PYTHON_MODULE);
    /* ... else beside the executable, as the collector is found */
    if (access(path, R_OK) != 0 && find_beside_exe("python/" PYTHON_MODULE, path, sizeof(path)))
        return -ENOENT;
    path[strlen(path) - strlen("/" PYTHON_MODULE)] = '\0';
    /* absolute: the target or its children may change directory before starting Python; a
     * ':' could not be written in PYTHONPATH */
    char real[PATH_MAX];
    if (!realpath(path, real) || strlen(real) >= cap || strchr(real, ':'))
        return -ENOENT;
    snprintf(buf, cap, "%s", real);
    return 0;
}

/* Set NAME to collector prepended (LD_PRELOAD, PYTHONPATH: ':'-separated) or appended
 * (HSA_TOOLS_LIB, space-separated) to its current value. */
static void add_to_list(const char *name, const char *collector, int prepend, char sep)
{
    const char *cur = getenv(name);
    char *v;

    if (!cur || !*cur) {
        setenv(name, collector, 1);
        return;
    }
    if (asprintf(&v, "%s%c%s", prepend ? collector : cur, sep, prepend ? cur : collector) < 0)
        return;
    setenv(name, v, 1);
    free(v);
}

int inject_spawn(const struct inject_launch *l, const struct inject_program *prog,
                 const char *collector, char *const *env_extra, struct inject_target *t, char *err,
                 size_t errlen, void (*before_exec)(pid_t pid, void *ctx), void *ctx)
{
    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1};
    int go_pipe[2] = {-1, -1};
    int rc = 0, child_errno = 0;
    char python_dir[PATH_MAX], causal[PATH_MAX + 64];
    pid_t pid;

    memset(t, 0, sizeof(*t));
    t->pid = -1;
    if (inject_find_python_dir(collector, python_dir, sizeof(python_dir)) != 0)
        python_dir[0] = '\0'; /* not shipped: the target's PYTHONPATH is left alone */
    if (l->causal && find_causal(collector, causal, sizeof(causal)) != 0) {
        snprintf(err, errlen, "--causal: cannot find %s beside %s", CAUSAL_NAME, collector);
        return 1;
    }
    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0 ||
        pipe2(exec_pipe, O_CLOEXEC) != 0 || pipe2(go_pipe, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot create pipes: %s", strerror(errno));
        rc = 1;
        goto fail;
    }
    pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot fork: %s", strerror(errno));
        rc = 1;
        goto fail;
    }
    if (pid == 0) {
        /* child: only async-signal-safe work, plus setenv (we are single-threaded) */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (!l->use_stdin)
            setpgid(0, 0);
        if (!l->use_stdin) {
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0) {
                dup2(devnull, 0);
                close(devnull);
            }
        }
        dup2(out_pipe[1], 1);
        dup2(err_pipe[1], 2);
        if (l->causal) /* --causal: its wrappers, after the collector */
            add_to_list("LD_PRELOAD", causal, 1, ':');
        add_to_list("LD_PRELOAD", collector, 1, ':');
        add_to_list("HSA_TOOLS_LIB", collector, 0, ' ');
        if (!getenv("KOKKOS_TOOLS_LIBS")) /* Kokkos Tools: the collector's kokkosp_* */
            setenv("KOKKOS_TOOLS_LIBS", collector, 1);
        if (python_dir[0])
            add_to_list("PYTHONPATH", python_dir, 1, ':');
        for (char *const *e = env_extra; e && *e; e++) {
            size_t k = strlen(ROCSYS_ENV_SESSION);
            if (strncmp(*e, ROCSYS_ENV_SESSION, k) == 0 && (*e)[k] == '=') {
                /* the session's variable, with this process as the launched target */
                char v[1024];
                snprintf(v, sizeof(v), "root=%d,%s", (int)getpid(), *e + k + 1);
                setenv(ROCSYS_ENV_SESSION, v, 1);
            } else {
                putenv(*e);
            }
        }
        /* wait until the parent has set up what must exist before the exec (perf events
         * enabled on exec); EOF when it is done */
        char go;
        close(go_pipe[1]);
        while (read(go_pipe[0], &go, 1) < 0 && errno == EINTR)
            ;
        execv(prog->path, l->argv);
        child_errno = errno;
        if (write(exec_pipe[1], &child_errno, sizeof(child_errno)) < 0) {
            /* the parent sees EOF and a 127 exit */
        }
        _exit(127);
    }
    t->pid = pid;
    t->own_group = !l->use_stdin;
    if (t->own_group)
        setpgid(pid, pid); /* both sides set it: no race with the exec */
    close(out_pipe[1]);
    close(err_pipe[1]);
    close(exec_pipe[1]);
    out_pipe[1] = err_pipe[1] = exec_pipe[1] = -1;
    close(go_pipe[0]);
    if (before_exec)
        before_exec(pid, ctx);
    close(go_pipe[1]); /* the child goes on to its exec */
    go_pipe[0] = go_pipe[1] = -1;
    ssize_t n;
    do {
        n = read(exec_pipe[0], &child_errno, sizeof(child_errno));
    } while (n < 0 && errno == EINTR);
    close(exec_pipe[0]);
    exec_pipe[0] = -1;
    if (n == (ssize_t)sizeof(child_errno)) {
        waitpid(pid, NULL, 0);
        t->pid = -1;
        snprintf(err, errlen, "%s: %s", l->argv[0], strerror(child_errno));
        rc = (child_errno == ENOENT) ? 127 : 126;
        goto fail;
    }
    t->out_fd = out_pipe[0];
    t->err_fd = err_pipe[0];
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (out_pipe[i] >= 0)
            close(out_pipe[i]);
        if (err_pipe[i] >= 0)
            close(err_pipe[i]);
        if (exec_pipe[i] >= 0)
            close(exec_pipe[i]);
        if (go_pipe[i] >= 0)
            close(go_pipe[i]);
    }
    return rc;
}

/* Whether the file at path names python in its #! line or is an ELF file that needs libpython. */
static int file_says_python(const char *path)
{
    char buf[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC), found = 0;
    ssize_t n;

    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    if (n > 2 && buf[0] == '#' && buf[1] == '!') {
        char *nl = strchr(buf, '\n');
        if (nl)
            *nl = '\0';
        return strstr(buf, "python") != NULL;
    }
    if (n > 4 && memcmp(buf, "\177ELF", 4) == 0) {
        /* a program embedding CPython: "libpython3.x.so" among its strings (DT_NEEDED) */
        FILE *f = fopen(path, "re");
        size_t got, keep = 0;
        static char chunk[1 << 16];
        while (f && !found && (got = fread(chunk + keep, 1, sizeof(chunk) - keep, f)) > 0) {
            size_t len = keep + got;
            found = memmem(chunk, len, "libpython", 9) != NULL ||
                    memmem(chunk, len, "_PyRuntime", 10) != NULL;
            keep = len > 16 ? 16 : len;
            memmove(chunk, chunk + len - keep, keep);
        }
        if (f)
            fclose(f);
    }
    return found;
}

int inject_program_is_python(const char *path)
{
    const char *base = strrchr(path, '/');

    base = base ? base + 1 : path;
    return strncmp(base, "python", 6) == 0 || file_says_python(path);
}

/* The CPython version a file holds: the _Py_DebugOffsets in its .PyRuntime data (3.13+: copied
 * to dbg, *ndbg bytes), else the minor of a "libpython3.N" it needs; 0 if neither. */
static uint32_t file_python_version(const char *path, uint8_t *dbg, size_t *ndbg)
{
    static char chunk[1 << 16];
    FILE *f = fopen(path, "re");
    size_t got, keep = 0, tail = PY_DEBUG_OFFSETS_MAX;
    uint32_t lib = 0;

    *ndbg = 0;
    while (f && (got = fread(chunk + keep, 1, sizeof(chunk) - keep, f)) > 0) {
        size_t len = keep + got;
        for (char *c = chunk; (c = memmem(c, len - (size_t)(c - chunk), "xdebugpy", 8)) != NULL;
             c++) {
            uint64_t ver;
            if ((size_t)(c - chunk) + 24 > len)
                break;
            memcpy(&ver, c + 8, 8);
            if ((ver >> 24) == 3 && ((ver >> 16) & 0xff) >= 13 && ((ver >> 16) & 0xff) < 100) {
                size_t n = len - (size_t)(c - chunk);
                *ndbg = n < PY_DEBUG_OFFSETS_MAX ? n : PY_DEBUG_OFFSETS_MAX;
                memcpy(dbg, c, *ndbg);
                fclose(f);
                return (uint32_t)ver;
            }
        }
        char *l = memmem(chunk, len, "libpython", 9);
        if (l && (size_t)(l - chunk) + 14 < len && !lib && l[9] >= '2' && l[9] <= '3' &&
            l[10] == '.')
            lib = (uint32_t)(l[9] - '0') << 24 | (uint32_t)strtoul(l + 11, NULL, 10) << 16;
        keep = len > tail ? tail : len;
        memmove(chunk, chunk + len - keep, keep);
    }
    if (f)
        fclose(f);
    return lib;
}

int inject_python_frames_readable(const char *path)
{
    static uint8_t dbg[PY_DEBUG_OFFSETS_MAX];
    char real[PATH_MAX], line[256];
    struct py_layout l;
    size_t n = 0;
    uint32_t v;
    FILE *f;

    /* a script: the interpreter its #! line names, if it is a path */
    if ((f = fopen(path, "re")) != NULL) {
        if (fgets(line, sizeof(line), f) && line[0] == '#' && line[1] == '!') {
            char *p = line + 2 + strspn(line + 2, " \t");
            p[strcspn(p, " \t\n")] = '\0';
            if (*p == '/' && !strstr(p, "/env"))
                path = p;
        }
        fclose(f);
    }
    if (!realpath(path, real))
        return 1; /* not known: as before, Python frames are expected */
    v = file_python_version(real, dbg, &n);
    if (!v) { /* python3.N by name */
        const char *b = strrchr(real, '/');
        b = b ? b + 1 : real;
        if (strncmp(b, "python", 6) != 0 || (b[6] != '2' && b[6] != '3') || b[7] != '.')
            return 1;
        v = (uint32_t)(b[6] - '0') << 24 | (uint32_t)strtoul(b + 8, NULL, 10) << 16;
        if (strchr(b + 8, 't'))
            return 0; /* python3.13t: a free-threaded build */
    }
    if (((v >> 16) & 0xff) >= 13 && n == 0) /* its offsets are in a libpython not read here */
        return ((v >> 16) & 0xff) <= PY_LAYOUT_NEWEST_CHECKED;
    return py_layout_for(v, n ? dbg : NULL, n, &l, NULL) == PY_LAYOUT_OK;
}
