"""MPI truth test program in Python (mpi4py; tests/e2e/test_mpi_truth.sh): rank r burns
(r + 1) x 100 ms of CPU per step, then waits for the others in MPI_Barrier (called from
step()); 3 steps, then MPI_Finalize. Prints "PYMPI rank R barrier_ns B app_ns A": its own
measure of the time in MPI_Barrier, and of the time from before its first MPI call
(MPI_Init_thread, made here rather than at mpi4py's import: loading the MPI library is not
MPI time, and takes longer with Debian 13's Open MPI 5) to after MPI_Finalize."""
import time

import mpi4py

mpi4py.rc.initialize = False
from mpi4py import MPI  # noqa: E402

T0 = time.monotonic_ns()
MPI.Init_thread()

COMM = MPI.COMM_WORLD
RANK = COMM.Get_rank()


def work(ms):
    """Burn ms of this process's CPU time."""
    end = time.process_time() + ms / 1000
    x = 0
    while time.process_time() < end:
        x += 1
    return x


def step():
    """One barrier, timed."""
    t0 = time.monotonic_ns()
    COMM.Barrier()
    return time.monotonic_ns() - t0


def main():
    barrier_ns = 0
    for _ in range(3):
        work((RANK + 1) * 100)
        barrier_ns += step()
    MPI.Finalize()
    print(f"PYMPI rank {RANK} barrier_ns {barrier_ns} app_ns {time.monotonic_ns() - T0}",
          flush=True)


if __name__ == "__main__":
    main()
