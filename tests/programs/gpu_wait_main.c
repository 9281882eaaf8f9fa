/* gpu_wait_main.c, built as tp_gpu_wait by hsa.cmake (linked with the stand-in HIP library
 * tp_fakehip): ROUNDS rounds (argv[1], default 40) of 10 ms of CPU in wait_compute() and then
 * one hipDeviceSynchronize() from wait_sync(), which takes FAKEHIP_SYNC_MS (spinning, or asleep
 * with FAKEHIP_SYNC=sleep). For the test that samples inside a device wait are "[gpu wait]
 * hipDeviceSynchronize" leaves under wait_sync (tests/e2e/test_gpu_wait.sh). Not named tp_*.c:
 * the test programs' glob would build it without the stand-in library. */
#include <stdio.h>
#include <stdlib.h>

#include "tp_burn.h"

int hipDeviceSynchronize(void);

TP_DEFINE_BURN(wait_compute)

/* One device wait, from a frame of its own. */
__attribute__((noinline)) static int wait_sync(void)
{
    int rc = hipDeviceSynchronize();
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return rc;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 40, rc = 0;

    for (int i = 0; i < rounds; i++) {
        wait_compute(10);
        rc |= wait_sync();
    }
    printf("tp_gpu_wait: %d rounds, rc %d\n", rounds, rc);
    return rc;
}
