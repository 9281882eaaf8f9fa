/* tp_exit CODE [BURN_MS]: burns BURN_MS (default 200) ms of CPU in exit_burn(), prints
 * "tp_exit: exiting with CODE" and exits with CODE.
 * Used by the end-to-end tests of exit-status propagation (rocsys-top exits with the target's
 * status, batch mode and interactive) and by tests that need a short CPU-bound target. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tp_burn.h"

void exit_burn(long ms);

/* Spin for ms milliseconds of CPU time; the clock is read only every 2^16 iterations so the
 * samples land here, not in the vdso. */
TP_DEFINE_BURN(exit_burn)

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: tp_exit CODE [BURN_MS]\n");
        return 2;
    }
    int code = atoi(argv[1]);
    long ms = argc > 2 ? atol(argv[2]) : 200;
    if (ms > 0)
        exit_burn(ms);
    printf("tp_exit: exiting with %d\n", code);
    fflush(stdout);
    exit(code);
}
