"""rocsys-top test workload: call-stack shapes a Python profiler has to get right.

    python3 shapes.py [SHAPE[,SHAPE...]|all] [SECONDS]

runs the named shapes one after the other (default: all), each spending about SECONDS of CPU
(default 0.25) in the functions the test looks for. Every function below does its work in its
own body (an arithmetic loop, the CPU clock read only every few hundred or thousand
iterations), so that samples land in it and not in a shared helper. Each shape prints
"shape NAME done" when it finished, the whole program "shapes done"; the shapes that run on
other threads or processes print the tids the test matches against the recorded stacks.

  recursion  recurse() calls itself 500 deep and burns at the bottom
  threads    3 threading.Threads burning in thread_burn_a/_b/_c (prints each one's tid)
  generator  consume_generator() iterates gen_values(), a generator doing the work
  asyncio    asyncio.run(co_main()): co_main awaits co_work() directly, then runs two more as
             tasks with asyncio.gather
  exceptions exc_catcher() -> exc_level1 -> exc_level2 -> exc_raise, which burns then raises
             ValueError, caught 3 frames up, over and over
  zlib       compress_work() calls zlib.compress on a 1 MiB buffer (time in libz's deflate)
  ctypes     sort_with_qsort() sorts a C int array with libc's qsort and a Python comparison
             function, py_compare, called back through a CFUNCTYPE
  lambda     a recursive lambda (fib) defined in shape_lambda
  nested     outer() defines and calls inner() (qualname outer.<locals>.inner on 3.11+)
  method     Accumulator.churn, a method
  nonascii   größe_berechnen() and λ_arbeit(): non-ASCII function names
  syscall    syscall_unit(): units of Python arithmetic each ending in os.write to /dev/null
  child      subprocess.run([sys.executable, child.py]) (child_burn in the child; prints pids)

Runs on CPython 3.8 and later.
"""
import asyncio
import ctypes
import os
import subprocess
import sys
import threading
import time
import zlib

thread_time = time.thread_time
HERE = os.path.dirname(os.path.abspath(__file__))


# -- recursion: 500 deep, CPU work at the bottom (in recurse itself)
def recurse(depth, budget):
    if depth > 1:
        return recurse(depth - 1, budget)
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        for i in range(2000):
            x = (x * 7 + i) & 0xFFFF
    return x


def shape_recursion(budget):
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    recurse(500, budget)


# -- threads: three threads, each in its own function
def thread_burn_a(budget, tids):
    tids["thread_burn_a"] = threading.get_native_id()
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        for i in range(2000):
            x = (x * 7 + i) & 0xFFFF
    return x


def thread_burn_b(budget, tids):
    tids["thread_burn_b"] = threading.get_native_id()
    start = thread_time()
    x = 2
    while thread_time() - start < budget:
        for i in range(2000):
            x = (x * 5 + i) & 0xFFFF
    return x


def thread_burn_c(budget, tids):
    tids["thread_burn_c"] = threading.get_native_id()
    start = thread_time()
    x = 3
    while thread_time() - start < budget:
        for i in range(2000):
            x = (x * 3 + i) & 0xFFFF
    return x


def shape_threads(budget):
    tids = {}
    threads = [threading.Thread(target=f, args=(budget, tids))
               for f in (thread_burn_a, thread_burn_b, thread_burn_c)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in sorted(tids):
        print("thread %s tid %d" % (name, tids[name]))


# -- generator: the generator function does the work
def gen_values(budget):
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        for i in range(500):
            x = (x * 7 + i) & 0xFFFF
        yield x


def consume_generator(budget):
    total = 0
    for v in gen_values(budget):
        total += v
    return total


def shape_generator(budget):
    consume_generator(budget)


# -- asyncio: a coroutine doing CPU work, awaited directly and run as tasks
async def co_work(budget):
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        for i in range(500):
            x = (x * 7 + i) & 0xFFFF
        await asyncio.sleep(0)
    return x


async def co_main(budget):
    await co_work(budget / 2)
    await asyncio.gather(co_work(budget / 4), co_work(budget / 4))


def shape_asyncio(budget):
    asyncio.run(co_main(budget))


# -- exceptions: raised 3 frames below the handler, repeatedly
def exc_raise(n):
    x = n
    for i in range(300):
        x = (x * 7 + i) & 0xFFFF
    raise ValueError(x)


def exc_level2(n):
    return exc_raise(n) + 2


def exc_level1(n):
    return exc_level2(n) + 1


def exc_catcher(budget):
    start = thread_time()
    caught = 0
    while thread_time() - start < budget:
        try:
            exc_level1(caught)
        except ValueError:
            caught += 1
    return caught


def shape_exceptions(budget):
    exc_catcher(budget)


# -- zlib: native compression under a named Python function
def compress_work(data, budget):
    start = thread_time()
    n = 0
    while thread_time() - start < budget:
        n += len(zlib.compress(data, 6))
    return n


def shape_zlib(budget):
    rnd = os.urandom(64 * 1024)
    data = b"".join(rnd[i:i + 64] * 16 for i in range(0, len(rnd), 64))  # 1 MiB
    compress_work(data, budget)


# -- ctypes: libc's qsort calling back into Python
CMPFUNC = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                           ctypes.POINTER(ctypes.c_int))


def py_compare(a, b):
    x = a[0]
    y = b[0]
    h = x ^ y
    for i in range(40):  # make the callback's own Python code the bulk of the work
        h = (h * 7 + i) & 0xFFFF
    return (x > y) - (x < y)


def sort_with_qsort(budget):
    libc = ctypes.CDLL("libc.so.6")
    libc.qsort.restype = None
    libc.qsort.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t, CMPFUNC)
    compare = CMPFUNC(py_compare)
    n = 2000
    start = thread_time()
    rounds = 0
    while thread_time() - start < budget:
        arr = (ctypes.c_int * n)(*[(i * 7919 + rounds) % 10007 for i in range(n)])
        libc.qsort(arr, n, ctypes.sizeof(ctypes.c_int), compare)
        if any(arr[i] > arr[i + 1] for i in range(n - 1)):
            raise SystemExit("qsort did not sort")
        rounds += 1
    return rounds


def shape_ctypes(budget):
    sort_with_qsort(budget)


# -- lambda: a recursive lambda
def shape_lambda(budget):
    fib = lambda n: n if n < 2 else fib(n - 1) + fib(n - 2)  # noqa: E731
    start = thread_time()
    while thread_time() - start < budget:
        fib(15)


# -- nested function
def outer(budget):
    def inner():
        start = thread_time()
        x = 1
        while thread_time() - start < budget:
            for i in range(2000):
                x = (x * 7 + i) & 0xFFFF
        return x
    return inner()


def shape_nested(budget):
    outer(budget)


# -- method
class Accumulator:
    def __init__(self):
        self.x = 1

    def churn(self, budget):
        start = thread_time()
        x = self.x
        while thread_time() - start < budget:
            for i in range(2000):
                x = (x * 7 + i) & 0xFFFF
        self.x = x
        return x


def shape_method(budget):
    Accumulator().churn(budget)


# -- non-ASCII function names
def größe_berechnen(budget):
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        for i in range(2000):
            x = (x * 7 + i) & 0xFFFF
    return x


def λ_arbeit(budget):
    start = thread_time()
    x = 2
    while thread_time() - start < budget:
        for i in range(2000):
            x = (x * 5 + i) & 0xFFFF
    return x


def shape_nonascii(budget):
    größe_berechnen(budget / 2)
    λ_arbeit(budget / 2)


# -- units of work that end in a system call
def syscall_unit(fd, x):
    for i in range(10):
        x = (x * 7 + i) & 0xFFFF
    os.write(fd, b"x")
    return x


def shape_syscall(budget):
    fd = os.open(os.devnull, os.O_WRONLY)
    start = thread_time()
    x = 1
    while thread_time() - start < budget:
        x = syscall_unit(fd, x)
    os.close(fd)


# -- a Python program starting another one
def shape_child(budget):
    print("parent pid %d" % os.getpid(), flush=True)
    subprocess.run([sys.executable, os.path.join(HERE, "child.py"), str(budget)], check=True)


SHAPES = ["recursion", "threads", "generator", "asyncio", "exceptions", "zlib", "ctypes",
          "lambda", "nested", "method", "nonascii", "syscall", "child"]


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else "all"
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.25
    names = SHAPES if which == "all" else which.split(",")
    for name in names:
        if name not in SHAPES:
            raise SystemExit("unknown shape %r (known: %s)" % (name, " ".join(SHAPES)))
    for name in names:
        globals()["shape_" + name](seconds)
        print("shape %s done" % name, flush=True)
    print("shapes done", flush=True)


if __name__ == "__main__":
    main()
