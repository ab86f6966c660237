"""python3 -m vyre backends | run | validate | conform."""
import os
import subprocess
import sys

import numpy as np


def vyre_cli(*args):
    env = dict(os.environ)
    env.pop("VYRE_PLUGIN_PATH", None)
    return subprocess.run([sys.executable, "-m", "vyre", *args], capture_output=True, text=True, env=env)


def test_backends():
    r = vyre_cli("backends")
    assert r.returncode == 0, r.stderr
    assert "reference_cpu 0.1.0  rank 900" in r.stdout and "search directories:" in r.stdout
    assert "reference_cpu" in vyre_cli("backends", "--available").stdout.split()


def test_run_with_npy_inputs(tmp_path, source_dir):
    np.save(tmp_path / "a.npy", np.arange(1024, dtype=np.uint32))
    np.save(tmp_path / "b.npy", np.ones(1024, np.uint32))
    r = vyre_cli("run", f"{source_dir}/examples/xor.json", "--backend", "reference_cpu",
                 "--input", f"a={tmp_path}/a.npy", "--input", f"b={tmp_path}/b.npy", "--max-values", "4")
    assert r.returncode == 0, r.stderr
    assert "out (uint32, 1024 values): [1 0 3 2 ...]" in r.stdout.replace("\n", " ")


def test_run_with_random_inputs(source_dir):
    r = vyre_cli("run", f"{source_dir}/examples/saxpy.json", "--random", "3")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("backend: ")


def test_run_reports_a_missing_input(source_dir):
    r = vyre_cli("run", f"{source_dir}/examples/xor.json")
    assert r.returncode != 0 and "missing input 'a'" in r.stderr


def test_validate(tmp_path, source_dir):
    assert vyre_cli("validate", f"{source_dir}/examples/xor.json").returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(open(f"{source_dir}/examples/xor.json").read().replace('"count": 1024}\n  ]', '"count": 0}\n  ]'))
    r = vyre_cli("validate", str(bad))
    assert r.returncode == 1 and "BufferCount (105)" in r.stdout


def test_errors_print_code_and_fix(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = vyre_cli("validate", str(bad))
    assert r.returncode == 1 and "[decode]" in r.stderr and "Fix:" in r.stderr


def test_conform_certifies_the_ops_of_a_program(tmp_path, source_dir):
    r = vyre_cli("conform", "--program", f"{source_dir}/examples/xor.json", "--backend", "reference_cpu",
                 "--out", str(tmp_path), "--no-progress")
    assert r.returncode == 0, r.stdout + r.stderr
    certificates = list(tmp_path.glob("*.json"))
    assert len(certificates) == 1 and "bin.xor.u32" in certificates[0].read_text()
