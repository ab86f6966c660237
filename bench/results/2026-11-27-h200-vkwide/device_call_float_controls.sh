#!/usr/bin/env bash
# Experiment: skip float-control execution modes (bit = 2*mode + (width==64)); modes: denorm, rte, szinp.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
R=$OUT; L=/tmp/ks; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF > $L/configure.txt 2>&1
cmake --build $B -j 16 --target vyre-conform vyre_vulkan vyre_reference_cpu > $L/build.txt 2>&1; st "build rc $?"
OPS="--ops un.log.f32 --ops un.log2.f32 --ops un.sin.f32 --ops un.tan.f32 --ops un.cos.f32"
for mask in 0 2 8 32 42 1 4 16 63; do
  VYRE_EXPERIMENT_SKIP_MODES=$mask timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend vulkan $OPS --out $L/m$mask --no-progress > $L/m$mask.txt 2>&1
  st "mask $mask rc $? $(grep -E '^FAIL' $L/m$mask.txt | tr '\n' ' ')"
done
tar czf $R/ks.tgz -C /tmp ks
cat $O
