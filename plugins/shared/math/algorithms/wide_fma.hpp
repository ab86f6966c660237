// A correctly rounded f32 fused multiply-add from f64 add, sub and mul (round to nearest even) and
// the f64 <-> f32 conversions, for backends with f64 arithmetic but no fused f32 fma (Vulkan on a
// device without VK_KHR_shader_fma whose GLSL.std.450 Fma failed the fma probe). Vulkan requires
// OpFAdd, OpFSub, OpFMul and OpFConvert to be correctly rounded; nothing here needs an f64 fma.
//
// The backend provides, besides the usual operations, the device's plain conversions:
//   fconvert(F32) -> F64   exact for a normal or zero operand (never given a subnormal or inf/NaN)
//   fconvert(F64) -> F32   round to nearest even, overflowing to inf (only given a value that is
//                          zero or at least 2^-126 in magnitude: never an f32 subnormal result)
// so neither ever meets an f32 denormal: the results do not depend on the device flushing them.
//
// Method, for normal or zero operands x, y, z:
//   p = X * Y            exact: 24 + 24 significant bits, |p| in [2^-252, 2^256] or 0 (f64-normal)
//   s = p + Z            rounded to nearest; every value here is a multiple of 2^-298, so nothing
//                        is ever an f64 subnormal and TwoSum below is exact
//   e = (p - (s - bb)) + (Z - bb), bb = s - p      (TwoSum: s + e == p + Z exactly)
//   round to odd: if e != 0 and s's last bit is 0, step s's bits one unit toward p + Z (up in
//   magnitude when e has s's sign, down otherwise). s is then p + Z rounded to odd at 53 bits: the
//   neighbour of p + Z whose last bit is 1, or p + Z itself when representable. (s is never 0 when
//   e != 0: p + Z is a nonzero multiple of 2^-298, which does not round to 0.)
//   result = fconvert(s) rounded to nearest even at 24 bits: correct, because 53 >= 24 + 2 makes
//   rounding to odd and then to nearest even the same as rounding p + Z once (an odd 53-bit value
//   is never an f32 midpoint or an f32, and lies strictly between the same f32 midpoints as p + Z).
// Zeros follow IEEE's rules through the f64 operations: p + Z exactly 0 with nonzero terms is +0,
// (-0) + (-0) is -0, and the ±0 of p carries the product's sign.
// Everything else goes to `exact` (the integer algorithm of exact.hpp, correct for every operand):
// a subnormal, infinite or NaN operand, and a result below 2^-126 in magnitude but not 0 (an f32
// subnormal, or a value that rounds to the smallest normal or to zero). So the result is bit for
// bit the integer algorithm's for every operand, NaN canonical included.
//
// tests/vulkan/test_wide_fma.cpp checks it against the host's std::fma: hundreds of millions of
// random operand triples in Release, and targeted ones (ties, cancellations, subnormal results,
// the overflow boundary, sums next to a 53-bit rounding boundary, special values), also with a
// backend whose conversions flush f32 subnormals to zero.
#pragma once

#include "math/algorithms/common.hpp"

namespace vyre::math::wide {

// Whether an f32 (its bits) is subnormal, infinite or NaN: magnitude in [1, 2^23) or >= 0x7F800000.
template <class B>
typename B::Pred hard_f32(B& b, const typename B::B32& bits) {
  const auto mag = b.and_(bits, b.u32(0x7FFFFFFFu));
  return b.or_(b.lt_u(b.sub(mag, b.u32(1)), b.u32(0x007FFFFFu)), b.lt_u(b.u32(0x7F7FFFFFu), mag));
}

// x * y + z for f32, rounded once; `exact(x, y, z)` gives it for every operand (the fallback).
template <class B, class Exact>
typename B::F32 fma(B& b, const typename B::F32& x, const typename B::F32& y, const typename B::F32& z,
                    Exact&& exact) {
  constexpr std::uint64_t kSign = 0x8000000000000000ull;
  constexpr std::uint64_t kMinNormalF32 = 0x3810000000000000ull;  // 2^-126 as f64 bits
  const auto hard_in = b.or_(b.or_(hard_f32(b, b.bits(x)), hard_f32(b, b.bits(y))), hard_f32(b, b.bits(z)));
  const auto X = b.fconvert(x), Y = b.fconvert(y), Z = b.fconvert(z);
  const auto p = b.mul(X, Y);
  const auto s = b.add(p, Z);
  const auto bb = b.sub(s, p);
  const auto e = b.add(b.sub(p, b.sub(s, bb)), b.sub(Z, bb));
  // Round to odd: the last bit of s set when p + Z is not s.
  const auto sb = b.bits(s), eb = b.bits(e);
  const auto inexact = b.ne(b.and_(eb, b.u64(~kSign)), b.u64(0));
  const auto even = b.eq(b.and_(sb, b.u64(1)), b.u64(0));
  const auto toward_zero = b.lt_s(b.xor_(sb, eb), b.u64(0));  // e's sign is not s's: p + Z is below |s|
  const auto step = b.sel(toward_zero, b.u64(~std::uint64_t{0}), b.u64(1));
  const auto odd = b.sel(b.and_(inexact, even), b.add(sb, step), sb);
  // 0 < |s| < 2^-126: the f32 result is subnormal or next to it.
  const auto tiny = b.lt_u(b.sub(b.and_(odd, b.u64(~kSign)), b.u64(1)), b.u64(kMinNormalF32 - 1));
  auto result = b.var(b.fconvert(b.f64_from_bits(odd)));
  b.if_(b.or_(hard_in, tiny), [&] { b.set(result, exact(x, y, z)); });
  return b.get(result);
}

}  // namespace vyre::math::wide
