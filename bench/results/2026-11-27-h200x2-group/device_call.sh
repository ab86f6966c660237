#!/usr/bin/env bash
# Device call 6 (2 GPUs): the multi-GPU work of issue 16: group/collective tests (fake + GPU), the
# mpirun example, the Python group tests (scripts/gpu-test.sh group).
set -u
R=$OUT; L=/tmp/c6; mkdir -p $L; trap 'tar czf $R/c6.tgz -C /tmp c6; cp $L/out.txt $R/ 2>/dev/null; cp $L/gt/summary.txt $R/ 2>/dev/null' EXIT
for f in .gl/*.deb; do dpkg -x $f /; done
O=$L/out.txt; nvidia-smi -L > $O 2>&1
if ! command -v mpirun >/dev/null; then echo "no mpirun: Debian's OpenMPI debs from .gl/mpi" >> $O; for f in .gl/mpi/*.deb; do dpkg -x $f /; done; fi
ldconfig; command -v mpirun >> $O; mpirun --version 2>&1 | head -1 >> $O
export NCCL_NVLS_ENABLE=0
OUT=$L/gt JOBS=32 timeout 230 scripts/gpu-test.sh group > $L/gt.txt 2>&1; echo "gpu-test group rc $?" >> $O
cat $L/gt/summary.txt >> $O 2>/dev/null
for f in $L/gt/*.log; do if grep -qE "FAIL|ERROR|error:" $f; then echo "=== $f" >> $O; grep -E "FAIL|ERROR|error" $f | head -15 | cut -c1-300 >> $O; fi; done
cat $O | cut -c1-300 | tail -80
