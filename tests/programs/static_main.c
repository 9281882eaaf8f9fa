/* static_main.c, built as tp_static by programs.cmake (statically linked, so LD_PRELOAD cannot
 * inject the collector). Burns ~500 ms of CPU in static_work(), prints "tp_static: done",
 * exits 0.
 * Used by the end-to-end test that a static binary is detected (rocsys-top warns that it cannot
 * sample it, and still runs it and reports its exit status). Not named tp_*.c so that the test
 * programs' glob does not also build it dynamically linked. */
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "tp_burn.h"

void static_work(long ms);

/* CPU time of the process in nanoseconds. */
/* Spin for ms milliseconds of CPU time. */
TP_DEFINE_BURN(static_work)

int main(void)
{
    static_work(500);
    printf("tp_static: done\n");
    return 0;
}
