#!/usr/bin/env bash
# 2026-12-05 (second session), call D on the same machine: K13 of the session's starting tree
# (3db2bb3, unpacked beside the working tree as ab-old/ with `git archive 3db2bb3`) and of this
# tree, back to back, each against its own nvcc twins (10 reps): the session's effect on one lease.
P=/opt/torch/.venv/bin/python
(cd ab-old && OUT=/tmp/old PYTHON=$P CASES="--case K13" REPS=10 SKIP_PTX=1 RUN_LIMIT=200 timeout 330 bench/kernels/device_run.sh > /tmp/old.txt 2>&1; echo "old rc $?")
OUT=/tmp/new PYTHON=$P CASES="--case K13" REPS=10 SKIP_PTX=1 STAGE=run RUN_LIMIT=200 timeout 220 bench/kernels/device_run.sh > /tmp/new.txt 2>&1; echo "new rc $?"
mkdir -p $OUT/old $OUT/new; cp /tmp/old/results.md $OUT/old/; cp /tmp/new/results.md $OUT/new/
