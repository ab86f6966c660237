#!/bin/sh
# One process per GPU, started by Debian's OpenMPI `mpirun` on one host: every process runs
# `vyre run --devices 0,1,... --join ID_FILE`, joins one device group (rank and size from mpirun's
# environment, the device from its local rank), runs its contiguous range of workgroups, and gets
# the whole outputs through NCCL; rank 0 writes them. Each program's result is compared byte for
# byte with a single-device run of the same program and inputs.
#
#   examples/multi_process/run.sh            # 2 ranks on GPUs 0,1 (needs 2 GPUs, NCCL, mpirun)
#   NP=4 DEVICES=0,1,2,3 examples/multi_process/run.sh
#
# Environment: VYRE (the vyre binary; default: vyre on PATH), NP (ranks, default 2), DEVICES
# (ordinals, default 0..NP-1), WORK (a directory for the outputs; default a fresh one), MPIRUN
# (default mpirun), VYRE_NCCL_LIBRARY (where NCCL is, when not found by itself: docs/MULTI_GPU.md).
# Exit 0: every program's group result equals the single-device result; 77: skipped (the reason
# is printed: no mpirun, or fewer GPUs than ranks); anything else: a failure.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$(dirname "$HERE")
VYRE=${VYRE:-vyre}
NP=${NP:-2}
MPIRUN=${MPIRUN:-mpirun}
if [ -z "${DEVICES:-}" ]; then
  DEVICES=0
  i=1
  while [ "$i" -lt "$NP" ]; do DEVICES="$DEVICES,$i"; i=$((i + 1)); done
fi
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}

if ! command -v "$MPIRUN" >/dev/null 2>&1; then
  echo "SKIP: $MPIRUN not found (Debian: apt-get install openmpi-bin)"
  exit 77
fi
if [ -z "${VYRE_EXAMPLE_ANY_DEVICE:-}" ]; then  # the CPU test sets it: the fake driver has devices
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
  if [ "${gpus:-0}" -lt "$NP" ]; then
    echo "SKIP: $NP ranks need $NP GPUs; nvidia-smi lists ${gpus:-0}"
    exit 77
  fi
fi

WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/vyre-multi-process.XXXXXX")}
mkdir -p "$WORK"
MPI_OPTIONS=""
if [ "$(id -u)" = 0 ]; then MPI_OPTIONS="--allow-run-as-root"; fi
# OpenMPI passes these to the ranks explicitly (-x), where set.
for name in VYRE_NCCL_LIBRARY NCCL_NVLS_ENABLE NCCL_ALGO NCCL_PROTO NCCL_DEBUG VYRE_CUDA_DRIVER_LIBRARY \
            FAKE_CUDA_DEVICES XDG_CACHE_HOME LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES; do
  eval "set_value=\${$name+x}"
  if [ -n "$set_value" ]; then MPI_OPTIONS="$MPI_OPTIONS -x $name"; fi
done

# name, file, placements: the histogram's values are replicated (each invocation strides over all
# of them) and its atomic counts summed across ranks (all_reduce); saxpy's x and y are split, y
# (read_write) gathered back from every rank (all_gather).
run_one() {
  name=$1 file=$2
  shift 2
  id="$WORK/$name.id"
  rm -f "$id"
  echo "== $name: $NP ranks on devices $DEVICES"
  # shellcheck disable=SC2086
  "$MPIRUN" $MPI_OPTIONS -np "$NP" "$VYRE" run "$file" --random 7 --devices "$DEVICES" --join "$id" \
    --out "$WORK/$name.group" "$@"
  first=${DEVICES%%,*}
  VYRE_CUDA_DEVICE_ORDINAL=$first "$VYRE" run "$file" --random 7 --backend cuda --out "$WORK/$name.single" >/dev/null
  for f in "$WORK/$name.single"/*.bin; do
    cmp "$f" "$WORK/$name.group/$(basename "$f")"
  done
  echo "$name: the group's outputs equal one device's ($(ls "$WORK/$name.single" | tr '\n' ' '))"
}

run_one histogram "$EXAMPLES/histogram.json" --place bins=sum
run_one saxpy "$EXAMPLES/saxpy.json" --place x=split --place y=split
echo "ok: outputs in $WORK"
