// Edge and branch-point inputs for each library function (SPEC §5 witnesses): +-0, +-inf, NaN,
// the smallest/largest subnormal and normal, 1, -1, 0.5, 1/3, pi, and the neighbourhoods (a few ulps
// either side) of every threshold the algorithms or the function itself have.
#pragma once

#include <vector>

#include "vyre/ir.hpp"

namespace vyre::cuda::math_test {

std::vector<float> witnesses_f32(vyre::UnOp op);
std::vector<double> witnesses_f64(vyre::UnOp op);

// Exact special values (C99 Annex F and SPEC §2): the expected result is compared bit for bit
// (any NaN matches NaN).
template <class T>
struct SpecialCase {
  vyre::UnOp op;
  T input;
  T expected;
};
std::vector<SpecialCase<float>> special_cases_f32();
std::vector<SpecialCase<double>> special_cases_f64();

}  // namespace vyre::cuda::math_test
