"""DLPack on the cuda backend with torch and CuPy tensors: bound to dispatches and seen as tensors
without a copy (the same data pointers), results equal to reference_cpu's. Skipped, with the
reason, without the cuda plugin, a GPU, torch or CuPy (scripts/gpu-test.sh runs them on the GPU
machine)."""
import numpy as np
import pytest

import vyre
from kernels import softmax_program, xor_program


@pytest.fixture(scope="module")
def cuda(registry):
    plugin = registry.find("cuda")
    if plugin is None:
        pytest.skip("the cuda plugin is not built here")
    reason = registry.probe("cuda")
    if reason is not None:
        pytest.skip(f"cuda cannot run here: {reason}")
    if "external_memory" not in plugin.capabilities:
        pytest.skip("this cuda plugin has no ABI 1.1 external memory")
    return registry.backend("cuda")


@pytest.fixture(scope="module")
def torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch sees no CUDA device")
    return torch


@pytest.fixture(scope="module")
def cupy():
    cupy = pytest.importorskip("cupy")
    try:
        if cupy.cuda.runtime.getDeviceCount() == 0:
            pytest.skip("CuPy sees no CUDA device")
    except cupy.cuda.runtime.CUDARuntimeError as e:
        pytest.skip(f"CuPy sees no CUDA device: {e}")
    return cupy


def xor_inputs():
    a = np.arange(1024, dtype=np.uint32) * np.uint32(2654435761)
    b = ~np.arange(1024, dtype=np.uint32)
    return a, b


# ---- torch ------------------------------------------------------------------------------------------

def test_torch_tensors_bound_to_a_dispatch(cuda, ref, torch):
    a, b = xor_inputs()
    ta = torch.from_numpy(a.view(np.int32)).cuda()
    tb = torch.from_numpy(b.view(np.int32)).cuda()
    out = torch.zeros(1024, dtype=torch.int32, device="cuda")
    pointer = out.data_ptr()
    cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
    assert out.data_ptr() == pointer  # vyre wrote the tensor itself
    expected = ref.run(xor_program(), a=a, b=b)
    np.testing.assert_array_equal(out.cpu().numpy().view(np.uint32), expected)


def test_a_torch_tensor_keeps_its_address_both_ways(cuda, torch):
    t = torch.arange(4096, dtype=torch.float32, device="cuda")
    buf = cuda.from_dlpack(t)
    assert buf.dtype == np.float32 and buf.shape == (4096,) and buf.__dlpack_device__() == (2, t.device.index)
    back = torch.from_dlpack(buf)
    assert back.data_ptr() == t.data_ptr() and back.device == t.device
    np.testing.assert_array_equal(buf.download(), np.arange(4096, dtype=np.float32))


def test_a_resident_buffer_as_a_torch_tensor(cuda, ref, torch):
    a, b = xor_inputs()
    out = cuda.alloc(4096, "int32")  # torch's dtype for u32 bits
    view = torch.from_dlpack(out)
    assert view.dtype == torch.int32
    assert view.is_cuda and view.data_ptr() == torch.from_dlpack(out).data_ptr()
    cuda.run_resident(xor_program(), a=cuda.to_device(a), b=cuda.to_device(b), out=out)
    np.testing.assert_array_equal(view.cpu().numpy().view(np.uint32), ref.run(xor_program(), a=a, b=b))
    with pytest.raises(vyre.errors.BusyError):
        out.free()  # the tensor still uses it
    del view
    out.free()


def test_torch_work_on_another_stream_is_finished_before_vyre_reads(cuda, torch):
    x = torch.zeros(256 * 64, dtype=torch.float32, device="cuda")
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(50):
            x.add_(1.0)
        out = torch.empty_like(x)
        cuda.run_resident(softmax_program(), x=x, out=out)
    torch.cuda.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), np.full(256 * 64, 1 / 64, np.float32), rtol=1e-6)


def test_a_dispatch_on_torch_tensors_waits_on_the_device_for_torchs_stream(cuda, ref, torch):
    a, b = xor_inputs()
    ta = torch.zeros(1024, dtype=torch.int32, device="cuda")
    tb = torch.from_numpy(b.view(np.int32)).cuda()
    out = torch.zeros(1024, dtype=torch.int32, device="cuda")
    source = torch.from_numpy(a.view(np.int32)).cuda()
    torch.cuda.synchronize()
    stream = torch.cuda.Stream()
    before = cuda.dlpack_cache_info()
    with torch.cuda.stream(stream):
        torch.cuda._sleep(20_000_000)  # ~10 ms of GPU time queued before the write vyre must see
        ta.copy_(source)
        cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
        after = cuda.dlpack_cache_info()
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy().view(np.uint32), ref.run(xor_program(), a=a, b=b))
    assert after["device_stream_waits"] == before["device_stream_waits"] + 1  # no host synchronize
    assert after["host_stream_waits"] == before["host_stream_waits"]


def test_torch_tensors_bound_again_are_imported_once_ordered_after_torch_and_never_stale(cuda, ref, torch):
    import gc
    a, b = xor_inputs()
    ta = torch.from_numpy(a.view(np.int32)).cuda()
    tb = torch.from_numpy(b.view(np.int32)).cuda()
    out = torch.zeros(1024, dtype=torch.int32, device="cuda")
    cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
    start = cuda.dlpack_cache_info()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):  # torch's work queued on its current stream, then a cache hit
        for _ in range(50):
            ta.add_(1)
        cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
    torch.cuda.synchronize()
    assert cuda.dlpack_cache_info()["hits"] == start["hits"] + 3
    expected = ref.run(xor_program(), a=a + np.uint32(50), b=b)
    np.testing.assert_array_equal(out.cpu().numpy().view(np.uint32), expected)
    out.data = torch.zeros_like(out)  # the same tensor object on other memory: imported again
    pointer = out.data_ptr()
    cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
    assert out.data_ptr() == pointer and cuda.dlpack_cache_info()["stale"] == start["stale"] + 1
    np.testing.assert_array_equal(out.cpu().numpy().view(np.uint32), expected)
    entries, old = cuda.dlpack_cache_info()["entries"], out.data_ptr()
    del out
    gc.collect()
    assert cuda.dlpack_cache_info()["entries"] == entries - 1  # no import outlives its tensor
    out = torch.full((1024,), 7, dtype=torch.int32, device="cuda")  # torch's allocator: likely `old`
    misses = cuda.dlpack_cache_info()["misses"]
    cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
    assert cuda.dlpack_cache_info()["misses"] == misses + 1, f"same memory again: {out.data_ptr() == old}"
    np.testing.assert_array_equal(out.cpu().numpy().view(np.uint32), expected)


def test_run_resident_inside_a_torch_graph_capture_is_refused_and_the_capture_survives(cuda, ref, torch):
    a, b = xor_inputs()
    ta = torch.from_numpy(a.view(np.int32)).cuda()
    tb = torch.from_numpy(b.view(np.int32)).cuda()
    out = torch.zeros(1024, dtype=torch.int32, device="cuda")
    cuda.run_resident(xor_program(), a=ta, b=tb, out=out)  # imported before the capture
    torch.cuda.synchronize()
    out.zero_()
    graph = torch.cuda.CUDAGraph()
    doubled = torch.empty_like(ta)
    with torch.cuda.graph(graph):
        doubled.copy_(ta * 2)
        with pytest.raises(vyre.errors.UnsupportedError):  # vyre cannot join torch's capture
            cuda.run_resident(xor_program(), a=ta, b=tb, out=out)
    graph.replay()  # the capture was not broken
    torch.cuda.synchronize()
    assert torch.equal(doubled, ta * 2)
    assert int(out.abs().sum()) == 0  # nothing of vyre's ran
    cuda.run_resident(xor_program(), a=ta, b=tb, out=out)  # after the capture it runs
    torch.cuda.synchronize()
    np.testing.assert_array_equal(out.cpu().numpy().view(np.uint32), ref.run(xor_program(), a=a, b=b))


def test_softmax_on_a_torch_tensor_equals_reference_cpu(cuda, ref, torch):
    x = np.random.default_rng(3).standard_normal(256 * 64).astype(np.float32)
    tx = torch.from_numpy(x).cuda()
    out = torch.empty_like(tx)
    cuda.run_resident(softmax_program(), x=tx, out=out)
    np.testing.assert_allclose(out.cpu().numpy(), ref.run(softmax_program(), x=x), rtol=1e-5, atol=1e-7)


def test_a_strided_torch_tensor_is_refused(cuda, torch):
    t = torch.zeros((64, 64), dtype=torch.float32, device="cuda").t()
    with pytest.raises(vyre.errors.InvalidArgumentError) as e:
        cuda.from_dlpack(t)
    assert "contiguous" in e.value.message


# ---- CuPy -------------------------------------------------------------------------------------------

def test_cupy_arrays_bound_to_a_dispatch(cuda, ref, cupy):
    a, b = xor_inputs()
    ca, cb = cupy.asarray(a), cupy.asarray(b)
    out = cupy.zeros(1024, dtype=cupy.uint32)
    pointer = out.data.ptr
    cuda.run_resident(xor_program(), a=ca, b=cb, out=out)
    assert out.data.ptr == pointer
    np.testing.assert_array_equal(cupy.asnumpy(out), ref.run(xor_program(), a=a, b=b))


def test_a_resident_buffer_as_a_cupy_array(cuda, cupy):
    x = np.arange(1024, dtype=np.uint32)
    buf = cuda.to_device(x)
    view = cupy.from_dlpack(buf)
    assert view.dtype == cupy.uint32 and view.shape == (1024,)
    assert view.data.ptr == cupy.from_dlpack(buf).data.ptr
    np.testing.assert_array_equal(cupy.asnumpy(view), x)
    again = cuda.from_dlpack(view)  # and back: the same memory
    assert cupy.from_dlpack(again).data.ptr == view.data.ptr


# ---- docs/PYTHON.md -------------------------------------------------------------------------------

def test_the_tutorial_runs_on_a_torch_tensor(cuda, torch, source_dir, tmp_path, monkeypatch):
    from docs_tutorial import run_blocks, tutorial_blocks
    monkeypatch.chdir(tmp_path)
    namespace = run_blocks(tutorial_blocks(source_dir))
    assert namespace["view"].data_ptr() == torch.from_dlpack(namespace["buf"]).data_ptr()
