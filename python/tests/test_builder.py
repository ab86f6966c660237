"""The Python builder makes the very IR the C++ builder makes: equal wire bytes and fingerprints."""
import pytest

import vyre
from kernels import KERNELS


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_python_kernel_equals_cpp_kernel(name, cpp_programs):
    python = KERNELS[name]()
    cpp = cpp_programs[name]
    assert python.to_wire() == cpp.to_wire()
    assert python.fingerprint == cpp.fingerprint
    assert python == cpp


def test_every_kernel_is_valid():
    for make in KERNELS.values():
        assert make().validate() == []


def test_a_changed_kernel_differs(cpp_programs):
    k = vyre.ProgramBuilder(workgroup=64)
    a = k.buffer("a", "read", "u32", 1024)
    b = k.buffer("b", "read", "u32", 1024)
    out = k.buffer("out", "output", "u32", 1024)
    i = k.let("i", k.invocation_id())
    out[i] = a[i] | b[i]  # not xor
    assert k.build().fingerprint != cpp_programs["xor"].fingerprint


def test_python_numbers_take_the_type_of_the_other_operand():
    k = vyre.ProgramBuilder()
    x = k.buffer("x", "read", "f32")
    y = k.buffer("y", "read", "i64")
    assert (x[0] * 2).type == "f32"
    assert (2.5 - x[0]).type == "f32"
    assert (y[0] + 1).type == "i64"
    assert (x[0] < 1).type == "bool"
    assert vyre.lit(3, "u64").type == "u64"


def test_a_literal_that_does_not_fit_is_an_error():
    k = vyre.ProgramBuilder()
    x = k.buffer("x", "read", "u32")
    with pytest.raises(vyre.VyreError) as e:
        x[0] + -1
    assert e.value.code == 1 and e.value.name == "invalid_argument" and e.value.fix
    with pytest.raises(vyre.errors.InvalidArgumentError):
        x[0] * 1.5
    with pytest.raises(vyre.VyreError):
        vyre.lit(1 << 40, "u32")


def test_an_expression_has_no_truth_value():
    k = vyre.ProgramBuilder()
    i = k.let("i", k.invocation_id())
    with pytest.raises(TypeError):
        if i < 3:
            pass


def test_else_needs_an_if_right_before():
    k = vyre.ProgramBuilder()
    with pytest.raises(vyre.VyreError) as e:
        with k.else_():
            pass
    assert e.value.code == 1


def test_build_inside_an_open_block_is_an_error():
    k = vyre.ProgramBuilder()
    with pytest.raises(vyre.VyreError):
        with k.block():
            k.build()


def test_ill_typed_programs_are_caught_by_validate():
    k = vyre.ProgramBuilder()
    x = k.buffer("x", "read", "f32")
    out = k.buffer("out", "output", "u32", 4)
    out[0] = vyre.lit(1, "u32") + x[0]  # u32 + f32
    problems = k.build().validate()
    assert [d.name for d in problems] == ["TypeMismatch"]
    assert problems[0].path.startswith("body[0]") and "Fix:" in problems[0].message


def test_generated_operator_functions_cover_the_cpp_lists():
    import keyword
    for op in vyre.BIN_OPS + vyre.UN_OPS:
        assert callable(getattr(vyre, op + "_" if keyword.iskeyword(op) else op))
    for op in vyre.REDUCE_OPS:
        assert callable(getattr(vyre, "reduce_" + op))
