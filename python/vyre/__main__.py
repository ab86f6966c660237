"""python3 -m vyre backends | run | validate | conform: the vyre CLI's commands from Python.

    python3 -m vyre backends [--available] [--plugins DIR]
    python3 -m vyre run PROGRAM [--backend ID] [--input NAME=FILE.npy]... [--random SEED | --zeros]
                                [--max-values N]
    python3 -m vyre validate PROGRAM...
    python3 -m vyre conform [--program PROGRAM] [vyre-conform options...]

`run` prints each output's name, dtype and values; inputs come from .npy files or are filled with
zeros or seeded random values (fixed-size buffers only). `conform` runs the vyre-conform installed
with this package (next to its libraries: <prefix>/bin); --program certifies the ops a program uses.
Exit status: 0 on success, 1 when something failed (the error's code and Fix: text are printed),
2 for a usage error.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

from . import Registry, VyreError, dtype_of, library_dir, load


def _registry(args: argparse.Namespace) -> Registry:
    return Registry(args.plugins or [])


def cmd_backends(args: argparse.Namespace) -> int:
    registry = _registry(args)
    if args.available:
        for p in registry.plugins:
            if registry.probe(p.id) is None:
                print(p.id)
        return 0
    print("search directories:")
    for d in registry.search_dirs:
        print(f"  {d}")
    print(f"backends ({len(registry.plugins)} loaded, selection order):")
    for p in registry.plugins:
        why = registry.probe(p.id)
        print(f"  {p.id} {p.version}  rank {p.rank}  abi {p.abi[0]}.{p.abi[1]}  {len(p.ops)} ops declared")
        print(f"    capabilities: {', '.join(p.capabilities) or 'none'}")
        print(f"    file: {p.path}")
        print(f"    create: {'ok' if why is None else 'unavailable: ' + why}")
    print(f"rejected ({len(registry.rejected)}):")
    for r in registry.rejected:
        print(f"  {r.path}: [{r.code}] {r.reason}")
    return 0


def _inputs(program, args: argparse.Namespace) -> dict:
    given = {}
    for spec in args.input:
        name, sep, path = spec.partition("=")
        if not sep:
            raise SystemExit(f"vyre: --input '{spec}' is not NAME=FILE.npy")
        given[name] = np.load(path)
    rng = np.random.default_rng(args.random)
    for decl in program.buffers:
        if decl.name not in program.inputs or decl.name in given:
            continue
        if decl.count == 0 or (args.random is None and not args.zeros):
            raise SystemExit(f"vyre: missing input '{decl.name}' ({decl.element}); pass --input "
                             f"{decl.name}=FILE.npy" + (" (or --zeros / --random SEED)" if decl.count else ""))
        dtype = dtype_of(decl.element)
        if args.zeros:
            given[decl.name] = np.zeros(decl.count, dtype)
        elif dtype.kind == "f":
            given[decl.name] = rng.standard_normal(decl.count).astype(dtype)
        elif dtype.kind == "b":
            given[decl.name] = rng.integers(0, 2, decl.count).astype(bool)
        else:
            info = np.iinfo(dtype)
            given[decl.name] = rng.integers(info.min, info.max, decl.count, dtype=dtype, endpoint=True)
    return given


def cmd_run(args: argparse.Namespace) -> int:
    program = load(args.program)
    registry = _registry(args)
    if args.backend:
        backend = registry.backend(args.backend)
    else:
        route = registry.route(program)
        print(f"backend: {route.plugin.id} ({route.reason})")
        backend = route.backend
    result = backend.run(program, **_inputs(program, args))
    outputs = result if isinstance(result, tuple) else (result,)
    np.set_printoptions(threshold=args.max_values or sys.maxsize, edgeitems=max(1, (args.max_values or 6) // 2))
    for name, array in zip(program.outputs, outputs):
        print(f"{name} ({array.dtype}, {array.size} values): {array}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    status = 0
    for path in args.programs:
        problems = load(path).validate()
        if not problems:
            print(f"{path}: valid")
            continue
        status = 1
        for d in problems:
            print(f"{path}: {d.name} ({d.code}) at {d.path}: {d.message}")
    return status


def cmd_conform(args: argparse.Namespace, rest: list[str]) -> int:
    tool = os.path.join(os.path.dirname(library_dir()), "bin", "vyre-conform")
    if not os.access(tool, os.X_OK):
        print(f"vyre: no vyre-conform next to this package's libraries ({tool}). Fix: install vyre's "
              "tools with the package (cmake --install), or run vyre-conform from a build tree", file=sys.stderr)
        return 1
    command = [tool]
    if args.program:
        for op in load(args.program).ops_used():
            command += ["--ops", op]
    return subprocess.call(command + rest)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python3 -m vyre", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("backends", help="what loaded, what was rejected, what runs here")
    b.add_argument("--available", action="store_true", help="only the ids that can run here")
    r = sub.add_parser("run", help="run a program file")
    r.add_argument("program")
    r.add_argument("--backend")
    r.add_argument("--input", action="append", default=[], metavar="NAME=FILE.npy")
    r.add_argument("--random", type=int, metavar="SEED")
    r.add_argument("--zeros", action="store_true")
    r.add_argument("--max-values", type=int, default=64)
    v = sub.add_parser("validate", help="validate program files")
    v.add_argument("programs", nargs="+")
    c = sub.add_parser("conform", help="certify backends with vyre-conform (other options pass through)")
    c.add_argument("--program", help="certify the ops this program uses")
    for p in (b, r):
        p.add_argument("--plugins", action="append", metavar="DIR", help="also search DIR for plugins")
    args, rest = parser.parse_known_args(argv)
    if rest and args.command != "conform":
        parser.error(f"unrecognized arguments: {' '.join(rest)}")
    try:
        if args.command == "conform":
            return cmd_conform(args, rest)
        return {"backends": cmd_backends, "run": cmd_run, "validate": cmd_validate}[args.command](args)
    except VyreError as e:
        print(f"vyre: [{e.name}] {e.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
