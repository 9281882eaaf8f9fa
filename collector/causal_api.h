/* What the collector (collector/causal.c) exports to librocsys-causal.so (collector/causal_wrap.c),
 * the pthread wrappers loaded with --causal only: Coz's rules for blocking calls and wake-ups.
 * The delay logic stays in the collector; the wrappers call these around the real functions. */
#ifndef ROCSYS_COLLECTOR_CAUSAL_API_H
#define ROCSYS_COLLECTOR_CAUSAL_API_H

/* Before a call that may wake another thread (unlock, signal, post, barrier): pay the delays
 * the calling thread owes. */
void collector_causal_catch_up(void);
/* Before a call that may block: 1 if an experiment block is live and the thread is counted as
 * blocked (then collector_causal_post_block must follow), else 0. */
int collector_causal_pre_block(void);
/* After it: woken by another thread (skip), the delays inserted meanwhile are not owed. */
void collector_causal_post_block(int skip);

#endif
