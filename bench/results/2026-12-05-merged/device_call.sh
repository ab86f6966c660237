#!/usr/bin/env bash
# 2026-12-05 (eighth session): the whole benchmark of main after the O41-O44 merge, on one lease:
# K1-K13 against the nvcc twins (10 reps), then P1-P5, P7, P9, C1, R1 and the Python cases with
# their baselines. The GPU tests, conform and the exhaustive runs of this code passed at 22:27
# (`../2026-12-05-h200-tansinh/`), so this call only measures. About 320 s with the start.
# Not run yet: the device refused every start after 22:37 that session, and every start of the next
# session (2026-12-06 00:09-02:26; docs/GPU_RUNS.md). Rename
# the folder to `<date>-<device>-merged` when it runs.
set -u
. bench/device_steps.sh merged
step_env
step_kernels
step_pcases
