/* gpu_wait_main.c, built as tp_gpu_wait by hsa.cmake (linked with the stand-in HIP library
 * tp_fakehip): ROUNDS rounds (argv[1], default 40) of 10 ms of CPU in wait_compute() and then
 * one hipDeviceSynchronize() from wait_sync(), which takes FAKEHIP_SYNC_MS (spinning, or asleep
 * with FAKEHIP_SYNC=sleep). For the test that samples inside a device wait are "[gpu wait]
 * hipDeviceSynchronize" leaves under wait_sync (tests/e2e/test_gpu_wait.sh). It prints what it
 * measured of its waits, the truth the test compares with (on a loaded machine a spinning wait
 * is preempted, and the shares move): "waits WALL ms cpu CPU ms, share WALL% of the wall time,
 * CPU% of the CPU time". Not named tp_*.c: the test programs' glob would build it without the
 * stand-in library. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

/* CLOCK_MONOTONIC in ns. */
static uint64_t wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 40, rc = 0;
    uint64_t wait_wall = 0, wait_cpu = 0, w0 = wall_ns(), c0 = tp_cpu_ns();

    for (int i = 0; i < rounds; i++) {
        wait_compute(10);
        uint64_t w = wall_ns(), c = tp_cpu_ns();
        rc |= wait_sync();
        wait_wall += wall_ns() - w;
        wait_cpu += tp_cpu_ns() - c;
    }
    uint64_t all_wall = wall_ns() - w0, all_cpu = tp_cpu_ns() - c0;
    printf("tp_gpu_wait: %d rounds, rc %d, waits %.3f ms cpu %.3f ms, share %.1f%% of the wall "
           "time, %.1f%% of the CPU time\n",
           rounds, rc, (double)wait_wall / 1e6, (double)wait_cpu / 1e6,
           100.0 * (double)wait_wall / (double)all_wall,
           100.0 * (double)wait_cpu / (double)(all_cpu ? all_cpu : 1));
    return rc;
}
