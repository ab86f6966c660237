#!/usr/bin/env bash
# Session 2026-12-05 (second), call B on the machine call A left warm: the kernel suite (vyre vs the
# nvcc twins, 10 reps) with the PTX and SASS of every K kernel (cuobjdump), in $OUT/kernels.
set -u
L=/tmp/kaj2; mkdir -p $L; O=$OUT/out.txt; t0=$(date +%s)
OUT=$L PYTHON=/opt/torch/.venv/bin/python STAGE=run REPS=10 RUN_LIMIT=300 timeout 540 bench/kernels/device_run.sh > $L/kernels.txt 2>&1
echo "[$(( $(date +%s)-t0 ))s] kernels rc $?" >> $O
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6}' | head -29 >> $O
tar czf $OUT/kaj2.tgz -C /tmp kaj2
cat $O
