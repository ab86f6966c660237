#!/usr/bin/env bash
# Session 2026-11-27c call 5: why the wide f32 fma breaks un.log/log2 (subnormal x) and sin/cos/tan
# (huge x) on NVIDIA's Vulkan: conform of those ops under three settings.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
R=$OUT; L=/tmp/kr; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF > $L/configure.txt 2>&1
cmake --build $B -j 16 --target vyre-conform vyre_vulkan vyre_reference_cpu > $L/build.txt 2>&1; st "build rc $?"
OPS="--ops un.log.f32 --ops un.log2.f32 --ops un.sin.f32 --ops un.tan.f32 --ops fma.f32 --ops bin.div.f32 --ops un.sqrt.f32 --ops bin.mul.f32 --ops bin.lt.f32"
run() { local name=$1; shift; env "$@" timeout 90 $B/bin/vyre-conform --plugins $B/plugins --backend vulkan $OPS --out $L/$name --no-progress > $L/$name.txt 2>&1; st "$name rc $?"; grep -E "^FAIL|input:|actual:|expected:|^total " $L/$name.txt | head -16 >> $O; }
run default X=1
run noseeded VYRE_VULKAN_SEEDED_DIV_SQRT=0
run emulated VYRE_VULKAN_DISABLE_NATIVE_FMA=1
tar czf $R/kr.tgz -C /tmp kr
cat $O
