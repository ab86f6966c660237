#!/usr/bin/env bash
# Sanitizer CI (docs/RELIABILITY.md):
#   1. a Debug build of the whole tree with ASan + UBSan (-DVYRE_SANITIZE=ON; LeakSanitizer is part
#      of ASan) and every CPU test under it;
#   2. valgrind memcheck (leaks included) over key tools and tests of the regular build: `vyre run`
#      on every example, `vyre plugins verify`, and the reliability tests with reduced counts.
# Environment: SANITIZE_BUILD_DIR (default build-asan), BUILD_DIR (the regular Release build that
# scripts/test.sh made; default build), JOBS, SKIP_VALGRIND=1, SKIP_ASAN=1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
asan_dir=${SANITIZE_BUILD_DIR:-$root/build-asan}
release_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)

# Tests that cannot run under ASan, each with the reason (ctest -E regex, one per line).
excluded_under_asan() {
  # The gpu-labelled tests need the NVIDIA driver, whose mappings clash with ASan's shadow memory
  # (it needs protect_shadow_gap=0 and still reports the driver's own allocations); GPU memory is
  # checked with compute-sanitizer instead (scripts/gpu-test.sh, docs/RELIABILITY.md). Without a GPU
  # they would only report "skipped".
  echo "label gpu: the CUDA driver cannot run under ASan (GPU memory is checked by compute-sanitizer)"
  # package_install builds examples/embed and an out-of-tree plugin against the installed package as
  # a stranger would, without -fsanitize: they cannot load instrumented vyre libraries (the ASan
  # runtime must come first). The Release run of scripts/test.sh covers it.
  echo "package_install: its consumers are built without the sanitizer runtime that instrumented vyre libraries need"
}

export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:check_initialization_order=1:strict_string_checks=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp:print_suppressions=0:${LSAN_OPTIONS:-}"

run_asan() {
  local start=$SECONDS
  echo "== ci-sanitize: ASan+UBSan Debug build in $asan_dir"
  cmake -S "$root" -B "$asan_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Debug -DVYRE_SANITIZE=ON \
    -DVYRE_WERROR=ON >/dev/null
  cmake --build "$asan_dir" -j "$jobs"
  echo "== ci-sanitize: build took $((SECONDS - start)) s; excluded under ASan:"
  excluded_under_asan | sed 's/^/   /'
  start=$SECONDS
  (cd "$asan_dir" && ctest --output-on-failure -j "$jobs" --timeout 1500 -LE '^gpu$' -E '^package_install$')
  echo "== ci-sanitize: ASan tests took $((SECONDS - start)) s"
}

# valgrind NAME COMMAND...: memcheck with leak checking; any error or definite/indirect leak fails.
valgrind_run() {
  local name=$1
  shift
  local log="$release_dir/valgrind/$name.log"
  local start=$SECONDS
  if ! valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect \
      --errors-for-leak-kinds=definite,indirect --track-origins=yes --num-callers=30 \
      --suppressions="$root/scripts/valgrind.supp" --log-file="$log" "$@" >"$log.out" 2>&1; then
    echo "== ci-sanitize: valgrind FAILED for $name ($*)"
    tail -n 60 "$log" "$log.out"
    return 1
  fi
  echo "   valgrind ok: $name ($((SECONDS - start)) s)"
}

run_valgrind() {
  if ! command -v valgrind >/dev/null 2>&1; then
    echo "== ci-sanitize: valgrind is not installed; the valgrind leak runs are skipped." \
         "Fix: apt-get install valgrind"
    return 0
  fi
  local start=$SECONDS
  echo "== ci-sanitize: valgrind over key tools and tests of $release_dir"
  cmake --build "$release_dir" -j "$jobs" --target vyre vyre_reference_cpu reliability_load \
    reliability_faults reliability_bad_input reliability_plugin_verify test_abi_compat \
    refcpu_test_external_memory
  mkdir -p "$release_dir/valgrind"
  local vyre=("$release_dir/bin/vyre" --no-default-plugins --plugins "$release_dir/plugins")
  local failed=0
  for example in "$root"/examples/*.json; do
    valgrind_run "run_$(basename "$example" .json)" "${vyre[@]}" run "$example" --random 7 \
      --backend reference_cpu --max-values 4 || failed=1
  done
  valgrind_run plugins_verify "${vyre[@]}" plugins verify --create || failed=1
  VYRE_LOAD_THREADS=4 VYRE_LOAD_OPS=150 valgrind_run load "$release_dir/bin/reliability_load" || failed=1
  # Not the failing host allocation: valgrind cannot throw std::bad_alloc (it aborts instead); the
  # Release test run covers it.
  valgrind_run faults "$release_dir/bin/reliability_faults" -tce='*host allocation that fails*' || failed=1
  valgrind_run bad_input "$release_dir/bin/reliability_bad_input" || failed=1
  # The host side of hostile plugin verification (the children run natively, untraced).
  valgrind_run plugin_verify "$release_dir/bin/reliability_plugin_verify" \
    -tc='*segfaults*,*hangs in vyre_backend_register*,*well-behaved*,*verify_in_child*' || failed=1
  # Ownership across the ABI: plugins of other minors (C11), and memory the caller owns.
  valgrind_run abi_compat "$release_dir/bin/test_abi_compat" || failed=1
  valgrind_run external_memory "$release_dir/bin/refcpu_test_external_memory" || failed=1
  echo "== ci-sanitize: valgrind took $((SECONDS - start)) s"
  return $failed
}

[ "${SKIP_ASAN:-0}" = 1 ] || run_asan
[ "${SKIP_VALGRIND:-0}" = 1 ] || run_valgrind
echo "== ci-sanitize: passed"
