#!/usr/bin/env bash
# Prepared 2026-12-05 (second session), not yet run: the device refused a fresh start at 09:21.
# Call E: the rest of the GPU tests on this tree, `scripts/gpu-test.sh all` with the CPU suite
# (conform ran in call A), then every example on cuda against reference_cpu.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kae; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
date -u > $O; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O
B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=0 VYRE_GPU_TEST_CPU_SUITE=1 VYRE_GPU_TEST_LOAD=0 timeout 420 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt >> $O
grep -hE "tests passed|\(Failed\)|\*\*\*Failed" $L/gpu/ctest-cpu-suite.log | head -8 >> $O
mkdir -p $L/ex; for ex in examples/*.json; do n=$(basename $ex .json); for b in reference_cpu cuda; do timeout 30 $B/bin/vyre run $ex --random 3 --backend $b --out $L/ex/$n-$b > $L/ex/$n-$b.txt 2>&1; done; diff -r $L/ex/$n-cuda $L/ex/$n-reference_cpu >/dev/null && echo "$n same" || echo "$n DIFFERS"; done > $L/examples.txt 2>&1; st "examples"; tr '\n' ' ' < $L/examples.txt >> $O; echo >> $O
rm -rf $L/gpu/build* $L/ex 2>/dev/null
tar czf $R/kae.tgz -C /tmp kae
cat $O
