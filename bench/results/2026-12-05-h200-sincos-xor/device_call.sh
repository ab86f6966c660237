#!/usr/bin/env bash
# Session 2026-12-05 call 3 (lean): sin/cos quadrant sign by XOR. CUDA GPU ops test, conform on cuda
# and vulkan, exhaustive un.sin.f32 and un.cos.f32 on cuda, the kernel suite.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
R=$OUT; L=/tmp/kaj; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
date -u >> $O; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF -DVYRE_BUILD_TESTS=ON > $L/configure.txt 2>&1
cmake --build $B -j 16 --target vyre_cuda vyre_vulkan vyre_reference_cpu vyre-conform test_cuda_gpu_ops > $L/build.txt 2>&1; st "build rc $?"
grep -h "warning:" $L/build.txt | sort | uniq -c | head -5 >> $O
timeout 60 $B/bin/test_cuda_gpu_ops > $L/ops.txt 2>&1; st "test_cuda_gpu_ops rc $?"; grep -E "test cases:" $L/ops.txt >> $O
for be in cuda vulkan; do timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend $be --out $L/cert-$be --no-progress > $L/conform-$be.txt 2>&1; st "conform $be rc $?"; grep -E "^total" $L/conform-$be.txt | tail -1 >> $O; done
for op in un.sin.f32 un.cos.f32; do
  timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout $(left 370) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6}' | head -29 >> $O
tar czf $R/kaj.tgz -C /tmp kaj
cat $O
