/* tp_hostile MODE: a program that does what real programs do to their process, then burns
 * 600 ms of CPU in hostile_burn() and prints "tp_hostile MODE: done" (on the stdout it has then)
 * and exits 0. Used by tests/e2e/test_hostile.sh, which runs each mode bare and under rocsys-top
 * and compares. Modes:
 *   closefds   close every fd from 3 up (close_range), as daemons and sandboxes do
 *   stdio      replace stdout and stderr by a file (argv[2]) with dup2
 *   vfork      vfork + exec /bin/true, then burn
 *   clone      a raw clone() thread (no pthread, no TLS of its own) that burns, joined by futex
 *   threads300 start 300 threads at once (a barrier), each burns 2 ms
 *   handler    install its own handler for every real-time signal (SIGRTMIN..SIGRTMAX)
 *   ignore     ignore every signal that can be ignored, with signal(SIG_IGN), as daemons do */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tp_burn.h"

TP_DEFINE_BURN(hostile_burn)

static volatile int clone_tid = 1; /* cleared by the kernel when the clone thread exits */
static pthread_barrier_t barrier;
static volatile sig_atomic_t rt_handled;

/* The raw clone thread: burn, then exit the thread alone (raw syscall: no libc state). */
static int clone_main(void *arg)
{
    (void)arg;
    hostile_burn(300);
    syscall(SYS_exit, 0);
    return 0;
}

/* One of the 300 threads: all start together, each burns a little. */
static void *thread_main(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&barrier);
    hostile_burn(2);
    return NULL;
}

/* The program's own handler of the real-time signals. */
static void rt_handler(int sig)
{
    (void)sig;
    rt_handled++;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";

    if (strcmp(mode, "closefds") == 0) {
        if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0) {
            for (int fd = 3; fd < 1024; fd++)
                close(fd);
        }
    } else if (strcmp(mode, "stdio") == 0 && argc > 2) {
        int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            return 3;
        close(fd);
    } else if (strcmp(mode, "vfork") == 0) {
        pid_t pid = vfork();
        if (pid == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        int st = 0;
        if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return 4;
    } else if (strcmp(mode, "clone") == 0) {
        size_t size = 256 * 1024;
        char *stack = malloc(size);
        if (!stack)
            return 5;
        int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                    CLONE_SYSVSEM | CLONE_CHILD_CLEARTID | CLONE_PARENT_SETTID;
        if (clone(clone_main, stack + size, flags, NULL, &clone_tid, NULL, &clone_tid) < 0)
            return 5;
        while (clone_tid != 0) /* the kernel clears it and wakes us when the thread exits */
            syscall(SYS_futex, &clone_tid, FUTEX_WAIT, clone_tid, NULL, NULL, 0);
        free(stack);
    } else if (strcmp(mode, "threads300") == 0) {
        pthread_t t[300];
        pthread_barrier_init(&barrier, NULL, 300);
        for (int i = 0; i < 300; i++)
            if (pthread_create(&t[i], NULL, thread_main, NULL) != 0)
                return 6;
        for (int i = 0; i < 300; i++)
            pthread_join(t[i], NULL);
    } else if (strcmp(mode, "handler") == 0) {
        struct sigaction sa = {.sa_handler = rt_handler};
        sigemptyset(&sa.sa_mask);
        for (int s = SIGRTMIN; s <= SIGRTMAX; s++)
            sigaction(s, &sa, NULL);
    } else if (strcmp(mode, "ignore") == 0) {
        for (int s = 1; s < NSIG; s++)
            if (s != SIGKILL && s != SIGSTOP)
                signal(s, SIG_IGN);
    } else {
        fprintf(stderr,
                "usage: tp_hostile closefds|stdio FILE|vfork|clone|threads300|handler|ignore\n");
        return 2;
    }
    hostile_burn(600);
    printf("tp_hostile %s: done\n", mode);
    fflush(stdout);
    return 0;
}
