"""vyre.Group on real GPUs: a group over two devices gives reference_cpu's outputs (sharded
xor, histogram), resident shares hold exactly their elements, and collectives (NCCL) give the
host's results, float sums in rank order bit for bit. Skipped, with the reason, without the cuda
plugin, two GPUs or NCCL (scripts/gpu-test.sh runs it on the GPU machine; set VYRE_NCCL_LIBRARY
where NCCL is not found by itself)."""
import os

import numpy as np
import pytest

import vyre
from kernels import histogram_program, xor_program

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # docs/MULTI_GPU.md: NVLS stays off


@pytest.fixture(scope="module")
def group(registry):
    if registry.find("cuda") is None:
        pytest.skip("the cuda plugin is not built here")
    reason = registry.probe("cuda")
    if reason is not None:
        pytest.skip(f"cuda cannot run here: {reason}")
    try:
        members = [registry.create("cuda", device_ordinal=d) for d in (0, 1)]
    except vyre.errors.NoDeviceError as e:
        pytest.skip(f"a group test needs 2 GPUs: {e}")
    return vyre.Group(members)


@pytest.fixture(scope="module")
def connected(group):
    try:
        group.connect()
    except vyre.errors.NoDeviceError as e:
        pytest.skip(f"NCCL is not available: {e}")
    return group


def test_sharded_runs_equal_reference_cpu(group, ref):
    a = np.arange(1024, dtype=np.uint32) * np.uint32(2654435761)
    b = np.arange(1024, dtype=np.uint32)
    program = xor_program()
    out = group.run(program, a=a, b=b, placements={"a": "split", "b": "split", "out": "gather"})
    np.testing.assert_array_equal(out, ref.run(program, a=a, b=b))
    values = (np.arange(100000, dtype=np.uint32) * np.uint32(40503)) >> np.uint32(7)
    config = vyre.Config(elements=values.size)
    hist = group.run(histogram_program(), config, values, placements={"values": "split", "hist": "sum"})
    np.testing.assert_array_equal(hist, ref.run(histogram_program(), config, values))


def test_resident_shares_hold_their_elements(group, ref):
    program = xor_program()
    a = np.arange(1024, dtype=np.uint32) * np.uint32(2654435761)
    b = np.arange(1024, dtype=np.uint32)
    expected = ref.run(program, a=a, b=b)
    out = group.alloc(4096, np.uint32)
    shards = group.run_resident(program, a=a, b=b, out=out)
    covered = 0
    for r, buf in enumerate(out):
        begin, end = shards.elements(r, 1024)
        got = buf.download()
        np.testing.assert_array_equal(got[begin:end], expected[begin:end])
        assert not got[:begin].any() and not got[end:].any()
        covered += end - begin
    assert covered == 1024


def test_collectives_and_rank_order_float_sums(connected):
    group = connected
    rng = np.random.default_rng(3)
    parts = [rng.standard_normal(1 << 20).astype(np.float32) * 1e4 for _ in range(2)]
    send = group.alloc(parts[0].nbytes, np.float32)
    for buf, p in zip(send, parts):
        buf.upload(p)
    recv = group.alloc(parts[0].nbytes, np.float32)
    group.all_reduce(send, recv, np.float32, "sum_rank_order")
    for buf in recv:
        np.testing.assert_array_equal(buf.download(), parts[0] + parts[1])
    doubles = [p.astype(np.float64) * np.pi for p in parts]
    send64 = group.alloc(doubles[0].nbytes, np.float64)
    for buf, p in zip(send64, doubles):
        buf.upload(p)
    group.all_reduce(send64, send64, np.float64, "sum_rank_order")
    for buf in send64:
        np.testing.assert_array_equal(buf.download(), doubles[0] + doubles[1])
    gathered = group.alloc(2 * parts[0].nbytes, np.float32)
    group.all_gather(send, gathered, np.float32)
    for buf in gathered:
        np.testing.assert_array_equal(buf.download(), np.concatenate(parts))
