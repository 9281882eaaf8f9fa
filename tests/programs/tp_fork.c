/* tp_fork: a process tree for the follow-children tests.
 *  - child 1: fork + exec of /bin/sh -c "exec <self> --child"; in --child mode the program
 *    renames its thread "forked-child" and burns ~1 s of CPU in child_work().
 *  - child 2: plain fork() without exec; burns ~0.5 s of CPU in fork_only_work(), _exit(0).
 *  - parent: burns ~1 s of CPU in parent_work(), waits for both children, exits 0 (1 if a child
 *    failed).
 * Used by the end-to-end tests that children are followed across fork and fork+exec (the
 * collector is inherited through LD_PRELOAD by the shell and by the re-exec'd program). */
#define _GNU_SOURCE /* pthread_setname_np */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tp_burn.h"

void child_work(long ms);
void fork_only_work(long ms);
void parent_work(long ms);

/* Work of the exec'd child. */
TP_DEFINE_BURN(child_work)

/* Work of the plain forked child. */
TP_DEFINE_BURN(fork_only_work)

/* Work of the parent. */
TP_DEFINE_BURN(parent_work)

/* Quote s for /bin/sh inside single quotes into out; -1 if it does not fit. */
static int sh_quote(const char *s, char *out, size_t size)
{
    size_t n = 0;
    if (size < 3)
        return -1;
    out[n++] = '\'';
    for (; *s; s++) {
        const char *piece = *s == '\'' ? "'\\''" : NULL;
        size_t len = piece ? 4 : 1;
        if (n + len + 2 > size)
            return -1;
        if (piece)
            memcpy(out + n, piece, len);
        else
            out[n] = *s;
        n += len;
    }
    out[n++] = '\'';
    out[n] = '\0';
    return 0;
}

/* Wait for pid; 0 if it exited with status 0, else print why and return -1. */
static int wait_ok(pid_t pid, const char *what)
{
    int status;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "tp_fork: waitpid(%s): %s\n", what, strerror(errno));
            return -1;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    fprintf(stderr, "tp_fork: %s failed (status 0x%x)\n", what, status);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--child")) {
        pthread_setname_np(pthread_self(), "forked-child");
        printf("tp_fork: child %d running\n", (int)getpid());
        fflush(stdout);
        child_work(1000);
        return 0;
    }

    char self[4096], quoted[8192], cmd[8300];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len < 0) {
        fprintf(stderr, "tp_fork: readlink /proc/self/exe: %s\n", strerror(errno));
        return 1;
    }
    self[len] = '\0';
    if (sh_quote(self, quoted, sizeof quoted) < 0) {
        fprintf(stderr, "tp_fork: path too long\n");
        return 1;
    }
    snprintf(cmd, sizeof cmd, "exec %s --child", quoted);

    fflush(stdout); /* nothing buffered may be written twice */
    pid_t exec_child = fork();
    if (exec_child < 0) {
        fprintf(stderr, "tp_fork: fork: %s\n", strerror(errno));
        return 1;
    }
    if (exec_child == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        fprintf(stderr, "tp_fork: exec /bin/sh: %s\n", strerror(errno));
        _exit(127);
    }

    pid_t fork_child = fork();
    if (fork_child < 0) {
        fprintf(stderr, "tp_fork: fork: %s\n", strerror(errno));
        return 1;
    }
    if (fork_child == 0) {
        fork_only_work(500);
        _exit(0);
    }

    printf("tp_fork: parent %d, exec child %d, fork child %d\n", (int)getpid(), (int)exec_child,
           (int)fork_child);
    fflush(stdout);
    parent_work(1000);
    int bad = wait_ok(exec_child, "exec child") | wait_ok(fork_child, "fork child");
    printf("tp_fork: done\n");
    return bad ? 1 : 0;
}
