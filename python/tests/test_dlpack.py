"""DLPack both ways on reference_cpu with NumPy: resident buffers as tensors, arrays as resident
buffers and dispatch bindings, all without a copy (the same addresses)."""
import ctypes
import sys

import numpy as np
import pytest

import vyre
import dlpack_capsules
from kernels import xor_program


def address(array):
    return array.__array_interface__["data"][0]


def capsule_named(capsule, name):
    is_valid = ctypes.pythonapi.PyCapsule_IsValid
    is_valid.restype = ctypes.c_int
    is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return is_valid(capsule, name) == 1


def test_an_imported_array_is_exported_at_the_same_address(ref):
    x = np.arange(1024, dtype=np.uint32)
    buf = ref.from_dlpack(x)
    assert buf.dtype == np.uint32 and buf.shape == (1024,) and buf.nbytes == 4096
    view = np.from_dlpack(buf)
    assert address(view) == address(x)
    del view
    buf.free()


def test_numpy_sees_a_resident_buffer_in_place(ref):
    buf = ref.to_device(np.zeros((4, 256), np.uint32))
    view = np.from_dlpack(buf)
    assert view.shape == (4, 256) and view.dtype == np.uint32
    assert buf.__dlpack_device__() == (1, 0)
    assert address(np.from_dlpack(buf)) == address(view)  # the one memory, every time
    ref.run_resident(xor_program(), a=np.arange(1024, dtype=np.uint32), b=np.full(1024, 5, np.uint32), out=buf)
    np.testing.assert_array_equal(view.reshape(-1), np.arange(1024, dtype=np.uint32) ^ 5)
    seventy_seven = np.array([77], np.uint32)  # and the other way (NumPy < 2 marks DLPack views read-only)
    ctypes.memmove(address(view), address(seventy_seven), 4)
    assert buf.download(np.uint32, count=1)[0] == 77


def test_a_numpy_output_is_written_in_place(ref):
    a = np.arange(1024, dtype=np.uint32)
    b = np.full(1024, 0xF0, np.uint32)
    out = np.zeros(1024, np.uint32)
    before = address(out)
    ref.run_resident(xor_program(), a=a, b=b, out=out)
    assert address(out) == before
    np.testing.assert_array_equal(out, a ^ b)
    pending = ref.run_resident_async(xor_program(), a=a, b=a, out=out)
    pending.wait()
    assert not out.any()


def test_the_producer_is_released_exactly_once_after_free(ref):
    x = np.zeros(256, np.float32)
    refs = sys.getrefcount(x)
    buf = ref.from_dlpack(x)
    assert sys.getrefcount(x) == refs + 1  # the capsule's tensor holds it
    buf.free()
    assert sys.getrefcount(x) == refs
    ref.run_resident(copy_into(), x=np.ones(256, np.float32), y=x)  # a bound array, released after the call
    assert sys.getrefcount(x) == refs and x.sum() == 256


def copy_into():
    k = vyre.ProgramBuilder(workgroup=64)
    x = k.buffer("x", "read", "f32", 256)
    y = k.buffer("y", "read_write", "f32", 256)
    i = k.let("i", k.invocation_id())
    y[i] = x[i]
    return k.build()


def test_free_is_refused_while_a_view_is_alive(ref):
    buf = ref.alloc(1024, "uint32")
    view = np.from_dlpack(buf)
    with pytest.raises(vyre.errors.BusyError) as e:
        buf.free()
    assert e.value.code == 10 and e.value.fix
    del view
    buf.free()
    assert buf.freed


def test_capsules_of_both_versions(ref):
    buf = ref.alloc(64, "float32")
    assert capsule_named(buf.__dlpack__(), b"dltensor")
    assert capsule_named(buf.__dlpack__(max_version=(1, 0)), b"dltensor_versioned")
    again = ref.from_dlpack(buf)  # vyre as the consumer of a versioned capsule
    assert again.dtype == np.float32 and again.shape == (16,)
    assert address(np.from_dlpack(again)) == address(np.from_dlpack(buf))


def test_an_unconsumed_capsule_gives_its_view_back(ref):
    buf = ref.alloc(64)
    capsule = buf.__dlpack__(max_version=(1, 0))
    del capsule
    buf.free()  # not refused: the capsule's tensor was deleted with it


def test_export_refuses_a_copy_or_another_device(ref):
    buf = ref.alloc(64)
    with pytest.raises(BufferError):
        buf.__dlpack__(copy=True)
    with pytest.raises(BufferError):
        buf.__dlpack__(dl_device=(2, 0))
    buf.__dlpack__(dl_device=(1, 0), copy=False)


def test_read_only_memory_cannot_be_written(ref):
    buf = ref.from_dlpack(np.zeros(1024, np.uint32), read_only=True)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        ref.run_resident(xor_program(), a=np.ones(1024, np.uint32), b=np.ones(1024, np.uint32), out=buf)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        buf.upload(np.ones(4, np.uint32))


def test_a_strided_array_is_refused_with_a_fix(ref):
    x = np.zeros(2048, np.uint32)[::2]
    with pytest.raises(vyre.errors.InvalidArgumentError) as e:
        ref.from_dlpack(x)
    assert "contiguous" in e.value.message and "ascontiguousarray" in e.value.fix


def test_something_without_dlpack_is_an_invalid_argument(ref):
    with pytest.raises(vyre.errors.InvalidArgumentError):
        ref.from_dlpack([1, 2, 3])


def test_the_module_function(ref):
    x = np.arange(8, dtype=np.int64)
    buf = vyre.from_dlpack(x, ref)
    np.testing.assert_array_equal(buf.download(), x)


def test_a_bound_array_must_fit_the_buffers_type(ref):
    a = np.ones(1024, np.uint32)
    with pytest.raises(vyre.errors.InvalidArgumentError) as e:
        ref.run_resident(xor_program(), a=a, b=a, out=np.zeros(1024, np.float32))  # a float for a u32 buffer
    assert "'out' holds u32" in e.value.message and "view" in e.value.fix
    with pytest.raises(vyre.errors.InvalidArgumentError):
        ref.run_resident(xor_program(), a=a, b=a, out=np.zeros(512, np.uint64))  # another size
    out = np.full(1024, -1, np.int32)  # signedness may differ: the bits are the same
    ref.run_resident(xor_program(), a=a, b=a, out=out)
    assert not out.any()


@pytest.mark.parametrize("max_version", [None, (1, 0), (1, 3)])
def test_the_capsule_layout(ref, max_version):
    buf = ref.to_device(np.arange(12, dtype=np.int16).reshape(3, 4))
    t = dlpack_capsules.read(buf.__dlpack__(max_version=max_version))
    assert t["version"] == (None if max_version is None else (1, 0)) and t["flags"] == 0
    assert t["device"] == (1, 0) and t["dtype"] == (0, 16, 1)  # kDLInt, 16 bits, 1 lane
    assert t["shape"] == (3, 4) and t["strides"] == (4, 1) and t["byte_offset"] == 0
    assert t["data"] == address(np.from_dlpack(buf))


def test_read_only_memory_exports_read_only(ref):
    x = np.arange(4, dtype=np.float64)
    buf = ref.from_dlpack(x, read_only=True)
    t = dlpack_capsules.read(buf.__dlpack__(max_version=(1, 0)))
    assert t["flags"] & 1 and t["data"] == address(x) and t["dtype"] == (2, 64, 1)
