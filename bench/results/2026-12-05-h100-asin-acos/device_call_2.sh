#!/usr/bin/env bash
# 2026-12-05 (fifth session), call 2: O36d (acos's two big-range sums on one rounded T2 + r y), on
# one lease, in as many calls as it takes (steps done stay done on a warm machine; each call does
# what fits in TOTAL s):
#   ab      K13-asin, K13-acos and K13-atan (control) of the session's starting tree (ab-old/,
#           `git archive fc04efa`, carried), 10 reps
#   kernels the whole kernel suite K1-K13 of this tree against the nvcc twins (10 reps), with the
#           PTX/SASS of every kernel
#   tests   scripts/gpu-test.sh all with conform on cuda and vulkan (the CPU suite runs in CI)
#   exh     exhaustive un.acos.f32 on cuda and on vulkan (asin is unchanged since call 1)
#   ex      every example on cuda against reference_cpu
set -u
for f in .gl/*.deb; do dpkg -x $f / >/dev/null 2>&1; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
export PYTHON=/opt/torch/.venv/bin/python
R=/tmp/o36d; mkdir -p $R; S=$R/steps.txt
t0=$(date +%s); total=${TOTAL:-570}
st() { echo "[$(date -u +%H:%M:%S) +$(( $(date +%s)-t0 ))s] $*" | tee -a $S; }
left() { echo $(( total - ($(date +%s) - t0) )); }
done_() { [ -f $R/.done-$1 ]; }
finish() {
  trap - EXIT TERM
  ls $R/.done-* 2>/dev/null | sed 's/.*done-/done: /' | tee -a $S
  rm -rf $R/gpu/build* $R/ex 2>/dev/null
  tar czf $OUT/o36d.tgz -C /tmp --exclude='*.cubin' o36d
  cp $S $OUT/
}
trap finish EXIT
trap "exit 143" TERM
[ -f $R/env.txt ] || { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > $R/env.txt
cat $R/env.txt
if ! done_ ab && [ $(left) -gt 300 ]; then
  (cd ab-old && OUT=$R/ab-old BUILD_DIR=$PWD/build-kernels CASES="--case K13-asin --case K13-acos --case K13-atan" \
     REPS=10 SKIP_PTX=1 RUN_LIMIT=120 timeout 200 bench/kernels/device_run.sh > $R/ab-old.txt 2>&1)
  st "ab old rc $?"; touch $R/.done-ab
  grep -E "^\| K13-" $R/ab-old/results.md | awk -F'|' '{print $2, $6}' | sort -u | tee -a $S
fi
if ! done_ kernels && [ $(left) -gt 200 ]; then
  OUT=$R/kernels REPS=10 VYRE_COMMIT=${VYRE_COMMIT:-unknown} RUN_LIMIT=240 timeout $(( $(left) - 10 )) bench/kernels/device_run.sh > $R/kernels.txt 2>&1
  rc=$?; st "kernels rc $rc"; [ $rc = 0 ] && touch $R/.done-kernels
  grep -E "^\| K[0-9]|geometric|K13 \(" $R/kernels/results.md | grep -v "nvcc -O3 twin" | awk -F'|' '{print $2, $6}' | tee -a $S
fi
if ! done_ tests && [ $(left) -gt 230 ]; then
  OUT=$R/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout $(( $(left) - 30 )) scripts/gpu-test.sh all > $R/gpu-test.txt 2>&1
  rc=$?; st "gpu-test all rc $rc"; [ $rc = 0 ] && touch $R/.done-tests
  sed -n '/==== vyre GPU test summary/,$p' $R/gpu-test.txt | tee -a $S
fi
B=$PWD/build-gpu
if done_ tests && ! done_ exh && [ $(left) -gt 80 ]; then
  for be in cuda vulkan; do for op in un.acos.f32; do
    timeout 120 $B/bin/vyre-conform --plugins $B/plugins --backend $be --ops $op --exhaustive --out $R/exh-$be-$op --no-progress > $R/exh-$be-$op.txt 2>&1
    st "exhaustive $be $op rc $? $(grep -h '"max_ulp"\|"failures"' $R/exh-$be-$op/*.json | tr -d ' \n')"
  done; done
  touch $R/.done-exh
fi
if done_ tests && ! done_ ex && [ $(left) -gt 30 ]; then
  mkdir -p $R/ex; for ex in examples/*.json; do n=$(basename $ex .json); for b in reference_cpu cuda; do timeout 30 $B/bin/vyre run $ex --random 3 --backend $b --out $R/ex/$n-$b > $R/ex/$n-$b.txt 2>&1; done; diff -r $R/ex/$n-cuda $R/ex/$n-reference_cpu >/dev/null && echo "$n same" || echo "$n DIFFERS"; done > $R/examples.txt 2>&1
  st "examples: $(tr '\n' ' ' < $R/examples.txt)"; touch $R/.done-ex
fi
