"""Kernel launches from Python through the real libamdhip64 (tests/e2e/test_hip.sh): ctypes
calls hipLaunchKernel found in the global scope, as an extension linked with libamdhip64 calls
it, so the collector's wrapper sees it. Usage: hip_launch.py A B: launch_one is called A times
from forward and B times from backward; without a GPU every launch fails (prints 101)."""
import ctypes, sys
hip = ctypes.CDLL("libamdhip64.so", mode=ctypes.RTLD_GLOBAL)
launch = ctypes.CDLL(None).hipLaunchKernel   # the global scope: what a linked extension calls
class Dim3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint32), ("y", ctypes.c_uint32), ("z", ctypes.c_uint32)]
launch.argtypes = [ctypes.c_void_p, Dim3, Dim3, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
launch.restype = ctypes.c_int
def stub(): pass
FN = ctypes.cast(ctypes.CFUNCTYPE(None)(stub), ctypes.c_void_p)
def launch_one():
    return launch(FN, Dim3(1, 1, 1), Dim3(64, 1, 1), None, 0, None)
def forward(n):
    return [launch_one() for _ in range(n)][-1]
def backward(n):
    return [launch_one() for _ in range(n)][-1]
print("forward", forward(int(sys.argv[1])), "backward", backward(int(sys.argv[2])))
