#!/usr/bin/env bash
# Session 2026-11-27d call 5: f32 atan without the NaN select
# gpu-test all with conform, exhaustive un.atan.f32 on cuda, the
# kernel suite on cuda.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kz; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
git log --oneline -1 >> $O 2>/dev/null
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 300 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
grep -hE "^total|^FAIL" $L/gpu/vyre-conform-vulkan.log $L/gpu/vyre-conform.log 2>/dev/null | head -8 >> $O
for op in un.atan.f32; do
  timeout $(left 380) $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
  st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
done
cmake --build $B -j 16 --target vyre-bench vyre_python > $L/build.txt 2>&1; st "bench build rc $?"
timeout 40 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre1.json > $L/vyre1.txt 2>&1; st "vyre-bench rc $?"
PYTHONPATH=$B/python timeout 60 $PY bench/python_cases.py --vyre $L/vyre1.json --json $L/python1.json > $L/python1.txt 2>&1; st "python_cases rc $?"
$PY -c "import json; d=json.load(open('$L/python1.json')); [print(c['id'], c.get('value',{}).get('median'), c.get('verification'), {k:v for k,v in c.get('extra',{}).items() if k.startswith(('ratio','above','cpp'))}) for c in d['cases']]" >> $O 2>&1
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout $(left 585) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -29 >> $O
rm -rf $L/gpu/build* 2>/dev/null; cp -r $L/gpu/certificates* $L/ 2>/dev/null
tar czf $R/kz.tgz -C /tmp kz
cat $O
