#!/usr/bin/env bash
# Install what is missing, build, and run every test. GPU tests report "skipped" (with the reason)
# on machines without an NVIDIA driver; run scripts/gpu-test.sh on a GPU machine for those.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/deps.sh"
"$root/scripts/build.sh"  # the flags demo.sh builds with: nothing to rebuild after it
cd "${BUILD_DIR:-$root/build}"
ctest --output-on-failure -j "${JOBS:-$(nproc)}"
