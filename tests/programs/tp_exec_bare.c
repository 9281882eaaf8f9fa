/* tp_exec_bare MODE [PROGRAM [ARGS...]]: a profiled program that starts a child the collector
 * cannot be in, waits for it and exits with the child's exit status. Used by
 * tests/e2e/test_hostile.sh. Modes:
 *   clearenv      fork, then exec itself (`tp_exec_bare burn`) with an empty environment
 *   spawn-clear   posix_spawn itself (`burn`) with an empty environment
 *   exec PROG...  fork, then execv PROG (a setuid or static program) with the environment kept
 *   burn          burn 600 ms of CPU in bare_child_burn(), print "tp_exec_bare: child done",
 *                 exit 3 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp_burn.h"

TP_DEFINE_BURN(bare_child_burn)

int main(int argc, char **argv)
{
    char *self_argv[] = {argv[0], "burn", NULL};
    char *empty_env[] = {NULL};
    pid_t pid = -1;
    int status = 0;

    if (argc < 2) {
        fprintf(stderr, "usage: tp_exec_bare clearenv|spawn-clear|exec PROG...|burn\n");
        return 2;
    }
    if (strcmp(argv[1], "burn") == 0) {
        bare_child_burn(600);
        printf("tp_exec_bare: child done\n");
        return 3;
    }
    fflush(stdout);
    if (strcmp(argv[1], "spawn-clear") == 0) {
        if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, self_argv, empty_env) != 0)
            return 125;
    } else if (strcmp(argv[1], "clearenv") == 0 || (strcmp(argv[1], "exec") == 0 && argc > 2)) {
        pid = fork();
        if (pid == 0) {
            if (argv[1][0] == 'c')
                execve("/proc/self/exe", self_argv, empty_env);
            else
                execv(argv[2], argv + 2);
            _exit(127);
        }
    } else {
        fprintf(stderr, "tp_exec_bare: unknown mode %s\n", argv[1]);
        return 2;
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 125;
    printf("tp_exec_bare %s: child exited %d\n", argv[1], WEXITSTATUS(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 126;
}
