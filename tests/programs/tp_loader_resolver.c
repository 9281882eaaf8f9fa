/* Work done by the dynamic loader's own call chain, below a frame whose CFA is kept in rbx (as
 * the loader's lazy-binding resolver, _dl_runtime_resolve_xsavec, keeps it while it realigns
 * the stack): an IFUNC resolver of this executable, which ld.so calls while it relocates the
 * program (_start > _dl_start > ... > _dl_relocate_object), calls its work through such a frame.
 * That rule only libdwfl follows, so each sample is unwound by libdwfl down to ld.so's entry,
 * code without CFI whose frame pointer is 0: test_deep_stacks checks those stacks are whole,
 * never [truncated]. Nothing here may call the C library or be instrumented by a sanitizer:
 * it runs before either is set up. It links libtp_loader_ctor, whose constructor works next, from
 * ld.so's other entry (_dl_start_user > _dl_init). Usage: tp_loader_resolver (prints its
 * result). */
#include <stdio.h>

/* cfa_rbx_call(fn): calls fn with the stack aligned to 64 bytes, its CFA in rbx meanwhile */
void cfa_rbx_call(void (*fn)(void));
__asm__(".text\n"
        ".globl cfa_rbx_call\n"
        ".type cfa_rbx_call, @function\n"
        "cfa_rbx_call:\n"
        ".cfi_startproc\n"
        "push %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_rel_offset %rbx, 0\n"
        "mov %rsp, %rbx\n"
        ".cfi_def_cfa_register %rbx\n"
        "and $-64, %rsp\n"
        "call *%rdi\n"
        "mov %rbx, %rsp\n"
        ".cfi_def_cfa_register %rsp\n"
        "pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %rbx\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size cfa_rbx_call, .-cfa_rbx_call\n");

static double resolver_sink;

/* About 0.4 s of arithmetic; rbx is saved by its prologue (as the resolver's callees save it:
 * libdwfl takes the caller's rbx from there) */
__attribute__((noinline, no_sanitize("address", "undefined"))) static void loader_work(void)
{
    double x = resolver_sink;
    __asm__ volatile("" ::: "rbx");
    for (long i = 0; i < 250000000; i++) {
        x = x * 0.5 + (double)(i & 7);
        __asm__ volatile("" : "+x"(x));
    }
    resolver_sink = x;
}

static int answer_impl(void)
{
    return 42;
}

/* The IFUNC resolver: ld.so calls it while relocating the program */
__attribute__((no_sanitize("address", "undefined"))) static int (*answer_resolve(void))(void)
{
    cfa_rbx_call(loader_work);
    return answer_impl;
}

int answer(void) __attribute__((ifunc("answer_resolve")));

int loader_ctor_ran(void);

int main(void)
{
    /* 42 if the IFUNC resolved and the library's constructor ran once */
    printf("tp_loader_resolver: done (%d)\n", answer() + (loader_ctor_ran() != 1));
    return 0;
}
