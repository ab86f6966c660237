#!/usr/bin/env bash
# Fuzzing CI (fuzz/README.md): build the libFuzzer targets with clang (ASan + UBSan) and run each
# for a bounded time from its seed corpus (fuzz/corpus/<target>/) and its past findings
# (fuzz/regressions/<target>/). A crash, leak, timeout or broken invariant fails the run and leaves
# the input under $FUZZ_BUILD_DIR/artifacts/<target>/ with the command that reproduces it.
# Environment: FUZZ_SECONDS (per target, default 60), FUZZ_TARGETS (default: all six),
# FUZZ_BUILD_DIR (default build-fuzz), CLANGXX / CLANGC (the compilers), JOBS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-"wire json validate certificate aot_manifest dispatch"}
jobs=${JOBS:-$(nproc)}

find_tool() {
  for candidate in "$@"; do
    if command -v "$candidate" >/dev/null 2>&1; then
      command -v "$candidate"
      return 0
    fi
  done
  return 1
}

clangxx=${CLANGXX:-$(find_tool clang++ clang++-14 || true)}
clangc=${CLANGC:-$(find_tool clang clang-14 || true)}
if ! command -v "${clangxx:-/nonexistent}" >/dev/null 2>&1 || ! command -v "${clangc:-/nonexistent}" >/dev/null 2>&1; then
  echo "ci-fuzz: clang is not installed; fuzzing skipped. Fix: apt-get install clang-14 libclang-rt-14-dev" \
       "(or set CLANGXX and CLANGC)"
  exit 0
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' >"$probe/probe.cpp"
if ! "$clangxx" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" 2>"$probe/err"; then
  echo "ci-fuzz: $clangxx cannot link libFuzzer with ASan/UBSan; fuzzing skipped." \
       "Fix: apt-get install libclang-rt-14-dev (the compiler-rt runtimes)"
  sed 's/^/  /' "$probe/err" | head -5
  exit 0
fi

generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
start=$SECONDS
cmake -S "$root" -B "$build_dir" "${generator[@]}" -DVYRE_FUZZ=ON -DVYRE_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$clangxx" -DCMAKE_C_COMPILER="$clangc" >/dev/null
cmake --build "$build_dir" -j "$jobs" --target vyre_fuzz_all
echo "== ci-fuzz: build took $((SECONDS - start)) s; $seconds s per target"

failed=0
for target in $targets; do
  work="$build_dir/fuzz-corpus/$target"      # grows across local runs; new inputs land here
  artifacts="$build_dir/artifacts/$target"
  log="$build_dir/fuzz-$target.log"
  mkdir -p "$work" "$artifacts"
  corpora=("$work" "$root/fuzz/corpus/$target")
  [ -d "$root/fuzz/regressions/$target" ] && corpora+=("$root/fuzz/regressions/$target")
  start=$SECONDS
  if "$build_dir/bin/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$artifacts/" "${corpora[@]}" >"$log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    echo "   fuzz_$target: ok, ${runs:-?} inputs in $((SECONDS - start)) s"
  else
    failed=1
    echo "== ci-fuzz: fuzz_$target FAILED; log $log:"
    grep -E "ERROR|SUMMARY|what\(\)|runtime error|Test unit written" "$log" | head -20 | sed 's/^/   /'
    for input in "$artifacts"/*; do
      [ -e "$input" ] || continue
      echo "   reproduce: $build_dir/bin/fuzz_$target '$input'"
    done
    echo "   Fix: minimize it (fuzz_$target -minimize_crash=1 -runs=10000 INPUT), add it to" \
         "fuzz/regressions/$target/ with a test in tests/reliability, and fix the reader."
  fi
done
exit $failed
