#!/usr/bin/env bash
# Session 2026-11-27d call 1: gpu-test all with conform (min/max without the signed-zero fix-up),
# then P2/P9 + python_cases (P8 with backend.run's fast entry) three times, and the binding's
# own cost of run / run_resident against C++ in one process.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json NCCL_NVLS_ENABLE=0
R=$OUT; L=/tmp/kv; mkdir -p $L/gpu; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $O 2>&1
OUT=$L/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout 330 scripts/gpu-test.sh all > $L/gpu-test.txt 2>&1; st "gpu-test all rc $?"
sed -n '/==== vyre GPU test summary/,$p' $L/gpu-test.txt >> $O
grep -hE "^(total|family)|^FAIL" $L/gpu/vyre-conform-vulkan.log $L/gpu/vyre-conform.log 2>/dev/null | head -8 >> $O
cmake --build $B -j 16 --target vyre-bench vyre_python > $L/build.txt 2>&1; st "bench build rc $?"
for run in 1 2 3; do
  timeout 40 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre$run.json > $L/vyre$run.txt 2>&1; st "vyre-bench rc $?"
  PYTHONPATH=$B/python timeout 60 $PY bench/python_cases.py --vyre $L/vyre$run.json --json $L/python$run.json > $L/python$run.txt 2>&1; st "python_cases rc $?"
  $PY -c "import json; d=json.load(open('$L/python$run.json')); [print(c['id'], c.get('value',{}).get('median'), c.get('verification'), {k:v for k,v in c.get('extra',{}).items() if k.startswith(('ratio','above','cpp'))}) for c in d['cases']]" >> $O 2>&1
  grep -E "^P2|^P9" $L/vyre$run.txt >> $O
done
PYTHONPATH=$B/python timeout $(left 580) $PY bench/python_binding_overhead.py --cuda --batches 20 > $L/binding.txt 2>&1; st "binding rc $?"
cat $L/binding.txt >> $O
rm -rf $L/gpu/build* 2>/dev/null; cp -r $L/gpu/certificates* $L/ 2>/dev/null
tar czf $R/kv.tgz -C /tmp kv
cat $O
#!/usr/bin/env bash
# Session 2026-11-27d call 2: the kernel suite on cuda (min/max without the fix-up).
set -u
R=$OUT; L=/tmp/kw; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
PY=/opt/torch/.venv/bin/python
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout 560 bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -30 >> $O
tar czf $R/kw.tgz -C /tmp kw
cat $O
