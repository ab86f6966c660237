"""The registry from Python: discovery (the build tree's plugins for a build-tree module),
selection, routing, errors."""
import os

import pytest

import vyre
from kernels import xor_program


def test_the_default_directory_is_the_one_next_to_the_library(registry):
    plugin_dir = os.path.realpath(os.path.join(vyre.library_dir(), "vyre", "plugins"))
    assert registry.search_dirs == [plugin_dir]
    assert registry.plugins and all(os.path.dirname(p.path) == plugin_dir for p in registry.plugins)
    ref = registry.find("reference_cpu")
    assert ref is not None and ref.reference_oracle and ref.rank == 900 and "dispatch" in ref.capabilities
    assert registry.find("nothing") is None


def test_without_default_dirs_nothing_is_found():
    assert vyre.Registry(use_environment=False, use_default_dirs=False).plugins == []


def test_an_explicit_directory_comes_first(tmp_path):
    r = vyre.Registry([str(tmp_path)], use_environment=False)
    assert r.search_dirs[0] == str(tmp_path)


def test_route_and_select(registry):
    route = registry.route(xor_program())
    assert route.plugin.id in registry.ids() and "bin.xor.u32" in route.ops and route.reason
    assert registry.select().backend.id in registry.ids()
    assert registry.probe("reference_cpu") is None


def test_an_unknown_backend_is_not_found(registry):
    with pytest.raises(vyre.errors.NotFoundError) as e:
        registry.backend("no_such_backend")
    assert e.value.code == 14 and "reference_cpu" in e.value.message and e.value.fix


def test_a_new_instance_with_options(registry):
    b = registry.create("reference_cpu", worker_threads=2, reverse_workgroups=True)
    assert b.id == "reference_cpu" and b.device["kind"] == "cpu"
    assert isinstance(b.metrics(), dict)
