#!/usr/bin/env bash
# 2026-12-05 (second session), call A of four on one H100 lease: builds the CUDA/Vulkan targets,
# runs the CUDA GPU ops test, conform on cuda and vulkan, and exhaustive f32 inverse_sqrt (O26),
# sin, cos, tan (refit, O29, O30), asin and acos (O27) on cuda.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
R=$OUT; L=/tmp/kaj; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
date -u >> $O; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O
B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF -DVYRE_BUILD_TESTS=ON > $L/configure.txt 2>&1
cmake --build $B -j 16 --target vyre_cuda vyre_vulkan vyre_reference_cpu vyre-conform test_cuda_gpu_ops > $L/build.txt 2>&1; st "build rc $?"
grep -h "warning:" $L/build.txt | sort | uniq -c | head -5 >> $O
timeout 60 $B/bin/test_cuda_gpu_ops > $L/ops.txt 2>&1; st "test_cuda_gpu_ops rc $?"; grep -E "test cases:" $L/ops.txt >> $O
for be in cuda vulkan; do timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend $be --out $L/cert-$be --no-progress > $L/conform-$be.txt 2>&1; st "conform $be rc $?"; grep -E "^total" $L/conform-$be.txt | tail -1 >> $O; done
for op in un.inverse_sqrt.f32 un.sin.f32 un.cos.f32 un.tan.f32 un.asin.f32 un.acos.f32; do
  timeout 70 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
tar czf $R/kaj.tgz -C /tmp kaj
cat $O
