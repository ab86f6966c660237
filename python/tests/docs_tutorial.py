"""The Python code blocks of docs/PYTHON.md's tutorial, for test_docs.py and test_gpu.py."""
import os
import re


def tutorial_blocks(source_dir):
    text = open(os.path.join(source_dir, "docs", "PYTHON.md")).read()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def run_blocks(blocks):
    namespace = {}
    for block in blocks:
        exec(compile(block, "docs/PYTHON.md", "exec"), namespace)
    return namespace
