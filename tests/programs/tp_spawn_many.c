/* tp_spawn_many CHILDREN PARALLEL WORK_MS [exec|fork|daemon] (defaults 300 8 20 exec): many
 * short-lived processes living and dying at once, for the "every process named" tests. The
 * parent keeps PARALLEL children running until CHILDREN have run; each child spends WORK_MS
 * of CPU in spawn_child_work() and exits. exec: the child re-executes this program (a new
 * image, as make's jobs are); fork: the child only forks; daemon: the child forks a
 * grandchild in a new session (fork, setsid, fork, as a daemon does) that does the work while
 * the child exits at once. Prints "spawn_many: N children" at the end. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

/* Thread CPU seconds. */
static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void spawn_child_work(int ms);

/* A child's work: ms milliseconds of CPU. */
__attribute__((noinline)) void spawn_child_work(int ms)
{
    double end = cpu_s() + ms / 1000.0;
    uint64_t x = 1;
    while (cpu_s() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 6364136223846793005ull + 1;
    sink += x;
}

/* Start one child in the chosen mode; returns its pid (-1 on failure). */
static pid_t start_child(const char *self, const char *mode, int ms)
{
    pid_t pid = fork();
    char arg[32];

    if (pid != 0)
        return pid;
    if (strcmp(mode, "exec") == 0) {
        snprintf(arg, sizeof(arg), "%d", ms);
        execl(self, self, "--child", arg, (char *)NULL);
        _exit(127);
    }
    if (strcmp(mode, "daemon") == 0) {
        setsid();
        pid_t g = fork();
        if (g != 0)
            _exit(g < 0 ? 1 : 0); /* the grandchild is reparented: it works on its own */
    }
    spawn_child_work(ms);
    _exit(0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0) {
        spawn_child_work(atoi(argv[2]));
        return 0;
    }
    int children = argc > 1 ? atoi(argv[1]) : 300, parallel = argc > 2 ? atoi(argv[2]) : 8;
    int ms = argc > 3 ? atoi(argv[3]) : 20, started = 0, running = 0;
    const char *mode = argc > 4 ? argv[4] : "exec";

    if (children < 1 || parallel < 1 || ms < 1 ||
        (strcmp(mode, "exec") && strcmp(mode, "fork") && strcmp(mode, "daemon"))) {
        fprintf(stderr, "usage: tp_spawn_many CHILDREN PARALLEL WORK_MS [exec|fork|daemon]\n");
        return 2;
    }
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 1;
    self[n] = '\0';
    while (started < children || running > 0) {
        while (running < parallel && started < children) {
            if (start_child(self, mode, ms) < 0)
                break;
            started++;
            running++;
        }
        if (wait(NULL) > 0)
            running--;
        else
            break;
    }
    if (strcmp(mode, "daemon") == 0) { /* the grandchildren are not ours to wait for */
        struct timespec t = {0, (long)ms * 2000000L + 200000000L};
        nanosleep(&t, NULL);
    }
    printf("spawn_many: %d children\n", started);
    return 0;
}
