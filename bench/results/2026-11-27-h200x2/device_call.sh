#!/usr/bin/env bash
# Device call C (2026-11-27, multi-GPU machine): every GPU test (2 GPUs), conform cuda + vulkan, the
# kernel suite with the optimizer (and an A/B without it), P/C/M cases, Python P8/P9, torch baselines.
set -u
R=$OUT; L=/tmp/cc; mkdir -p $L/bench
finish() { tar czf $R/cc.tgz -C /tmp cc; cp $L/steps.txt $R/ 2>/dev/null; cp $L/gt/summary.txt $R/gt-summary.txt 2>/dev/null; cp $L/report/results.md $R/ 2>/dev/null; }
trap finish EXIT
t0=$(date +%s); step() { echo "[$(( $(date +%s)-t0 ))s] $*" | tee -a $L/steps.txt; }
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json NCCL_NVLS_ENABLE=0
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu; NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
nvidia-smi -L > $L/gpus.txt 2>&1; nvidia-smi topo -m >> $L/gpus.txt 2>&1
step "configure with twins"; cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_BENCH_NVCC_TWINS=ON -DCMAKE_CUDA_COMPILER=$NVCC > $L/cfg.log 2>&1
step "gpu-test"; OUT=$L/gt VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 JOBS=32 timeout 300 scripts/gpu-test.sh all > $L/gt-console.log 2>&1; step "gpu-test rc $?"
cmake --build $B -j32 --target vyre-bench vyre-bench-driver-run vyre > $L/bench-build.log 2>&1
step "kernel suite"; OUT=$L BUILD_DIR=$B STAGE=run SKIP_PTX=1 REPS=10 RUN_LIMIT=150 bench/kernels/device_run.sh > $L/krun.log 2>&1; step "rc $?"
step "P C M cases"; timeout 120 $B/bin/vyre-bench --case P1 --case P2 --case P3 --case P9 --case C1 --case M1 --case M2 --backend cuda --json $L/bench/vyre.json > $L/bench/vyre.txt 2>&1; step "rc $?"
step "python P8 P9"; PYTHONPATH=$B/python timeout 60 $PY bench/python_cases.py --vyre $L/bench/vyre.json --json $L/bench/python.json > $L/bench/python.txt 2>&1; step "rc $?"
step "baselines"; for b in torch_allreduce torch_xor torch_round_trip; do timeout 90 $PY bench/baselines/$b.py --json $L/bench/base-$b.json > $L/bench/base-$b.txt 2>&1; done; step "done"
step "vulkan bench"; timeout 60 $B/bin/vyre-bench --case P3 --case K5 --case K12 --backend vulkan --reps 10 --json $L/bench/vulkan.json > $L/bench/vulkan.txt 2>&1; step "rc $?"
step "A/B without optimizer"; VYRE_CUDA_DISABLE_OPTIMIZER=1 timeout 60 $B/bin/vyre-bench --case K1 --case K2 --case K3 --case K5 --case K8 --backend cuda --reps 10 --json $L/bench/k-noopt.json > $L/bench/k-noopt.txt 2>&1; step "rc $?"
python3 bench/report.py --env $L/kernels/env.json --vyre $L/bench/vyre.json --vyre $L/kernels/vyre-kernels.json --vyre $L/bench/python.json $(for f in $L/bench/base-*.json; do echo --baseline $f; done) --out-dir $L/report > $L/report.log 2>&1
step "end"
