/* Shared by the causal-profiling truth programs (tp_causal_pipeline.c, tp_causal_lines.c,
 * tp_causal_latency.c, hsa_harness_causal.c): a monotonic clock, a unit of computation
 * calibrated at start (causal_spin, inlined: its time is its caller's, the function under test)
 * and the bounded queue that hands items from one stage's thread to the next (a count under a
 * mutex, with a condition variable for each side). Included once per program. */
#ifndef ROCSYS_TESTS_CAUSAL_PIPELINE_H
#define ROCSYS_TESTS_CAUSAL_PIPELINE_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

#define CAUSAL_QUEUE_MAX 64 /* items queued between the stages, at most */

static long causal_iters_per_unit; /* spin iterations per work unit */
static volatile uint64_t causal_sink;

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t causal_now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* A fixed amount of computation: n steps (inlined: the time is its caller's). */
static inline __attribute__((always_inline)) void causal_spin_iters(long n)
{
    uint64_t acc = causal_sink;

    for (long i = 0; i < n; i++)
        acc = acc * 6364136223846793005ull + 1442695040888963407ull;
    causal_sink = acc;
}

/* units work units. */
static inline __attribute__((always_inline)) void causal_spin(long units)
{
    causal_spin_iters(units * causal_iters_per_unit);
}

/* Set the work unit to unit_us microseconds of computation, timed on the wall clock now. */
static inline void causal_calibrate(long unit_us)
{
    causal_iters_per_unit = 100000;
    uint64_t t0 = causal_now_ns();
    causal_spin(10);
    uint64_t per10_ns = causal_now_ns() - t0;
    causal_iters_per_unit =
        (long)((double)causal_iters_per_unit * (double)unit_us * 1e4 / (double)per10_ns);
    if (causal_iters_per_unit < 1)
        causal_iters_per_unit = 1;
}

/* The queue between two stages: how many items wait, and whether the maker is done. */
struct causal_queue {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    int queued, closed;
};
#define CAUSAL_QUEUE_INIT                                                                          \
    {                                                                                              \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0        \
    }

static uint64_t causal_full_ns; /* the maker's time waiting for room (the taker limited it) */

/* Queue one item, waiting while the queue is full. */
static inline void causal_queue_put(struct causal_queue *q)
{
    pthread_mutex_lock(&q->lock);
    if (q->queued == CAUSAL_QUEUE_MAX) {
        uint64_t t0 = causal_now_ns();
        while (q->queued == CAUSAL_QUEUE_MAX)
            pthread_cond_wait(&q->not_full, &q->lock);
        causal_full_ns += causal_now_ns() - t0;
    }
    q->queued++;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

/* The maker is done: a taker waiting on the empty queue returns. */
static inline void causal_queue_close(struct causal_queue *q)
{
    pthread_mutex_lock(&q->lock);
    q->closed = 1;
    pthread_cond_signal(&q->not_empty);
    pthread_mutex_unlock(&q->lock);
}

/* Take one item, waiting while the queue is empty: 1, or 0 once it is closed and empty. */
static inline int causal_queue_take(struct causal_queue *q)
{
    pthread_mutex_lock(&q->lock);
    while (q->queued == 0 && !q->closed)
        pthread_cond_wait(&q->not_empty, &q->lock);
    if (q->queued == 0) {
        pthread_mutex_unlock(&q->lock);
        return 0;
    }
    q->queued--;
    pthread_cond_signal(&q->not_full);
    pthread_mutex_unlock(&q->lock);
    return 1;
}

#endif
