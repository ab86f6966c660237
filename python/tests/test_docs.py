"""docs/PYTHON.md's tutorial runs as written (its torch step is in test_gpu.py)."""
from docs_tutorial import run_blocks, tutorial_blocks


def test_the_tutorial_runs_on_numpy(source_dir, tmp_path, monkeypatch):
    blocks = tutorial_blocks(source_dir)
    assert len(blocks) == 3 and "import torch" in blocks[2]
    monkeypatch.chdir(tmp_path)
    namespace = run_blocks(blocks[:2])
    assert (tmp_path / "softmax.json").exists() and namespace["y"].shape == (256, 64)
