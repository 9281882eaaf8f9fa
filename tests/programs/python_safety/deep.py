# Recursion 3,000 deep with the work at the bottom: deeper than the 1,024 functions a stack keeps
# (the middle is cut), through every view and file without harm to rocsys-top.
import sys, time
sys.setrecursionlimit(10000)
def rec(n):
    if n: return rec(n - 1)
    t = time.thread_time() + 1.5
    x = 0
    while time.thread_time() < t: x += 1
def main():
    rec(3000)
    # the process's CPU time (its threads' and the collector's signal handlers' alike): what the
    # samples at a CPU-time rate must count
    print("deep done, cpu %.3f s" % time.process_time())
main()
