#!/usr/bin/env bash
# Session 2026-11-28 (2) call 4 (lean): f32 exp's kernel polynomial one degree lower (expm1 degree 5;
# exp, tanh, sinh, cosh). The CUDA GPU tests of ops and dispatch, conform on cuda and vulkan,
# exhaustive un.{exp,tanh,sinh,cosh}.f32, the kernel suite.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
R=$OUT; L=/tmp/kam; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF -DVYRE_BUILD_TESTS=ON > $L/configure.txt 2>&1
cmake --build $B -j 16 --target vyre_cuda vyre_vulkan vyre_reference_cpu vyre-conform test_cuda_gpu_ops test_cuda_gpu_dispatch > $L/build.txt 2>&1; st "build rc $?"
timeout 120 $B/bin/test_cuda_gpu_ops > $L/ops.txt 2>&1; st "test_cuda_gpu_ops rc $?"; grep -E "test cases:" $L/ops.txt >> $O
timeout 60 $B/bin/test_cuda_gpu_dispatch > $L/dispatch.txt 2>&1; st "test_cuda_gpu_dispatch rc $?"; grep -E "test cases:" $L/dispatch.txt >> $O
for be in cuda vulkan; do timeout 90 $B/bin/vyre-conform --plugins $B/plugins --backend $be --out $L/cert-$be --no-progress > $L/conform-$be.txt 2>&1; st "conform $be rc $?"; grep -E "^total|differential summary" $L/conform-$be.txt | tail -2 >> $O; done
for op in un.exp.f32 un.tanh.f32 un.sinh.f32 un.cosh.f32; do
  timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout $(left 500) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -29 >> $O
tar czf $R/kam.tgz -C /tmp kam
cat $O
