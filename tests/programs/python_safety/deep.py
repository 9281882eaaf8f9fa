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
    print("deep done")
main()
