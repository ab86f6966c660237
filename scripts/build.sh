#!/usr/bin/env bash
# Configure and build vyre into build/ (Release). Extra arguments go to cmake's configure step.
# BUILD_DIR and JOBS override the defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${BUILD_DIR:-$root/build}
jobs=${JOBS:-$(nproc)}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
if [ ! -f "$build_dir/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
elif [ $# -gt 0 ]; then
  cmake -S "$root" -B "$build_dir" "$@"
fi
cmake --build "$build_dir" -j "$jobs"
