"""Host dispatch with NumPy on reference_cpu: every storage type's dtype, errors, async, timed,
pipelines, configs."""
import numpy as np
import pytest

import vyre
from kernels import histogram_program, softmax_program, xor_program


def copy_program(element, n=8):
    k = vyre.ProgramBuilder(workgroup=8)
    x = k.buffer("x", "read", element, n)
    out = k.buffer("out", "output", element, n)
    i = k.let("i", k.invocation_id())
    out[i] = x[i]
    return k.build()


SAMPLES = {
    "u8": np.array([0, 1, 2, 127, 128, 200, 254, 255], np.uint8),
    "u16": np.array([0, 1, 2, 300, 40000, 65534, 65535, 7], np.uint16),
    "u32": np.array([0, 1, 2, 3, 2**31, 2**32 - 1, 12345, 7], np.uint32),
    "u64": np.array([0, 1, 2**40, 2**63, 2**64 - 1, 5, 6, 7], np.uint64),
    "i8": np.array([-128, -1, 0, 1, 127, 5, -5, 9], np.int8),
    "i16": np.array([-32768, -1, 0, 1, 32767, 5, -5, 9], np.int16),
    "i32": np.array([-2**31, -1, 0, 1, 2**31 - 1, 5, -5, 9], np.int32),
    "i64": np.array([-2**63, -1, 0, 1, 2**63 - 1, 5, -5, 9], np.int64),
    "f16": np.array([0.0, -0.0, 1.5, -2.25, 65504.0, 6e-8, np.inf, np.nan], np.float16),
    "f32": np.array([0.0, -0.0, 1.5, -2.25, 3.4e38, 1e-45, -np.inf, np.nan], np.float32),
    "f64": np.array([0.0, -0.0, 1.5, -2.25, 1.7e308, 5e-324, np.inf, np.nan], np.float64),
    "bf16": vyre.bf16.from_float32(np.array([0.0, 1.0, -2.0, 3.5, 1e30, -1e-30, np.inf, 0.15625], np.float32)),
    "bool": np.array([True, False, True, True, False, False, True, False]),
}


def test_samples_cover_every_storage_type():
    assert sorted(SAMPLES) == sorted(vyre.TYPES)


@pytest.mark.parametrize("element", sorted(SAMPLES))
def test_every_storage_type_round_trips_with_its_dtype(ref, element):
    x = SAMPLES[element]
    out = ref.run(copy_program(element), x=x)
    assert out.dtype == vyre.dtype_of(element) == x.dtype
    assert out.tobytes() == x.tobytes()  # bit for bit (NaN payloads, -0)


def test_dtype_mapping():
    assert vyre.dtype_of("f16") == np.float16
    assert vyre.dtype_of("bf16") == np.uint16
    assert vyre.dtype_of("bool") == np.bool_


def test_bf16_helpers_round_to_nearest_even():
    values = np.array([1.0, 1.00390625, 1.01171875, -3.0, np.nan], np.float32)
    bits = vyre.bf16.from_float32(values)
    assert list(bits[:4]) == [0x3F80, 0x3F80, 0x3F82, 0xC040]
    back = vyre.bf16.to_float32(bits)
    assert list(back[:4]) == [1.0, 1.0, 1.015625, -3.0] and np.isnan(back[4])


def test_xor(ref):
    a = np.arange(1024, dtype=np.uint32) * np.uint32(2654435761)
    b = ~np.arange(1024, dtype=np.uint32)
    p = xor_program()
    np.testing.assert_array_equal(ref.run(p, a=a, b=b), a ^ b)
    np.testing.assert_array_equal(ref.run(p, a, b), a ^ b)  # positional, declaration order
    np.testing.assert_array_equal(ref.run(p, a, b=b), a ^ b)


def test_softmax_matches_numpy(ref):
    x = np.random.default_rng(1).standard_normal((256, 64)).astype(np.float32)
    out = ref.run(softmax_program(), x=x).reshape(256, 64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out, e / e.sum(axis=1, keepdims=True), rtol=1e-5)


def test_histogram_with_a_runtime_sized_input(ref):
    values = np.random.default_rng(2).integers(0, 1000, 5000).astype(np.uint32)
    hist = ref.run(histogram_program(), vyre.Config(elements=values.size), values=values)
    np.testing.assert_array_equal(hist, np.bincount(values % 16, minlength=16))


def test_lists_and_strided_arrays_are_converted(ref):
    p = copy_program("i32")
    np.testing.assert_array_equal(ref.run(p, x=[1, 2, 3, 4, 5, 6, 7, 8]), np.arange(1, 9, dtype=np.int32))
    strided = np.arange(16, dtype=np.int32)[::2]
    np.testing.assert_array_equal(ref.run(p, x=strided), strided)


def test_views_offsets_and_byte_order_are_taken_by_value(ref):
    p = copy_program("i32")
    base = np.arange(20, dtype=np.int32)
    np.testing.assert_array_equal(ref.run(p, x=base[5:13]), np.arange(5, 13))  # offset view, no copy
    np.testing.assert_array_equal(ref.run(p, x=base[:8].reshape(2, 4)), np.arange(8))  # 2-D, C order
    np.testing.assert_array_equal(ref.run(p, x=base[:8].reshape(4, 2).T), [0, 2, 4, 6, 1, 3, 5, 7])  # F order
    swapped = np.arange(8, dtype=">i4") * 1000 - 3
    np.testing.assert_array_equal(ref.run(p, x=swapped), np.arange(8) * 1000 - 3)

    class Tagged(np.ndarray):
        pass

    np.testing.assert_array_equal(ref.run(p, x=base[:8].view(Tagged)), np.arange(8))


def test_an_input_named_program_is_taken_by_keyword(ref):
    k = vyre.ProgramBuilder(workgroup=8)
    x = k.buffer("program", "read", "u32", 8)
    out = k.buffer("out", "output", "u32", 8)
    i = k.let("i", k.invocation_id())
    out[i] = x[i] + 1
    p = k.build()
    np.testing.assert_array_equal(ref.run(p, np.arange(8, dtype=np.uint32)), np.arange(1, 9))
    with pytest.raises(TypeError):  # the method's own first parameter, given twice
        ref.run(p, program=np.arange(8, dtype=np.uint32))


def test_a_wrong_dtype_is_an_error_with_a_fix(ref):
    with pytest.raises(vyre.errors.InvalidArgumentError) as e:
        ref.run(copy_program("f32"), x=np.zeros(8, np.float64))
    assert "float32" in e.value.fix


@pytest.mark.parametrize("call", [
    lambda ref, p: ref.run(p, a=np.zeros(1024, np.uint32)),                              # missing
    lambda ref, p: ref.run(p, a=np.zeros(1024, np.uint32), b=np.zeros(1024, np.uint32), c=1),  # unknown
    lambda ref, p: ref.run(p, np.zeros(1024, np.uint32), a=np.zeros(1024, np.uint32)),     # twice
])
def test_bad_arguments_are_invalid_argument(ref, call):
    with pytest.raises(vyre.VyreError) as e:
        call(ref, xor_program())
    assert e.value.code == 1


def test_a_wrong_length_is_reported_by_the_backend(ref):
    with pytest.raises(vyre.VyreError) as e:
        ref.run(xor_program(), a=np.zeros(10, np.uint32), b=np.zeros(1024, np.uint32))
    assert e.value.code == 1 and e.value.fix


def test_several_outputs_come_back_as_a_tuple(ref):
    k = vyre.ProgramBuilder(workgroup=4)
    x = k.buffer("x", "read_write", "u32", 4)
    y = k.buffer("y", "output", "f32", 4)
    i = k.let("i", k.invocation_id())
    x[i] = x[i] + 1
    y[i] = x[i].cast("f32") * 0.5
    new_x, new_y = ref.run(k.build(), x=np.array([1, 2, 3, 4], np.uint32))
    np.testing.assert_array_equal(new_x, [2, 3, 4, 5])
    np.testing.assert_array_equal(new_y, [1.0, 1.5, 2.0, 2.5])


def test_config(ref):
    k = vyre.ProgramBuilder(workgroup=4)
    out = k.buffer("out", "output", "u32", 16)
    i = k.let("i", k.invocation_id())
    out[i] = i + 1
    p = k.build()
    np.testing.assert_array_equal(ref.run(p, vyre.Config(elements=6)), [1, 2, 3, 4, 5, 6] + [0] * 10)
    assert vyre.Config(grid=2).grid == (2, 1, 1) and vyre.Config().grid is None
    assert vyre.Config(workgroup=[8, 2]).workgroup == (8, 2, 1)


def test_async_timed_and_pipeline_agree_with_run(ref):
    a = np.arange(1024, dtype=np.uint32)
    b = np.full(1024, 0xFFFF, np.uint32)
    p = xor_program()
    expected = ref.run(p, a=a, b=b)
    pending = ref.run_async(p, a=a, b=b)
    assert pending.wait_for(10.0)
    np.testing.assert_array_equal(pending.wait(), expected)
    timed, timing = ref.run_timed(p, a=a, b=b)
    np.testing.assert_array_equal(timed, expected)
    assert timing["wall_ns"] > 0 and set(timing) == {"wall_ns", "device_ns", "enqueue_ns", "wait_ns"}
    pipe = ref.pipeline(p)
    for _ in range(3):
        np.testing.assert_array_equal(pipe.run(a=a, b=b), expected)


def test_async_keeps_its_outputs_alive(ref):
    import gc
    p = xor_program()
    pendings = [ref.run_async(p, a=np.full(1024, k, np.uint32), b=np.zeros(1024, np.uint32)) for k in range(8)]
    gc.collect()
    for k, pending in enumerate(pendings):
        assert (pending.wait() == k).all()
