#!/usr/bin/env bash
# 2026-12-05 (sixth session): covering buffers (8dade5f) and cosh on the unrefined reciprocal, on
# one lease, in as many calls as it takes (bench/device_steps.sh: steps done stay done on a warm
# machine). Carried: ab-old (`git archive b9442ad`, the session's starting tree) and .gl.
#   ab        K13 (16 functions) of ab-old against the nvcc twins, 10 reps
#   kernels   the whole kernel suite K1-K13 of this tree, 10 reps, with the PTX/SASS
#   tests     scripts/gpu-test.sh all, conform on cuda and vulkan
#   exh       exhaustive un.cosh.f32 on cuda and vulkan
#   ex        every example on cuda against reference_cpu
#   pcases    P1-P5, P7, P9, C1, R1 and the Python cases (scripts/bench.sh)
set -u
. bench/device_steps.sh covering
step_env
step_ab ab-old "--case K13"
step_kernels
step_gpu_tests
step_exhaustive "cuda vulkan" "un.cosh.f32"
step_examples
step_pcases
