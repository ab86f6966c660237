#!/usr/bin/env bash
# 2026-12-05 (sixth session), call 3: the whole benchmark of this tree (681ad97: covering buffers,
# O38 cosh, O39 atan) on one lease: P1-P5, P7, P9, C1, R1 and the Python cases, then K1-K13
# against the nvcc twins, then P3 of ab-old (b9442ad) and of this tree alternating, 4 rounds each
# (call 1 measured P3 0.35 us above the floor, call 2's H200 could not tell the trees apart).
set -u
. bench/device_steps.sh covering3
step_env
step_pcases
step_kernels
step_build_bench ab-old
step_case_ab ab-old P3 4
