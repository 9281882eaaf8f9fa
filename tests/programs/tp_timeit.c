/* tp_timeit [-o FILE] COMMAND [ARGS...]: runs COMMAND (fork, execvp, wait4) and prints
 * "wall_s user_s sys_s maxrss_kib" of it (the child's rusage from wait4, which includes its
 * own waited-for children; maxrss is the largest of them) to FILE, or to stderr. Exits with
 * COMMAND's status (128+N if killed by signal N, 127 if it could not be run). Used by
 * bench/overhead.sh to time each run more precisely than the shell can. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds of a timeval. */
static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    int first = 1;
    if (argc > 2 && !strcmp(argv[1], "-o")) {
        out_path = argv[2];
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: tp_timeit [-o FILE] COMMAND [ARGS...]\n");
        return 2;
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "tp_timeit: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[first], argv + first);
        fprintf(stderr, "tp_timeit: cannot run %s: %s\n", argv[first], strerror(errno));
        _exit(127);
    }

    int status;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "tp_timeit: wait4: %s\n", strerror(errno));
            return 127;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    FILE *out = stderr;
    if (out_path && !(out = fopen(out_path, "w"))) {
        fprintf(stderr, "tp_timeit: cannot write %s: %s\n", out_path, strerror(errno));
        out = stderr;
    }
    fprintf(out, "%.6f %.6f %.6f %ld\n", wall, tv_s(ru.ru_utime), tv_s(ru.ru_stime), ru.ru_maxrss);
    if (out != stderr)
        fclose(out);

    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 127;
}
