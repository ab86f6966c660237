#!/usr/bin/env bash
# Session 2026-11-27c call 2: gpu-test all with conform (asin/atan f32 back to 1 ULP), exhaustive asin/atan
# on cuda, the seeded-f64-division experiment on NVIDIA's Vulkan, the kernel suite on cuda.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/ko; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
git log --oneline -1 >> $O 2>/dev/null
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 270 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
for op in un.asin.f32 un.atan.f32; do
  timeout $(left 360) $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
for mode in probed emulated; do
  env=(VYRE_VULKAN_SEEDED_DIV_SQRT=1); [ $mode = emulated ] && env+=(VYRE_VULKAN_DISABLE_NATIVE_FMA=1)
  env "${env[@]}" timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend vulkan --ops bin.div.f64 --ops un.reciprocal.f64 --ops un.tan.f64 --ops un.sqrt.f64 --ops bin.div.f32 --out $L/seeded-$mode --no-progress > $L/seeded-$mode.txt 2>&1
  st "seeded f64 over $mode fma rc $?"; grep -E "^(bin|un|total) |FAIL|fail:|expected|actual" $L/seeded-$mode.txt | head -12 >> $O
done
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=150 timeout $(left 585) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -30 >> $O
rm -rf $L/kernels/ptx $L/gpu/build* 2>/dev/null
tar czf $R/ko.tgz -C /tmp ko
cat $O
