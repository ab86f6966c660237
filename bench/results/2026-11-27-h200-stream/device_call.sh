#!/usr/bin/env bash
# Session 2026-11-27b call 3: the native-stream extension on the GPU (issue 14 P9): fake + GPU tests,
# Python GPU tests, P2/P9 + python_cases; vulkan K4/K9 with the SM count from VK_NV_shader_sm_builtins.
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
R=$OUT; L=/tmp/k3; mkdir -p $L; O=$R/out.txt; t0=$(date +%s); st() { echo "[$(( $(date +%s)-t0 ))s] $*" >> $O; }
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_PYTHON_EXECUTABLE=$PY > $L/cfg.log 2>&1; st "configure rc $?"
timeout 200 cmake --build $B -j16 --target vyre vyre_cuda vyre_reference_cpu vyre_vulkan test_cuda_fake_external test_cuda_gpu_external test_cuda_gpu_resident test_vulkan_device vyre-conform vyre_python python_reference_programs vyre-bench > $L/build.log 2>&1; st "build rc $?"; grep -E "error|warning" $L/build.log | head -5 >> $O
timeout 60 $B/bin/test_cuda_fake_external > $L/fake.txt 2>&1; st "fake external rc $?"; tail -2 $L/fake.txt >> $O
timeout 60 $B/bin/test_cuda_gpu_external > $L/gpuext.txt 2>&1; st "gpu external rc $?"; tail -2 $L/gpuext.txt >> $O
timeout 60 $B/bin/test_cuda_gpu_resident > $L/gpures.txt 2>&1; st "gpu resident rc $?"; tail -2 $L/gpures.txt >> $O
PYTHONPATH=$B/python PYTHONDONTWRITEBYTECODE=1 VYRE_SOURCE_DIR=$PWD PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 VYRE_REFERENCE_PROGRAMS_TOOL=$B/bin/python_reference_programs timeout 90 $PY -m pytest -q -p no:cacheprovider python/tests/test_gpu.py python/tests/test_group_gpu.py > $L/pytest.txt 2>&1; st "pytest rc $?"; tail -15 $L/pytest.txt >> $O
timeout 30 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre.json > $L/vyre.txt 2>&1; st "bench rc $?"; grep -E "^P" $L/vyre.txt >> $O
PYTHONPATH=$B/python timeout 60 $PY bench/python_cases.py --vyre $L/vyre.json --json $L/python.json > $L/python.txt 2>&1; st "python_cases rc $?"
grep -E '"id"|"median"|"above_cpp_us"|"above_python_resident_us"|"hits"|"misses"|stream_waits' $L/python.json | head -30 >> $O
timeout 60 $B/bin/test_vulkan_device -s > $L/vkdev.txt 2>&1; st "test_vulkan_device rc $?"; grep -i "native fma\|seeded\|div/sqrt" $L/vkdev.txt | sort -u | head -5 >> $O; tail -2 $L/vkdev.txt >> $O
timeout 120 $B/bin/vyre-conform --plugins $B/plugins --backend vulkan --out $L/cert-vulkan --no-progress > $L/conform-vk.txt 2>&1; st "conform vulkan rc $?"; tail -3 $L/conform-vk.txt >> $O
timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend cuda --out $L/cert-cuda --no-progress > $L/conform-cuda.txt 2>&1; st "conform cuda rc $?"; tail -2 $L/conform-cuda.txt >> $O
tar czf $R/certs.tgz -C $L cert-vulkan cert-cuda
timeout 60 $B/bin/vyre-bench --case K12 --case K1 --case K2 --case K6 --backend vulkan --json $L/vk2.json > $L/vk2.txt 2>&1; st "vulkan K12 K1 K2 K6 rc $?"; grep -E "^K" $L/vk2.txt >> $O
timeout 40 $B/bin/vyre-bench --case K4 --case K9 --backend vulkan --json $L/vk.json > $L/vk.txt 2>&1; st "vulkan K4 K9 rc $?"; grep -E "^K" $L/vk.txt >> $O
grep -o '"grid": \[[0-9, ]*\]' $L/vk.json | head -2 >> $O
tar czf $R/k3.tgz -C /tmp k3
cat $O
