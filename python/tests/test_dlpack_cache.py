"""The import cache of DLPack objects bound straight to resident dispatches: an object bound again
and again is imported once, its entry goes when the object dies (never a stale import for memory
that a new object now has), an object that views other memory now is imported again, and the
memory is always the object's own (zero copy). On reference_cpu with NumPy arrays, and on cuda
over the fake CUDA driver with a CuPy-like stand-in (its driver calls counted)."""
import ctypes
import gc
import os
import sys

import numpy as np
import pytest

import dlpack_capsules
import vyre
from kernels import xor_program


def address(array):
    return array.__array_interface__["data"][0]


def info(backend):
    return backend.dlpack_cache_info()


@pytest.fixture
def cpu(registry):
    backend = registry.create("reference_cpu")  # its own cache: counts start at zero
    yield backend
    backend.clear_dlpack_cache()


A = np.arange(1024, dtype=np.uint32)
B = np.full(1024, 0xF0F0, np.uint32)


# ---- reference_cpu, NumPy ----------------------------------------------------------------------------


def test_an_array_bound_again_and_again_is_imported_once_and_written_in_place(cpu):
    out = np.zeros(1024, np.uint32)
    where = address(out)
    for k in range(4):
        a = A + k
        cpu.run_resident(xor_program(), a=a, b=B, out=out)
        np.testing.assert_array_equal(out, a ^ B)  # the array's own memory, every call
        assert address(out) == where
    assert info(cpu) == {"entries": 1, "hits": 3, "misses": 1, "stale": 0, "dropped": 0, "uncached": 0,
                         "device_stream_waits": 0, "host_stream_waits": 0}


def test_the_cache_holds_no_reference_to_the_array(cpu):
    out = np.zeros(1024, np.uint32)
    refs = sys.getrefcount(out)
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert sys.getrefcount(out) == refs


def test_an_entry_goes_with_its_array_and_a_new_array_at_the_same_address_is_imported_afresh(cpu):
    base = np.zeros(2048, np.uint32)
    first = base[:1024]  # a view: the next one has the very same data pointer
    first_id = id(first)
    cpu.run_resident(xor_program(), a=A, b=B, out=first)
    assert info(cpu)["entries"] == 1
    del first
    gc.collect()
    assert info(cpu)["entries"] == 0 and info(cpu)["dropped"] == 1  # no import outlives its object
    second = base[:1024]
    same_object_address = id(second) == first_id  # CPython usually reuses it: the harder case
    cpu.run_resident(xor_program(), a=A, b=A, out=second)
    assert info(cpu)["misses"] == 2 and info(cpu)["hits"] == 0, f"reused object address: {same_object_address}"
    assert not second.any()


def test_a_cached_array_is_resized_after_clearing_the_cache_and_then_imported_again(cpu):
    out = np.zeros(1024, np.uint32)
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    with pytest.raises(ValueError):  # NumPy refuses to resize an array with a weak reference
        out.resize(4096, refcheck=False)
    cpu.clear_dlpack_cache()
    out.resize(4096, refcheck=False)  # new memory for the same object
    cpu.run_resident(xor_program(), a=A, b=B, out=out[:1024])
    np.testing.assert_array_equal(out[:1024], A ^ B)
    assert info(cpu)["misses"] == 2 and info(cpu)["hits"] == 0


def test_an_array_made_read_only_is_not_written_through_its_old_import(cpu):
    out = np.zeros(1024, np.uint32)
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    out[:] = 0
    out.setflags(write=False)
    with pytest.raises((BufferError, vyre.errors.InvalidArgumentError)):  # NumPy's __dlpack__, or vyre
        cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert not out.any() and info(cpu)["stale"] == 1


def test_an_in_place_dtype_change_is_a_new_import(cpu):
    out = np.zeros(1024, np.uint32)
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    out.dtype = np.float32  # the same memory, now float: the u32 buffer refuses it
    with pytest.raises(vyre.errors.InvalidArgumentError):
        cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert info(cpu)["stale"] == 1


def test_asynchronous_dispatches_import_per_call_and_clear_empties_the_cache(cpu):
    out = np.zeros(1024, np.uint32)
    cpu.run_resident_async(xor_program(), a=A, b=B, out=out).wait()
    np.testing.assert_array_equal(out, A ^ B)
    assert info(cpu)["entries"] == 0 and info(cpu)["uncached"] == 1
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert info(cpu)["entries"] == 1
    cpu.clear_dlpack_cache()
    assert info(cpu)["entries"] == 0


class HostArray:
    """A CPU producer with __dlpack__ and __array_interface__ (what NumPy's own say); `array` can
    be pointed at another array, as torch's set_ would."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()

    @property
    def __array_interface__(self):
        return self.array.__array_interface__


def test_an_array_interface_producer_is_cached_and_imported_again_on_other_memory(cpu):
    out = HostArray(np.zeros(1024, np.uint32))
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    cpu.run_resident(xor_program(), a=A, b=A, out=out)
    assert info(cpu)["hits"] == 1 and not out.array.any()
    first = out.array
    out.array = np.zeros(1024, np.uint32)  # other memory, the same producer object
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert info(cpu)["stale"] == 1 and info(cpu)["misses"] == 2
    np.testing.assert_array_equal(out.array, A ^ B)
    assert not first.any()  # not written through the old import
    out.array = np.zeros((2, 512), np.uint32)[:, ::2]  # strided: refused, as before the cache
    with pytest.raises(vyre.errors.InvalidArgumentError):
        cpu.run_resident(xor_program(), a=A, b=B, out=out)


class TorchLike:
    """What the cache reads of a torch tensor (data_ptr(), nbytes, dtype, is_contiguous()), over a
    NumPy array, from a module named torch.* (torch's own tensors take this path on the GPU)."""
    __module__ = "torch.stand_in"

    def __init__(self, array):
        self.array, self.contiguous, self.broken = array, True, False

    def data_ptr(self):
        if self.broken:
            raise RuntimeError("no data pointer")
        return self.array.__array_interface__["data"][0]

    @property
    def nbytes(self):
        return self.array.nbytes

    @property
    def dtype(self):
        return self.array.dtype

    def is_contiguous(self):
        return self.contiguous

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_a_torch_like_tensor_is_cached_by_its_fingerprint(cpu):
    out = TorchLike(np.zeros(1024, np.uint32))
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert info(cpu)["hits"] == 1 and info(cpu)["misses"] == 1
    out.array = np.zeros(1024, np.uint32)  # like set_: other memory
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert info(cpu)["stale"] == 1
    np.testing.assert_array_equal(out.array, A ^ B)
    out.contiguous = False  # like transpose_: the same memory seen strided is not the cached import
    cpu.run_resident(xor_program(), a=A, b=B, out=out)
    assert info(cpu)["stale"] == 2 and info(cpu)["uncached"] == 1
    out.contiguous, out.broken = True, True  # a fingerprint that cannot be read: imported per call
    cpu.run_resident(xor_program(), a=A, b=A, out=out)
    assert not out.array.any() and info(cpu)["hits"] == 1 and info(cpu)["uncached"] == 2


# ---- cuda over the fake driver: a CuPy-like producer -------------------------------------------------


class Launch(ctypes.Structure):
    _fields_ = [("entry", ctypes.c_char_p), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("params", ctypes.POINTER(ctypes.c_uint64)), ("param_count", ctypes.c_size_t),
                ("cooperative", ctypes.c_int)]


KERNEL = ctypes.CFUNCTYPE(None, ctypes.POINTER(Launch), ctypes.c_void_p)


class DeviceArray:
    """A CuPy-like producer over a fake-cuda resident buffer: __dlpack__, __dlpack_device__ and
    __cuda_array_interface__. `swap` points it at other memory (as torch's set_ would)."""

    def __init__(self, buffer):
        self.swap(buffer)

    def swap(self, buffer):
        self.buffer = buffer
        self.pointer = dlpack_capsules.read(buffer.__dlpack__())["data"]

    def __dlpack__(self, **kwargs):
        return self.buffer.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return (2, 0)

    @property
    def __cuda_array_interface__(self):
        return {"data": (self.pointer, False), "shape": (self.buffer.nbytes // 4,), "typestr": "<u4",
                "version": 3, "strides": None}


@pytest.fixture
def fake(fake_cuda):
    backend = fake_cuda
    driver = ctypes.CDLL(os.environ["VYRE_FAKE_CUDA_LIBRARY"])  # the library the plugin loaded: the same counters
    driver.fake_cuda_call_count.restype = ctypes.c_uint64
    driver.fake_cuda_call_count.argtypes = [ctypes.c_char_p]
    launches = []

    def record(launch, _user):
        launches.append([launch.contents.params[i] for i in range(launch.contents.param_count)])

    hook = KERNEL(record)
    driver.fake_cuda_set_kernel(hook, None)
    yield backend, driver, launches
    driver.fake_cuda_set_kernel(None, None)
    backend.clear_dlpack_cache()


COUNTED = ("cuPointerGetAttribute", "cuMemGetAddressRange", "cuEventSynchronize", "cuStreamSynchronize",
           "cuCtxSetCurrent", "cuEventRecord", "cuStreamWaitEvent", "cuLaunchKernel", "cuGraphLaunch")


def driver_calls(driver, action):
    before = {n: driver.fake_cuda_call_count(n.encode()) for n in COUNTED}
    action()
    return {n: driver.fake_cuda_call_count(n.encode()) - before[n] for n in COUNTED}


def test_a_cuda_array_bound_again_is_imported_once_with_its_own_pointer(fake):
    backend, driver, launches = fake
    a, b, out = (DeviceArray(backend.alloc(4096, "uint32")) for _ in range(3))
    first = driver_calls(driver, lambda: backend.run_resident(xor_program(), a=a, b=b, out=out))
    assert first["cuPointerGetAttribute"] == 3 and first["cuMemGetAddressRange"] == 3  # three imports
    again = driver_calls(driver, lambda: backend.run_resident(xor_program(), a=a, b=b, out=out))
    assert again["cuPointerGetAttribute"] == 0 and again["cuMemGetAddressRange"] == 0
    # no more driver work than a dispatch on resident buffers (which waits for their last writers)
    ra, rb, rout = (backend.alloc(4096, "uint32") for _ in range(3))
    plain = driver_calls(driver, lambda: backend.run_resident(xor_program(), a=ra, b=rb, out=rout))
    assert sum(again.values()) <= sum(plain.values()), (again, plain)
    assert info(backend) == {"entries": 3, "hits": 3, "misses": 3, "stale": 0, "dropped": 0, "uncached": 0,
                         "device_stream_waits": 0, "host_stream_waits": 0}
    pointers = [a.pointer, b.pointer, out.pointer]
    assert launches[0][:3] == pointers and launches[1][:3] == pointers  # zero copy: their memory


def test_a_dead_cuda_array_leaves_no_import_and_its_memory_can_go(fake):
    backend, driver, launches = fake
    a, b = DeviceArray(backend.alloc(4096, "uint32")), DeviceArray(backend.alloc(4096, "uint32"))
    out = DeviceArray(backend.alloc(4096, "uint32"))
    backend.run_resident(xor_program(), a=a, b=b, out=out)
    buffer, old_pointer = out.buffer, out.pointer
    del out
    gc.collect()
    assert info(backend)["entries"] == 2 and info(backend)["dropped"] == 1
    buffer.free()  # nothing holds a view of it (the cache keeps no capsule): not BusyError
    del buffer
    out = DeviceArray(backend.alloc(4096, "uint32"))  # the pool hands the same memory back, as torch's would
    calls = driver_calls(driver, lambda: backend.run_resident(xor_program(), a=a, b=b, out=out))
    assert calls["cuPointerGetAttribute"] == 1  # imported afresh, not found in the cache
    assert launches[-1][2] == out.pointer and info(backend)["misses"] == 4
    print("same memory reused:", out.pointer == old_pointer)


def test_a_cuda_array_moved_to_other_memory_is_imported_again(fake):
    backend, driver, launches = fake
    a, b, out = (DeviceArray(backend.alloc(4096, "uint32")) for _ in range(3))
    backend.run_resident(xor_program(), a=a, b=b, out=out)
    old = out.buffer
    out.swap(backend.alloc(4096, "uint32"))  # like torch's out.set_(other storage)
    calls = driver_calls(driver, lambda: backend.run_resident(xor_program(), a=a, b=b, out=out))
    assert calls["cuPointerGetAttribute"] == 1 and info(backend)["stale"] == 1
    assert launches[-1][:3] == [a.pointer, b.pointer, out.pointer]
    old.free()
