#!/usr/bin/env bash
# Device call 3: --exclude-libs fix for "import vyre; import torch"; Python GPU tests; P8/P9.
set -u
R=$OUT; L=/tmp/c3; mkdir -p $L; trap 'tar czf $R/c3.tgz -C /tmp c3; cp $L/out.txt $R/ 2>/dev/null' EXIT
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
PY=/opt/torch/.venv/bin/python; B=$PWD/build-gpu; O=$L/out.txt
echo "=== toolchain" > $O; /opt/gcc/bin/g++ -print-file-name=libstdc++.so >> $O; ls -la $(dirname $(/opt/gcc/bin/g++ -print-file-name=libstdc++.a)) 2>&1 | grep -i "libstdc" >> $O; file /opt/gcc/bin/g++ >> $O
OUT=$L/gt JOBS=16 timeout 400 scripts/gpu-test.sh python >> $O 2>&1; echo "gpu-test python rc $?" >> $O
readelf -d $B/lib/libvyre_sdk.so | grep NEEDED >> $O
timeout 120 cmake --build $B -j16 --target vyre_vulkan > $L/vk-build.log 2>&1; echo "vk build rc $?" >> $O
(cd $B && ctest -R library_symbols --output-on-failure >> $O 2>&1)
for pre in "import os" "import numpy"; do echo "=== $pre; vyre; torch" >> $O; PYTHONPATH=$B/python timeout 60 $PY -c "$pre
import vyre; r=vyre.Registry(use_environment=False); b=r.backend('cuda')
import torch; print('torch ok', torch.cuda.is_available())" >> $O 2>&1; echo "rc $?" >> $O; done
timeout 120 cmake --build $B -j16 --target vyre-bench > $L/bench-build.log 2>&1; echo "build rc $?" >> $O
timeout 60 $B/bin/vyre-bench --case P2 --case P9 --backend cuda --json $L/vyre.json > $L/vyre.txt 2>&1; echo "rc $?" >> $O
PYTHONPATH=$B/python timeout 90 $PY bench/python_cases.py --vyre $L/vyre.json --json $L/python.json > $L/python.txt 2>&1; echo "python_cases rc $?" >> $O
tail -3 $L/vyre.txt >> $O; grep -E '"id"|"median"|reason|"above_cpp_us"' $L/python.json | head -20 >> $O
cat $O | cut -c1-250 | tail -80
