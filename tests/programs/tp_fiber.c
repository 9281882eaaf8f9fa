/* tp_fiber: a coroutine on a 16 KiB stack (makecontext) that uses ~9 KiB of it; the sampling
 * handler must not need the interrupted stack (it runs on its own signal stack). Used by
 * tests/e2e/test_robustness.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <time.h>
static ucontext_t mainctx, fctx;
__attribute__((noinline)) static unsigned long deep(int d)
{
    volatile char pad[1024];
    pad[0] = (char)d;
    if (d > 0)
        return deep(d - 1) + pad[0];
    struct timespec s, n;
    clock_gettime(CLOCK_MONOTONIC, &s);
    volatile unsigned long x = 0;
    do {
        for (int i = 0; i < 100000; i++)
            x += i;
        clock_gettime(CLOCK_MONOTONIC, &n);
    } while ((n.tv_sec - s.tv_sec) * 1000000000L + (n.tv_nsec - s.tv_nsec) < 1000000000L); /* 1 s */
    return x;
}
static void fib(void)
{
    printf("fiber result %lu\n", deep(8));
}
int main(void)
{
    size_t sz = 16384; /* guard page below the stack, like a real fiber library */
    char *m = mmap(0, sz + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(m, 4096, PROT_NONE);
    getcontext(&fctx);
    fctx.uc_stack.ss_sp = m + 4096;
    fctx.uc_stack.ss_size = sz;
    fctx.uc_link = &mainctx;
    makecontext(&fctx, fib, 0);
    swapcontext(&mainctx, &fctx);
    printf("back in main\n");
    return 0;
}
