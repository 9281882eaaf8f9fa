"""rocsys-top test workload: three pure-Python functions share the CPU 50 / 30 / 20 %.

Round robin: f_a runs until this thread's CPU clock advanced 5 ms, then f_b 3 ms, then f_c
2 ms, again and again until SECONDS (argument, default 3.0) of CPU time were spent. Each
function's time is Python code of that function itself: an arithmetic loop in its own body
(no callee does the work; the CPU clock is read only every few thousand iterations, so time in
the clock call stays well under 1 %). The program measures each function's CPU time itself
and prints it as a share of the whole process's CPU time (interpreter start-up included), the
number a profiler's SELF% should match, and as a share of the three functions' sum.

Runs on CPython 3.8 and later. Line numbers matter to the test only through the functions'
extents (it reads the `def` lines from this file), so the file may be edited freely.
"""
import sys
import time

thread_time = time.thread_time
BATCH = 4000  # loop iterations between two reads of the CPU clock (0.1-0.4 ms)


def f_a(budget):
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        for i in range(BATCH):
            x = (x * 7 + i) & 0xFFFF
    return x


def f_b(budget):
    start = thread_time()
    x = 2
    while thread_time() - start < budget:
        for i in range(BATCH):
            x = (x * 5 + i) & 0xFFFF
    return x


def f_c(budget):
    start = thread_time()
    x = 3
    while thread_time() - start < budget:
        for i in range(BATCH):
            x = (x * 3 + i) & 0xFFFF
    return x


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 3.0
    plan = ((f_a, 0.005), (f_b, 0.003), (f_c, 0.002))
    spent = {f.__name__: 0.0 for f, _ in plan}
    begin = thread_time()
    check = 0
    while thread_time() - begin < seconds:
        for f, budget in plan:
            t0 = thread_time()
            check ^= f(budget)
            spent[f.__name__] += thread_time() - t0
    total = time.process_time()
    three = sum(spent.values())
    print("split process shares: " + " ".join(
        "%s %.1f" % (name, 100.0 * spent[name] / total) for name in sorted(spent)))
    print("split shares of the three: " + " ".join(
        "%s %.1f" % (name, 100.0 * spent[name] / three) for name in sorted(spent)))
    print("split done: %.2f s of process CPU (check %d)" % (total, check))


if __name__ == "__main__":
    main()
