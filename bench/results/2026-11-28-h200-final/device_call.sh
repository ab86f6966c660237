#!/usr/bin/env bash
# Session 2026-11-28 (2) call 3 (lean, the final tree 4cd8e99): acos back on sqrt.rn. The CUDA GPU
# tests of ops and dispatch, conform on cuda, exhaustive un.acos.f32, the kernel suite.
set -u
R=$OUT; L=/tmp/kal; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
left() { echo $(( $1 - ($(date +%s)-t0) )); }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=OFF -DVYRE_BUILD_TESTS=ON > $L/configure.txt 2>&1
cmake --build $B -j 16 --target vyre_cuda vyre_reference_cpu vyre-conform test_cuda_gpu_ops test_cuda_gpu_dispatch > $L/build.txt 2>&1; st "build rc $?"
timeout 120 $B/bin/test_cuda_gpu_ops > $L/ops.txt 2>&1; st "test_cuda_gpu_ops rc $?"; grep -E "test cases:" $L/ops.txt >> $O
timeout 60 $B/bin/test_cuda_gpu_dispatch > $L/dispatch.txt 2>&1; st "test_cuda_gpu_dispatch rc $?"; grep -E "test cases:" $L/dispatch.txt >> $O
timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --out $L/cert --no-progress > $L/conform.txt 2>&1; st "conform rc $?"; grep -E "^total|pass|fail" $L/conform.txt | tail -3 >> $O
timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --ops un.acos.f32 --exhaustive --out $L/exh --no-progress > $L/exh.txt 2>&1
st "exhaustive rc $?"; grep -h '"max_ulp"\|"failures"' $L/exh/*.json | tr -d ' \n' >> $O; echo >> $O
OUT=$L PYTHON=$PY SKIP_PTX=1 REPS=10 RUN_LIMIT=200 timeout $(left 330) bench/kernels/device_run.sh > $L/kernels.txt 2>&1; st "kernels rc $?"
grep -E "^\*\*Geometric|^K13 \(" $L/results.md >> $O; grep -E "^\| K" $L/results.md | awk -F'|' '{print $2,$6,$7}' | head -29 >> $O
tar czf $R/kal.tgz -C /tmp kal
cat $O
