#!/usr/bin/env bash
# Device call F: the Python fixes (registry after NumPy, hidden module symbols vs torch); Python GPU
# tests; P8/P9 with the C++ P2/P9 of the same run.
set -u
R=$OUT; L=/tmp/cf; mkdir -p $L; trap 'tar czf $R/cf.tgz -C /tmp cf; cp $L/out.txt $R/ 2>/dev/null' EXIT
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
echo "=== gpu-test python" > $L/out.txt
OUT=$L/gt JOBS=16 timeout 200 scripts/gpu-test.sh python >> $L/out.txt 2>&1; echo "rc $?" >> $L/out.txt
for pre in "import numpy" "import torch"; do echo "=== $pre; vyre" >> $L/out.txt; PYTHONPATH=$B/python timeout 60 $PY -c "$pre
import vyre; r=vyre.Registry(use_environment=False); print('ids', r.ids(), [x.code for x in r.rejected])
import torch; print('torch ok', torch.cuda.is_available())" >> $L/out.txt 2>&1; echo "rc $?" >> $L/out.txt; done
echo "=== bench" >> $L/out.txt
timeout 120 cmake --build $B -j16 --target vyre-bench > $L/bench-build.log 2>&1; echo "build rc $?" >> $L/out.txt
timeout 60 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre.json > $L/vyre.txt 2>&1; echo "rc $?" >> $L/out.txt
PYTHONPATH=$B/python timeout 90 $PY bench/python_cases.py --vyre $L/vyre.json --json $L/python.json > $L/python.txt 2>&1; echo "python_cases rc $?" >> $L/out.txt
tail -5 $L/vyre.txt >> $L/out.txt; grep -E '"id"|"median"|reason|"above_cpp_us"' $L/python.json | head -20 >> $L/out.txt
cat $L/out.txt | cut -c1-250 | tail -70
