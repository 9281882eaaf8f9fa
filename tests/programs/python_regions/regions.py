"""rocsys-top test workload: the `rocsys` module's regions, with counts the test knows.

    python3 regions.py [SCALE]

With SCALE = 1 (default) the program opens, on the main thread unless said otherwise:

  load          25 x `with rocsys.region("load")`, each around a 5 ms sleep
  solve         15 calls of a function decorated with @rocsys.profile (named by __qualname__)
  Solver.step   12 calls of a method decorated with @rocsys.profile
  Solver.create  3 calls of a classmethod decorated with @rocsys.profile
  named step     7 calls of a function decorated with @rocsys.profile("named step")
  decorated      6 calls of a function decorated with @rocsys.region("decorated")
  outer, inner  10 x outer, each with 2 x inner nested in it (20 inner)
  raises         5 x a region left by a ValueError (caught outside it)
  failing        4 calls of a @rocsys.profile function that raises KeyError
  größe ✓        2 x a region with a non-ASCII name
  worker        30 x on each of 2 threads (one row per thread)
  checkpoint     3 marks (rocsys.mark)

SCALE multiplies every count. It also pauses and resumes sampling once, decorates a generator
function (which rocsys leaves as it is, with a warning under rocsys-top), and prints:
"rocsys active BOOL file PATH", "worker tids T1 T2", "user module OK" when the module named
by REGIONS_USER_MODULE imports (a check that the program's own PYTHONPATH still works),
"inactive: profile returns the function" and "inactive: ctypes not imported" when rocsys is
inactive, "exceptions propagated 9" when the 9 exceptions raised inside regions reached their
handlers, then "regions done". Runs on CPython 3.6 and later.
"""
import os
import sys
import threading
import time

import rocsys

SCALE = int(sys.argv[1]) if len(sys.argv) > 1 else 1


def spin(seconds):
    """Burn CPU for about seconds (so that samples land inside the regions)."""
    end = time.perf_counter() + seconds
    x = 1
    while time.perf_counter() < end:
        for i in range(200):
            x = (x * 7 + i) & 0xFFFF
    return x


def plain(x):
    return x + 1


@rocsys.profile
def solve(n):
    return spin(0.001) + n


class Solver(object):
    @rocsys.profile
    def step(self, k):
        return k * 2

    @rocsys.profile
    @classmethod
    def create(cls):
        return cls()


@rocsys.profile("named step")
def named_step():
    spin(0.0005)


@rocsys.region("decorated")
def decorated():
    spin(0.0005)


@rocsys.profile
def failing():
    raise KeyError("failing")


@rocsys.profile
def gen_values(n):
    for i in range(n):
        yield i


def native_tid():
    """The calling thread's kernel tid (the TID column of the Regions view)."""
    get = getattr(threading, "get_native_id", None)  # 3.8+
    if get:
        return get()
    import ctypes

    return ctypes.CDLL(None).syscall(186)  # SYS_gettid on x86-64


def worker(count, tids, slot):
    tids[slot] = native_tid()
    for _ in range(count):
        with rocsys.region("worker"):
            spin(0.001)


def main():
    print("rocsys active %s file %s" % (rocsys.active, rocsys.__file__))
    user_module = os.environ.get("REGIONS_USER_MODULE")
    if user_module:
        __import__(user_module)
        print("user module OK")
    if not rocsys.active:
        if rocsys.profile(plain) is plain and rocsys.profile("x")(plain) is plain:
            print("inactive: profile returns the function")
        if "ctypes" not in sys.modules:
            print("inactive: ctypes not imported")

    rocsys.stop_sampling()
    spin(0.01)
    rocsys.start_sampling()

    for _ in range(25 * SCALE):
        with rocsys.region("load"):
            time.sleep(0.005)
    for i in range(15 * SCALE):
        solve(i)
    s = Solver()
    for i in range(12 * SCALE):
        s.step(i)
    for _ in range(3 * SCALE):
        s = Solver.create()
    for _ in range(7 * SCALE):
        named_step()
    for _ in range(6 * SCALE):
        decorated()
    for _ in range(10 * SCALE):
        with rocsys.region("outer"):
            for _ in range(2):
                with rocsys.region("inner"):
                    spin(0.001)
    caught = 0
    for _ in range(5 * SCALE):
        try:
            with rocsys.region("raises"):
                spin(0.0005)
                raise ValueError("inside a region")
        except ValueError:
            caught += 1
    for _ in range(4 * SCALE):
        try:
            failing()
        except KeyError:
            caught += 1
    print("exceptions propagated %d" % caught)
    for _ in range(2 * SCALE):
        with rocsys.region(u"gr\u00f6\u00dfe \u2713"):
            spin(0.0005)
    for _ in range(3 * SCALE):
        rocsys.mark("checkpoint")
    if sum(gen_values(4)) != 6:
        print("generator broken")

    tids = [0, 0]
    threads = [threading.Thread(target=worker, args=(30 * SCALE, tids, k)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("worker tids %d %d" % (tids[0], tids[1]))
    print("regions done")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
