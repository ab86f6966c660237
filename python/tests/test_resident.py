"""Resident buffers, resident dispatches and sequences on reference_cpu."""
import numpy as np
import pytest

import vyre
from kernels import xor_program


def add_one_program(n=256):
    k = vyre.ProgramBuilder(workgroup=64)
    x = k.buffer("x", "read_write", "u32", n)
    i = k.let("i", k.invocation_id())
    x[i] = x[i] + 1
    return k.build()


def test_resident_dispatch(ref):
    a = ref.to_device(np.arange(1024, dtype=np.uint32))
    b = ref.to_device(np.full(1024, 3, np.uint32))
    out = ref.alloc(4096)
    assert out.nbytes == 4096 and not out.freed
    ref.run_resident(xor_program(), a=a, b=b, out=out)
    np.testing.assert_array_equal(out.download(np.uint32), np.arange(1024, dtype=np.uint32) ^ 3)
    np.testing.assert_array_equal(out.download("uint32", count=2, offset=8), [2 ^ 3, 3 ^ 3])


def test_a_host_array_may_bind_a_read_buffer(ref):
    out = ref.alloc(4096)
    ref.run_resident(xor_program(), np.ones(1024, np.uint32), ref.to_device(np.ones(1024, np.uint32)), out)
    assert not out.download(np.uint32).any()


def test_an_output_needs_memory_it_can_write(ref):
    with pytest.raises(vyre.VyreError) as e:
        ref.run_resident(xor_program(), a=np.ones(1024, np.uint32), b=np.ones(1024, np.uint32),
                         out=[0] * 1024)
    assert e.value.code == 1 and "ResidentBuffer" in e.value.message


def test_async_and_timed_resident(ref):
    x = ref.to_device(np.zeros(256, np.uint32))
    p = add_one_program()
    ref.run_resident_async(p, x=x).wait()
    timing = ref.run_resident_timed(p, x=x)
    assert timing["wall_ns"] > 0
    np.testing.assert_array_equal(x.download(np.uint32), np.full(256, 2))


def test_sequence(ref):
    x = ref.to_device(np.zeros(256, np.uint32))
    p = add_one_program()
    (read,) = ref.sequence(prefix=[(p, [x])], repeated=[(p, {"x": x})], repeat_count=5,
                           reads=[(x, np.uint32, 4, 4)])
    np.testing.assert_array_equal(read, [6, 6, 6, 6])


def test_upload_at_an_offset(ref):
    x = ref.alloc(16)
    x.upload(np.array([7, 8], np.uint32), offset=8)
    np.testing.assert_array_equal(x.download(np.uint32), [0, 0, 7, 8])


def test_a_freed_buffer_is_an_invalid_handle(ref):
    x = ref.alloc(1024)
    x.free()
    assert x.freed
    with pytest.raises(vyre.errors.InvalidHandleError) as e:
        x.download(np.uint32)
    assert e.value.code == 5


def test_another_instances_buffer_is_an_invalid_handle(registry, ref):
    other = registry.create("reference_cpu")
    x = other.to_device(np.zeros(256, np.uint32))
    with pytest.raises(vyre.VyreError) as e:
        ref.run_resident(add_one_program(), x=x)
    assert e.value.name == "invalid_handle"


def test_a_buffer_carries_its_dtype_and_shape(ref):
    x = ref.to_device(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert x.dtype == np.float32 and x.shape == (3, 4) and x.nbytes == 48
    np.testing.assert_array_equal(x.download(), np.arange(12, dtype=np.float32))
    y = ref.alloc(64, "int16")
    assert y.dtype == np.int16 and y.shape == (32,)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        ref.alloc(63, "int16")
