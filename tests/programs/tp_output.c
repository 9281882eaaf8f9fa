/* tp_output N: writes N numbered lines, i = 0 .. N-1, alternating: even i to stdout as
 * "out LINE i", odd i to stderr as "err LINE i" (stdout gets ceil(N/2) lines, stderr floor(N/2)).
 * Default stdio buffering, exit 0.
 * Used by the end-to-end test that the target's output is preserved in full (e.g. N = 200000). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tp_output N\n");
        return 2;
    }
    long n = atol(argv[1]);
    for (long i = 0; i < n; i++) {
        if (i % 2 == 0)
            printf("out LINE %ld\n", i);
        else
            fprintf(stderr, "err LINE %ld\n", i);
    }
    return 0;
}
