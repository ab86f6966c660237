"""The IR's operators as functions, generated from the C++ lists (vyre.BIN_OPS, vyre.UN_OPS,
vyre.REDUCE_OPS): ``vyre.exp(x)``, ``vyre.min(a, b)``, ``vyre.rotl(a, b)``, ``vyre.popcount(x)``,
``vyre.reduce_add(x)``... A name that is a Python keyword gets a trailing underscore
(``vyre.and_``, ``vyre.or_``, ``vyre.not_``). ops.pyi declares them for type checkers (a test
checks that it lists exactly these).
"""
from __future__ import annotations

import keyword

from . import _vyre
from .builder import Expr, Operand, binary, reduce, unary


def _name(op: str) -> str:
    return op + "_" if keyword.iskeyword(op) else op


def _make_binary(op: str):
    def f(a: Operand, b: Operand) -> Expr:
        return binary(op, a, b)
    f.__name__ = _name(op)
    f.__doc__ = f"The IR binary operator '{op}'."
    return f


def _make_unary(op: str):
    def f(a: Operand) -> Expr:
        return unary(op, a)
    f.__name__ = _name(op)
    f.__doc__ = f"The IR unary operator '{op}'."
    return f


def _make_reduce(op: str):
    def f(value: Expr) -> Expr:
        return reduce(op, value)
    f.__name__ = "reduce_" + op
    f.__doc__ = f"The subgroup reduction '{op}'."
    return f


__all__: list[str] = []
for _op in _vyre.BIN_OPS:
    globals()[_name(_op)] = _make_binary(_op)
    __all__.append(_name(_op))
for _op in _vyre.UN_OPS:
    globals()[_name(_op)] = _make_unary(_op)
    __all__.append(_name(_op))
for _op in _vyre.REDUCE_OPS:
    globals()["reduce_" + _op] = _make_reduce(_op)
    __all__.append("reduce_" + _op)
