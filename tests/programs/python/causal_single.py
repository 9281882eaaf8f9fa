"""A single-threaded Python program for causal profiling (test_causal_python): each iteration
runs hot_part (about 60 % of the time) and cold_part (40 %), then marks its end with
rocsys.mark (the progress point). With one thread, making a function X % faster makes the
program X % of that function's share faster: the prediction at 100 % is the function's share
of the time, which the program measures itself on its own CPU clock (time.thread_time_ns
around each call) and prints at the end:
  python_single: cpu share hot_part 0.6012 cold_part 0.3975 iterations N
Usage: causal_single.py SECONDS [UNIT_MS] (an iteration: 10 units of UNIT_MS ms, default 0.25)."""
import sys
import time

import rocsys

STEPS = 1000  # steps of a unit, calibrated at the start


def hot_part():
    x = 0
    for i in range(6 * STEPS):
        x = (x * 7 + i) & 0xFFFF
    return x


def cold_part():
    x = 0
    for i in range(4 * STEPS):
        x = (x * 7 + i) & 0xFFFF
    return x


def main():
    global STEPS
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    unit_ms = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    t0 = time.thread_time_ns()
    for _ in range(20):
        cold_part()  # 80 units
    per_unit_ns = max(1, (time.thread_time_ns() - t0) // 80)
    STEPS = max(1, int(STEPS * unit_ms * 1e6 / per_unit_ns))
    hot_ns = cold_ns = n = 0
    end = time.monotonic() + seconds
    clock = time.thread_time_ns
    while time.monotonic() < end:
        t0 = clock()
        hot_part()
        t1 = clock()
        cold_part()
        t2 = clock()
        hot_ns += t1 - t0
        cold_ns += t2 - t1
        n += 1
        rocsys.mark("iteration")
    total = hot_ns + cold_ns
    print("python_single: cpu share hot_part %.4f cold_part %.4f iterations %d steps %d"
          % (hot_ns / total, cold_ns / total, n, STEPS))


main()
