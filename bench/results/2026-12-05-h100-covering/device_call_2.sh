#!/usr/bin/env bash
# 2026-12-05 (sixth session), call 2, a fresh lease: the K13 A/B of call 1 in the other order (this
# tree first, then ab-old = b9442ad), P3 of both trees alternating three times, then the GPU tests
# and the exhaustive f32 atan (O39) on cuda and vulkan. Carried: ab-old and .gl.
set -u
. bench/device_steps.sh covering2
step_env
step_kernels "--case K13"
step_ab ab-old "--case K13"
step_case_ab ab-old P3 3
step_gpu_tests
step_exhaustive "cuda vulkan" "un.atan.f32"
step_examples
