#!/usr/bin/env bash
# 2026-12-05 (third session), call H on the same machine as call G: K13 of the session's starting
# tree (c02a7f8, unpacked beside the working tree as ab-old/ with `git archive c02a7f8`) and of this
# tree (O32 sinh, O34 asin and acos), back to back, each against its own nvcc twins (10 reps).
P=/opt/torch/.venv/bin/python
(cd ab-old && OUT=/tmp/old PYTHON=$P CASES="--case K13" REPS=10 SKIP_PTX=1 RUN_LIMIT=200 timeout 280 bench/kernels/device_run.sh > /tmp/old.txt 2>&1; echo "old rc $?")
OUT=/tmp/new PYTHON=$P CASES="--case K13" REPS=10 SKIP_PTX=1 RUN_LIMIT=200 timeout 280 bench/kernels/device_run.sh > /tmp/new.txt 2>&1; echo "new rc $?"
mkdir -p $OUT/old $OUT/new; cp /tmp/old/results.md $OUT/old/; cp /tmp/new/results.md $OUT/new/
tail -3 /tmp/old.txt /tmp/new.txt
grep -h "K13 (16" $OUT/old/results.md $OUT/new/results.md
