/* A single-threaded server loop for causal profiling of latency (test_causal_latency): each
 * request runs between rocsys_user_begin and rocsys_user_end (a latency point) and does
 * serve_request (about 60 % of the request's time) then send_reply (40 %); between requests the
 * program runs think (as long as a request, outside it). Making serve_request X % faster makes
 * the latency X % of its share of the request shorter; making think faster changes the
 * latency not at all (though it would raise the throughput). The program measures the shares
 * itself (its CPU clock around each call) and prints them.
 * With "stray-end", the program first ends a request it never began (as a request begun before
 * the profiler was ready looks): the profile must not count it.
 * Usage: tp_causal_latency SECONDS [UNIT_US [stray-end]]. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "causal_pipeline.h"

/* the collector's, if loaded */
void rocsys_user_begin(const char *name) __attribute__((weak));
void rocsys_user_end(const char *name) __attribute__((weak));

/* On the thread's CPU clock: the program's own clock, which other programs' use of the CPUs
 * does not change (on a loaded machine the wall-clock shares move with where it was
 * preempted; the prediction is on the own clock too: docs/causal.md) */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void serve_request(void);
void send_reply(void);
void think(void);

__attribute__((noinline)) void serve_request(void)
{
    causal_spin(6);
}

__attribute__((noinline)) void send_reply(void)
{
    causal_spin(4);
}

__attribute__((noinline)) void think(void)
{
    causal_spin(10);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    long unit_us = argc > 2 ? atol(argv[2]) : 100;
    uint64_t serve_ns = 0, reply_ns = 0, req_ns = 0, n = 0;

    causal_calibrate(unit_us);
    if (argc > 3 && strcmp(argv[3], "stray-end") == 0 && rocsys_user_end)
        rocsys_user_end("request");
    uint64_t start = causal_now_ns(), end = start + (uint64_t)(seconds * 1e9), t = start;
    while (t < end) {
        if (rocsys_user_begin)
            rocsys_user_begin("request");
        uint64_t a = cpu_ns();
        serve_request();
        uint64_t b = cpu_ns();
        send_reply();
        uint64_t c = cpu_ns();
        if (rocsys_user_end)
            rocsys_user_end("request");
        think();
        t = causal_now_ns();
        serve_ns += b - a;
        reply_ns += c - b;
        req_ns += c - a;
        n++;
    }
    printf("latency: %llu requests in %.2f s, mean latency %.1f us (cpu); share of the request "
           "serve_request %.3f send_reply %.3f\n",
           (unsigned long long)n, (double)(t - start) / 1e9,
           n ? (double)req_ns / (double)n / 1e3 : 0.0, (double)serve_ns / (double)req_ns,
           (double)reply_ns / (double)req_ns);
    return 0;
}
