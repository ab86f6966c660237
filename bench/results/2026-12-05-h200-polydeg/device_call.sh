#!/usr/bin/env bash
# Session 2026-12-05 call 1: f32 polynomial degrees, the trig reduction, tanh at half scale, sinh/cosh exponent field, asin/acos rsqrt.approx.ftz root.
# gpu-test all with conform and the CPU suite, exhaustive un.{sin,cos,tan,exp2,tanh,sinh,cosh,asin,acos}.f32, examples vs reference_cpu, kernels.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
date -u > $OUT/out.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $OUT/out.txt
R=$OUT; L=/tmp/kah; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=1 VYRE_GPU_TEST_LOAD=0 timeout 330 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
grep -hE "test cases:" $L/gpu/test_cuda_gpu_dispatch.log $L/gpu/test_cuda_gpu_ops.log >> $O
grep -hE "tests passed|\(Failed\)|\*\*\*Failed" $L/gpu/ctest-cpu-suite.log | head -8 >> $O
for op in un.sin.f32 un.cos.f32 un.tan.f32 un.exp2.f32 un.tanh.f32 un.sinh.f32 un.cosh.f32 un.asin.f32 un.acos.f32; do
  timeout $(left 440) $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
mkdir -p $L/ex; for ex in examples/*.json; do n=$(basename $ex .json); for b in reference_cpu cuda; do timeout 30 $B/bin/vyre run $ex --random 3 --backend $b --out $L/ex/$n-$b > $L/ex/$n-$b.txt 2>&1; done; diff -r $L/ex/$n-cuda $L/ex/$n-reference_cpu >/dev/null && echo "$n same" || echo "$n DIFFERS"; done > $L/examples.txt 2>&1; st "examples"; tr '\n' ' ' < $L/examples.txt >> $O; echo >> $O
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout $(left 585) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -29 >> $O
rm -rf $L/gpu/build* $L/ex 2>/dev/null; cp -r $L/gpu/certificates* $L/ 2>/dev/null
tar czf $R/kah.tgz -C /tmp kah
cat $O

# Call 2 (the first call's kernel step ran out of time after the exhaustive runs took ~30 s each; the
# same warm machine, its build kept): exhaustive un.asin.f32, then the kernel suite.
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig; L=/tmp/kai; mkdir -p $L; O=$OUT/out.txt; date -u > $O; t0=$(date +%s); B=$PWD/build-gpu; timeout 70 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops un.asin.f32 --exhaustive --out $L/exh-un.asin.f32 --no-progress > $L/exh-asin.txt 2>&1; echo "[$(( $(date +%s)-t0 ))s] asin rc $?" >> $O; grep -h '"max_ulp"\|"failures"' $L/exh-un.asin.f32/*.json | tr -d ' \n' >> $O; echo >> $O; OUT=$L PYTHON=/opt/torch/.venv/bin/python SKIP_PTX=1 REPS=10 RUN_LIMIT=260 timeout 420 bench/kernels/device_run.sh > $L/kernels.txt 2>&1; echo "[$(( $(date +%s)-t0 ))s] kernels rc $?" >> $O; grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -29 >> $O; tar czf $OUT/kai.tgz -C /tmp kai; cat $O
