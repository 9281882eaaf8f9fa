/* The front end's base layer (base/): allocation that aborts on out of memory and the clock,
 * used by every front-end folder (session, model, symbols, tui, record, gpu, inject; not cli);
 * hash functions are in base/hash.h, the hash map in base/hashmap.h, the routing of fd 2 in
 * base/stderr_route.h, output streams that keep their write errors in base/ostream.h (also
 * used by cli). The collector, which runs inside the target, never uses it. */
#ifndef ROCSYS_BASE_BASE_H
#define ROCSYS_BASE_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- memory (front end only: out of memory prints one line and aborts) ---- */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow the array at *pp (pp: the address of an array pointer) of *cap elements of elem bytes
 * so that it holds need, doubling from 16. */
void xgrow(void *pp, size_t *cap, size_t need, size_t elem);
char *xstrdup(const char *s);
/* A large buffer in a mapping of its own, resized from old_bytes to new_bytes without copying
 * (mremap moves its pages): NULL p maps a new one, new_bytes 0 unmaps it (and returns NULL).
 * Sizes are multiples of the page size. (A realloc of 32 MiB copies it: 0.6 s under ASan on a
 * loaded machine, while the buffer's writer waits.) */
void *xmap_resize(void *p, size_t old_bytes, size_t new_bytes);

/* ---- time ---- */
/* Clock c in nanoseconds (CLOCK_MONOTONIC is the session's clock). */
uint64_t base_clock_ns(clockid_t c);
/* User + system CPU time of this process (rocsys-top itself) in nanoseconds, 0 if unknown. */
uint64_t base_self_cpu_ns(void);

#endif
