#!/usr/bin/env bash
# Build vyre from source and run every benchmark case and its baseline in one call (bench/README.md).
#
#   scripts/bench.sh [--cpu] [OUTDIR]
#
# GPU mode (default; on the GPU machine): record the environment; configure (Release, Ninja, no
# tests) and build vyre-bench with what it runs (plugins, vyre-conform), reusing the build directory;
# write the emitter's PTX/ptxas report/SASS of every benchmark program to <out>/ptx (vyre-bench-ptx);
# run vyre-bench's cases P1-P5, P7, P9 (its C++ side), R1 on the cuda backend, P8/P9 from Python (bench/python_cases.py,
# out/python.json: the Python package, NumPy and torch tensors through DLPack), then the PyTorch/CuPy baselines
# (bench/baselines/*.py), then the kernel suite K1-K13 against its nvcc twins when nvcc is here (the
# build gets -DVYRE_BENCH_NVCC_TWINS=ON; out/vyre-kernels.json), then P6 (vyre-conform, the long
# one); then bench/report.py writes
# results.json and results.md and bench/plot.py results.png. The markdown table is printed last.
# CPU mode (--cpu; the 2-core development machine): R1 for the record, plus a small smoke run of
# every case on reference_cpu (logs/smoke.json) to show the harness works, and P8 on reference_cpu.
#
# Output goes to $OUT when it is set, else OUTDIR, else <build>/bench-results. Logs in <out>/logs.
# Knobs: BUILD_DIR (gpu: build-bench-release, cpu: build-bench), JOBS (gpu 16, cpu 1),
# BENCH_SIZE_SCALE and BENCH_COUNT_SCALE (1: the real sizes; smaller for a quick look; the report
# says when a run was scaled), BENCH_SKIP_CONFORM=1 (skip P6), CONFORM_TIMEOUT (240 s),
# VYRE_BENCH_ARGS (extra vyre-bench arguments, e.g. "--reps 20"), PYTHON (python3),
# BENCH_SKIP_KERNELS=1 (skip K1-K13), NVCC (the nvcc for the twins; default: on PATH, else
# /usr/local/cuda/bin/nvcc; without one the twins are not built and K1-K13 are skipped unless
# VYRE_KERNEL_TWINS names a prebuilt libvyre_kernel_twins.so), VYRE_COMMIT (the commit env.json
# records; default: git's HEAD here, +dirty for local changes. Name it where the copy's git metadata
# is not the tree's: the device machine's copy carries the working tree but an older .git).
# Other backends beside cuda (GPU mode): BENCH_BACKENDS="vulkan" (space-separated; default none) runs
# vyre-bench's P1-P4, P7 and, with the twins, K1-K13 on each, one case per step so that a slow
# backend loses only its slow cases: each case gets BENCH_BACKEND_CASE_LIMIT seconds (default 90),
# and the backend's cases together BENCH_BACKEND_BUDGET seconds (default 600; cases not started when
# it is spent are listed as skipped). Results, with their own report, in <out>/<backend>/
# (results.md; the ratios there are that backend against the same baselines and nvcc twins). Where
# vulkan is named and no driver file is set, NVIDIA's ICD is used when present (as gpu-test.sh does).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mode=gpu
if [ "${1:-}" = "--cpu" ]; then mode=cpu; shift; fi
out=${OUT:-${1:-}}
if [ "$mode" = gpu ]; then
  build=${BUILD_DIR:-$root/build-bench-release}; jobs=${JOBS:-16}
else
  build=${BUILD_DIR:-$root/build-bench}; jobs=${JOBS:-1}
fi
# A build directory carried from another checkout path cannot be reused: start it afresh (before
# anything is written into it).
if [ -f "$build/CMakeCache.txt" ] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$root" "$build/CMakeCache.txt"; then
  echo "bench.sh: $build was configured for another source tree; reconfiguring from scratch" >&2
  rm -rf "$build"
fi
out=${out:-$build/bench-results}
size_scale=${BENCH_SIZE_SCALE:-1}
count_scale=${BENCH_COUNT_SCALE:-1}
conform_timeout=${CONFORM_TIMEOUT:-240}
python=${PYTHON:-python3}
logs=$out/logs
mkdir -p "$logs"
out=$(cd "$out" && pwd)
logs=$out/logs
bench=$build/bin/vyre-bench
script_start=$(date +%s)
step_rows=()

# step NAME LIMIT_SECONDS COMMAND...: run from the repository root, log to logs/NAME.log.
step() {
  local name=$1 limit=$2 start rc
  shift 2
  start=$(date +%s)
  echo ">>> $name: $*" >&2
  ( cd "$root" && timeout --signal=TERM --kill-after=10 "$limit" "$@" ) >"$logs/$name.log" 2>&1
  rc=$?
  step_rows+=("$(printf '%-22s exit %-4s %5ss' "$name" "$rc" "$(( $(date +%s) - start ))")")
  [ $rc -eq 0 ] || echo "    $name exited $rc (logs/$name.log): $(tail -n 3 "$logs/$name.log" | tr '\n' ' ' | cut -c1-200)" >&2
  return $rc
}

record_environment() {
  local device="cpu ($(nproc) cores)" driver=none cuda=none
  if [ "$mode" = gpu ] && command -v nvidia-smi >/dev/null; then
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n1)
    driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -n1)
    cuda=$(nvidia-smi | sed -n 's/.*CUDA Version: *\([0-9.]*\).*/\1/p' | head -n1)
    nvidia-smi >"$logs/nvidia-smi.txt" 2>&1
  fi
  local nvcc_version commit load_average
  load_average=$(cut -d" " -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
  nvcc_version=$( (nvcc --version 2>/dev/null || /usr/local/cuda/bin/nvcc --version 2>/dev/null) | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n1)
  commit=${VYRE_COMMIT:-$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)}
  if [ -z "${VYRE_COMMIT:-}" ] && [ -n "$(git -C "$root" status --porcelain 2>/dev/null | head -n1)" ]; then
    commit="$commit+dirty"
  fi
  "$python" - "$out/env.json" "$device" "$driver" "$cuda" "${nvcc_version:-none}" "$commit" "$mode" \
    "$size_scale" "$count_scale" "$(nproc)" "$load_average" <<'PY'
import datetime, json, sys
path, device, driver, cuda, nvcc, commit, mode, size_scale, count_scale, cores, load = sys.argv[1:]
env = {"device": device, "driver": driver, "cuda": cuda, "nvcc": nvcc, "commit": commit, "mode": mode,
       "host_cores": int(cores), "load_average_at_start": load,
       "size_scale": float(size_scale), "count_scale": float(count_scale),
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
json.dump(env, open(path, "w"), indent=1)
PY
}

# The nvcc for the kernel suite's twins (GPU mode only), or nothing.
nvcc=""
if [ "$mode" = gpu ]; then
  nvcc=${NVCC:-$(command -v nvcc || true)}
  if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; fi
fi
twin_flags=(-DVYRE_BENCH_NVCC_TWINS=OFF)
if [ -n "$nvcc" ]; then twin_flags=(-DVYRE_BENCH_NVCC_TWINS=ON -DCMAKE_CUDA_COMPILER="$nvcc"); fi

configure_and_build() {
  step configure 180 cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_BUILD_TESTS=OFF \
    "${twin_flags[@]}" &&
    step build 480 cmake --build "$build" --target vyre-bench -j"$jobs" &&
    { step build-ptx-tool 120 cmake --build "$build" --target vyre-bench-ptx -j"$jobs" || true; } &&
    { step build-python 300 cmake --build "$build" --target vyre_python -j"$jobs" || true; }
}

# P8/P9 (bench/python_cases.py) with the Python the package was built for; ARGS... go to the script.
run_python_cases() {
  local interpreter
  interpreter=$(cat "$build/python/interpreter" 2>/dev/null)
  if [ -z "$interpreter" ] || [ ! -f "$build/python/vyre/__init__.py" ]; then
    echo "bench.sh: the Python package was not built here; P8/P9 skipped" >&2
    return 0
  fi
  step python-P8-P9 300 env PYTHONPATH="$build/python" "$interpreter" bench/python_cases.py \
    --json "$out/python.json" "$@"
}

# The emitter's PTX of every benchmark program, ptxas's resource report, and SASS where cuobjdump is
# here: no device time, for reading next to the timings.
emit_ptx() {
  [ -x "$build/bin/vyre-bench-ptx" ] || return 0
  step ptx 120 "$build/bin/vyre-bench-ptx" "$out/ptx" || return 0
  local cuobjdump
  cuobjdump=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
  if [ -x "$cuobjdump" ]; then
    local cubin
    for cubin in "$out"/ptx/*.cubin; do "$cuobjdump" --dump-sass "$cubin" >"${cubin%.cubin}.sass" 2>&1; done
  fi
}

run_gpu_cases() {
  local common=(--backend cuda --size-scale "$size_scale" --count-scale "$count_scale" ${VYRE_BENCH_ARGS:-})
  step vyre-bench 300 "$bench" --case P1 --case P2 --case P3 --case P4 --case P5 --case P7 --case P9 --case C1 --case R1 \
    "${common[@]}" --json "$out/vyre.json" --log-dir "$logs"
  local scale=(--size-scale "$size_scale" --count-scale "$count_scale")
  run_python_cases --vyre "$out/vyre.json"
  step baseline-P1 150 "$python" bench/baselines/torch_xor.py "${scale[@]}" --json "$out/baseline-P1.json"
  step baseline-P2 150 "$python" bench/baselines/torch_round_trip.py "${scale[@]}" --json "$out/baseline-P2.json"
  step baseline-P3 150 "$python" bench/baselines/cupy_launch.py "${scale[@]}" --json "$out/baseline-P3.json"
  step baseline-P7 150 "$python" bench/baselines/torch_sum.py "${scale[@]}" --json "$out/baseline-P7.json"
  run_kernel_cases
  run_other_backends
  if [ "${BENCH_SKIP_CONFORM:-0}" != 1 ]; then
    step vyre-bench-P6 $((conform_timeout + 30)) "$bench" --case P6 --backend cuda \
      --conform-timeout "$conform_timeout" --json "$out/vyre-conform.json" --log-dir "$logs"
  fi
}

# K1-K13: each vyre kernel against its nvcc twin in one vyre-bench run (bench/kernels/).
run_kernel_cases() {
  if [ "${BENCH_SKIP_KERNELS:-0}" = 1 ]; then return 0; fi
  if [ ! -f "$build/bin/libvyre_kernel_twins.so" ] && [ -z "${VYRE_KERNEL_TWINS:-}" ]; then
    echo "bench.sh: no nvcc twins (no nvcc here, VYRE_KERNEL_TWINS unset); K1-K13 skipped" >&2
    return 0
  fi
  step vyre-bench-kernels 1200 "$bench" --kernels --backend cuda --size-scale "$size_scale" ${VYRE_BENCH_ARGS:-} \
    --json "$out/vyre-kernels.json" --log-dir "$logs"
}

run_cpu_cases() {
  step vyre-bench-R1 300 "$bench" --case R1 --reps 50 --json "$out/vyre.json"
  step smoke 300 "$bench" --all --backend reference_cpu --size-scale 0.001 --count-scale 0.05 --reps 3 \
    --conform-ops 'bin.xor.*' --json "$logs/smoke.json" --log-dir "$logs/smoke"
  run_python_cases --cpu --reps 500 --vyre "$logs/smoke.json"
  run_other_backends  # BENCH_BACKENDS=vulkan: lavapipe here
}

# The cases of BENCH_BACKENDS: one step per (backend, case), each under its own limit, all of one
# backend under a budget; then a report per backend in <out>/<backend>/.
run_other_backends() {
  local backends=${BENCH_BACKENDS:-}
  [ -n "$backends" ] || return 0
  local case_limit=${BENCH_BACKEND_CASE_LIMIT:-90} budget=${BENCH_BACKEND_BUDGET:-600}
  local cases=(P1 P2 P3 P4 P7)
  if [ "${BENCH_SKIP_KERNELS:-0}" != 1 ] && { [ -f "$build/bin/libvyre_kernel_twins.so" ] || [ -n "${VYRE_KERNEL_TWINS:-}" ]; }; then
    cases+=(K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13)
  fi
  local backend c started spent limit
  for backend in $backends; do
    mkdir -p "$out/$backend"
    started=$(date +%s)
    local jsons=() skipped=()
    for c in "${cases[@]}"; do
      spent=$(( $(date +%s) - started ))
      if [ "$spent" -ge "$budget" ]; then skipped+=("$c"); continue; fi
      limit=$(( budget - spent < case_limit ? budget - spent : case_limit ))
      step "$backend-$c" "$limit" "$bench" --case "$c" --backend "$backend" --size-scale "$size_scale" \
        --count-scale "$count_scale" ${VYRE_BENCH_ARGS:-} --json "$out/$backend/$c.json"
      [ -f "$out/$backend/$c.json" ] && jsons+=(--vyre "$out/$backend/$c.json")
    done
    [ ${#skipped[@]} -eq 0 ] || echo "bench.sh: $backend: budget of ${budget}s spent; not run: ${skipped[*]}" | tee "$out/$backend/skipped.txt" >&2
    [ ${#jsons[@]} -gt 0 ] || continue
    step "report-$backend" 60 "$python" bench/report.py --env "$out/env.json" "${jsons[@]}" \
      --baseline "$out/baseline-P1.json" --baseline "$out/baseline-P2.json" --baseline "$out/baseline-P3.json" \
      --baseline "$out/baseline-P7.json" --out-dir "$out/$backend"
  done
}

# NVIDIA's Vulkan driver where vulkan is benchmarked and the caller named no driver file.
if [[ " ${BENCH_BACKENDS:-} " == *" vulkan "* ]] && [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
             /etc/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$icd" ]; then export VK_DRIVER_FILES=$icd; break; fi
  done
fi

report() {
  step report 60 "$python" bench/report.py --env "$out/env.json" --vyre "$out/vyre.json" \
    --vyre "$out/vyre-conform.json" --vyre "$out/python.json" --vyre "$out/vyre-kernels.json" --baseline "$out/baseline-P1.json" --baseline "$out/baseline-P2.json" \
    --baseline "$out/baseline-P3.json" --baseline "$out/baseline-P7.json" --out-dir "$out"
  step plot 60 "$python" bench/plot.py "$out/results.json" "$out/results.png"
}

record_environment
if ! configure_and_build; then
  echo "bench.sh: the build failed; see $logs/configure.log and $logs/build.log" >&2
  tail -n 30 "$logs/build.log" 2>/dev/null
  exit 1
fi
emit_ptx
if [ "$mode" = gpu ]; then run_gpu_cases; else run_cpu_cases; fi
report
{
  echo
  echo "steps ($(( $(date +%s) - script_start ))s in all; logs in $logs):"
  printf '  %s\n' "${step_rows[@]}"
  echo
} >&2
if [ -f "$out/results.md" ]; then cat "$out/results.md"; else echo "bench.sh: no results.md (see $logs/report.log)"; exit 1; fi
