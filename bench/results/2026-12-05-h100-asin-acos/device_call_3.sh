#!/usr/bin/env bash
# 2026-12-05 (fifth session), call 3: O37 (f32 sinh and cosh carried at twice their value). The
# session's device time was nearly spent (a refused start cost 180 s), so this call is lean: no
# gpu-test (the change is inside the math library, which conform, the exhaustive runs and the
# examples exercise), steps in order of need, each only if it fits in TOTAL s:
#   build   device_run.sh STAGE=build of this tree, plus vyre-conform and vyre in the same tree
#   conform vyre-conform (416 ops) on cuda and on vulkan
#   exh     exhaustive un.sinh.f32 and un.cosh.f32 on cuda (on vulkan every step is an exact
#           doubling of the old one and rcp.rn(2p) = rcp.rn(p)/2, so its bits cannot move)
#   ex      every example on cuda against reference_cpu
#   ab      K13-sinh and K13-cosh of the tree before O37 (ab-old/, `git archive 9ced1fc`), 10 reps
#   k13     K13 (16 functions) of this tree against the nvcc twins, 10 reps
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export PYTHON=/opt/torch/.venv/bin/python
R=/tmp/o37; mkdir -p $R; S=$R/steps.txt
t0=$(date +%s); total=${TOTAL:-330}
st() { echo "[$(date -u +%H:%M:%S) +$(( $(date +%s)-t0 ))s] $*" | tee -a $S; }
left() { echo $(( total - ($(date +%s) - t0) )); }
finish() {
  trap - EXIT TERM
  rm -rf $R/ex 2>/dev/null
  tar czf $OUT/o37.tgz -C /tmp --exclude='*.cubin' --exclude='twins.sass' o37
  cp $S $OUT/
}
trap finish EXIT
trap "exit 143" TERM
{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > $R/env.txt; cat $R/env.txt
B=$PWD/build-kernels
OUT=$R/k13 STAGE=build VYRE_COMMIT=${VYRE_COMMIT:-unknown} timeout 150 bench/kernels/device_run.sh > $R/build.txt 2>&1; st "build rc $?"
timeout 100 cmake --build $B --target vyre-conform vyre -j16 > $R/build-tools.txt 2>&1; st "build tools rc $?"
for be in cuda vulkan; do
  timeout 40 $B/bin/vyre-conform --plugins $B/plugins --backend $be --out $R/conform-$be --no-progress > $R/conform-$be.txt 2>&1
  st "conform $be rc $? $(tail -n 1 $R/conform-$be.txt | cut -c1-100)"
done
for be in cuda; do for op in un.sinh.f32 un.cosh.f32; do
  [ $(left) -gt 60 ] || break
  timeout 60 $B/bin/vyre-conform --plugins $B/plugins --backend $be --ops $op --exhaustive --out $R/exh-$be-$op --no-progress > $R/exh-$be-$op.txt 2>&1
  st "exhaustive $be $op rc $? $(grep -h '"max_ulp"\|"failures"' $R/exh-$be-$op/*.json | tr -d ' \n')"
done; done
mkdir -p $R/ex; for ex in examples/*.json; do n=$(basename $ex .json); for b in reference_cpu cuda; do timeout 30 $B/bin/vyre run $ex --random 3 --backend $b --out $R/ex/$n-$b > $R/ex/$n-$b.txt 2>&1; done; diff -r $R/ex/$n-cuda $R/ex/$n-reference_cpu >/dev/null && echo "$n same" || echo "$n DIFFERS"; done > $R/examples.txt 2>&1
st "examples: $(tr '\n' ' ' < $R/examples.txt)"
if [ $(left) -gt 110 ]; then
  (cd ab-old && OUT=$R/ab-old BUILD_DIR=$PWD/build-kernels CASES="--case K13-sinh --case K13-cosh" REPS=10 SKIP_PTX=1 RUN_LIMIT=30 timeout $(( $(left) - 5 )) bench/kernels/device_run.sh > $R/ab-old.txt 2>&1)
  st "ab old rc $?"; grep -E "^\| K13-" $R/ab-old/results.md | grep -v "nvcc -O3 twin" | awk -F'|' '{print $2, $6}' | tee -a $S
fi
if [ $(left) -gt 50 ]; then
  OUT=$R/k13 STAGE=run CASES="--case K13" REPS=10 SKIP_PTX=1 VYRE_COMMIT=${VYRE_COMMIT:-unknown} RUN_LIMIT=$(( $(left) - 10 )) timeout $(( $(left) - 5 )) bench/kernels/device_run.sh > $R/k13.txt 2>&1
  st "k13 rc $?"; grep -E "^\| K13-|K13 \(" $R/k13/results.md | grep -v "nvcc -O3 twin" | awk -F'|' '{print $2, $6}' | tee -a $S
fi
