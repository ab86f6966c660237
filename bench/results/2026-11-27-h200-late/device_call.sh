#!/usr/bin/env bash
# Device call 4 (one H200, short budget): the transfer ring on a GPU, the Python GPU tests with the
# DLPack import cache, P2/P9/P8, vulkan P3 after the reuse changes.
set -u
R=$OUT; L=/tmp/c4; mkdir -p $L; trap 'tar czf $R/c4.tgz -C /tmp c4; cp $L/out.txt $R/ 2>/dev/null' EXIT
t0=$(date +%s); O=$L/out.txt; step() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
step configure; cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_PYTHON_EXECUTABLE=$PY > $L/cfg.log 2>&1; step "rc $?"
timeout 150 cmake --build $B -j16 --target vyre_cuda vyre_reference_cpu vyre_vulkan test_cuda_gpu_dispatch vyre_python python_reference_programs vyre-bench > $L/build.log 2>&1; step "build rc $?"
timeout 40 $B/bin/test_cuda_gpu_dispatch -tc="a large host dispatch*,sync, async*" > $L/dispatch.txt 2>&1; step "gpu dispatch rc $?"; tail -3 $L/dispatch.txt >> $O
PYTHONPATH=$B/python PYTHONDONTWRITEBYTECODE=1 VYRE_SOURCE_DIR=$PWD PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 VYRE_REFERENCE_PROGRAMS_TOOL=$B/bin/python_reference_programs timeout 45 $PY -m pytest -q -p no:cacheprovider python/tests/test_gpu.py > $L/pytest.txt 2>&1; step "pytest rc $?"; tail -2 $L/pytest.txt >> $O
timeout 25 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre.json > $L/vyre.txt 2>&1; step "bench rc $?"; tail -2 $L/vyre.txt >> $O
PYTHONPATH=$B/python timeout 40 $PY bench/python_cases.py --vyre $L/vyre.json --json $L/python.json > $L/python.txt 2>&1; step "python_cases rc $?"
grep -E '"id"|"median"|"above_cpp_us"|"hits"|"misses"' $L/python.json | head -16 >> $O
timeout 25 $B/bin/vyre-bench --case P3 --backend vulkan --json $L/vulkan.json > $L/vulkan.txt 2>&1; step "vulkan P3 rc $?"; tail -2 $L/vulkan.txt >> $O
cat $O | cut -c1-250
