/* tp_stdin: reads stdin to EOF, prints "tp_stdin: read N bytes", exits 0.
 * Used by the end-to-end test that the target's stdin is passed through (and that a target
 * reading a closed/empty stdin does not hang). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    char buf[65536];
    unsigned long long total = 0;
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n > 0) {
            total += (unsigned long long)n;
        } else if (n == 0) {
            break;
        } else if (errno != EINTR) {
            fprintf(stderr, "tp_stdin: read: %s\n", strerror(errno));
            return 1;
        }
    }
    printf("tp_stdin: read %llu bytes\n", total);
    return 0;
}
