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
