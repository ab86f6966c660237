#!/usr/bin/env bash
# Device call for P8/P9 from Python (bench/NOTES.md, "P8/P9 from Python: the import cache"): the
# Python GPU tests (test_gpu.py, with the import-cache test on torch tensors), then vyre-bench P2
# and P9 and bench/python_cases.py in the same run, then the costs P9's cache hit still pays, one
# by one (torch's fingerprint reads, its current-stream synchronize), and bench/python_binding_overhead.py
# --cuda (the binding against the C++ host API in one process: "P9-binding"). Logs and JSON under $OUT.
# Run from the repository root on the GPU machine, with .gl carried (docs/GPU_RUNS.md).
set -u
R=$OUT; L=/tmp/pc; mkdir -p $L; trap 'tar czf $R/pc.tgz -C /tmp pc; cp $L/out.txt $R/ 2>/dev/null' EXIT
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu; O=$L/out.txt
echo "=== gpu-test python" > $O
OUT=$L/gt JOBS=16 timeout 330 scripts/gpu-test.sh python >> $O 2>&1; echo "gpu-test python rc $?" >> $O
timeout 120 cmake --build $B -j16 --target vyre-bench > $L/bench-build.log 2>&1; echo "bench build rc $?" >> $O
for run in 1 2; do  # the second run only while the 600 s of a device call allow it
  [ $run = 2 ] && [ $SECONDS -gt 400 ] && { echo "=== run 2 skipped at ${SECONDS}s" >> $O; break; }
  echo "=== run $run (${SECONDS}s)" >> $O
  timeout 40 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre$run.json > $L/vyre$run.txt 2>&1; echo "vyre-bench rc $?" >> $O
  PYTHONPATH=$B/python timeout 60 $PY bench/python_cases.py --vyre $L/vyre$run.json --json $L/python$run.json > $L/python$run.txt 2>&1; echo "python_cases rc $?" >> $O
  tail -2 $L/vyre$run.txt >> $O
  grep -E '"id"|"median"|"ratio_to_cpp_p2"|"above_cpp_us"|"above_python_resident_us"|"hits"|"misses"|reason' $L/python$run.json | head -30 >> $O
done
echo "=== the binding against the C++ host API, one process (bench/NOTES.md, P9-binding)" >> $O
PYTHONPATH=$B/python timeout 60 $PY bench/python_binding_overhead.py --cuda --batches 40 --calls 1000 >> $O 2>&1; echo "binding overhead rc $?" >> $O
echo "=== what a cache hit still pays (us per call, 3 tensors)" >> $O
PYTHONPATH=$B/python timeout 30 $PY - >> $O 2>&1 <<'EOF'
import time, torch
ts = [torch.zeros(1024, dtype=torch.int32, device="cuda") for _ in range(3)]
def per(fn, n=20000):
    for _ in range(1000): fn()
    best = 1e9
    for _ in range(5):
        s = time.perf_counter_ns()
        for _ in range(n): fn()
        best = min(best, (time.perf_counter_ns() - s) / n / 1000)
    return best
def prints():
    for t in ts: t.data_ptr(); t.nbytes; t.dtype; t.is_contiguous()
raw = torch._C._cuda_getCurrentRawStream
s = torch.cuda.current_stream(0)
print(f"fingerprints of 3 tensors      {per(prints):.3f}")
print(f"hasattr __dlpack__ x3          {per(lambda: [hasattr(t, '__dlpack__') for t in ts]):.3f}")
print(f"raw current stream             {per(lambda: raw(0)):.3f}")
print(f"current stream synchronize     {per(lambda: s.synchronize()):.3f}")
print(f"torch.cuda.current_stream(0)   {per(lambda: torch.cuda.current_stream(0)):.3f}")
print(f"3 x __dlpack__(max_version)    {per(lambda: [t.__dlpack__(max_version=(1, 0)) for t in ts], 2000):.3f}")
EOF
cat $O | cut -c1-250 | tail -90
