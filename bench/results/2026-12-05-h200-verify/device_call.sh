#!/usr/bin/env bash
# 2026-12-05 (third session), one call (the device refused fresh starts from 10:10 to 11:05, and
# the session's device time left no room for two): on the tree after O32 (sinh) and O34
# (asin/acos), `scripts/gpu-test.sh all` with conform and the CPU suite; exhaustive f32 sinh, asin
# and acos on cuda; every example on cuda against reference_cpu; then K13 of this tree against its
# nvcc twins (10 reps; compared with the 09:16 H100 run's ratios, not an A/B on one lease).
# TOTAL (seconds, default 570) bounds the whole call: K13 gets what is left of it. CPU_SUITE=0
# skips the CPU suite.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kag; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
date -u > $O; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O; git log --oneline -1 >> $O
B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=${CPU_SUITE:-1} VYRE_GPU_TEST_LOAD=0 timeout 270 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt >> $O
grep -hE "tests passed|\(Failed\)|\*\*\*Failed" $L/gpu/ctest-cpu-suite.log | head -8 >> $O
for op in un.sinh.f32 un.asin.f32 un.acos.f32; do
  timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
mkdir -p $L/ex; for ex in examples/*.json; do n=$(basename $ex .json); for b in reference_cpu cuda; do timeout 30 $B/bin/vyre run $ex --random 3 --backend $b --out $L/ex/$n-$b > $L/ex/$n-$b.txt 2>&1; done; diff -r $L/ex/$n-cuda $L/ex/$n-reference_cpu >/dev/null && echo "$n same" || echo "$n DIFFERS"; done > $L/examples.txt 2>&1; st "examples"; tr '\n' ' ' < $L/examples.txt >> $O; echo >> $O
rm -rf $L/gpu/build* $L/ex 2>/dev/null
tar czf $R/kag.tgz -C /tmp kag
left=$(( ${TOTAL:-570} - ($(date +%s) - t0) ))
if [ "$left" -gt 200 ]; then
  OUT=$R/k13 PYTHON=/opt/torch/.venv/bin/python CASES="--case K13" REPS=10 SKIP_PTX=1 RUN_LIMIT=$(( left - 90 )) timeout $left bench/kernels/device_run.sh > $L/k13.txt 2>&1; st "K13 rc $? (limit ${left}s)"
  grep -E "K13" $R/k13/results.md | grep -E "^\| K13-|geometric" | awk -F'|' '{print $2, $6}' | head -20 >> $O
  grep -h "K13 (16" $R/k13/results.md >> $O
else st "K13 skipped: ${left}s left"; fi
cat $O
