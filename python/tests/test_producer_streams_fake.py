"""run_resident orders its dispatch after the producers' streams (docs/PYTHON.md, "Ordering"), on
cuda over the fake CUDA driver with stand-ins for torch and CuPy (modules named torch and cupy
that give stream handles and count synchronizes): one producer stream is waited for on the device
(an event recorded on it, waited for by vyre's stream: no host synchronize), two are synchronized
on the host. The path P9 takes on the GPU (three torch tensors bound straight).

Skipped where a real torch or CuPy is installed: the module binds their stream functions once per
process, and the GPU tests (test_gpu.py) check the real thing there."""
import ctypes
import importlib.util
import os
import sys
import types

import numpy as np
import pytest

import dlpack_capsules
from kernels import xor_program


class Counted:
    synchronized = 0

    def __init__(self, handle=0):
        self.cuda_stream = self.ptr = handle

    def synchronize(self):
        type(self).synchronized += 1


class TorchStream(Counted):
    pass


class CupyStream(Counted):
    pass


INT32 = np.dtype(np.int32)  # one dtype object: the fingerprint compares it by identity


class TorchCudaLike:
    """What the import cache reads of a torch CUDA tensor, over a fake-cuda resident buffer."""
    __module__ = "torch"

    def __init__(self, buffer):
        self.buffer = buffer
        self.pointer = dlpack_capsules.read(buffer.__dlpack__())["data"]

    def data_ptr(self):
        return self.pointer

    @property
    def nbytes(self):
        return self.buffer.nbytes

    @property
    def dtype(self):
        return INT32

    def is_contiguous(self):
        return True

    def __dlpack__(self, **kwargs):
        return self.buffer.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (2, 0)


class CupyLike(TorchCudaLike):
    __module__ = "cupy"


def installed(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ValueError:  # a module without a spec in sys.modules: another test's fake
        return False


@pytest.fixture
def streams(monkeypatch, fake_cuda):
    for name in ("torch", "cupy"):
        # Installed, imported or not: the backend keeps the stream functions of the module it met
        # first for the process (python/src/dlpack.cpp), so a fake would not be seen after the real.
        if installed(name):
            pytest.skip(f"a real {name} is installed: test_gpu.py checks the stream waits with it")
    torch = types.ModuleType("torch")
    torch._C = types.SimpleNamespace(_cuda_getCurrentRawStream=lambda device: 0)  # the legacy default stream
    torch.cuda = types.SimpleNamespace(current_stream=lambda device=None: TorchStream(0))
    cupy = types.ModuleType("cupy")
    cupy.cuda = types.SimpleNamespace(get_current_stream=lambda: CupyStream(0))
    monkeypatch.setitem(sys.modules, "torch", torch)
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    TorchStream.synchronized = CupyStream.synchronized = 0
    driver = ctypes.CDLL(os.environ["VYRE_FAKE_CUDA_LIBRARY"])
    driver.fake_cuda_call_count.restype = ctypes.c_uint64
    driver.fake_cuda_call_count.argtypes = [ctypes.c_char_p]
    yield fake_cuda, driver
    fake_cuda.clear_dlpack_cache()


def calls(driver, name, action):
    before = driver.fake_cuda_call_count(name.encode())
    action()
    return driver.fake_cuda_call_count(name.encode()) - before


def test_one_producer_stream_is_waited_for_on_the_device(streams):
    backend, driver = streams
    a, b, out = (TorchCudaLike(backend.alloc(4096, "uint32")) for _ in range(3))
    program = xor_program()
    for _ in range(3):
        waits = calls(driver, "cuStreamWaitEvent", lambda: backend.run_resident(program, a=a, b=b, out=out))
        assert waits >= 1  # vyre's stream waits for the event recorded on torch's
    info = backend.dlpack_cache_info()
    assert info["device_stream_waits"] == 3 and info["host_stream_waits"] == 0
    assert info["misses"] == 3 and info["hits"] == 6
    assert TorchStream.synchronized == 0  # never a host synchronize


def test_two_producer_streams_are_synchronized_on_the_host(streams):
    backend, _ = streams
    a = TorchCudaLike(backend.alloc(4096, "uint32"))
    b = CupyLike(backend.alloc(4096, "uint32"))
    out = backend.alloc(4096, "uint32")
    backend.run_resident(xor_program(), a=a, b=b, out=out)
    backend.run_resident(xor_program(), a, b, out)
    info = backend.dlpack_cache_info()
    assert info["host_stream_waits"] == 2 and info["device_stream_waits"] == 0
    assert TorchStream.synchronized == 2 and CupyStream.synchronized == 2
