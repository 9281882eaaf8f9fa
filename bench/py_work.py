"""Workload of bench/python.sh: fixed CPU-bound pure-Python work at a Python call depth of 50.

usage: py_work.py ITERATIONS [DEPTH]

The module's code calls main, main calls py_recurse, which calls itself until the stack holds
DEPTH Python frames (default 50: <module>, main, DEPTH-3 py_recurse, py_spin), then py_spin
runs a loop of ITERATIONS arithmetic steps in its own body (no call that makes a Python frame,
no allocation that lasts), so every sample of the hot loop sees the same DEPTH Python frames.
The work is fixed, not the time: any overhead shows up as more time.

At exit the program writes its own cost, "wall_s user_s sys_s", to the file named by
PY_BENCH_REPORT (stdout if unset): the wall time from the first line of this file to the end
of the work (interpreter start-up excluded) and the process's CPU time (user and system, all
threads, from getrusage: not rounded to clock ticks). This is the target's cost only, whatever
process runs around it.
Runs on CPython 3.8 and later.
"""
import os
import resource
import sys
import time

T0 = time.perf_counter()
R0 = resource.getrusage(resource.RUSAGE_SELF)


def py_spin(n):
    x = 1
    for i in range(n):
        x = (x * 7 + i) & 0xFFFF
    return x


def py_recurse(left, n):
    if left > 0:
        return py_recurse(left - 1, n)
    return py_spin(n)


def main():
    n = int(sys.argv[1])
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    if depth < 4:
        sys.exit("py_work.py: DEPTH must be at least 4")
    sys.setrecursionlimit(max(1000, depth + 100))
    # <module> is frame 1, main 2 and py_spin DEPTH: DEPTH-3 py_recurse frames between them
    check = py_recurse(depth - 4, n)
    wall = time.perf_counter() - T0
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    line = "%.6f %.6f %.6f\n" % (wall, r1.ru_utime - R0.ru_utime, r1.ru_stime - R0.ru_stime)
    path = os.environ.get("PY_BENCH_REPORT")
    if path:
        with open(path, "w") as f:
            f.write(line)
    else:
        sys.stdout.write(line)
    print("py_work done: %d iterations at depth %d (check %d)" % (n, depth, check),
          file=sys.stderr)


if __name__ == "__main__":
    main()
