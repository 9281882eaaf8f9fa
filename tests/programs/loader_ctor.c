/* A shared library whose constructor works about 0.3 s: ld.so runs it from its own entry
 * (_dl_start_user > _dl_init > call_init), code without CFI whose frame pointer is 0, before the
 * program's main. tp_loader_resolver links it: test_deep_stacks checks those samples are whole
 * (from _dl_start_user), never under [truncated]. */

static double loader_ctor_sink;

/* About 0.3 s of arithmetic, run by ld.so while it starts the program */
__attribute__((constructor, noinline)) static void loader_ctor_work(void)
{
    double x = loader_ctor_sink;
    for (long i = 0; i < 180000000; i++) {
        x = x * 0.5 + (double)(i & 7);
        __asm__ volatile("" : "+x"(x));
    }
    loader_ctor_sink = x;
}

double loader_ctor_result(void);

/* What tp_loader_resolver calls, so that it keeps this library as a dependency */
double loader_ctor_result(void)
{
    return loader_ctor_sink;
}
