#include "cases.hpp"

namespace vyre::bench {

const std::vector<CaseInfo>& case_table() {
  static const std::vector<CaseInfo> table = {
      {"P1", "resident xor of two 256M-element u32 buffers into a third", &run_p1_resident_xor},
      {"P2", "host dispatch round trip: upload two 1024-u32 inputs, xor, download", &run_p2_round_trip},
      {"P3", "resident dispatch enqueue of a tiny kernel, 10k back to back", &run_p3_enqueue},
      {"P4", "repeated resident sequence (4 steps x 1000)", &run_p4_sequence},
      {"P5", "first dispatch of a new 50-node program: cold, and JIT disk cache warm", &run_p5_first_dispatch},
      {"P6", "full default conform of the backend", &run_p6_conform},
      {"P7", "sum of 256M u32 (subgroup reduce + atomics)", &run_p7_sum},
      {"P9", "resident dispatch of a 1024-u32 xor, synchronous (the C++ side of P9, bench/python_cases.py)",
       &run_p9_resident_dispatch},
      {"C1", "vyre run of a small program on cuda, whole process, vs a raw-driver program", &run_c1_process},
      {"M2", "sharded resident xor of 256M u32 over every visible device vs one device", &run_m2_sharded},
      {"R1", "reference_cpu: xor of two 1M-u32 buffers (host dispatch)", &run_r1_reference_xor},
      {"R2", "10^6 lets: encode, decode, validate, fingerprint, JSON, lower, compile and run on reference_cpu",
       &run_r2_large_program},
      {"K1", "tiled f32 matmul 2048^3 (16x16 workgroup tiles, fma) vs nvcc",
       [](Context& c) { return run_kernel_case(c, "K1"); }},
      {"K2", "row softmax 65536 x 256 f32 (workgroup reductions) vs nvcc",
       [](Context& c) { return run_kernel_case(c, "K2"); }},
      {"K3", "layer norm 65536 x 1024 over f16 storage vs nvcc", [](Context& c) { return run_kernel_case(c, "K3"); }},
      {"K4", "histogram of 256M u32, 256 bins, workgroup atomics vs nvcc",
       [](Context& c) { return run_kernel_case(c, "K4"); }},
      {"K5", "8192^2 f32 5-point stencil vs nvcc", [](Context& c) { return run_kernel_case(c, "K5"); }},
      {"K6", "64M f32 mix of sin, cos, exp, log, tanh, atan vs nvcc", [](Context& c) { return run_kernel_case(c, "K6"); }},
      {"K7", "32M f64 exp(x) * log(x + 5) vs nvcc", [](Context& c) { return run_kernel_case(c, "K7"); }},
      {"K8", "tile prefix scan of 64M u32 with subgroup shuffles vs nvcc",
       [](Context& c) { return run_kernel_case(c, "K8"); }},
      {"K9", "min/max/sum of 256M u32: subgroup reduce + atomics vs nvcc",
       [](Context& c) { return run_kernel_case(c, "K9"); }},
      {"K10", "bitonic sort of 16M u32 with grid_sync vs nvcc (cooperative)",
       [](Context& c) { return run_kernel_case(c, "K10"); }},
      {"K11", "32M u64 hash: mul_high, rotl, 8 rounds vs nvcc", [](Context& c) { return run_kernel_case(c, "K11"); }},
      {"K12", "256M f32 axpy vs nvcc", [](Context& c) { return run_kernel_case(c, "K12"); }},
      {"K13", "each f32 math function over 64M elements vs CUDA's precise libm (K13-<function>)",
       [](Context& c) { return run_kernel_case(c, "K13"); }},
  };
  return table;
}

}  // namespace vyre::bench
