# Steps of a device call (the `device` tool's machine), sourced by a call script such as
# bench/results/<date>-<device>-<name>/device_call.sh. Each step is done once per warm machine:
# its marker stays in the results folder, so calling the same script again on the same lease runs
# only what is left, within TOTAL seconds (default 570) of this call.
#
#   . bench/device_steps.sh NAME     results under /tmp/NAME, returned as $OUT/NAME.tgz
#   step_env                         date, GPU, driver, memory (env.txt)
#   step_ab TREE CASES               vyre-bench CASES (e.g. "--case K13") of the tree in TREE (a
#                                    `git archive` of an earlier commit, carried), 10 reps
#   step_kernels [CASES]             the kernel suite (default all of it; e.g. "--case K13") of this
#                                    tree against the nvcc twins, 10 reps
#   step_build_bench TREE            vyre-bench alone (no twins) in TREE/build-kernels, for
#                                    step_case_ab without a step_ab
#   step_case_ab TREE CASE ROUNDS    vyre-bench --case CASE of TREE's build and of this tree's,
#                                    alternating, ROUNDS times each (after step_kernels, and
#                                    step_ab or step_build_bench)
#   step_pcases                      scripts/bench.sh without kernels and conform: P1-P5, P7, P9,
#                                    C1, R1 and the Python cases, with their baselines
#   step_gpu_tests                   scripts/gpu-test.sh all, conform on cuda and vulkan
#   step_exhaustive "BACKENDS" "OPS" vyre-conform --exhaustive of each op on each backend
#   step_examples                    every example on cuda against reference_cpu
# A step runs only when at least its stated seconds are left. Vulkan runs on NVIDIA's ICD from
# the carried .gl packages (docs/GPU_RUNS.md).
NAME=${1:?name the results folder}
R=/tmp/$NAME; mkdir -p "$R"; S=$R/steps.txt
t0=$(date +%s); total=${TOTAL:-570}
export PYTHON=/opt/torch/.venv/bin/python
for f in .gl/*.deb; do [ -f "$f" ] && dpkg -x "$f" / >/dev/null 2>&1; done; ldconfig 2>/dev/null
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
B=$PWD/build-gpu  # scripts/gpu-test.sh's build

st() { echo "[$(date -u +%H:%M:%S) +$(( $(date +%s) - t0 ))s] $*" | tee -a "$S"; }
left() { echo $(( total - ($(date +%s) - t0) )); }
done_() { [ -f "$R/.done-$1" ]; }
# Whether step $1 is still to run and at least $2 seconds are left.
due() { ! done_ "$1" && [ "$(left)" -gt "$2" ]; }

steps_finish() {
  trap - EXIT TERM
  ls "$R"/.done-* 2>/dev/null | sed 's/.*done-/done: /' | tee -a "$S"
  rm -rf "$R"/gpu/build* "$R"/ex 2>/dev/null
  tar czf "$OUT/$NAME.tgz" -C /tmp --exclude='*.cubin' "$NAME"
  cp "$S" "$OUT/"
}
trap steps_finish EXIT
trap "exit 143" TERM

# The vyre / nvcc column of a results.md, one line per K row.
ratios() { grep -E "^\| K[0-9]|geometric|K13 \(" "$1" | grep -v "nvcc -O3 twin" | awk -F'|' '{print $2, $6}'; }

step_env() {
  [ -f "$R/env.txt" ] || { date -u; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; } > "$R/env.txt"
  cat "$R/env.txt"
}

step_ab() {
  local tree=$1 cases=$2
  due ab 200 || return 0
  (cd "$tree" && OUT=$R/ab BUILD_DIR=$PWD/build-kernels CASES="$cases" REPS=10 SKIP_PTX=1 RUN_LIMIT=150 \
     timeout 240 bench/kernels/device_run.sh > "$R/ab.txt" 2>&1)
  st "ab ($tree) rc $?"; touch "$R/.done-ab"
  ratios "$R/ab/results.md" | tee -a "$S"
}

step_kernels() {
  due kernels 200 || return 0
  OUT=$R/kernels CASES="${1:---kernels}" REPS=10 VYRE_COMMIT=${VYRE_COMMIT:-unknown} RUN_LIMIT=240 \
    timeout $(( $(left) - 10 )) bench/kernels/device_run.sh > "$R/kernels.txt" 2>&1
  local rc=$?; st "kernels rc $rc"; [ $rc = 0 ] && touch "$R/.done-kernels"
  ratios "$R/kernels/results.md" | tee -a "$S"
}

step_build_bench() {
  local tree=$1
  due "build-$tree" 120 || return 0
  cmake -S "$tree" -B "$tree/build-kernels" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_BUILD_TESTS=OFF \
    > "$R/build-$tree.txt" 2>&1 && timeout $(( $(left) - 30 )) cmake --build "$tree/build-kernels" -j16 \
    --target vyre-bench >> "$R/build-$tree.txt" 2>&1
  local rc=$?; st "build $tree rc $rc"; [ $rc = 0 ] && touch "$R/.done-build-$tree"
}

step_case_ab() {
  local tree=$1 case=$2 rounds=$3 k side bin
  [ -x "$tree/build-kernels/bin/vyre-bench" ] && done_ kernels && due "ab-$case" 60 || return 0
  for k in $(seq "$rounds"); do for side in old new; do
    bin=$PWD/build-kernels/bin/vyre-bench; [ $side = old ] && bin=$PWD/$tree/build-kernels/bin/vyre-bench
    (cd "$([ $side = old ] && echo "$tree" || echo .)" && timeout 60 "$bin" --case "$case" --backend cuda \
       --json "$R/ab-$case-$side-$k.json" > "$R/ab-$case-$side-$k.txt" 2>&1)
    st "$case $side round $k rc $?: $(grep -h -m1 -E "^$case " "$R/ab-$case-$side-$k.txt" | tr -s ' ' | cut -c1-200)"
  done; done
  touch "$R/.done-ab-$case"
}

step_pcases() {
  due pcases 240 || return 0
  OUT=$R/pcases BUILD_DIR=$PWD/build-bench-release BENCH_SKIP_KERNELS=1 BENCH_SKIP_CONFORM=1 \
    timeout $(( $(left) - 15 )) scripts/bench.sh > "$R/pcases.txt" 2>&1
  local rc=$?; st "pcases rc $rc"; [ $rc = 0 ] && touch "$R/.done-pcases"
  grep -E "^\| (P|C|R)[0-9]" "$R/pcases/results.md" 2>/dev/null | awk -F'|' '{print $2, $6, $9}' | tee -a "$S"
}

step_gpu_tests() {
  due tests 230 || return 0
  OUT=$R/gpu VYRE_GPU_TEST_CONFORM=1 VYRE_GPU_TEST_CPU_SUITE=0 VYRE_GPU_TEST_LOAD=0 timeout $(( $(left) - 30 )) \
    scripts/gpu-test.sh all > "$R/gpu-test.txt" 2>&1
  local rc=$?; st "gpu-test all rc $rc"; [ $rc = 0 ] && touch "$R/.done-tests"
  sed -n '/==== vyre GPU test summary/,$p' "$R/gpu-test.txt" | tee -a "$S"
}

step_exhaustive() {
  local backends=$1 ops=$2 be op
  done_ tests && due exh 80 || return 0
  for be in $backends; do for op in $ops; do
    timeout 120 "$B/bin/vyre-conform" --plugins "$B/plugins" --backend "$be" --ops "$op" --exhaustive \
      --out "$R/exh-$be-$op" --no-progress > "$R/exh-$be-$op.txt" 2>&1
    st "exhaustive $be $op rc $? $(grep -h '"max_ulp"\|"failures"' "$R/exh-$be-$op"/*.json | tr -d ' \n')"
  done; done
  touch "$R/.done-exh"
}

step_examples() {
  local ex n b
  done_ tests && due ex 30 || return 0
  mkdir -p "$R/ex"
  for ex in examples/*.json; do
    n=$(basename "$ex" .json)
    for b in reference_cpu cuda; do
      timeout 30 "$B/bin/vyre" run "$ex" --random 3 --backend $b --out "$R/ex/$n-$b" > "$R/ex/$n-$b.txt" 2>&1
    done
    diff -r "$R/ex/$n-cuda" "$R/ex/$n-reference_cpu" >/dev/null && echo "$n same" || echo "$n DIFFERS"
  done > "$R/examples.txt" 2>&1
  st "examples: $(tr '\n' ' ' < "$R/examples.txt")"; touch "$R/.done-ex"
}
