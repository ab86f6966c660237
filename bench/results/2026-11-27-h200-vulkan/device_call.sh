#!/usr/bin/env bash
# Session 2026-11-27b call 2: vulkan on NVIDIA (issue 15): conform, test_vulkan_device, P1 P2 P3 cuda+vulkan,
# examples on vulkan/cuda vs reference_cpu, kernel suite on vulkan; P9 terms (issue 14).
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; t0=$(date +%s); S=$R/summary.txt; st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $S; }
mkdir -p $R/vk
OUT=$R/vk VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_BENCH="P1 P2 P3" VYRE_GPU_TEST_BENCH_BACKENDS="cuda vulkan" VYRE_GPU_TEST_BENCH_LIMIT=50 timeout 240 scripts/gpu-test.sh vulkan > $R/vk.txt 2>&1; st "gpu-test vulkan rc $?"
B=build-gpu
mkdir -p /tmp/ex; for ex in examples/*.json; do n=$(basename $ex .json); for b in vulkan reference_cpu cuda; do timeout 30 $B/bin/vyre run $ex --random 3 --backend $b --out /tmp/ex/$n-$b > /tmp/ex/$n-$b.txt 2>&1; done; diff -r /tmp/ex/$n-vulkan /tmp/ex/$n-reference_cpu > /dev/null && diff -r /tmp/ex/$n-cuda /tmp/ex/$n-reference_cpu >/dev/null && echo "$n same" || echo "$n DIFFERS"; done > $R/examples.txt 2>&1; st "examples"; cat $R/examples.txt >> $S
timeout 60 cmake --build $B -j16 --target vyre_python > /dev/null 2>&1; st "python build rc $?"
PYTHONPATH=$B/python timeout 60 /opt/torch/.venv/bin/python .gl/p9terms.py > $R/p9terms.txt 2>&1; st "p9terms rc $?"; cat $R/p9terms.txt >> $S
OUT=$R PYTHON=/opt/torch/.venv/bin/python SKIP_PTX=1 REPS=10 BACKENDS=vulkan CASE_LIMIT=40 BACKEND_BUDGET=150 RUN_LIMIT=100 timeout 290 bench/kernels/device_run.sh > $R/kernels.txt 2>&1; st "kernels rc $?"
tar czf $R/vklogs.tgz -C $R vk 2>/dev/null; rm -rf $R/vk
cat $S; tail -25 $R/vk.txt; grep -E "^\| K" $R/results-vulkan.md 2>/dev/null | cut -c1-200
