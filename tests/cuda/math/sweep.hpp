// Accuracy sweeps: run a library function (its CPU twin) over many inputs, compare each result
// with the reference (reference.hpp) and keep the worst case.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre::cuda::math_test {

struct SweepResult {
  std::uint64_t cases = 0;
  std::uint64_t max_ulp = 0;        // kMismatch if a NaN/inf/zero case is wrong
  std::uint64_t over_bound = 0;     // cases beyond the SPEC bound (or mismatched)
  std::uint64_t not_rounded = 0;    // cases not correctly rounded (distance >= 1)
  std::uint64_t worst_input = 0;    // bits of the input with the largest distance
  std::uint64_t worst_actual = 0;   // bits
  std::uint64_t worst_expected = 0; // bits
  std::uint64_t first_bad_input = 0;
  bool any_bad = false;

  void merge(const SweepResult& other);
};

// Every `stride`-th f32 bit pattern in [begin, end) (a half-open range of 64-bit counters over the
// 2^32 patterns), on `threads` threads.
SweepResult sweep_f32(vyre::UnOp op, std::uint64_t begin, std::uint64_t end, std::uint64_t stride,
                      unsigned threads);

// The same for each of `variants` admissible values of the approximate instruction (cpu_math.hpp),
// as `variants` sweeps would count it: an input's reference is computed once, and where a variant's
// evaluation is one every later variant repeats exactly, that result is counted for them without
// evaluating again (the same totals; the worst input reported may be another of the same distance).
SweepResult sweep_f32_variants(vyre::UnOp op, std::uint64_t begin, std::uint64_t end, std::uint64_t stride,
                               unsigned threads, int variants);

// The given inputs.
SweepResult sweep_f32_inputs(vyre::UnOp op, const std::vector<float>& inputs);
SweepResult sweep_f64_inputs(vyre::UnOp op, const std::vector<double>& inputs, unsigned threads);

// Random f64 inputs for op: `count` values drawn from `seed`, half uniform over all bit patterns
// (every exponent equally likely), half from the function's interesting interval.
std::vector<double> random_f64_inputs(vyre::UnOp op, std::uint64_t count, std::uint64_t seed);

// "max 1 ulp at x = ... (got ..., want ...); 0 of N over bound; M not correctly rounded"
std::string summary(const SweepResult& r, bool f64);

}  // namespace vyre::cuda::math_test
