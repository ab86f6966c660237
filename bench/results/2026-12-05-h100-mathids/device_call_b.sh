#!/usr/bin/env bash
# 2026-12-05 (second session), call B on the machine call A left warm: builds and runs the kernel
# suite (vyre against the nvcc twins, 10 reps) with the PTX and SASS of every K kernel.
set -u
L=/tmp/kaj2; mkdir -p $L; O=$OUT/out.txt; t0=$(date +%s)
OUT=$L PYTHON=/opt/torch/.venv/bin/python STAGE=all REPS=10 RUN_LIMIT=280 timeout 560 bench/kernels/device_run.sh > $L/kernels.txt 2>&1
echo "[$(( $(date +%s)-t0 ))s] kernels rc $?" >> $O
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6}' | head -29 >> $O
tar czf $OUT/kaj2.tgz -C /tmp kaj2
cat $O
