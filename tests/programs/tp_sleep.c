/* tp_sleep SECONDS: prints "tp_sleep: sleeping SECONDS s, pid N", sleeps (nanosleep, resumed
 * after signals that do not kill it), prints "tp_sleep: done" and exits 0.
 * Used by the end-to-end tests of SIGTERM/kill handling and of wall-clock mode. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 10.0;
    if (argc > 2 || secs < 0) {
        fprintf(stderr, "usage: tp_sleep SECONDS\n");
        return 2;
    }
    printf("tp_sleep: sleeping %g s, pid %d\n", secs, (int)getpid());
    fflush(stdout);
    struct timespec ts = {(time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
    printf("tp_sleep: done\n");
    return 0;
}
