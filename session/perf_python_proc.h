/* A process's CPython seen from outside: found in its maps, its layout read
 * (session/perf_python_proc.c). Used by the perf engine's Python frames (session/perf_python.c). */
#ifndef ROCSYS_SESSION_PERF_PYTHON_PROC_H
#define ROCSYS_SESSION_PERF_PYTHON_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "collector/python_layout.h"

/* A process's CPython: where its runtime is and how its objects are laid out. */
struct py_proc {
    uint32_t pid, version_hex;
    uint64_t runtime, code_type, unicode_type, bytes_type, frame_type;
    struct py_layout l;
};

/* n bytes of process pid at addr into dst: 0, or -1. */
int perf_python_peek(uint32_t pid, uint64_t addr, void *dst, size_t n);
/* Find process pid's CPython (the mapped file defining _PyRuntime) into *pp: 0, or -1. */
int perf_python_find(uint32_t pid, struct py_proc *pp);
/* The layout of p's interpreter into p->l: 0, or -1 with why. */
int perf_python_layout(struct py_proc *p, char *why, size_t cap);

#endif
