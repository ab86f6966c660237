#!/usr/bin/env bash
# One device call for the performance work (bench/NOTES.md): build, the GPU tests, the driver's own
# floor, an A/B of the new paths against the old ones, then the full bench. Everything lands in
# $OUT/run (tarred into $OUT/run.tgz at the end); the few files read first are also copied to $OUT
# directly, so a run stopped at its limit still returns them.
#
#   bench/device_run.sh            (on the GPU machine, from the repository root; OUT must be set)
#
# Knobs: SKIP_TESTS=1, SKIP_AB=1, SKIP_BENCH=1, BENCH_SKIP_CONFORM=1 (passed to bench.sh).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:?set OUT}
run=$out/run
mkdir -p "$run"
build=$root/build-gpu
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$run/progress.txt"; }
keep() { cp "$@" "$out/" 2>/dev/null || true; }
finish() {
  tar czf "$out/run.tgz" -C "$out" run 2>/dev/null
  stamp "done"
}
trap finish EXIT

cd "$root"
stamp "build"
JOBS=16 BUILD_DIR=$build OUT=$run/build scripts/gpu-test.sh build >"$run/build.txt" 2>&1
stamp "build exit $?"

if [ "${SKIP_TESTS:-0}" != 1 ]; then
  stamp "gpu tests"
  VYRE_GPU_TEST_CPU_SUITE=0 BUILD_DIR=$build OUT=$run/gputest scripts/gpu-test.sh test >"$run/gputest.txt" 2>&1
  stamp "gpu tests exit $?"
  keep "$run/gputest/summary.txt"
fi

stamp "driver floor"
g++ -O2 -std=c++20 -I/usr/local/cuda/include bench/floor/driver_floor.cpp -L/usr/local/cuda/lib64/stubs -lcuda \
  -o "$run/driver_floor" >"$run/floor_build.txt" 2>&1 && timeout 60 "$run/driver_floor" >"$run/floor.txt" 2>&1
stamp "driver floor exit $?"
keep "$run/floor.txt"

if [ "${SKIP_AB:-0}" != 1 ]; then
  stamp "A/B: the old paths (whole entry, copies staging) in this build"
  VYRE_CUDA_DISABLE_ELEMENTWISE=1 VYRE_CUDA_DISABLE_MAPPED_HOST=1 timeout 120 "$build/bin/vyre-bench" \
    --case P1 --case P2 --case P3 --backend cuda --json "$run/ab_old.json" >"$run/ab_old.txt" 2>&1
  stamp "A/B exit $?"
  keep "$run/ab_old.txt"
fi

if [ "${SKIP_BENCH:-0}" != 1 ]; then
  stamp "bench"
  BUILD_DIR=$build OUT=$run/bench scripts/bench.sh >"$run/bench.txt" 2>&1
  stamp "bench exit $?"
  keep "$run/bench/results.md"
fi
