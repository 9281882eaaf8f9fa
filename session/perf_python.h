/* Python frames from outside (the perf engine, attached): a BPF program on the perf events
 * walks the sampled thread's CPython frame chain at the sample's instant; the front end pairs
 * each walk with its sample and resolves the code objects by reading the target's memory
 * (session/perf_python.c, bpf/pyframes.bpf.c). */
#ifndef ROCSYS_SESSION_PERF_PYTHON_H
#define ROCSYS_SESSION_PERF_PYTHON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct model;
struct perf_python;

/* What a sample's Python frames are paired with: its thread, time and user registers. */
struct perf_python_sample {
    uint32_t pid, tid;
    uint64_t time_ns, ip, sp;
};

/* The CPython in process pid: 1 and its version into *version_hex (0 if unknown) if it runs
 * one, else 0. */
int perf_python_probe(uint32_t pid, uint32_t *version_hex);
/* Load the walker for samples period_ns apart (NULL, with a one-line reason in why, where BPF is
 * not permitted or not built). */
struct perf_python *perf_python_new(uint64_t period_ns, char *why, size_t cap);
/* The walker's program, to set on each perf event (PERF_EVENT_IOC_SET_BPF). */
int perf_python_prog_fd(const struct perf_python *pp);
/* Read process pid's CPython layout and hand it to the walker: 0, or -1 with why. */
int perf_python_add(struct perf_python *pp, struct model *m, uint32_t pid, char *why, size_t cap);
/* Whether process pid's Python frames are walked. */
int perf_python_covers(const struct perf_python *pp, uint32_t pid);
/* The Python words of sample s (ROCSYS_PY_FRAME..., innermost first) into out (room words),
 * placed against its native frames' stack pointers sps (n native frames): how many. 0 when the
 * thread runs no Python or no walk of this sample's instant was found (never another's). */
uint32_t perf_python_frames(struct perf_python *pp, struct model *m,
                            const struct perf_python_sample *s, const uint64_t *sps,
                            uint32_t nnative, uint64_t *out, uint32_t room);
void perf_python_free(struct perf_python *pp);

#endif
