/* tp_many_stacks DISTINCT SECONDS [THREADS [DEPTH]] (defaults 10000 5 2): a program whose calls
 * take DISTINCT different paths, for bench/scale.sh and the size limits of profile.txt. Path i
 * is the base-16 digits of i, each digit choosing which of 16 functions (many_f0 .. many_f15)
 * is called at that level, so there are 16^levels paths and DISTINCT of them are used (with
 * DEPTH, each path goes on to DEPTH levels, the digits past i's own drawn from a hash of i: a
 * deep path that shares little with the others); each
 * thread ("many-<t>") walks them in a scattered order (a stride prime to DISTINCT) for SECONDS
 * of wall time, spinning ~50 us at the bottom of each. Sampled often enough, a profile sees
 * about DISTINCT distinct stacks per thread. Prints "many_stacks: N paths walked" at the end. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define FANOUT 16

static long distinct_paths;
static int levels, digit_levels; /* levels of a path; of them, those that are i's digits */
static double run_s;
static volatile uint64_t sink;

typedef void (*many_fn)(int level, long path);
static const many_fn many_table[FANOUT];

/* Monotonic seconds. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bottom of a path: ~50 us of work. */
static __attribute__((noinline)) void many_leaf(long path)
{
    uint64_t x = (uint64_t)path;
    for (int i = 0; i < 20000; i++)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    sink += x;
}

/* Level `level` of path: call the function its next digit names, or the leaf. */
static void many_step(int level, long path)
{
    if (level == levels) {
        many_leaf(path);
        return;
    }
    long digit = path;
    if (level < digit_levels) {
        for (int k = 0; k < level; k++)
            digit /= FANOUT;
    } else { /* past the path's own digits: a hash of path and level */
        uint64_t h =
            ((uint64_t)path + 1) * 0x9e3779b97f4a7c15ull ^ (uint64_t)level * 0xbf58476d1ce4e5b9ull;
        h ^= h >> 29;
        h *= 0x94d049bb133111ebull;
        digit = (long)((h ^ (h >> 32)) % FANOUT);
    }
    many_table[digit % FANOUT](level + 1, path);
}

/* Sixteen functions of the same shape; noinline and a side effect keep each a real frame. */
#define MANY_FN(n)                                                                                 \
    static __attribute__((noinline)) void many_f##n(int level, long path)                          \
    {                                                                                              \
        many_step(level, path);                                                                    \
        sink += (uint64_t)n;                                                                       \
    }
MANY_FN(0)
MANY_FN(1)
MANY_FN(2)
MANY_FN(3)
MANY_FN(4)
MANY_FN(5)
MANY_FN(6)
MANY_FN(7)
MANY_FN(8)
MANY_FN(9)
MANY_FN(10)
MANY_FN(11)
MANY_FN(12)
MANY_FN(13)
MANY_FN(14)
MANY_FN(15)

static const many_fn many_table[FANOUT] = {
    many_f0, many_f1, many_f2,  many_f3,  many_f4,  many_f5,  many_f6,  many_f7,
    many_f8, many_f9, many_f10, many_f11, many_f12, many_f13, many_f14, many_f15};

/* A stride prime to n (so that i -> i + stride mod n visits every path). */
static long stride_for(long n)
{
    long s = n / 2 + 1;
    for (;; s++) {
        long a = s, b = n;
        while (b) {
            long t = a % b;
            a = b;
            b = t;
        }
        if (a == 1)
            return s;
    }
}

/* One thread: paths in scattered order until the time is up. */
static void *many_thread(void *arg)
{
    long t = (long)(intptr_t)arg, walked = 0, i = t * 7919 % distinct_paths;
    long stride = stride_for(distinct_paths);
    char name[16];
    double end = now_s() + run_s;

    snprintf(name, sizeof(name), "many-%ld", t);
    pthread_setname_np(pthread_self(), name);
    while (now_s() < end) {
        for (int k = 0; k < 64; k++, walked++) {
            many_step(0, i);
            i = (i + stride) % distinct_paths;
        }
    }
    return (void *)(intptr_t)walked;
}

int main(int argc, char **argv)
{
    int threads = argc > 3 ? atoi(argv[3]) : 2, depth = argc > 4 ? atoi(argv[4]) : 0;
    long walked = 0;

    distinct_paths = argc > 1 ? atol(argv[1]) : 10000;
    run_s = argc > 2 ? atof(argv[2]) : 5;
    if (distinct_paths < 1 || run_s <= 0 || threads < 1 || threads > 256 || depth < 0 ||
        depth > 200) {
        fprintf(stderr, "usage: tp_many_stacks DISTINCT SECONDS [THREADS [DEPTH]]\n");
        return 2;
    }
    levels = 1;
    for (long cap = FANOUT; cap < distinct_paths; cap *= FANOUT)
        levels++;
    digit_levels = levels;
    if (depth > levels)
        levels = depth;
    pthread_t tid[256];
    for (int t = 0; t < threads; t++)
        pthread_create(&tid[t], NULL, many_thread, (void *)(intptr_t)t);
    for (int t = 0; t < threads; t++) {
        void *r;
        pthread_join(tid[t], &r);
        walked += (long)(intptr_t)r;
    }
    printf("many_stacks: %ld paths walked, %ld distinct, %d levels\n", walked, distinct_paths,
           levels);
    return 0;
}
