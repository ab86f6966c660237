"""DLPack on the cuda backend over the fake CUDA driver (tests/cuda/runtime/fake_driver): a cuda
buffer exports its device pointer (DLPack device kDLCUDA) and a CUDA capsule imports back into
the same memory, on machines without a GPU. Skipped where the fake driver is not built."""
import numpy as np
import pytest

import dlpack_capsules
import vyre


def test_a_cuda_buffer_exports_its_device_pointer_and_imports_back(fake_cuda):
    x = np.arange(256, dtype=np.float32)
    buf = fake_cuda.to_device(x)
    assert buf.__dlpack_device__() == (2, 0)
    exported = dlpack_capsules.read(buf.__dlpack__(max_version=(1, 0)))
    assert exported["device"] == (2, 0) and exported["dtype"] == (2, 32, 1) and exported["shape"] == (256,)
    assert exported["data"]
    again = fake_cuda.from_dlpack(buf)  # a CUDA capsule consumed by the cuda backend
    assert dlpack_capsules.read(again.__dlpack__())["data"] == exported["data"]
    np.testing.assert_array_equal(again.download(), x)
    again.upload(np.full(4, 7, np.float32))  # the same memory (once the upload is done: the two
    np.testing.assert_array_equal(again.download(count=4), [7, 7, 7, 7])  # handles are not ordered)
    np.testing.assert_array_equal(buf.download(count=4), [7, 7, 7, 7])
    with pytest.raises(vyre.errors.BusyError):
        buf.free()  # `again` holds a view of it
    again.free()
    buf.free()


def test_reference_cpu_refuses_cuda_memory(fake_cuda, ref):
    buf = fake_cuda.to_device(np.zeros(16, np.uint32))
    with pytest.raises(vyre.errors.UnsupportedError):
        ref.from_dlpack(buf)
    del buf


def test_cuda_refuses_host_memory(fake_cuda):
    with pytest.raises(vyre.errors.UnsupportedError):
        fake_cuda.from_dlpack(np.zeros(16, np.uint32))
