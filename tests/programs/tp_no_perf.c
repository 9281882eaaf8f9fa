/* Test helper: run a program where perf events are refused altogether, as Debian's kernels do
 * for plain users at kernel.perf_event_paranoid=3 and as a container's default seccomp profile
 * does: a seccomp filter makes every perf_event_open fail with EACCES (or EPERM), then exec.
 *   tp_no_perf eacces|eperm PROGRAM [ARGS...] */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "eacces") != 0 && strcmp(argv[1], "eperm") != 0)) {
        fprintf(stderr, "usage: tp_no_perf eacces|eperm PROGRAM [ARGS...]\n");
        return 2;
    }
    unsigned int e = strcmp(argv[1], "eacces") == 0 ? EACCES : EPERM;
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_perf_event_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {.len = sizeof(prog) / sizeof(prog[0]), .filter = prog};

    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) != 0) {
        fprintf(stderr, "tp_no_perf: seccomp: %s\n", strerror(errno));
        return 1;
    }
    execvp(argv[2], argv + 2);
    fprintf(stderr, "tp_no_perf: %s: %s\n", argv[2], strerror(errno));
    return 127;
}
