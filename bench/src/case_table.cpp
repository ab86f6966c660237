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
      {"R1", "reference_cpu: xor of two 1M-u32 buffers (host dispatch)", &run_r1_reference_xor},
      {"R2", "10^6 lets: encode, decode, validate, fingerprint, JSON, lower, compile and run on reference_cpu",
       &run_r2_large_program},
  };
  return table;
}

}  // namespace vyre::bench
