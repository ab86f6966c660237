"""vyre: run GPU compute programs through pluggable backends, from Python (docs/PYTHON.md).

    import numpy as np, vyre
    registry = vyre.Registry()                    # VYRE_PLUGIN_PATH, then the installed plugins
    program = vyre.Program.load("examples/xor.json")
    backend = registry.route(program).backend     # the best backend that can run it here
    out = backend.run(program, a=np.arange(1024, dtype=np.uint32), b=np.ones(1024, np.uint32))

Everything that fails raises vyre.VyreError (or its subclass for the code) with the stable
code and the Fix: text.
"""
from __future__ import annotations

from . import errors
from ._vyre import (ACCESS, ATOMIC_OPS, BIN_OPS, REDUCE_OPS, TYPES, UN_OPS, Backend, Config,
                    Diagnostic, Group, GroupShards, Pending, Pipeline, PluginInfo, Program, Registry,
                    RejectedPlugin, ResidentBuffer, Route, library_dir)
from .builder import Buffer, Expr, ProgramBuilder, as_expr, ballot, bitcast, cast, fma, lit, reduce, select, shuffle
from .dtypes import bf16, dtype_of
from .errors import VyreError
from .ops import *  # noqa: F401,F403  (generated operator functions: exp, min, rotl, ...)

__version__ = "0.1.0"


def from_dlpack(tensor: object, backend: Backend, *, read_only: bool = False) -> ResidentBuffer:
    """The memory of `tensor` (a NumPy array, a torch or CuPy tensor: anything with __dlpack__)
    as a resident buffer of `backend`, without a copy. Same as backend.from_dlpack(tensor)."""
    return backend.from_dlpack(tensor, read_only=read_only)


def load(path: str) -> Program:
    """Read a program file (JSON or wire bytes)."""
    return Program.load(path)
