/* Shared by unit tests that feed a model real addresses: the test binary itself is the module
 * of process FIXTURE_PID, fixture_at(f) gives a pc inside one of its functions, and fn_outer,
 * fn_middle, fn_leaf, fn_other are functions with frames of their own to build stacks from.
 * Include it in one source file per test program (it defines those functions). */
#ifndef ROCSYS_TESTS_MODEL_FIXTURE_H
#define ROCSYS_TESTS_MODEL_FIXTURE_H

#include <link.h>
#include <stdint.h>
#include <unistd.h>

#include "model/model.h"

__attribute__((noinline)) void fn_outer(void);
__attribute__((noinline)) void fn_middle(void);
__attribute__((noinline)) void fn_leaf(void);
__attribute__((noinline)) void fn_other(void);
__attribute__((noinline)) void fn_outer(void)
{
    __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}
__attribute__((noinline)) void fn_middle(void)
{
    __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}
__attribute__((noinline)) void fn_leaf(void)
{
    __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}
__attribute__((noinline)) void fn_other(void)
{
    __asm__ volatile("nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop; nop");
}

#define FIXTURE_PID 4242
#define FIXTURE_SEC 1000000000ull

/* A pc inside f: exact (leaf) or a return address (pc - 1 is still inside). */
static inline uint64_t fixture_at(void (*f)(void))
{
    return (uint64_t)(uintptr_t)f + 4;
}

/* The process fixture_add_self reports the executable to (tests with several processes set it). */
static uint32_t fixture_module_pid = FIXTURE_PID;

/* dl_iterate_phdr callback: report this executable to the model (data) as the main module of
 * fixture_module_pid (FIXTURE_PID unless a test set another). */
static inline int fixture_add_self(struct dl_phdr_info *info, size_t size, void *data)
{
    struct model *m = data;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    uint64_t lo = UINT64_MAX, hi = 0;

    (void)size;
    exe[n > 0 ? n : 0] = '\0';
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_LOAD) {
            uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
            if (a < lo)
                lo = a;
            if (a + info->dlpi_phdr[i].p_memsz > hi)
                hi = a + info->dlpi_phdr[i].p_memsz;
        }
    model_module(m, fixture_module_pid, exe, info->dlpi_addr, lo, hi, NULL, 0);
    return 1; /* the first object is the executable */
}

#endif
