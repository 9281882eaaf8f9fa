/* Test program for user regions (rocsys/user.h), one scenario per first argument:
 *   nest          outer > inner regions around CPU work, plus marks
 *   unbalanced    pops with no open region (prints what they return), then normal work
 *   threads N     N threads (in batches of 100) each run a region of the same name
 *   names         names with spaces, quotes, non-ASCII characters, ';' and a 300-byte name
 *   open          regions still open on two threads when the program exits
 *   sampling      CPU work with sampling stopped, then with it started again
 *   deep          pushes deeper than the collector tracks, then as many pops
 * It prints "ur done: ..." last; under rocsys-top, rocsys_user_active() says so. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rocsys/user.h"
#include "tp_burn.h"

TP_DEFINE_BURN(ur_outer_work)
TP_DEFINE_BURN(ur_inner_work)
TP_DEFINE_BURN(ur_thread_work)
TP_DEFINE_BURN(ur_name_work)
TP_DEFINE_BURN(ur_paused_work)
TP_DEFINE_BURN(ur_sampled_work)
TP_DEFINE_BURN(ur_open_work)

static void nest(void)
{
    for (int i = 0; i < 20; i++) {
        rocsys_user_push("outer");
        ur_outer_work(10);
        rocsys_user_push("inner");
        ur_inner_work(20);
        rocsys_user_pop();
        rocsys_user_pop();
        rocsys_user_mark("iteration done");
    }
}

static void unbalanced(void)
{
    int a = rocsys_user_pop(), b = rocsys_user_pop(), c = rocsys_user_pop();
    printf("unbalanced pops returned %d %d %d\n", a, b, c);
    rocsys_user_push("balanced");
    ur_outer_work(50);
    printf("pop returned %d\n", rocsys_user_pop());
}

static void *thread_main(void *arg)
{
    (void)arg;
    rocsys_user_push("worker item");
    ur_thread_work(2);
    rocsys_user_pop();
    return NULL;
}

static void threads(int n)
{
    pthread_t th[100];

    for (int done = 0; done < n;) {
        int batch = n - done < 100 ? n - done : 100, started = 0;
        for (int i = 0; i < batch; i++)
            if (pthread_create(&th[started], NULL, thread_main, NULL) == 0)
                started++;
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        done += batch;
    }
}

static void names(void)
{
    static const char *const list[] = {"halo exchange", "say \"hi\" 'there'",
                                       "r\xc3\xa9sum\xc3\xa9 \xe2\x9c\x93 \xe8\xa8\x88\xe7\xae\x97",
                                       "semi;colon"};
    char longname[301];

    for (size_t i = 0; i < sizeof(list) / sizeof(list[0]); i++) {
        rocsys_user_push(list[i]);
        ur_name_work(30);
        rocsys_user_pop();
    }
    memset(longname, 'L', 300);
    longname[300] = '\0';
    rocsys_user_push(longname);
    ur_name_work(5);
    rocsys_user_pop();
}

static void *open_thread(void *arg)
{
    (void)arg;
    rocsys_user_push("thread left open");
    for (;;)
        ur_open_work(10);
    return NULL;
}

static void open_at_exit(void)
{
    pthread_t th;

    pthread_create(&th, NULL, open_thread, NULL);
    rocsys_user_push("main left open");
    ur_open_work(200);
    printf("ur done: open\n");
    fflush(stdout);
    exit(0);
}

static void sampling(void)
{
    rocsys_user_stop_sampling();
    ur_paused_work(300);
    rocsys_user_start_sampling();
    ur_sampled_work(300);
}

static void deep(void)
{
    int levels = 80, last = 0;

    for (int i = 0; i < levels; i++)
        last = rocsys_user_push("level");
    ur_outer_work(20);
    for (int i = 0; i < levels; i++)
        rocsys_user_pop();
    printf("deepest level %d\n", last);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "nest";

    printf("rocsys-top active: %d\n", rocsys_user_active());
    if (strcmp(mode, "nest") == 0)
        nest();
    else if (strcmp(mode, "unbalanced") == 0)
        unbalanced();
    else if (strcmp(mode, "threads") == 0)
        threads(argc > 2 ? atoi(argv[2]) : 100);
    else if (strcmp(mode, "names") == 0)
        names();
    else if (strcmp(mode, "open") == 0)
        open_at_exit();
    else if (strcmp(mode, "sampling") == 0)
        sampling();
    else if (strcmp(mode, "deep") == 0)
        deep();
    else
        return 2;
    printf("ur done: %s\n", mode);
    return 0;
}
