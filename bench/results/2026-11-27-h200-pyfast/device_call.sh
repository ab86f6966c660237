#!/usr/bin/env bash
# Session 2026-11-27c call 3: after the pyfast merge and the asin rsqrt change: gpu-test all with conform,
# exhaustive asin f32 on cuda, P2/P9 + python_cases + the binding overhead, K13 asin/atan + K2 on cuda.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kp; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 270 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt | grep -v " PASS " >> $O
op=un.asin.f32; timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops $op --exhaustive --out $L/exh-$op --no-progress > $L/exh-$op.txt 2>&1
st "$op rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh-$op/*.json | tr -d ' \n' >> $O; echo >> $O
timeout 120 cmake --build $B -j16 --target vyre-bench > $L/bench-build.log 2>&1; st "bench build rc $?"
for run in 1 2; do
  timeout 40 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre$run.json > $L/vyre$run.txt 2>&1; st "vyre-bench rc $?"
  PYTHONPATH=$B/python timeout 60 $PY bench/python_cases.py --vyre $L/vyre$run.json --json $L/python$run.json > $L/python$run.txt 2>&1; st "python_cases rc $?"
  tail -2 $L/vyre$run.txt >> $O
  $PY -c "import json,sys; d=json.load(open('$L/python$run.json')); [print(c['id'], c.get('value',{}).get('median'), {k:(v.get('median') if isinstance(v,dict) and 'median' in v else v) for k,v in c.get('extra',{}).items() if k!='import_cache'}) for c in (d if isinstance(d,list) else d.get('results',d.get('cases',[])))]" >> $O 2>&1
done
PYTHONPATH=$B/python timeout 60 $PY bench/python_binding_overhead.py --cuda --batches 40 --calls 1000 > $L/binding.txt 2>&1; st "binding overhead rc $?"; tail -25 $L/binding.txt >> $O
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 CASES="--case K13-asin --case K13-atan --case K13-acos --case K2" RUN_LIMIT=100 timeout $(left 580) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$4,$5,$6}' | head -10 >> $O
rm -rf $L/kernels/ptx $L/gpu/build* 2>/dev/null
tar czf $R/kp.tgz -C /tmp kp
cat $O
