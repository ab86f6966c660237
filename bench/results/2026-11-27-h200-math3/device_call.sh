#!/usr/bin/env bash
# Session 2026-11-27b call 5 (final, after math3 and the vulkan seeded fix): after the kopt, math64, math3, vkprobe merges: gpu-test all with conform,
# exhaustive f32 on the changed ops, the kernel suite (cuda), vulkan fma probe + vulkan K cases, P9 terms.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/k4; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 240 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
EXH_OPS="un.tan.f32 un.inverse_sqrt.f32 un.cosh.f32 un.sinh.f32 un.tanh.f32 un.sin.f32 un.cos.f32"
if [ -n "$EXH_OPS" ]; then
  args=(); for op in $EXH_OPS; do args+=(--ops "$op"); done
  timeout 150 $B/bin/vyre-conform --plugins $B/plugins --backend cuda "${args[@]}" --exhaustive --out $L/exh --no-progress > $L/exh.txt 2>&1; st "exhaustive rc $?"; grep -iE "exhaustive|max|fail" $L/exh.txt | tail -12 >> $O
fi
timeout 60 $B/bin/test_vulkan_device -s > $L/vkdev.txt 2>&1; st "test_vulkan_device rc $?"; grep -i "vulkan device '" $L/vkdev.txt | sort -u >> $O
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 CASES="--case K13 --case K3 --case K6 --case K2" RUN_LIMIT=100 timeout 170 bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -30 >> $O
rm -rf $L/kernels/ptx
tar czf $R/k4.tgz -C /tmp k4
cat $O
