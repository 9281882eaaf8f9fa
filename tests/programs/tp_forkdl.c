/* tp_forkdl [THREADS] [FORKS] [CHILD_MS]: threads walk the loader list (as an unwinder does) and
 * run a long stretch of distinct instructions (every sample there misses the unwinder's caches,
 * so an unwinder's locks are often held), while main forks children that run CHILD_MS of CPU
 * (default 0; from 2 up the child is sampled) and exit. A child must never hang: a
 * lock held by another thread at fork stays held in the child (the loader's; the unwinder's,
 * taken by a sample in the child). Exit 3 if a child hung, after a line on stderr saying where
 * it waits. Used by tests/e2e/test_robustness.sh. */
#define _GNU_SOURCE
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
static volatile int stop;
static int cb(struct dl_phdr_info *i, size_t s, void *d)
{
    (void)i;
    (void)s;
    (*(long *)d)++;
    return 0;
}
static void *spin(void *a)
{
    long n = 0;
    while (!stop) {
        dl_iterate_phdr(cb, &n);
        __asm__ volatile(".rept 4000\n\tnop\n\t.endr"); /* 4000 distinct pcs */
    }
    return a;
}
/* Burn ms of this thread's CPU time. */
static void burn_ms(long ms)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
    while ((b.tv_sec - a.tv_sec) * 1000L + (b.tv_nsec - a.tv_nsec) / 1000000L < ms);
}
/* Copy the first line of /proc/PID/NAME (without its newline) into out. */
static void proc_line(pid_t pid, const char *name, char *out, size_t cap)
{
    char path[64];
    FILE *f;
    snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
    out[0] = '\0';
    if ((f = fopen(path, "r")) != NULL) {
        if (!fgets(out, (int)cap, f))
            out[0] = '\0';
        fclose(f);
    }
    out[strcspn(out, "\n")] = '\0';
}
int main(int argc, char **argv)
{
    int nth = argc > 1 ? atoi(argv[1]) : 2, nfork = argc > 2 ? atoi(argv[2]) : 200;
    long child_ms = argc > 3 ? atol(argv[3]) : 0;
    pthread_t t[64];
    if (nth > 64)
        nth = 64;
    for (int i = 0; i < nth; i++)
        pthread_create(&t[i], 0, spin, 0);
    int hung = 0;
    for (int i = 0; i < nfork; i++) {
        pid_t p = fork();
        if (p == 0) {
            burn_ms(child_ms);
            _exit(0);
        }
        /* hung: not gone 20 s after its fork (a lock held at fork is held forever; 1 s was
         * too short on a loaded machine, where the bare program counted 3 children that exit
         * at once as hung) */
        int st, done = 0;
        for (int k = 0; k < 2000; k++) {
            if (waitpid(p, &st, WNOHANG) == p) {
                done = 1;
                break;
            }
            usleep(10000);
        }
        if (!done) {
            char wchan[64], sys[128];
            proc_line(p, "wchan", wchan, sizeof(wchan));
            proc_line(p, "syscall", sys, sizeof(sys));
            fprintf(stderr, "tp_forkdl: child %d of fork %d hung: wchan %s, syscall %s\n", (int)p,
                    i, wchan, sys);
            hung++;
            kill(p, SIGKILL);
            waitpid(p, &st, 0);
            if (hung >= 3)
                break;
        }
    }
    stop = 1;
    for (int i = 0; i < nth; i++)
        pthread_join(t[i], 0);
    printf("forks=%d hung=%d\n", nfork, hung);
    return hung ? 3 : 0;
}
