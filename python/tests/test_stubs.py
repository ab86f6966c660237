"""The type stubs declare exactly what the modules define."""
import ast
import os

import vyre
from vyre import _vyre, ops

HERE = os.path.dirname(vyre.__file__)


def stub_names(name):
    tree = ast.parse(open(os.path.join(HERE, name)).read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            names.add(node.target.id)
    return names


def test_extension_stub_matches_the_extension():
    public = {n for n in dir(_vyre) if not n.startswith("__")}
    assert stub_names("_vyre.pyi") == public


def test_ops_stub_matches_the_generated_functions():
    assert stub_names("ops.pyi") == set(ops.__all__)


def public_members(names):
    return {n for n in names if not n.startswith("_") or n.startswith("__dlpack")}


def test_extension_classes_match_their_stubs():
    tree = ast.parse(open(os.path.join(HERE, "_vyre.pyi")).read())
    classes = [node for node in tree.body if isinstance(node, ast.ClassDef) and isinstance(getattr(_vyre, node.name, None), type)]
    assert len(classes) >= 10
    for node in classes:
        stub = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        stub |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        assert public_members(stub) == public_members(dir(getattr(_vyre, node.name))), node.name
