"""Build vyre programs in Python. The result is the very IR the C++ ``vyre::ProgramBuilder`` makes
(the same ``vyre::dsl`` functions build every node), so equal programs have equal wire bytes and
fingerprints in both languages.

    import vyre
    k = vyre.ProgramBuilder(workgroup=64)
    x = k.buffer("x", "read", "f32")
    out = k.buffer("out", "output", "f32", 1024)
    i = k.let("i", k.invocation_id())
    with k.if_(i < x.len()):
        out[i] = vyre.exp(x[i]) * 2.0
    program = k.build()

Expressions use Python's operators: ``+ - * / % & | ^ << >>``, unary ``-`` and ``~``, and the six
comparisons ``< <= > >= == !=`` (each builds an IR comparison; an expression has no truth value,
so ``if i < n:`` raises: write ``with k.if_(i < n):``). ``and``/``or``/``not`` cannot be overloaded:
use ``vyre.logical_and``/``logical_or``/``logical_not``. A Python number next to an expression becomes
a literal of that expression's type (``x[i] * 2.0`` is an f32 multiply when ``x`` holds f32); a
literal alone needs its type: ``vyre.lit(2.0, "f32")``. Indices given as Python ints are u32.
"""
from __future__ import annotations

import contextlib
from typing import Iterator, Optional, Sequence, Union

from . import _vyre
from .errors import error_class

Scalar = Union[bool, int, float]
Operand = Union["Expr", Scalar]

_INVALID_ARGUMENT = 1


def _invalid(problem: str, fix: str) -> Exception:
    return error_class(_INVALID_ARGUMENT)(_INVALID_ARGUMENT, f"{problem}. Fix: {fix}")


class Expr:
    """An IR expression under construction. ``.ir`` is the C++ expression, ``.type`` its value type."""

    __slots__ = ("ir", "_builder")
    __hash__ = None  # type: ignore[assignment]  # == builds an expression

    def __init__(self, ir: _vyre.Expr, builder: Optional["ProgramBuilder"] = None) -> None:
        self.ir = ir
        self._builder = builder

    @property
    def type(self) -> Optional[str]:
        """The value type ("u32", "f32", ...), or None when the expression is ill-typed."""
        if self._builder is None:
            return _vyre.expr_type(self.ir, [], [])
        return self._builder._type_of(self.ir)

    def __bool__(self) -> bool:
        raise TypeError("a vyre expression has no truth value while a program is built: write "
                        "`with k.if_(cond):`, and vyre.logical_and/logical_or/logical_not for and/or/not")

    def __repr__(self) -> str:
        return f"<vyre.Expr {self.ir.kind}: {self.type}>"

    def cast(self, to: str) -> "Expr":
        return Expr(_vyre.cast(to, self.ir), self._builder)

    def bitcast(self, to: str) -> "Expr":
        return Expr(_vyre.bitcast(to, self.ir), self._builder)

    # Arithmetic, bitwise and comparison operators (operator name, then the IR operator).
    def __add__(self, o: Operand) -> "Expr": return binary("add", self, o)
    def __radd__(self, o: Operand) -> "Expr": return binary("add", o, self)
    def __sub__(self, o: Operand) -> "Expr": return binary("sub", self, o)
    def __rsub__(self, o: Operand) -> "Expr": return binary("sub", o, self)
    def __mul__(self, o: Operand) -> "Expr": return binary("mul", self, o)
    def __rmul__(self, o: Operand) -> "Expr": return binary("mul", o, self)
    def __truediv__(self, o: Operand) -> "Expr": return binary("div", self, o)
    def __rtruediv__(self, o: Operand) -> "Expr": return binary("div", o, self)
    def __floordiv__(self, o: Operand) -> "Expr": return binary("div", self, o)
    def __rfloordiv__(self, o: Operand) -> "Expr": return binary("div", o, self)
    def __mod__(self, o: Operand) -> "Expr": return binary("mod", self, o)
    def __rmod__(self, o: Operand) -> "Expr": return binary("mod", o, self)
    def __and__(self, o: Operand) -> "Expr": return binary("and", self, o)
    def __rand__(self, o: Operand) -> "Expr": return binary("and", o, self)
    def __or__(self, o: Operand) -> "Expr": return binary("or", self, o)
    def __ror__(self, o: Operand) -> "Expr": return binary("or", o, self)
    def __xor__(self, o: Operand) -> "Expr": return binary("xor", self, o)
    def __rxor__(self, o: Operand) -> "Expr": return binary("xor", o, self)
    def __lshift__(self, o: Operand) -> "Expr": return binary("shl", self, o)
    def __rlshift__(self, o: Operand) -> "Expr": return binary("shl", o, self)
    def __rshift__(self, o: Operand) -> "Expr": return binary("shr", self, o)
    def __rrshift__(self, o: Operand) -> "Expr": return binary("shr", o, self)
    def __lt__(self, o: Operand) -> "Expr": return binary("lt", self, o)
    def __le__(self, o: Operand) -> "Expr": return binary("le", self, o)
    def __gt__(self, o: Operand) -> "Expr": return binary("gt", self, o)
    def __ge__(self, o: Operand) -> "Expr": return binary("ge", self, o)
    def __eq__(self, o: Operand) -> "Expr": return binary("eq", self, o)  # type: ignore[override]
    def __ne__(self, o: Operand) -> "Expr": return binary("ne", self, o)  # type: ignore[override]
    def __neg__(self) -> "Expr": return unary("neg", self)
    def __invert__(self) -> "Expr": return unary("not", self)


def lit(value: Scalar, type: str) -> Expr:
    """A literal of an explicit value type: ``lit(2.0, "f32")``, ``lit(7, "u64")``, ``lit(True, "bool")``."""
    return Expr(_vyre.lit(type, value))


def _builder_of(*operands: object) -> Optional["ProgramBuilder"]:
    for o in operands:
        if isinstance(o, Expr) and o._builder is not None:
            return o._builder
    return None


def as_expr(value: Operand, like: Optional[str] = None, builder: Optional["ProgramBuilder"] = None) -> Expr:
    """`value` as an expression: an Expr as it is, a Python number as a literal of type `like`."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, Buffer):
        raise _invalid(f"buffer '{value.name}' used as a value", f"index it: {value.name}[i]")
    if like is None:
        raise _invalid(f"the literal {value!r} has no type here", "write vyre.lit(value, type)")
    return Expr(_vyre.lit(like, value), builder)


def _coerce(*operands: Operand) -> list[Expr]:
    """Expressions for operands where Python numbers take the type of the first Expr among them."""
    builder = _builder_of(*operands)
    like = next((o.type for o in operands if isinstance(o, Expr)), None)
    return [as_expr(o, like, builder) for o in operands]


def binary(op: str, a: Operand, b: Operand) -> Expr:
    """The binary operator `op` (a name of vyre.BIN_OPS) applied to a and b."""
    x, y = _coerce(a, b)
    return Expr(_vyre.bin(op, x.ir, y.ir), _builder_of(x, y))


def unary(op: str, a: Operand) -> Expr:
    """The unary operator `op` (a name of vyre.UN_OPS) applied to a."""
    (x,) = _coerce(a)
    return Expr(_vyre.un(op, x.ir), x._builder)


def select(cond: Operand, a: Operand, b: Operand) -> Expr:
    """a where cond, else b (both evaluated)."""
    x, y = _coerce(a, b)
    (c,) = _coerce(cond) if isinstance(cond, Expr) else [as_expr(cond, "bool")]
    return Expr(_vyre.select(c.ir, x.ir, y.ir), _builder_of(c, x, y))


def cast(to: str, value: Expr) -> Expr:
    """Convert value to type `to` (SPEC §2 casts)."""
    return value.cast(to)


def bitcast(to: str, value: Expr) -> Expr:
    return value.bitcast(to)


def fma(a: Operand, b: Operand, c: Operand) -> Expr:
    """a * b + c, rounded once."""
    x, y, z = _coerce(a, b, c)
    return Expr(_vyre.fma(x.ir, y.ir, z.ir), _builder_of(x, y, z))


def ballot(cond: Expr) -> Expr:
    return Expr(_vyre.ballot(cond.ir), cond._builder)


def shuffle(value: Expr, lane: Operand) -> Expr:
    return Expr(_vyre.shuffle(value.ir, as_expr(lane, "u32", value._builder).ir), value._builder)


def reduce(op: str, value: Expr) -> Expr:
    """Subgroup reduction `op` (a name of vyre.REDUCE_OPS) of value."""
    return Expr(_vyre.reduce(op, value.ir), value._builder)


def _index(value: Operand, builder: "ProgramBuilder") -> Expr:
    return as_expr(value, "u32", builder)


class Buffer:
    """A declared buffer: ``buf[i]`` loads, ``buf[i] = v`` stores, ``buf.len()`` is its bound length."""

    def __init__(self, builder: "ProgramBuilder", name: str, element: str) -> None:
        self._builder = builder
        self.name = name
        self.element = element

    def __getitem__(self, index: Operand) -> Expr:
        return Expr(_vyre.load(self.name, _index(index, self._builder).ir), self._builder)

    def __setitem__(self, index: Operand, value: Operand) -> None:
        self._builder.store(self, index, value)

    def len(self) -> Expr:
        return Expr(_vyre.buf_len(self.name), self._builder)

    def atomic(self, op: str, index: Operand, value: Operand, expected: Optional[Operand] = None) -> Expr:
        """Atomic `op` (a name of vyre.ATOMIC_OPS) on element `index`; yields the old element."""
        like = _vyre.widen(self.element)
        v = as_expr(value, like, self._builder)
        e = None if expected is None else as_expr(expected, like, self._builder).ir
        return Expr(_vyre.atomic(op, self.name, _index(index, self._builder).ir, v.ir, e), self._builder)

    def atomic_add(self, index: Operand, value: Operand) -> Expr:
        return self.atomic("add", index, value)

    def compare_exchange(self, index: Operand, expected: Operand, value: Operand) -> Expr:
        return self.atomic("compare_exchange", index, value, expected)

    def __repr__(self) -> str:
        return f"<vyre.Buffer {self.name}: {self.element}>"


class _PendingIf:
    """An If at the open level: an else_ may still attach to it."""

    def __init__(self, cond: _vyre.Expr, then_body: list) -> None:
        self.cond = cond
        self.then_body = then_body
        self.else_body: Optional[list] = None

    def node(self) -> _vyre.Node:
        return _vyre.if_(self.cond, self.then_body, self.else_body or [])


def _final(body: list) -> list:
    return [n.node() if isinstance(n, _PendingIf) else n for n in body]


def _axes(value: Union[int, Sequence[int]]) -> list[int]:
    return [value] if isinstance(value, int) else list(value)


class ProgramBuilder:
    """Statement-by-statement program construction (the Python twin of vyre::ProgramBuilder).

    Nested bodies are ``with`` blocks: ``if_``, ``else_`` (right after an ``if_``), ``loop``, ``block``.
    """

    def __init__(self, workgroup: Union[int, Sequence[int]] = 1) -> None:
        self._workgroup = _axes(workgroup)
        self._buffers: list[_vyre.BufferDecl] = []
        self._bodies: list[list] = [[]]
        self._scopes: list[list[tuple[str, str]]] = [[]]

    # ---- declarations ----
    def workgroup(self, x: int, y: int = 1, z: int = 1) -> "ProgramBuilder":
        self._workgroup = [x, y, z]
        return self

    def buffer(self, name: str, access: str, element: str, count: int = 0) -> Buffer:
        """Declare a buffer with the next free binding. `access`: read, uniform, read_write, output, workgroup."""
        self._buffers.append(_vyre.buffer_decl(name, len(self._buffers), access, element, count, None))
        return Buffer(self, name, element)

    def output_range(self, buffer: Buffer, begin: int, end: int) -> None:
        """Trim the host output of `buffer` to bytes [begin, end)."""
        for k, d in enumerate(self._buffers):
            if d.name == buffer.name:
                self._buffers[k] = _vyre.buffer_decl(d.name, d.binding, d.access, d.element, d.count, (begin, end))

    # ---- builtins ----
    def invocation_id(self, axis: int = 0) -> Expr: return Expr(_vyre.builtin("invocation_id", axis), self)
    def local_id(self, axis: int = 0) -> Expr: return Expr(_vyre.builtin("local_id", axis), self)
    def workgroup_id(self, axis: int = 0) -> Expr: return Expr(_vyre.builtin("workgroup_id", axis), self)
    def num_workgroups(self, axis: int = 0) -> Expr: return Expr(_vyre.builtin("num_workgroups", axis), self)
    def subgroup_lane(self) -> Expr: return Expr(_vyre.builtin("subgroup_lane"), self)
    def subgroup_size(self) -> Expr: return Expr(_vyre.builtin("subgroup_size"), self)

    def var(self, name: str) -> Expr:
        """A variable in scope, by name."""
        return Expr(_vyre.var(name), self)

    # ---- statements ----
    def emit(self, node: _vyre.Node) -> None:
        self._bodies[-1].append(node)

    def let(self, name: str, value: Operand) -> Expr:
        """Bind `name` to value; returns the variable."""
        v = as_expr(value, None, self)
        self.emit(_vyre.let_(name, v.ir))
        t = self._type_of(v.ir)
        if t is not None:  # an ill-typed value: the validator says why when the program is used
            self._scopes[-1].append((name, t))
        return Expr(_vyre.var(name), self)

    def assign(self, variable: Union[str, Expr], value: Operand) -> None:
        """Assign to a variable bound by let (by name or the Expr let returned)."""
        name = variable if isinstance(variable, str) else _vyre_var_name(variable)
        like = next((t for n, t in reversed(self._all_vars()) if n == name), None)
        self.emit(_vyre.assign(name, as_expr(value, like, self).ir))

    def store(self, buffer: Buffer, index: Operand, value: Operand) -> None:
        v = as_expr(value, _vyre.widen(buffer.element), self)
        self.emit(_vyre.store(buffer.name, _index(index, self).ir, v.ir))

    def ret(self) -> None: self.emit(_vyre.ret())
    def barrier(self) -> None: self.emit(_vyre.barrier())
    def grid_sync(self) -> None: self.emit(_vyre.grid_sync())

    @contextlib.contextmanager
    def if_(self, cond: Operand) -> Iterator[None]:
        c = as_expr(cond, "bool", self)
        body = yield from self._nested()
        self._bodies[-1].append(_PendingIf(c.ir, body))

    @contextlib.contextmanager
    def else_(self) -> Iterator[None]:
        """The else body of the if_ just closed at this level."""
        body = self._bodies[-1]
        if not body or not isinstance(body[-1], _PendingIf) or body[-1].else_body is not None:
            raise _invalid("else_ without an if_ right before it", "open `with k.else_():` right after `with k.if_(...)`")
        pending = body[-1]
        pending.else_body = yield from self._nested()

    @contextlib.contextmanager
    def loop(self, name: str, start: Operand, end: Operand) -> Iterator[Expr]:
        """``for name in [start, end)`` (u32); yields the loop variable."""
        s, e = as_expr(start, "u32", self), as_expr(end, "u32", self)
        self._bodies.append([])
        self._scopes.append([(name, "u32")])
        try:
            yield Expr(_vyre.var(name), self)
        finally:
            self._scopes.pop()
            body = _final(self._bodies.pop())
        self.emit(_vyre.loop(name, s.ir, e.ir, body))

    @contextlib.contextmanager
    def block(self) -> Iterator[None]:
        body = yield from self._nested()
        self.emit(_vyre.block(body))

    def build(self) -> _vyre.Program:
        """The program built so far (the builder can go on)."""
        if len(self._bodies) != 1:
            raise _invalid("build() inside an open with-block", "call build() after every with-block closed")
        return _vyre.Program(list(self._buffers), self._workgroup, _final(self._bodies[0]))

    # ---- internals ----
    def _nested(self):
        self._bodies.append([])
        self._scopes.append([])
        try:
            yield
        finally:
            self._scopes.pop()
            body = _final(self._bodies.pop())
        return body

    def _all_vars(self) -> list[tuple[str, str]]:
        return [v for scope in self._scopes for v in scope]

    def _type_of(self, ir: _vyre.Expr) -> Optional[str]:
        return _vyre.expr_type(ir, self._buffers, self._all_vars())


def _vyre_var_name(e: Expr) -> str:
    name = _vyre.var_name(e.ir)
    if name is None:
        raise _invalid("assign needs a variable", "pass the name or the Expr that let() returned")
    return name
