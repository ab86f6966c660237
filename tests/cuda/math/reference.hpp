// High-precision references and the SPEC §5 comparison for the math library tests.
//   f32: the function in double (glibc), rounded to f32; where the double lies within a few ulps of
//        an f32 rounding boundary, recomputed in binary128 (libquadmath) before rounding.
//   f64: the function in binary128 (libquadmath), rounded to f64.
#pragma once

#include <cstdint>
#include <string>

#include "vyre/ir.hpp"

namespace vyre::cuda::math_test {

float reference_f32(vyre::UnOp op, float x);
double reference_f64(vyre::UnOp op, double x);

// The SPEC §5 ULP bound of a library op.
std::uint32_t ulp_bound(vyre::UnOp op);

// Distance of `actual` from `expected` on the ordered-bits scale (+0 and -0 are both 0), with the
// SPEC §5 exact cases made strict in both directions: NaN only matches NaN; where either value is
// +-inf or +-0, the bits must be equal. Mismatches in those cases return kMismatch.
inline constexpr std::uint64_t kMismatch = ~std::uint64_t{0};
std::uint64_t ulp_distance(float actual, float expected);
std::uint64_t ulp_distance(double actual, double expected);

// "exp_f32" etc.
std::string function_label(vyre::UnOp op, bool f64);

// Printable value with its bits: "1.5 (0x3fc00000)".
std::string describe(float x);
std::string describe(double x);

}  // namespace vyre::cuda::math_test
