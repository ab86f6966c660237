#!/usr/bin/env bash
# Session 2026-11-27c call 4: after the vkwide merge and the capture refusal: gpu-test all with conform
# (vulkan with the wide f32 fma), the vulkan device test's fma line, K1 K2 K3 K6 on cuda and vulkan.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kq; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 300 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
grep -h "FAIL\|capture" $L/gpu/*python* 2>/dev/null | head -5 >> $O
timeout 60 $B/bin/test_vulkan_device -s > $L/vkdev.txt 2>&1; st "test_vulkan_device rc $?"; grep -i "fma\|vulkan device '" $L/vkdev.txt | sort -u | head -6 >> $O
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 CASES="--case K1 --case K2 --case K3 --case K6 --case K12" BACKENDS=vulkan CASE_LIMIT=60 BACKEND_BUDGET=150 RUN_LIMIT=100 timeout $(left 585) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$4,$5,$6}' | head -6 >> $O
grep -E "^\| K" $L/kernels/vulkan/results.md 2>/dev/null | awk -F'|' '{print "vulkan",$2,$4,$5,$6}' | head -6 >> $O
grep -E "^\| K" $L/results-vulkan.md 2>/dev/null | awk -F'|' '{print "vulkan",$2,$4,$5,$6}' | head -6 >> $O
rm -rf $L/kernels/ptx $L/gpu/build* 2>/dev/null
tar czf $R/kq.tgz -C /tmp kq
cat $O
