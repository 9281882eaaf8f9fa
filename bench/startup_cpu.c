/* A program that does nothing: prints the CPU time its process used before main()
 * (CLOCK_PROCESS_CPUTIME_ID at main's first line: loading, relocation, the constructors of the
 * preloaded collector, the threads it started), for bench/hpc_startup.sh. */
#include <stdio.h>
#include <time.h>

int main(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    printf("startup_cpu_ns %lld\n", (long long)ts.tv_sec * 1000000000ll + ts.tv_nsec);
    return 0;
}
