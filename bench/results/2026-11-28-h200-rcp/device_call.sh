#!/usr/bin/env bash
# Session 2026-11-28 call 3: f32 tanh/sinh/cosh with rcp.approx.ftz + one Newton step.
# gpu-test all with conform, exhaustive un.tanh/sinh/cosh.f32 on cuda, the kernel suite on cuda.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kag; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 300 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
grep -hE "test cases:" $L/gpu/test_cuda_gpu_dispatch.log $L/gpu/test_cuda_gpu_ops.log >> $O
for op in un.tanh.f32 un.sinh.f32 un.cosh.f32; do
  timeout $(left 330) $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout $(left 585) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -29 >> $O
rm -rf $L/gpu/build* 2>/dev/null; cp -r $L/gpu/certificates* $L/ 2>/dev/null
tar czf $R/kag.tgz -C /tmp kag
cat $O
