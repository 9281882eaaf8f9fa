"""rocsys-top test workload: the Python program that shapes.py starts (shape "child").

child_burn spends SECONDS (argument, default 0.3) of CPU in its own arithmetic loop; the
program prints its pid, which is the tid of the thread child_burn runs on.
"""
import os
import sys
import time


def child_burn(budget):
    start = time.thread_time()
    x = 5
    while time.thread_time() - start < budget:
        for i in range(4000):
            x = (x * 11 + i) & 0xFFFF
    return x


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 0.3
    check = child_burn(seconds)
    print("child pid %d done (check %d)" % (os.getpid(), check), flush=True)
