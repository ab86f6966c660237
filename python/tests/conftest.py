"""Fixtures of the Python package's tests. Run by ctest (python_pytest) with PYTHONPATH at the
build tree's python/ and VYRE_REFERENCE_PROGRAMS_TOOL set; every test uses reference_cpu unless
it says otherwise (test_gpu.py)."""
import os
import subprocess

import pytest

import vyre


@pytest.fixture(scope="session")
def registry():
    return vyre.Registry(use_environment=False)


@pytest.fixture(scope="session")
def ref(registry):
    if registry.find("reference_cpu") is None:  # say why, rather than a bare NotFoundError
        pytest.fail(f"reference_cpu did not load: vyre from {vyre.__file__}, search dirs {registry.search_dirs}, "
                    f"loaded {registry.ids()}, rejected {registry.rejected}")
    return registry.backend("reference_cpu")


@pytest.fixture(scope="session")
def source_dir():
    return os.environ.get("VYRE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.fixture(scope="session")
def cpp_programs(tmp_path_factory):
    """Programs built by the C++ ProgramBuilder (reference_programs.cpp), by name."""
    tool = os.environ.get("VYRE_REFERENCE_PROGRAMS_TOOL")
    if not tool:
        pytest.fail("VYRE_REFERENCE_PROGRAMS_TOOL is not set: run these tests through ctest (python_pytest)")
    out = tmp_path_factory.mktemp("cpp_programs")
    subprocess.run([tool, str(out)], check=True)
    return {p.stem: vyre.Program.load(str(p)) for p in out.glob("*.wire")}


# A cuda backend on the fake CUDA driver (tests/cuda/runtime/fake_driver, VYRE_FAKE_CUDA_LIBRARY,
# set by ctest), with a private JIT cache; skipped where the fake or the cuda plugin is not built.
@pytest.fixture
def fake_cuda(monkeypatch, tmp_path):
    library = os.environ.get("VYRE_FAKE_CUDA_LIBRARY")
    if not library:
        pytest.skip("the fake CUDA driver is not built here")
    monkeypatch.setenv("VYRE_CUDA_DRIVER_LIBRARY", library)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for name in ("VYRE_CUDA_FAIL", "VYRE_CUDA_DEVICE_ORDINAL", "CUDA_CACHE_PATH"):
        monkeypatch.delenv(name, raising=False)
    registry = vyre.Registry(use_environment=False)
    if registry.find("cuda") is None:
        pytest.skip("the cuda plugin is not built here")
    return registry.create("cuda")
