#!/usr/bin/env bash
# 2026-12-05 (fourth session): the whole benchmark of main's HEAD in one results folder, on one
# lease, in as many calls as it takes (each call does the steps not yet done that fit in TOTAL
# seconds, default 560; the build directory and the results stay on the warm machine between calls):
#   build   configure build-bench-release as scripts/bench.sh does (twins on, the Python package
#           for torch's interpreter) and build vyre-bench, vyre-bench-ptx and the Python package
#   kernels vyre-bench --kernels (K1-K13 against the nvcc twins, 10 reps)
#   pcases  scripts/bench.sh with BENCH_SKIP_KERNELS=1 BENCH_SKIP_CONFORM=1: PTX/SASS, P1-P5, P7,
#           P9, C1, R1, Python P8/P9, the torch/CuPy baselines
#   p6      vyre-bench --case P6 (vyre-conform's time on cuda)
# then bench/report.py and bench/plot.py over everything so far. Run with VYRE_COMMIT set.
set -u
export PATH=/opt/torch/.venv/bin:$PATH PYTHON=/opt/torch/.venv/bin/python
B=$PWD/build-bench-release; F=$B/final; mkdir -p $F/logs; S=$F/steps.txt
t0=$(date +%s); total=${TOTAL:-560}
st() { echo "[$(date -u +%H:%M:%S) +$(( $(date +%s)-t0 ))s] $*" | tee -a $S; }
left() { echo $(( total - ($(date +%s) - t0) )); }
done_() { [ -f $F/.done-$1 ]; }
finish() {
  trap - EXIT TERM
  if [ -f $F/env.json ]; then
    args=(); for j in vyre vyre-conform python vyre-kernels; do [ -f $F/$j.json ] && args+=(--vyre $F/$j.json); done
    for j in $F/baseline-P*.json; do [ -f $j ] && args+=(--baseline $j); done
    python3 bench/report.py --env $F/env.json "${args[@]}" --out-dir $F > $F/logs/report.txt 2>&1; st "report rc $?"
    python3 bench/plot.py $F/results.json $F/results.png > $F/logs/plot.txt 2>&1
  fi
  ls $F/.done-* 2>/dev/null | sed 's/.*done-/done: /' | tee -a $S
  tar czf $OUT/final.tgz -C $B --exclude=final/ptx/'*.cubin' final
  cp $S $F/results.md $OUT/ 2>/dev/null
  grep -E "^\| (P|C|R|K)[0-9]|geometric|K13 \(" $F/results.md 2>/dev/null | awk -F'|' '{print $2, $6, $9}' | head -60
}
trap finish EXIT
trap "exit 143" TERM
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
if [ ! -f $F/env.json ]; then  # scripts/bench.sh writes the same fields (pcases rewrites it)
  $PYTHON - $F/env.json "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)" \
    "$($NVCC --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')" "${VYRE_COMMIT:-unknown}" "$(nproc)" <<'PY'
import datetime, json, sys
path, gpu, nvcc, commit, cores = sys.argv[1:]
name, driver = [s.strip() for s in gpu.split(",")]
json.dump({"device": name, "driver": driver, "cuda": "see logs", "nvcc": nvcc, "commit": commit, "mode": "gpu",
           "host_cores": int(cores), "size_scale": 1.0, "count_scale": 1.0,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}, open(path, "w"), indent=1)
PY
fi
if ! done_ build; then
  st "build start"
  cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_BUILD_TESTS=OFF -DVYRE_BENCH_NVCC_TWINS=ON \
    -DCMAKE_CUDA_COMPILER=$NVCC -DVYRE_PYTHON_EXECUTABLE=$PYTHON > $F/logs/cfg.log 2>&1 &&
  timeout $(( $(left) - 20 )) cmake --build $B -j16 --target vyre-bench vyre-bench-ptx vyre_python > $F/logs/build.log 2>&1 &&
    touch $F/.done-build
  st "build rc $? ($(tail -1 $F/logs/build.log | cut -c1-120))"
fi
if done_ build && ! done_ kernels && [ $(left) -gt 200 ]; then
  st "kernels start"
  timeout $(( $(left) - 15 )) $B/bin/vyre-bench --kernels --backend cuda --reps 10 --json $F/vyre-kernels.json \
    --log-dir $F/logs > $F/logs/kernels.txt 2>&1 && touch $F/.done-kernels
  st "kernels rc $?"
fi
if done_ build && ! done_ pcases && [ $(left) -gt 300 ]; then
  st "pcases start"
  OUT=$F BUILD_DIR=$B BENCH_SKIP_KERNELS=1 BENCH_SKIP_CONFORM=1 timeout $(( $(left) - 15 )) scripts/bench.sh > $F/logs/bench-sh.txt 2>&1 &&
    touch $F/.done-pcases
  st "pcases rc $?"
fi
if done_ build && ! done_ p6 && [ $(left) -gt 290 ]; then
  st "p6 start"
  timeout 275 $B/bin/vyre-bench --case P6 --backend cuda --conform-timeout 240 --json $F/vyre-conform.json \
    --log-dir $F/logs > $F/logs/p6.txt 2>&1 && touch $F/.done-p6
  st "p6 rc $?"
fi
