"""run_resident's argument handling, on reference_cpu: every way of binding a resident dispatch
gives the same result, and every wrong call the same error, whichever path of the binding takes it
(run_resident's fast entry, or _run_resident, the general binding it hands the other calls to)."""
import numpy as np
import pytest

import vyre
from kernels import xor_program


def add_one_program(n=256, name="x"):
    k = vyre.ProgramBuilder(workgroup=64)
    x = k.buffer(name, "read_write", "u32", n)
    i = k.let("i", k.invocation_id())
    with k.if_(i < n):
        x[i] = x[i] + 1
    return k.build()


@pytest.fixture()
def xor(ref):
    a = np.arange(1024, dtype=np.uint32)
    b = np.full(1024, 0x5A5A, np.uint32)
    return xor_program(), ref.to_device(a), ref.to_device(b), ref.alloc(4096, "uint32"), a ^ b


def both(ref, *args, **kwargs):
    """Call run_resident and its general binding the same way; the errors they raise (or None)."""
    outcomes = []
    for call in (ref.run_resident, ref._run_resident):
        try:
            call(*args, **kwargs)
            outcomes.append(None)
        except Exception as e:  # noqa: BLE001: compared below
            outcomes.append(e)
    return outcomes


@pytest.mark.parametrize("how", ["keywords", "positions", "mixed", "reordered keywords", "program by keyword"])
def test_every_way_of_binding_the_buffers_dispatches_the_same(ref, xor, how):
    program, a, b, out, expected = xor
    if how == "keywords":
        ref.run_resident(program, a=a, b=b, out=out)
    elif how == "positions":
        ref.run_resident(program, a, b, out)
    elif how == "mixed":
        ref.run_resident(program, a, out=out, b=b)
    elif how == "reordered keywords":
        ref.run_resident(program, out=out, b=b, a=a)
    else:
        ref.run_resident(program=program, a=a, b=b, out=out)
    np.testing.assert_array_equal(out.download(np.uint32), expected)


def test_a_config_first_is_the_dispatch_config(ref):
    x = ref.to_device(np.zeros(256, np.uint32))
    ref.run_resident(add_one_program(), vyre.Config(elements=10), x=x)
    ref.run_resident(add_one_program(), vyre.Config(elements=10), x)
    np.testing.assert_array_equal(x.download(np.uint32), [2] * 10 + [0] * 246)


def test_resident_buffers_arrays_and_dlpack_objects_bind_together(ref, xor):
    program, a, _, out, _ = xor
    b = np.full(1024, 7, np.uint32)
    host_out = np.zeros(1024, np.uint32)
    ref.run_resident(program, a=a, b=b, out=out)  # an array for a read buffer: host bytes
    np.testing.assert_array_equal(out.download(np.uint32), np.arange(1024, dtype=np.uint32) ^ 7)
    ref.run_resident(program, a=b, b=a, out=host_out)  # a NumPy output through DLPack
    np.testing.assert_array_equal(host_out, np.arange(1024, dtype=np.uint32) ^ 7)


@pytest.mark.parametrize("case", ["unknown name", "bound twice", "unbound", "too many", "no program", "not a program",
                                  "a list for an output", "program twice", "keyword not a str"])
def test_a_wrong_call_raises_what_the_general_binding_raises(ref, xor, case):
    program, a, b, out, _ = xor
    args, kwargs = {
        "unknown name": ((program,), {"a": a, "b": b, "out": out, "c": a}),
        "bound twice": ((program, a), {"a": a, "b": b, "out": out}),
        "unbound": ((program,), {"a": a, "b": b}),
        "too many": ((program, a, b, out, out), {}),
        "no program": ((), {"a": a, "b": b, "out": out}),
        "not a program": ((a, a, b, out), {}),
        "a list for an output": ((program,), {"a": a, "b": b, "out": [0] * 1024}),
        "program twice": ((program,), {"program": program, "a": a, "b": b, "out": out}),
        "keyword not a str": ((program,), {"a": a, "b": b, "out": out}),
    }[case]
    if case == "keyword not a str":
        # A keyword mapping whose keys are not all str cannot be passed with **; the name check
        # sees a str subclass instead, which must match by its value.
        class Name(str):
            pass
        kwargs = {Name("a"): a, "b": b, "out": out}
        ref.run_resident(*args, **kwargs)
        return
    fast, general = both(ref, *args, **kwargs)
    assert fast is not None and general is not None
    assert type(fast) is type(general) and str(fast) == str(general)
    if isinstance(fast, vyre.VyreError):
        assert fast.code == general.code and fast.message == general.message


def test_a_buffer_named_program_is_bound_as_the_general_binding_binds_it(ref):
    p = add_one_program(name="program")
    x = ref.to_device(np.zeros(256, np.uint32))
    ref.run_resident(p, x)
    np.testing.assert_array_equal(x.download(np.uint32), np.ones(256))
    fast, general = both(ref, p, program=x)
    assert type(fast) is type(general) and str(fast) == str(general)


def test_errors_raised_during_the_dispatch_keep_their_class(registry, ref, xor):
    program, a, b, out, _ = xor
    freed = ref.alloc(4096, "uint32")
    freed.free()
    with pytest.raises(vyre.errors.InvalidHandleError):
        ref.run_resident(program, a=a, b=b, out=freed)
    other = registry.create("reference_cpu").alloc(4096, "uint32")
    with pytest.raises(vyre.errors.InvalidHandleError):
        ref.run_resident(program, a=a, b=b, out=other)

    class Broken:
        def __dlpack__(self, **kwargs):
            raise KeyError("the producer's own error")

        def __dlpack_device__(self):
            return (1, 0)

    with pytest.raises(KeyError, match="the producer's own error"):
        ref.run_resident(program, a=a, b=b, out=Broken())


def test_more_buffers_than_fit_on_the_stack_bind_too(ref):
    n = 12  # above the fast entry's eight inline bindings
    k = vyre.ProgramBuilder(workgroup=64)
    bufs = [k.buffer(f"in{j}", "read", "u32", 64) for j in range(n - 1)]
    out = k.buffer("out", "output", "u32", 64)
    i = k.let("i", k.invocation_id())
    total = bufs[0][i]
    for buf in bufs[1:]:
        total = total + buf[i]
    out[i] = total
    program = k.build()
    inputs = [ref.to_device(np.full(64, j, np.uint32)) for j in range(n - 1)]
    result = ref.alloc(256, "uint32")
    ref.run_resident(program, *inputs, out=result)
    np.testing.assert_array_equal(result.download(np.uint32), np.full(64, sum(range(n - 1))))
    result2 = ref.alloc(256, "uint32")
    ref.run_resident(program, *inputs[:3], np.full(64, 3, np.uint32), *inputs[4:], result2)  # one array among them
    np.testing.assert_array_equal(result2.download(np.uint32), np.full(64, sum(range(n - 1))))


def test_the_cpp_loop_of_the_benchmarks_dispatches(ref, xor):
    program, a, b, out, expected = xor
    assert ref._cpp_resident_loop(program, [a, b, out], 3) > 0
    np.testing.assert_array_equal(out.download(np.uint32), expected)
