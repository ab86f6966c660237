#!/usr/bin/env bash
# Build vyre from source on a GPU machine and run the CUDA plugin's tests in one go.
#
#   scripts/gpu-test.sh [all|build|test|python|vulkan|group]  (default: all; python: only the Python
#       step; vulkan: only the Vulkan plugin, see run_vulkan_only; group: only the multi-GPU tests,
#       issue 16, see run_group_only)
#
# Steps, each under its own time limit, CUDA work first: record the environment (nvidia-smi,
# compilers); configure (Release, Ninja) and build the CUDA plugin, reference_cpu and the CUDA
# tests (JOBS=16); run the CPU-side CUDA tests (units, plugin registration, the fake-driver suite)
# and the GPU tests (dispatch modes, resident/sequence/graph tests, the fault-injection table on
# the real driver, the differential of every op against reference_cpu); the Python package built for
# the venv's Python and its GPU tests (torch and CuPy tensors through DLPack); optionally vyre-bench
# cases (VYRE_GPU_TEST_BENCH="P2 P3": the release plugin, not the fault plugin; on each backend of
# VYRE_GPU_TEST_BENCH_BACKENDS, default cuda, each case under its own limit); then build
# everything else (VYRE_GPU_TEST_BUILD_ALL=0 skips it), optionally run vyre-conform
# (VYRE_GPU_TEST_CONFORM=1; on cuda, and on vulkan where it can be created), test_vulkan_device where
# vulkan can be created, the AOT bundle test on the GPU, the load test on cuda, optionally compute-sanitizer's memcheck,
# racecheck and synccheck over vyre-conform (VYRE_GPU_TEST_SANITIZE=1), and the rest of the ctest suite (VYRE_GPU_TEST_CPU_SUITE=0 skips it).
#
# Full logs go to $OUT when it is set (else <build>/gpu-test-logs); the last thing printed is a
# summary table (step, result, seconds), also written to summary.txt. A test that finds no GPU
# exits 77 and shows as SKIP with its reason in the log. The exit status is 0 only when nothing
# failed.
#
# Fault injection: every build with tests also makes the test-only plugin with the VYRE_CUDA_FAIL
# hooks (build-gpu/tests/cuda/fault_plugin/libvyre_cuda.so); the release plugin has none
# (docs/RELIABILITY.md, "CUDA fault injection").
#
# Knobs: BUILD_DIR (default build-gpu), JOBS (16), VYRE_TEST_SEED, VYRE_TEST_RANDOM_LANES,
# VYRE_TEST_OPS (see tests/cuda/runtime/test_cuda_gpu_ops.cpp), VYRE_GPU_TEST_OPS_TIMEOUT (300).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-all}
build=${BUILD_DIR:-$root/build-gpu}
jobs=${JOBS:-16}
logs=${OUT:-$build/gpu-test-logs}
mkdir -p "$logs"
summary_rows=()
failures=0
script_start=$(date +%s)

# ---- reporting -----------------------------------------------------------------------------------

add_row() {  # name result seconds note
  summary_rows+=("$(printf '%-34s %-8s %7s  %s' "$1" "$2" "$3" "$4")")
  case "$2" in FAIL|TIMEOUT) failures=$((failures + 1)) ;; esac
}

print_summary() {
  local total=$(( $(date +%s) - script_start ))
  {
    echo
    echo "==== vyre GPU test summary ($(date -u +%Y-%m-%dT%H:%M:%SZ), ${total}s, logs: $logs) ===="
    printf '%-34s %-8s %7s  %s\n' "step" "result" "seconds" "note"
    printf '%-34s %-8s %7s  %s\n' "----" "------" "-------" "----"
    local row
    for row in "${summary_rows[@]}"; do echo "$row"; done
  } | tee "$logs/summary.txt"
}
trap print_summary EXIT
trap 'exit 143' TERM INT  # an outer time limit still gets the summary

# run_step NAME TIMEOUT_SECONDS COMMAND...: log to $logs/NAME.log, add a summary row.
run_step() {
  local name=$1 limit=$2
  shift 2
  local log="$logs/$name.log" start rc result note=""
  start=$(date +%s)
  echo ">>> $name: $*" | tee -a "$logs/progress.log"
  ( cd "$root" && timeout --signal=TERM --kill-after=15 "$limit" "$@" ) >"$log" 2>&1
  rc=$?
  case $rc in
    0) result=PASS ;;
    77) result=SKIP; note=$(grep -m1 -E '^SKIP' "$log" | cut -c1-90) ;;
    124|137) result=TIMEOUT; note="after ${limit}s" ;;
    *) result=FAIL; note="exit $rc; see $name.log" ;;
  esac
  if [ "$result" = FAIL ]; then
    note="$note; $(grep -m1 -E 'FAILED|MISMATCH|ERROR|error:' "$log" | cut -c1-80)"
  fi
  add_row "$name" "$result" "$(( $(date +%s) - start ))" "$note"
  return $rc
}

# ---- environment -----------------------------------------------------------------------------------

# The NVIDIA Vulkan driver for the vulkan plugin: the lent GPU machines keep its ICD file outside the
# loader's search path, and have no Vulkan loader or GL libraries (carry them: .gl/*.deb, see
# docs/GPU_RUNS.md, "Vulkan on the GPU machine"). An ICD the caller names wins.
find_nvidia_vulkan_icd() {
  [ -n "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ] && return 0
  local icd
  for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
             /etc/vulkan/icd.d/nvidia_icd.json; do
    if [ -f "$icd" ]; then export VK_DRIVER_FILES=$icd; return 0; fi
  done
}
find_nvidia_vulkan_icd

record_environment() {
  {
    echo "host: $(hostname)"; echo "date: $(date -u)"; echo "root: $root"; echo "build: $build"
    command -v nvidia-smi >/dev/null && nvidia-smi
    command -v nvidia-smi >/dev/null && nvidia-smi -q | grep -E 'Driver Version|CUDA Version|Product Name|Compute Mode' | sort -u
    echo; cmake --version | head -1; ninja --version 2>/dev/null; g++ --version | head -1
    echo; env | grep -E '^(CUDA|VYRE|NVIDIA|VK_|NCCL)' | sort
    (cd "$root" && git log -1 --oneline 2>/dev/null && git status --short 2>/dev/null | head -50)
  } >"$logs/environment.log" 2>&1
  local device
  device=$(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null | head -1)
  add_row "environment" "INFO" "0" "${device:-no nvidia-smi}"
}

# ---- build -------------------------------------------------------------------------------------------

# The Python the package is built for and tested with: VYRE_GPU_TEST_PYTHON, else the GPU machine's
# venv (Python 3.12 with torch, CuPy, numpy, pybind11, pytest), else none (the step says SKIP).
gpu_python() {
  local py=${VYRE_GPU_TEST_PYTHON:-/opt/torch/.venv/bin/python}
  [ -x "$py" ] && echo "$py"
}

configure_project() {
  local generator=() python=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  [ -n "$(gpu_python)" ] && python=(-DVYRE_PYTHON_EXECUTABLE="$(gpu_python)")
  run_step configure 300 cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DVYRE_WERROR=OFF -DVYRE_BUILD_TESTS=ON "${python[@]}"
}

# What the CUDA tests need: the two plugins and the test binaries.
build_cuda() {
  run_step build-cuda 900 cmake --build "$build" -j "$jobs" --target vyre_cuda vyre_cuda_fault \
    vyre_reference_cpu test_cuda_runtime_units test_cuda_plugin test_cuda_fake_driver \
    test_cuda_fault_injection test_cuda_gpu_ops test_cuda_gpu_dispatch test_cuda_gpu_resident \
    test_cuda_gpu_faults test_cuda_fake_external test_cuda_gpu_external test_cuda_fake_group test_cuda_gpu_group \
    test_cuda_fake_collectives test_cuda_gpu_collectives
}

# Everything else (a failure here does not stop the run: the build keeps going past it).
build_rest() {
  [ "${VYRE_GPU_TEST_BUILD_ALL:-1}" = 1 ] || return 0
  local keep_going=(-k)
  [ -f "$build/build.ninja" ] && keep_going=(-k 0)
  run_step build-all 900 cmake --build "$build" -j "$jobs" -- "${keep_going[@]}"
}

# ---- tests -------------------------------------------------------------------------------------------

run_binary() {  # NAME TIMEOUT [ENV=VALUE...]: build/bin/NAME
  local name=$1 limit=$2
  shift 2
  local binary="$build/bin/$name"
  if [ ! -x "$binary" ]; then
    add_row "$name" "FAIL" "0" "not built: $binary"
    return 1
  fi
  run_step "$name" "$limit" env "$@" "$binary" --no-intro=true
}

# NCCL for the collectives test: VYRE_NCCL_LIBRARY when set, else the first libnccl.so.2 of the GPU
# venv's nvidia-nccl-cu* wheel (torch's), else nothing (the plugin's own search: nccl_library.hpp).
nccl_env() {
  if [ -n "${VYRE_NCCL_LIBRARY:-}" ]; then echo "VYRE_NCCL_LIBRARY=$VYRE_NCCL_LIBRARY"; return; fi
  local py lib
  py=$(gpu_python) || return 0
  lib=$(find "$(dirname "$(dirname "$py")")" -name libnccl.so.2 2>/dev/null | sort | head -1)
  [ -n "$lib" ] && echo "VYRE_NCCL_LIBRARY=$lib"
  return 0
}

run_cuda_tests() {
  # CPU-side CUDA tests: fast, and they localise a failure before the GPU ones run.
  run_binary test_cuda_runtime_units 120
  run_binary test_cuda_plugin 120
  run_binary test_cuda_fake_driver 300
  run_binary test_cuda_fault_injection 300
  run_binary test_cuda_fake_external 120
  run_binary test_cuda_fake_group 120
  run_binary test_cuda_fake_collectives 120
  # GPU tests, one at a time (they measure device memory and share the device).
  run_binary test_cuda_gpu_dispatch 300
  run_binary test_cuda_gpu_resident 300
  run_binary test_cuda_gpu_external 120
  run_binary test_cuda_gpu_group 180
  # shellcheck disable=SC2046  # nccl_env prints one NAME=VALUE word or nothing
  run_binary test_cuda_gpu_collectives 300 NCCL_NVLS_ENABLE=0 $(nccl_env)
  run_binary test_cuda_gpu_faults 300
  run_binary test_cuda_gpu_ops "${VYRE_GPU_TEST_OPS_TIMEOUT:-300}" \
    VYRE_TEST_THREADS="${VYRE_TEST_THREADS:-8}"
}

# vyre-bench cases named in VYRE_GPU_TEST_BENCH, on this build's (release) plugins, on each backend
# of VYRE_GPU_TEST_BENCH_BACKENDS (default cuda; e.g. "cuda vulkan"): one step per (backend, case)
# under its own limit (VYRE_GPU_TEST_BENCH_LIMIT, 300 s on cuda; 120 s elsewhere), so a slow backend
# cannot take the whole call. Kernel-suite cases (K1-K13) need the nvcc twins (bench.sh builds them).
run_bench() {
  local cases=${VYRE_GPU_TEST_BENCH:-}
  [ -n "$cases" ] || return 0
  run_step build-bench 600 cmake --build "$build" -j "$jobs" --target vyre-bench || return 1
  local c backend limit
  for backend in ${VYRE_GPU_TEST_BENCH_BACKENDS:-cuda}; do
    limit=${VYRE_GPU_TEST_BENCH_LIMIT:-$([ "$backend" = cuda ] && echo 300 || echo 120)}
    for c in $cases; do
      local name="bench-$c"
      [ "$backend" = cuda ] || name="bench-$backend-$c"
      run_step "$name" "$limit" "$build/bin/vyre-bench" --case "$c" --backend "$backend" --json "$logs/$name.json"
      local line
      line=$(grep -E "^$c " "$logs/$name.log" 2>/dev/null | head -1)
      [ -n "$line" ] && add_row "  $c on $backend" INFO 0 "$(echo "$line" | tr -s ' ' | cut -c1-90)"
    done
  done
}

# compute-sanitizer over vyre-conform on cuda (VYRE_GPU_TEST_SANITIZE=1): memcheck with the device
# leak check, racecheck (shared memory), synccheck (barriers), each on every op with
# VYRE_GPU_TEST_SANITIZE_CASES random lanes (default 64) besides the witness tables.
run_sanitizers() {
  [ "${VYRE_GPU_TEST_SANITIZE:-0}" = 1 ] || return 0
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
  if [ ! -x "$sanitizer" ]; then
    add_row "compute-sanitizer" "SKIP" "0" "compute-sanitizer not found"
    return 0
  fi
  local tool extra
  for tool in memcheck racecheck synccheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    run_step "sanitize-$tool" "${VYRE_GPU_TEST_SANITIZE_TIMEOUT:-300}" "$sanitizer" --tool "$tool" "${extra[@]}" \
      --error-exitcode 3 "$build/bin/vyre-conform" --plugins "$build/plugins" --backend cuda \
      --cases "${VYRE_GPU_TEST_SANITIZE_CASES:-64}" --out "$logs/sanitize-$tool-certs" --no-progress
    add_row "  $tool" "INFO" "0" "$(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/sanitize-$tool.log")"
  done
}

# The Python package on the GPU: build the module for the venv's Python, then its DLPack tests
# with torch and CuPy tensors on cuda (python/tests/test_gpu.py) and NumPy on reference_cpu
# (test_dlpack.py). The whole pytest suite also runs in ctest-cpu-suite (python_pytest).
run_python() {
  local py
  py=$(gpu_python)
  if [ -z "$py" ]; then
    add_row "python-gpu" "SKIP" "0" "no Python at ${VYRE_GPU_TEST_PYTHON:-/opt/torch/.venv/bin/python}; set VYRE_GPU_TEST_PYTHON"
    return 0
  fi
  local missing
  missing=$("$py" -c 'import importlib.util as u; print(" ".join(m for m in ("numpy", "pybind11", "pytest") if u.find_spec(m) is None))' 2>&1)
  if [ -n "$missing" ]; then
    add_row "python-gpu" "SKIP" "0" "$py lacks: $missing"
    return 0
  fi
  if ! grep -qs 'target_vyre_python\|^vyre_python:' "$build/build.ninja" "$build/Makefile"; then
    add_row "python-gpu" "SKIP" "0" "the package was not configured (see configure.log: Python package)"
    return 0
  fi
  run_step build-python 600 cmake --build "$build" -j "$jobs" --target vyre_python python_reference_programs \
    vyre_reference_cpu vyre_cuda || return 1
  # PYTEST_DISABLE_PLUGIN_AUTOLOAD: the tests need no third-party pytest plugins, and the GPU
  # machine's venv autoloads many (jaxtyping, hypothesis, benchmark, cov, ...).
  # shellcheck disable=SC2046  # nccl_env prints one NAME=VALUE word or nothing
  run_step python-gpu 600 env PYTHONPATH="$build/python" PYTHONDONTWRITEBYTECODE=1 VYRE_SOURCE_DIR="$root" \
    PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 NCCL_NVLS_ENABLE=0 $(nccl_env) \
    VYRE_REFERENCE_PROGRAMS_TOOL="$build/bin/python_reference_programs" \
    "$py" -m pytest -v -rs -p no:cacheprovider "$root/python/tests/test_gpu.py" "$root/python/tests/test_dlpack.py" \
    "$root/python/tests/test_group_gpu.py"
  local counts
  counts=$(grep -E '(passed|failed|skipped).* in [0-9.]+s' "$logs/python-gpu.log" | tail -1)
  [ -n "$counts" ] && add_row "  pytest counts" "INFO" "0" "$counts"
}

# examples/multi_process: mpirun starts one `vyre run --join` per GPU (2 ranks); the outputs must
# equal one device's. Exit 77 (SKIP, with the reason) without mpirun or two GPUs.
run_multi_process_example() {
  [ -x "$build/bin/vyre" ] || { add_row example-multi-process SKIP 0 "no $build/bin/vyre"; return 0; }
  # shellcheck disable=SC2046  # nccl_env prints one NAME=VALUE word or nothing
  run_step example-multi-process 300 env VYRE="$build/bin/vyre" WORK="$logs/multi_process" NCCL_NVLS_ENABLE=0 \
    $(nccl_env) sh "$root/examples/multi_process/run.sh"
}

# Only the multi-GPU work (issue 16): configure, build the group tests, the CLI and the Python
# module, run the fake and GPU group/collective tests, the Python group tests and the mpirun example.
run_group_only() {
  configure_project || return 1
  run_step build-group 900 cmake --build "$build" -j "$jobs" --target vyre_cuda vyre vyre_reference_cpu \
    test_cuda_fake_group test_cuda_fake_collectives test_cuda_gpu_group test_cuda_gpu_collectives || return 1
  run_binary test_cuda_fake_group 120
  run_binary test_cuda_fake_collectives 120
  run_binary test_cuda_gpu_group 180
  # shellcheck disable=SC2046  # nccl_env prints one NAME=VALUE word or nothing
  run_binary test_cuda_gpu_collectives 300 NCCL_NVLS_ENABLE=0 $(nccl_env)
  run_multi_process_example
  run_python
}

# true when `vyre backends` (run_rest's first step) created a vulkan instance on this machine.
vulkan_usable() {
  grep -q '^  vulkan .*' "$logs/vyre-backends.log" 2>/dev/null &&
    grep -A4 '^  vulkan ' "$logs/vyre-backends.log" | grep -q 'create: ok'
}

run_rest() {
  # Which backends this machine can create, in selection order (cuda, vulkan, reference_cpu).
  [ -x "$build/bin/vyre" ] && run_step vyre-backends 120 "$build/bin/vyre" backends
  run_multi_process_example
  # The Vulkan plugin's device test on this machine's Vulkan driver (every dispatch surface, threads,
  # thousands of dispatches reusing their command pools).
  if [ -x "$build/bin/test_vulkan_device" ]; then
    if vulkan_usable; then run_binary test_vulkan_device 180
    else add_row test_vulkan_device SKIP 0 "no usable Vulkan device (see vyre-backends.log)"; fi
  fi
  if [ "${VYRE_GPU_TEST_CONFORM:-0}" = 1 ] && [ -x "$build/bin/vyre-conform" ]; then
    run_step vyre-conform 600 "$build/bin/vyre-conform" --plugins "$build/plugins" --backend cuda \
      --out "$logs/certificates" --no-progress
    # The Vulkan plugin on this machine's Vulkan driver (NVIDIA's ICD where the loader is present).
    if vulkan_usable; then
      run_step vyre-conform-vulkan 600 "$build/bin/vyre-conform" --plugins "$build/plugins" --backend vulkan \
        --out "$logs/certificates-vulkan" --no-progress
    else
      add_row vyre-conform-vulkan SKIP 0 "no usable Vulkan device (see vyre-backends.log)"
    fi
  fi
  # AOT bundles of every example run by vyre-launch and by the built launcher (built by build-all).
  [ -x "$build/bin/test_aot_gpu" ] && run_binary test_aot_gpu 300
  # The 8-thread load test (tests/reliability/test_load.cpp) on one cuda instance.
  # (VYRE_GPU_TEST_LOAD=0 skips it: 70-160 s of device time, for runs that repeat an earlier one.)
  [ "${VYRE_GPU_TEST_LOAD:-1}" = 1 ] && [ -x "$build/bin/reliability_load" ] &&
    run_binary reliability_load 300 VYRE_LOAD_BACKEND=cuda
  run_sanitizers
  if [ "${VYRE_GPU_TEST_CPU_SUITE:-1}" = 1 ] && [ -f "$build/CTestTestfile.cmake" ]; then
    run_step ctest-cpu-suite 600 ctest --test-dir "$build" -LE gpu -E '^test_cuda_' -j "$jobs" \
      --output-on-failure --timeout 300
    local counts
    counts=$(grep -E 'tests passed|tests failed' "$logs/ctest-cpu-suite.log" | tail -1)
    [ -n "$counts" ] && add_row "  ctest counts" "INFO" "0" "$counts"
  fi
}

# Only the Vulkan plugin on this machine's driver (mode `vulkan`): build what it needs, list the
# backends, test_vulkan_device, the bench cases of VYRE_GPU_TEST_BENCH (default "P2 P3") on
# VYRE_GPU_TEST_BENCH_BACKENDS (default "cuda vulkan"), and conform on vulkan with
# VYRE_GPU_TEST_CONFORM=1.
run_vulkan_only() {
  configure_project || return 1
  run_step build-vulkan 600 cmake --build "$build" -j "$jobs" --target vyre vyre-bench vyre-conform \
    test_vulkan_device vyre_vulkan vyre_reference_cpu vyre_cuda || return 1
  run_step vyre-backends 120 "$build/bin/vyre" backends
  if vulkan_usable; then run_binary test_vulkan_device 180
  else add_row test_vulkan_device SKIP 0 "no usable Vulkan device (see vyre-backends.log)"; fi
  VYRE_GPU_TEST_BENCH=${VYRE_GPU_TEST_BENCH:-P2 P3} VYRE_GPU_TEST_BENCH_BACKENDS=${VYRE_GPU_TEST_BENCH_BACKENDS:-cuda vulkan} run_bench
  if [ "${VYRE_GPU_TEST_CONFORM:-0}" = 1 ] && vulkan_usable; then
    run_step vyre-conform-vulkan 600 "$build/bin/vyre-conform" --plugins "$build/plugins" --backend vulkan \
      --out "$logs/certificates-vulkan" --no-progress
  fi
}

# The CUDA work first (device time is scarce), the rest of the project after it.
case "$mode" in
  vulkan) record_environment; run_vulkan_only ;;
  all) record_environment; if configure_project && build_cuda; then run_cuda_tests; run_python; fi; run_bench; build_rest; run_rest ;;
  build) record_environment; configure_project && build_cuda; build_rest ;;
  test) record_environment; run_cuda_tests; run_python; run_bench; run_rest ;;
  python) record_environment; configure_project && run_python ;;
  group) record_environment; run_group_only ;;
  *) echo "usage: $0 [all|build|test|python|vulkan|group]" >&2; exit 2 ;;
esac
[ "$failures" -eq 0 ]
