/* Unit test: the name of the call a blocked thread waits in ("[blocked] read"), from stacks as
 * the C libraries give them. glibc 2.41 (Debian 13) puts its cancellation wrappers
 * (__syscall_cancel, __internal_syscall_cancel, __syscall_cancel_arch) below every cancellable
 * call, where the leaf alone named nothing ("[blocked] other"); without libc's symbols those
 * frames are nameless ("libc.so.6@0x8f340"). The stacks below are the ones rocsys-top --sample
 * wall recorded of tests/programs/tp_blockers in a Debian 13 chroot (glibc 2.41-12, with and
 * without libc6-dbg) and on Debian 12 (glibc 2.36-9, with libc6-dbg). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model/model.h"

#define MAX_FRAMES 16

/* Frames, leaf first, of a stack written root first as the folded stacks show it, each function
 * with its module: "tp_blockers:blk_read libc.so.6:read libc.so.6:__syscall_cancel". Each is
 * its own pc (nleaf 1). Strings point into buf. */
static int parse_stack(const char *spec, char *buf, size_t cap, struct sym_frame *out)
{
    char *words[MAX_FRAMES], *save = NULL;
    int n = 0;

    snprintf(buf, cap, "%s", spec);
    for (char *w = strtok_r(buf, " ", &save); w && n < MAX_FRAMES; w = strtok_r(NULL, " ", &save))
        words[n++] = w;
    for (int i = 0; i < n; i++) {
        char *w = words[n - 1 - i], *colon = strchr(w, ':');
        memset(&out[i], 0, sizeof(out[i]));
        *colon = '\0';
        out[i].module = w;
        out[i].function = colon + 1;
    }
    return n;
}

/* The call named for spec (see parse_stack). */
static const char *call_for(const char *spec)
{
    static char buf[1024];
    struct sym_frame fr[MAX_FRAMES];
    int n = parse_stack(spec, buf, sizeof(buf), fr);

    return model_blocked_call(fr, n, 1);
}

#define EXPECT_CALL(want, spec)                                                                    \
    do {                                                                                           \
        const char *got_ = call_for(spec);                                                         \
        CHECK_MSG(strcmp(got_, want) == 0, "\"%s\" named \"%s\", want \"%s\"", spec, got_, want);  \
    } while (0)

#define B  "tp_blockers:"
#define L  "libc.so.6:"
#define W3 L "__syscall_cancel " L "__internal_syscall_cancel " L "__syscall_cancel_arch"

/* glibc 2.41 with its symbols (libc6-dbg): the wrappers are named. */
static void test_glibc_241_named(void)
{
    EXPECT_CALL("read", B "blk_read " L "read " W3);
    EXPECT_CALL("poll", B "blk_poll " L "__poll " W3);
    EXPECT_CALL("select", B "blk_select " L "__select " W3);
    EXPECT_CALL("epoll_wait", B "blk_epoll_wait " L "epoll_wait " W3);
    EXPECT_CALL("wait", B "blk_waitpid " L "wait4 " W3);
    EXPECT_CALL("nanosleep", B "blk_nanosleep " L "__nanosleep " L "clock_nanosleep " L
                               "__internal_syscall_cancel " L "__syscall_cancel_arch");
    EXPECT_CALL("futex", B "blk_cond_wait " L "pthread_cond_wait " L "__pthread_cond_wait_common " L
                           "__futex_abstimed_wait_common " L "__futex_abstimed_wait_common64 " L
                           "__internal_syscall_cancel " L "__syscall_cancel_arch");
    EXPECT_CALL("futex", B "blk_sem_wait " L "__new_sem_wait_slow64.constprop.0 " L
                           "__futex_abstimed_wait_common " L "__futex_abstimed_wait_common64 " L
                           "__internal_syscall_cancel " L "__syscall_cancel_arch");
    /* the other names the same code has in libc's symbol table, and internal aliases */
    EXPECT_CALL("read", B "blk_read " L "read " L "__syscall_cancel " L
                          "__internal_syscall_cancel " L "__syscall_cancel_arch_start");
    EXPECT_CALL("read", B "blk_read " L "read " L "__GI___syscall_cancel " L
                          "__syscall_do_cancel " L "__syscall_cancel_arch_end");
}

/* glibc 2.41 without its symbols: the wrappers are nameless offsets in libc.so.6. */
static void test_glibc_241_nameless(void)
{
#define U3 L "libc.so.6@0x8f3c0 " L "libc.so.6@0x8f340 " L "libc.so.6@0x9a700"
    EXPECT_CALL("read", B "blk_read " L "read " U3);
    EXPECT_CALL("poll", B "blk_poll " L "__poll " U3);
    EXPECT_CALL("select", B "blk_select " L "__select " U3);
    EXPECT_CALL("epoll_wait", B "blk_epoll_wait " L "epoll_wait " U3);
    EXPECT_CALL("wait", B "blk_waitpid " L "wait4 " U3);
    EXPECT_CALL("nanosleep", B "blk_nanosleep " L "__nanosleep " L "clock_nanosleep " L
                               "libc.so.6@0x8f340 " L "libc.so.6@0x9a700");
    EXPECT_CALL("futex", B "blk_cond_wait " L "pthread_cond_wait " L "libc.so.6@0x8f930 " L
                           "libc.so.6@0x8f340 " L "libc.so.6@0x9a700");
    /* sem_wait's slow path and the futex wait are internal: nothing in libc names them, and
     * the program's own function (named blk_sem_wait here) must not speak for libc */
    EXPECT_CALL("other", B "blk_sem_wait " L "libc.so.6@0x9a5d0 " L "libc.so.6@0x8f930 " L
                           "libc.so.6@0x8f340 " L "libc.so.6@0x9a700");
    /* "module+0xOFFSET", the other form of a nameless address */
    EXPECT_CALL("read", B "blk_read " L "read " L "libc.so.6+0x8f340 " L "libc.so.6+0x9a700");
#undef U3
}

/* glibc 2.36 (Debian 12): the call is the leaf, as before. */
static void test_glibc_236(void)
{
    EXPECT_CALL("read", B "blk_read " L "read " L "__GI___libc_read");
    EXPECT_CALL("poll", B "blk_poll " L "__poll");
    EXPECT_CALL("select", B "blk_select " L "__select");
    EXPECT_CALL("epoll_wait", B "blk_epoll_wait " L "epoll_wait");
    EXPECT_CALL("wait", B "blk_waitpid " L "wait4");
    EXPECT_CALL("nanosleep", B "blk_nanosleep " L "__nanosleep " L "clock_nanosleep");
    EXPECT_CALL("futex", B "blk_cond_wait " L "pthread_cond_wait " L "__pthread_cond_wait_common " L
                           "__futex_abstimed_wait_common " L "__futex_abstimed_wait_common64");
    EXPECT_CALL("futex", "libpthread.so.0:pthread_cond_wait"); /* glibc before 2.34 */
    EXPECT_CALL("nanosleep", "libc-2.31.so:__GI___clock_nanosleep");
    EXPECT_CALL("syscall", B "futex_wait_raw " L "syscall");
}

/* What does not name a call. */
static void test_not_named(void)
{
    /* a leaf outside libc still speaks for itself (raw system calls in the program) */
    EXPECT_CALL("poll", B "main " B "my_poll_loop");
    /* a wait libc does not name */
    EXPECT_CALL("other", B "main " L "getrandom " W3);
    /* past the leaf, a program's function is not libc's call */
    EXPECT_CALL("other", B "read_config " L "libc.so.6@0x8f340 " L "libc.so.6@0x9a700");
    EXPECT_CALL("other", B "read_config " B "helper@0x1000");
    /* only wrappers, nothing above them */
    EXPECT_CALL("other", W3);
    EXPECT_CALL("other", "");
    /* a nameless frame outside libc says nothing either, and stops the walk */
    EXPECT_CALL("other", L "read "
                           "libfoo.so:libfoo.so@0x1234");

    /* a frame without a function name decides: nothing known */
    struct sym_frame f = {.function = NULL, .module = "libc.so.6"};
    const char *call = "x";
    CHECK(model_blocked_step(&f, 1, &call) == 1 && call == NULL);
}

int main(void)
{
    test_glibc_241_named();
    test_glibc_241_nameless();
    test_glibc_236();
    test_not_named();
    return check_summary();
}
