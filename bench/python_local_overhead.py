"""The Python side of P8 and P9 without a GPU (bench/NOTES.md, "P8/P9 from Python"): host time per
call on reference_cpu, and driver calls per dispatch on cuda over the fake CUDA driver.

  PYTHONPATH=<build>/python python3 bench/python_local_overhead.py [--fake <libvyre_fake_cuda.so>]

reference_cpu: backend.run(xor, a=a, b=b) (P8's call) and run_resident of the xor with `out` a
NumPy array (imported through DLPack: P9's path) against the same dispatch on ResidentBuffers;
the minimum over batches of the mean per call (the machine may be shared). fake cuda: three
DLPack producers (a CuPy-like object: __dlpack__, __cuda_array_interface__) bound to the xor,
driver calls of the first and of a later dispatch, against ResidentBuffers. The kernels do not run
on the fake: the counts are the host side's.
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np

import vyre

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from python_cases import xor_program  # noqa: E402


def per_call_us(fn, batches=15, calls=2000):
    for _ in range(200):
        fn()
    best = float("inf")
    for _ in range(batches):
        start = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / calls / 1000)
    return best


def reference_cpu(registry):
    backend = registry.create("reference_cpu")
    program = xor_program(vyre)
    a = np.arange(1024, dtype=np.uint32)
    b = a[::-1].copy()
    out = np.zeros(1024, np.uint32)
    ra, rb, rout = backend.to_device(a), backend.to_device(b), backend.alloc(4096, "uint32")
    run = per_call_us(lambda: backend.run(program, a=a, b=b))
    resident = per_call_us(lambda: backend.run_resident(program, a=ra, b=rb, out=rout))
    bound = per_call_us(lambda: backend.run_resident(program, a=ra, b=rb, out=out))
    print(f"reference_cpu run(xor, a=a, b=b) [P8 call]        {run:8.2f} us")
    print(f"reference_cpu run_resident on ResidentBuffers      {resident:8.2f} us")
    print(f"reference_cpu run_resident, out a NumPy array      {bound:8.2f} us  (+{bound - resident:.2f})")
    if hasattr(backend, "dlpack_cache_info"):
        print(f"  import cache: {backend.dlpack_cache_info()}")


class DeviceArray:
    def __init__(self, buffer, pointer):
        self.buffer, self.pointer = buffer, pointer

    def __dlpack__(self, **kwargs):
        return self.buffer.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (2, 0)

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.pointer, False), "shape": (self.buffer.nbytes // 4,), "typestr": "<u4",
                "version": 3, "strides": None}


def pointer_of(buffer):
    capsule = buffer.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    return ctypes.c_void_p.from_address(get(capsule, b"dltensor")).value  # DLTensor.data comes first


def fake_cuda(library):
    os.environ["VYRE_CUDA_DRIVER_LIBRARY"] = library
    registry = vyre.Registry(use_environment=False)
    backend = registry.create("cuda")
    driver = ctypes.CDLL(library)
    driver.fake_cuda_call_count.restype = ctypes.c_uint64
    driver.fake_cuda_call_count.argtypes = [ctypes.c_char_p]
    names = ["cuCtxSetCurrent", "cuPointerGetAttribute", "cuMemGetAddressRange", "cuEventRecord",
             "cuEventSynchronize", "cuEventQuery", "cuStreamSynchronize", "cuStreamWaitEvent",
             "cuLaunchKernel", "cuGraphLaunch"]

    def calls(action):
        before = [driver.fake_cuda_call_count(n.encode()) for n in names]
        action()
        after = [driver.fake_cuda_call_count(n.encode()) for n in names]
        diff = {n: y - x for n, x, y in zip(names, before, after) if y != x}
        return sum(diff.values()), diff

    program = xor_program(vyre)
    buffers = [backend.alloc(4096, "uint32") for _ in range(3)]
    a, b, out = (DeviceArray(buf, pointer_of(buf)) for buf in buffers)
    bound = lambda: backend.run_resident(program, a=a, b=b, out=out)  # noqa: E731
    plain = lambda: backend.run_resident(program, a=buffers[0], b=buffers[1], out=buffers[2])  # noqa: E731
    print("fake cuda driver calls per dispatch (total, by entry point):")
    print("  ResidentBuffers            ", *calls(plain))
    print("  3 DLPack objects, 1st call ", *calls(bound))
    print("  3 DLPack objects, 2nd call ", *calls(bound))
    print("  3 DLPack objects, 3rd call ", *calls(bound))
    print(f"fake cuda host time: ResidentBuffers {per_call_us(plain, 5, 500):.2f} us, "
          f"3 DLPack objects {per_call_us(bound, 5, 500):.2f} us")
    if hasattr(backend, "dlpack_cache_info"):
        print(f"  import cache: {backend.dlpack_cache_info()}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--fake", help="the fake CUDA driver library (tests/cuda/runtime/libvyre_fake_cuda.so)")
    args = p.parse_args()
    print(f"vyre from {vyre.__file__}")
    reference_cpu(vyre.Registry(use_environment=False))
    if args.fake:
        fake_cuda(args.fake)


if __name__ == "__main__":
    main()
