"""vyre.Group on the cuda backend over the fake CUDA driver (3 fake devices) and the fake NCCL
(tests/cuda/runtime): groups, sharded runs (the wiring: the fake driver runs no program kernels,
so outputs are compared with a single fake device's; results on GPUs: test_group_gpu.py),
resident per-device buffers and their shards, every collective on real data (the fake NCCL moves
it between the fake devices; the fold kernel of the bitwise and rank-order reductions is emulated
below), and the errors with their codes. Skipped where the fake driver or
the fake NCCL is not built."""
import ctypes
import os

import numpy as np
import numpy.ctypeslib  # noqa: F401 -- NumPy 2 imports it lazily, which recursed inside the ctypes callback
import pytest

import vyre
from kernels import histogram_program, xor_program


class Launch(ctypes.Structure):  # fake_cuda_launch (tests/cuda/runtime/fake_driver/fake_cuda.h)
    _fields_ = [("entry", ctypes.c_char_p), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("params", ctypes.POINTER(ctypes.c_uint64)), ("param_count", ctypes.c_size_t),
                ("cooperative", ctypes.c_int)]


KERNEL = ctypes.CFUNCTYPE(None, ctypes.POINTER(Launch), ctypes.c_void_p)


def rows_at(address, ctype, count):
    return np.ctypeslib.as_array((ctype * count).from_address(address))


@KERNEL
def emulate_fold(launch, _user):
    """The collectives' fold kernel (plugins/cuda/src/group/bitwise_kernel.*), which the fake driver
    cannot run: rows of `words` u32 words per rank, folded in rank order into `out` (op 4 and,
    5 or, 6 xor, 7 f32 add, 8 f64 add). Other kernels run nothing, as before."""
    launch = launch.contents
    if launch.entry != b"vyre_collective_bitwise":
        return
    gathered, out, words, ranks, op = (launch.params[i] for i in range(5))
    ctype = {7: ctypes.c_float, 8: ctypes.c_double}.get(op, ctypes.c_uint32)
    n = words // 2 if op == 8 else words
    rows = rows_at(gathered, ctype, n * ranks).reshape(ranks, n)
    acc = rows[0].copy()
    for q in range(1, ranks):
        acc = {4: np.bitwise_and, 5: np.bitwise_or, 6: np.bitwise_xor}.get(op, np.add)(acc, rows[q])
    rows_at(out, ctype, n)[:] = acc


@pytest.fixture
def fake(monkeypatch, tmp_path):
    driver = os.environ.get("VYRE_FAKE_CUDA_LIBRARY")
    nccl = os.environ.get("VYRE_FAKE_NCCL_LIBRARY")
    if not driver or not nccl:
        pytest.skip("the fake CUDA driver or the fake NCCL is not built here")
    library = ctypes.CDLL(driver)  # the instance the cuda plugin loads (same path)
    library.fake_cuda_set_kernel.argtypes = [KERNEL, ctypes.c_void_p]
    library.fake_cuda_set_kernel(emulate_fold, None)
    monkeypatch.setenv("VYRE_CUDA_DRIVER_LIBRARY", driver)
    monkeypatch.setenv("VYRE_NCCL_LIBRARY", nccl)
    monkeypatch.setenv("FAKE_CUDA_DEVICES", "3")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for name in ("VYRE_CUDA_FAIL", "VYRE_CUDA_DEVICE_ORDINAL", "CUDA_CACHE_PATH", "FAKE_NCCL_FAIL_INIT",
                 "FAKE_NCCL_ASYNC_ERROR", "FAKE_NCCL_FLOAT_SUM_ORDER"):
        monkeypatch.delenv(name, raising=False)
    registry = vyre.Registry(use_environment=False)
    if registry.find("cuda") is None:
        pytest.skip("the cuda plugin is not built here")
    yield registry
    library.fake_cuda_set_kernel(ctypes.cast(None, KERNEL), None)


def group_of(registry, n):
    return vyre.Group([registry.create("cuda", device_ordinal=d) for d in range(n)])


def with_data(group, parts):
    buffers = group.alloc(parts[0].nbytes, parts[0].dtype)
    for buf, part in zip(buffers, parts):
        buf.upload(part)
    return buffers


def test_a_group_reports_its_members(fake):
    group = group_of(fake, 3)
    assert (group.size, group.ranks, group.first_rank) == (3, 3, 0)
    assert group.has_collectives
    assert group.member(2).id == "cuda"
    assert "3 ranks" in repr(group)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.member(3)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        vyre.Group([])
    with pytest.raises(vyre.errors.InvalidArgumentError):
        vyre.Group([fake.create("cuda"), 3])


def test_run_shards_and_returns_the_single_device_outputs(fake):
    program = xor_program()
    a = np.arange(1024, dtype=np.uint32)
    b = np.full(1024, 5, np.uint32)
    single = fake.create("cuda").run(program, a=a, b=b)
    for n in (1, 2, 3):
        out = group_of(fake, n).run(program, a=a, b=b, placements={"a": "split", "b": "replicate", "out": "gather"})
        assert out.dtype == np.uint32 and out.shape == (1024,)
        np.testing.assert_array_equal(out, single)
    values = np.arange(5000, dtype=np.uint32)
    hist = group_of(fake, 2).run(histogram_program(), vyre.Config(elements=5000), values,
                                 placements={"values": "split:1", "hist": "sum"})
    np.testing.assert_array_equal(hist, fake.create("cuda").run(histogram_program(), vyre.Config(elements=5000), values))
    group = group_of(fake, 2)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.run(program, a=a, b=b)  # out has no placement
    for bad in ("scatter", "gather:x", "sum:2", 3):
        with pytest.raises(vyre.errors.InvalidArgumentError) as error:
            group.run(program, a=a, b=b, placements={"out": bad})
        assert error.value.fix
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.run(program, a=a, b=b, placements=["out"])


def test_run_resident_leaves_each_members_share_on_its_device(fake):
    group = group_of(fake, 3)
    program = xor_program()  # 1024 elements, workgroups of 64: 16 workgroups, shares 6, 5, 5
    a = with_data(group, [np.arange(1024, dtype=np.uint32)] * 3)
    out = group.alloc(4096, np.uint32)
    assert len(out) == 3 and all(buf.dtype == np.uint32 and buf.shape == (1024,) for buf in out)
    shards = group.run_resident(program, a, np.zeros(1024, np.uint32), out)
    assert isinstance(shards, vyre.GroupShards)
    assert shards.ranges == [(0, 6), (6, 5), (11, 5)]
    assert [shards.elements(r, 1024) for r in range(3)] == [(0, 384), (384, 704), (704, 1024)]
    assert shards.elements(1, 2048, per_invocation=2) == (768, 1408)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        shards.elements(3, 1024)
    # The shares stay usable: the next run binds them again, by name this time.
    assert group.run_resident(program, a=out, b=np.zeros(1024, np.uint32), out=a).ranges == shards.ranges
    # Errors: a written buffer bound to an array, a list of the wrong length, buffers out of rank
    # order, a grid_sync-free but unbound buffer.
    zeros = np.zeros(1024, np.uint32)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.run_resident(program, a=a, b=zeros, out=zeros)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.run_resident(program, a=a, b=zeros, out=out[:2])
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.run_resident(program, a=a, b=zeros, out=[out[1], out[0], out[2]])
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.run_resident(program, a=a, b=zeros)


def test_collectives_move_the_data_between_devices(fake):
    group = group_of(fake, 3)
    rng = np.random.default_rng(5)
    floats = [rng.standard_normal(100).astype(np.float32) * 1000 for _ in range(3)]
    ints = [rng.integers(0, 2**32, 100, dtype=np.uint64).astype(np.uint32) for _ in range(3)]
    recv = group.alloc(400, np.float32)
    group.all_reduce(with_data(group, floats), recv, np.float32, "sum_rank_order")
    for buf in recv:
        np.testing.assert_array_equal(buf.download(), (floats[0] + floats[1]) + floats[2])
    group.all_reduce(with_data(group, floats), recv, np.float32, "max")
    for buf in recv:
        np.testing.assert_array_equal(buf.download(), np.maximum(np.maximum(floats[0], floats[1]), floats[2]))
    bits = group.alloc(400, np.uint32)
    group.all_reduce(with_data(group, ints), bits, np.uint32, "xor")
    for buf in bits:
        np.testing.assert_array_equal(buf.download(), ints[0] ^ ints[1] ^ ints[2])
    gathered = group.alloc(3 * 400, np.uint32)
    group.all_gather(with_data(group, ints), gathered, np.uint32)
    for buf in gathered:
        np.testing.assert_array_equal(buf.download(), np.concatenate(ints))
    scattered = group.alloc(400 // 3 * 4, np.uint32)  # 33 elements each
    big = [np.concatenate([p, p[:-1]]) for p in ints]  # 199 elements: 3 * 33 used
    group.reduce_scatter(with_data(group, big), scattered, np.uint32, "or", count=33)
    for r, buf in enumerate(scattered):
        np.testing.assert_array_equal(buf.download(count=33), big[0][r * 33:(r + 1) * 33] | big[1][r * 33:(r + 1) * 33]
                                      | big[2][r * 33:(r + 1) * 33])
    root = with_data(group, floats)
    into = group.alloc(400, np.float32)
    group.broadcast([None, root[1], None], into, np.float32, root=1)
    for buf in into:
        np.testing.assert_array_equal(buf.download(), floats[1])


def test_sum_rank_order_does_not_depend_on_the_order_nccl_adds_in(fake, monkeypatch):
    monkeypatch.setenv("FAKE_NCCL_FLOAT_SUM_ORDER", "reverse")  # as a ring may add in another order
    group = group_of(fake, 3)
    parts = [np.array([v], np.float32) for v in (1.0, 1e8, -1e8)]
    out = group.alloc(4, np.float32)
    group.all_reduce(with_data(group, parts), out, np.float32, "sum")
    assert [buf.download()[0] for buf in out] == [1.0] * 3  # (-1e8 + 1e8) + 1
    group.all_reduce(with_data(group, parts), out, np.float32, "sum_rank_order")
    assert [buf.download()[0] for buf in out] == [0.0] * 3  # (1 + 1e8) - 1e8 in float32


def test_collective_errors_have_codes_and_fixes(fake, monkeypatch):
    group = group_of(fake, 3)
    buffers = group.alloc(64, np.float32)
    with pytest.raises(vyre.errors.InvalidArgumentError) as error:
        group.all_reduce(buffers, buffers, np.float32, "avg")
    assert "sum_rank_order" in error.value.fix
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.all_reduce(buffers, buffers, np.float32, "xor")  # bitwise of floats
    with pytest.raises(vyre.errors.UnsupportedError):
        group.all_reduce(buffers, buffers, np.float16, "sum")
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.all_reduce(buffers[:2], buffers[:2], np.float32)
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.all_reduce(buffers[0], buffers[0], np.float32)  # not a list
    with pytest.raises(vyre.errors.InvalidArgumentError):
        group.all_gather(buffers, buffers, np.float32)  # too small, and in place
    monkeypatch.setenv("VYRE_NCCL_LIBRARY", "/nonexistent/libnccl.so.2")
    fresh = group_of(fake, 2)
    with pytest.raises(vyre.errors.NoDeviceError) as missing:
        fresh.connect()
    assert "/nonexistent/libnccl.so.2" in str(missing.value) and missing.value.fix
