/* A shared library whose constructor works 0.3 s of CPU time: ld.so runs it from its own entry
 * (_dl_start_user > _dl_init > call_init), code without CFI whose frame pointer is 0, before the
 * program's main. tp_loader_resolver links it: test_deep_stacks checks those samples are whole
 * (from _dl_start_user), never under [truncated]. */
#include "tp_burn.h"

TP_DEFINE_BURN(loader_ctor_work)

static int loader_ctor_runs;

/* Run by ld.so while it starts the program */
__attribute__((constructor)) static void loader_ctor(void)
{
    loader_ctor_work(300);
    loader_ctor_runs++;
}

int loader_ctor_ran(void);

/* How many times the constructor ran (tp_loader_resolver's check; it also keeps this library
 * among the program's dependencies) */
int loader_ctor_ran(void)
{
    return loader_ctor_runs;
}
