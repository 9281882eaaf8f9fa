# Frames pushed and popped as fast as Python can: short calls, generators, exceptions, threads
# started and ended, code compiled at run time. Sampled at 10 kHz, every Python frame in the
# profile must carry one of this file's function names (a torn frame must never name wrongly).
import sys
import threading
import time


def tiny(x):
    return x + 1


def thrower(x):
    raise ValueError(x)


def catcher(n):
    s = 0
    for i in range(n):
        try:
            thrower(i)
        except ValueError:
            s += tiny(i)
    return s


def gen(n):
    for i in range(n):
        yield tiny(i)


def consume(n):
    return sum(gen(n))


def compiled(n):
    total = 0
    for i in range(n):
        code = compile("def made_%d(x):\n    return x * 2\n" % (i % 50), "<churn>", "exec")
        ns = {}
        exec(code, ns)
        total += ns["made_%d" % (i % 50)](i)
    return total


def worker(seconds):
    end = time.time() + seconds
    while time.time() < end:
        catcher(50)
        consume(50)


def churn_threads(seconds):
    end = time.time() + seconds
    while time.time() < end:
        ts = [threading.Thread(target=worker, args=(0.01,)) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    t = threading.Thread(target=churn_threads, args=(seconds,))
    t.start()
    end = time.time() + seconds
    while time.time() < end:
        catcher(200)
        consume(200)
        compiled(20)
    t.join()
    print("churn done")


main()
