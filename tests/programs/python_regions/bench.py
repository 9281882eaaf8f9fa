"""Workload of bench/py_regions.sh: the cost of a region of the `rocsys` module.

    python3 bench.py BURSTS PAIRS

Times BURSTS bursts of PAIRS regions of each form, and prints one line per form, "FORM
median_ns min_ns" (nanoseconds per region, median and best burst), then "active 0|1":

  raw      the two ctypes calls alone (rocsys_user_push + rocsys_user_pop; only under rocsys-top)
  region   with rocsys.region("load"): pass          (the name looked up at each region)
  cached   with r: pass, r = rocsys.region("load")   (the region object kept)
  profile  a call of an @rocsys.profile function, less a call of the same undecorated function

Under rocsys-top the bursts are 60 ms apart, so that each fits in the thread's ring while the
front end drains it: the time measured is the program's, not a wait for room.
Runs on CPython 3.6 and later.
"""
import sys
import time

import rocsys

BURSTS = int(sys.argv[1])
PAIRS = int(sys.argv[2])
GAP = 0.06 if rocsys.active else 0.0
clock = time.perf_counter


def form_raw(n):
    push, pop, name = rocsys._push, rocsys._pop, b"load"
    t = clock()
    for _ in range(n):
        push(name)
        pop()
    return clock() - t


def form_region(n):
    region = rocsys.region
    t = clock()
    for _ in range(n):
        with region("load"):
            pass
    return clock() - t


def form_cached(n):
    r = rocsys.region("load")
    t = clock()
    for _ in range(n):
        with r:
            pass
    return clock() - t


def work():
    pass


profiled = rocsys.profile(work)


def calls(fn, n):
    t = clock()
    for _ in range(n):
        fn()
    return clock() - t


def form_profile(n):
    return calls(profiled, n) - calls(work, n)


def measure(form):
    per = []
    for _ in range(BURSTS):
        per.append(form(PAIRS) / PAIRS * 1e9)
        if GAP:
            time.sleep(GAP)
    per.sort()
    return per[len(per) // 2], per[0]


forms = [("raw", form_raw)] if rocsys.active else []
forms += [("region", form_region), ("cached", form_cached), ("profile", form_profile)]
for name, form in forms:
    form(min(PAIRS, 100))  # warm up
    med, best = measure(form)
    print("%s %.1f %.1f" % (name, med, best))
print("active %d" % rocsys.active)
