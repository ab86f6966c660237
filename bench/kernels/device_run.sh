#!/usr/bin/env bash
# The kernel suite on the GPU machine in one command (bench/README.md, "Kernel suite"): configure with
# the nvcc twins, build vyre-bench (+ the plugins it loads) and vyre-bench-ptx, write the PTX/SASS of
# every K kernel from both compilers, run K1-K13 (vyre against nvcc, same process), and write
# results.md / results.json / results-kernels.png with bench/report.py and bench/plot.py.
#
#   OUT=/path bench/kernels/device_run.sh        (from the repository root; OUT must be set)
#
# Everything lands in $OUT/kernels and is tarred into $OUT/kernels.tgz at the end (also when a step
# fails or the call is stopped); results.md, progress.txt and vyre-bench.txt are copied to $OUT too,
# so that a run cut short still returns them. The build directory is kept: when a call stops at its
# time limit during the build, running the same command again continues where it stopped. Where one
# call may not hold the build and the run (10 minutes), split it: STAGE=build, then STAGE=run.
#
# Knobs: BUILD_DIR (default build-kernels), JOBS (16), NVCC (default: on PATH, else
# /usr/local/cuda/bin/nvcc), CASES (default "--kernels"; e.g. "--case K1 --case K13"), REPS (20),
# WARMUP (3), STAGE (all | build | run), SKIP_PTX=1, RUN_LIMIT (seconds for vyre-bench, 480),
# VYRE_COMMIT (the commit env.json and results.md record; default: git's HEAD, +dirty for local
# changes; name it on the device machine, whose copy has an older .git than its working tree).
# Other backends after cuda: BACKENDS="vulkan" (space-separated; default none) runs K1-K13 on each
# against the same nvcc twins, one case per vyre-bench process so that a slow backend loses only
# its slow cases: each case gets CASE_LIMIT seconds (90), a backend's cases together BACKEND_BUDGET
# (300); results and report in $OUT/kernels/<backend>/, results-<backend>.md copied to $OUT. Where
# vulkan is named and no driver file is set, NVIDIA's ICD is used when present.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:?set OUT to the directory that comes back}
work=$out/kernels
mkdir -p "$work/logs"
build=${BUILD_DIR:-$root/build-kernels}
jobs=${JOBS:-16}
stage=${STAGE:-all}
python=${PYTHON:-python3}
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start ))s] $*" | tee -a "$work/progress.txt"; }
keep() { cp "$@" "$out/" 2>/dev/null || true; }
finish() {
  keep "$work/progress.txt" "$work/results.md" "$work/vyre-bench.txt"
  tar czf "$out/kernels.tgz" -C "$out" kernels 2>/dev/null
  stamp "done (everything in kernels.tgz)"
}
trap finish EXIT

nvcc=${NVCC:-$(command -v nvcc || true)}
if [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; fi
cd "$root" || exit 1

# ---- environment -------------------------------------------------------------------------------------
{
  nvidia-smi 2>&1
  echo
  "${nvcc:-nvcc}" --version 2>&1
  echo
  git rev-parse HEAD 2>&1
  git status --short 2>&1 | head -n 20
} >"$work/logs/environment.txt"
"$python" - "$work/env.json" "${nvcc:-none}" <<'PY' 2>>"$work/logs/environment.txt"
import datetime, json, os, subprocess, sys
path, nvcc = sys.argv[1:]
def q(field):
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={field}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.splitlines()[0].strip()
    except Exception:
        return "unknown"
def nvcc_release():
    try:
        out = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30).stdout
        return out.split("release ")[1].split(",")[0]
    except Exception:
        return "none"
def commit():
    if os.environ.get("VYRE_COMMIT"):
        return os.environ["VYRE_COMMIT"]
    try:
        c = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], capture_output=True, text=True).stdout.strip()
        return c + ("+dirty" if dirty else "")
    except Exception:
        return "unknown"
env = {"device": q("name"), "driver": q("driver_version"), "cuda": "see logs/environment.txt",
       "nvcc": nvcc_release(), "commit": commit(), "mode": "gpu (kernel suite)",
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
json.dump(env, open(path, "w"), indent=1)
PY

# ---- build ---------------------------------------------------------------------------------------------
if [ "$stage" = all ] || [ "$stage" = build ]; then
  if [ -z "$nvcc" ]; then
    stamp "no nvcc here (NVCC unset, none on PATH or in /usr/local/cuda/bin): the twins cannot be built"
    exit 1
  fi
  stamp "configure ($build, twins with $nvcc)"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DVYRE_BUILD_TESTS=OFF -DVYRE_PYTHON=OFF \
    -DVYRE_BENCH_NVCC_TWINS=ON -DCMAKE_CUDA_COMPILER="$nvcc" >"$work/logs/configure.txt" 2>&1
  rc=$?
  stamp "configure exit $rc"
  [ $rc -eq 0 ] || { tail -n 30 "$work/logs/configure.txt"; exit 1; }
  stamp "build vyre-bench, the plugins, libvyre_kernel_twins.so, vyre-bench-ptx (-j$jobs)"
  cmake --build "$build" --target vyre-bench vyre-bench-ptx -j"$jobs" >"$work/logs/build.txt" 2>&1
  rc=$?
  stamp "build exit $rc"
  [ $rc -eq 0 ] || { tail -n 40 "$work/logs/build.txt"; exit 1; }
fi

# ---- run -----------------------------------------------------------------------------------------------
if [ "$stage" = all ] || [ "$stage" = run ]; then
  if [ ! -x "$build/bin/vyre-bench" ]; then
    stamp "no vyre-bench in $build: run with STAGE=build (or STAGE=all) first"
    exit 1
  fi
  if [ "${SKIP_PTX:-0}" != 1 ] && [ -x "$build/bin/vyre-bench-ptx" ]; then
    stamp "PTX, ptxas report and SASS of every K kernel: vyre (ptx/K*.{ptx,sass}) and nvcc (ptx/twins.*)"
    "$build/bin/vyre-bench-ptx" "$work/ptx" >"$work/logs/ptx.txt" 2>&1
    cuobjdump=$(command -v cuobjdump || echo "$(dirname "${nvcc:-/usr/local/cuda/bin/nvcc}")/cuobjdump")
    if [ -x "$cuobjdump" ]; then
      for cubin in "$work"/ptx/K*.cubin; do "$cuobjdump" --dump-sass "$cubin" >"${cubin%.cubin}.sass" 2>&1; done
      "$cuobjdump" --dump-sass "$build/bin/libvyre_kernel_twins.so" >"$work/ptx/twins.sass" 2>&1
    fi
    # The twins' PTX and ptxas's resource report, with the flags of the library's build.
    for cu in bench/kernels/k*.cu; do
      name=twin_$(basename "${cu%.cu}")
      "$nvcc" -O3 -arch=sm_90 -ftz=false -prec-div=true -prec-sqrt=true -std=c++17 -Ibench/kernels -ptx "$cu" \
        -o "$work/ptx/$name.ptx" >/dev/null 2>&1
      "$nvcc" -O3 -arch=sm_90 -ftz=false -prec-div=true -prec-sqrt=true -std=c++17 -Ibench/kernels -cubin \
        -Xptxas -v "$cu" -o "$work/ptx/$name.cubin" >"$work/ptx/$name.ptxas.txt" 2>&1
    done
    rm -f "$work"/ptx/P*.* "$work"/ptx/*.cubin
  fi
  stamp "vyre-bench ${CASES:---kernels} (reps ${REPS:-20}, warm-up ${WARMUP:-3})"
  # shellcheck disable=SC2086
  timeout --signal=TERM --kill-after=10 "${RUN_LIMIT:-480}" "$build/bin/vyre-bench" ${CASES:---kernels} \
    --backend cuda --reps "${REPS:-20}" --warmup "${WARMUP:-3}" --json "$work/vyre-kernels.json" \
    --log-dir "$work/logs" >"$work/vyre-bench.txt" 2>&1
  stamp "vyre-bench exit $? (non-zero: a case failed or mismatched; see vyre-bench.txt)"
  "$python" bench/report.py --env "$work/env.json" --vyre "$work/vyre-kernels.json" --out-dir "$work" \
    >"$work/logs/report.txt" 2>&1
  stamp "report exit $?"
  "$python" bench/plot.py "$work/results.json" "$work/results.png" >"$work/logs/plot.txt" 2>&1
  stamp "plot exit $? ($(tail -n 1 "$work/logs/plot.txt"))"
  [ -f "$work/results.md" ] && sed -n '/## Kernel suite/,$p' "$work/results.md"

  # ---- the same cases on the other backends, each case under its own limit ----
  if [[ " ${BACKENDS:-} " == *" vulkan "* ]] && [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
    for icd in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
               /etc/vulkan/icd.d/nvidia_icd.json; do
      if [ -f "$icd" ]; then export VK_DRIVER_FILES=$icd; break; fi
    done
  fi
  case_ids=$(printf '%s\n' ${CASES:---kernels} | grep -E '^K[0-9]+$' | tr '\n' ' ')
  [ -n "$case_ids" ] || case_ids="K1 K2 K3 K4 K5 K6 K7 K8 K9 K10 K11 K12 K13"
  for backend in ${BACKENDS:-}; do
    dir=$work/$backend
    mkdir -p "$dir"
    backend_start=$(date +%s)
    jsons=()
    for c in $case_ids; do
      spent=$(( $(date +%s) - backend_start ))
      budget=${BACKEND_BUDGET:-300}
      if [ "$spent" -ge "$budget" ]; then stamp "$backend $c: not run (the ${budget}s budget is spent)"; continue; fi
      limit=${CASE_LIMIT:-90}
      [ $(( budget - spent )) -lt "$limit" ] && limit=$(( budget - spent ))
      timeout --signal=TERM --kill-after=10 "$limit" "$build/bin/vyre-bench" --case "$c" --backend "$backend" \
        --reps "${REPS:-20}" --warmup "${WARMUP:-3}" --json "$dir/$c.json" >>"$dir/vyre-bench.txt" 2>&1
      rc=$?
      stamp "$backend $c exit $rc$( [ $rc -eq 124 ] && echo " (over its ${limit}s limit)")"
      [ -f "$dir/$c.json" ] && jsons+=(--vyre "$dir/$c.json")
    done
    if [ ${#jsons[@]} -gt 0 ]; then
      "$python" bench/report.py --env "$work/env.json" "${jsons[@]}" --out-dir "$dir" >"$dir/report.txt" 2>&1
      stamp "$backend report exit $?"
      cp "$dir/results.md" "$out/results-$backend.md" 2>/dev/null
      [ -f "$dir/results.md" ] && { echo "---- $backend ----"; sed -n '/## Kernel suite/,$p' "$dir/results.md"; }
    fi
  done
fi
