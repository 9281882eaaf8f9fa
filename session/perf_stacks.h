/* Whole stacks from outside (the perf engine): cut stacks joined to their thread's last whole
 * one, or rooted under "[truncated]" (perf_stacks.c). Front end only. */
#ifndef ROCSYS_SESSION_PERF_STACKS_H
#define ROCSYS_SESSION_PERF_STACKS_H

#include <stdint.h>

struct model;
struct perf_stacks;

/* join: join cut stacks to their thread's last whole stack (else only [truncated] roots). */
struct perf_stacks *perf_stacks_new(int join);
void perf_stacks_free(struct perf_stacks *ps);
/* A sample's unwound frames (innermost first), their stack pointers and how the unwinding
 * ended (SYMBOLIZER_END_*): a whole stack is kept as its thread's last; a stack cut where the
 * copy ended is joined to it where the frame at the cut matches one of its frames (at most max
 * frames); any other cut stack gets the "[truncated]" pseudo-frame as its root (frames and sps
 * have room for max + 1). Returns the new count. */
uint32_t perf_stacks_finish(struct perf_stacks *ps, struct model *m, uint32_t pid, uint32_t tid,
                            uint64_t *frames, uint64_t *sps, uint32_t n, uint32_t max, int end);
/* Samples whose stacks were whole, joined, and left cut. */
void perf_stacks_counts(const struct perf_stacks *ps, uint64_t *whole, uint64_t *joined,
                        uint64_t *cut);

#endif
