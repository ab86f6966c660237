#!/usr/bin/env bash
# 2026-12-05 (eighth session): the whole benchmark of main after the O41-O44 merge, on one lease:
# P1-P5, P7, P9, C1, R1 and the Python cases with their baselines, then K1-K13 against the nvcc
# twins (10 reps). The GPU tests, conform and the exhaustive runs of this code passed at 22:27
# (`../2026-12-05-h200-tansinh/`), so this call only measures. About 520 s; if a step does not
# fit, call it again at once on the warm machine.
set -u
. bench/device_steps.sh merged
step_env
step_kernels
step_pcases
