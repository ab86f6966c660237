#!/usr/bin/env bash
# 2026-12-05 (seventh session): branch next/tan-split-residual (O41 tan, O42 sinh, O43
# inverse_sqrt, O44 tanh) on one lease. About 530 s: if a step does not fit, call this again at
# once on the warm machine and it runs what is left. Carried: ab-old (`git archive` of main) and
# .gl.
#   ab        K13 (16 functions) of ab-old (main) against the nvcc twins, 10 reps
#   kernels   K13 of this tree (the branch), 10 reps, with the PTX/SASS
#   tests     scripts/gpu-test.sh all, conform on cuda and vulkan
#   exh       exhaustive un.tan.f32, un.sinh.f32, un.inverse_sqrt.f32 and un.tanh.f32 on cuda
#             and vulkan
#   ex        every example on cuda against reference_cpu
set -u
. bench/device_steps.sh tansinh
step_env
step_ab ab-old "--case K13"
step_kernels "--case K13"
step_gpu_tests
step_exhaustive "cuda vulkan" "un.tan.f32 un.sinh.f32 un.inverse_sqrt.f32 un.tanh.f32"
step_examples
