#!/usr/bin/env bash
# Configure and build vyre into build/: Release, warnings as errors. Every script that builds
# (demo.sh, test.sh, bench.sh...) goes through here with these same flags, so one build serves them
# all: test.sh after demo.sh finds nothing to rebuild. Extra arguments go to cmake's configure step
# (after the defaults, so they win; a build with other flags belongs in another BUILD_DIR).
# BUILD_DIR and JOBS override the defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
flags=(-DCMAKE_BUILD_TYPE=Release -DVYRE_WERROR=ON)
generator=()
if [ ! -f "$build_dir/CMakeCache.txt" ] && command -v ninja >/dev/null 2>&1; then
  generator=(-G Ninja)
fi
# Re-running the configure step with unchanged flags rebuilds nothing (about a second).
cmake -S "$root" -B "$build_dir" "${generator[@]}" "${flags[@]}" "$@"
cmake --build "$build_dir" -j "$jobs"
