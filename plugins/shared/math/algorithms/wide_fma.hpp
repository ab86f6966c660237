// A correctly rounded f32 fused multiply-add from f64 add, sub and mul (round to nearest even) and
// the f64 <-> f32 conversions, for backends with f64 arithmetic but no fused f32 fma (Vulkan on a
// device without VK_KHR_shader_fma whose GLSL.std.450 Fma failed the fma probe). Vulkan requires
// OpFAdd, OpFSub, OpFMul and OpFConvert to be correctly rounded; nothing here needs an f64 fma.
//
// The backend provides, besides the usual operations, the device's plain conversions:
//   fconvert(F32) -> F64   exact for a normal or zero operand
//   fconvert(F64) -> F32   round to nearest even, overflowing to inf, for a value that is zero or
//                          at least 2^-126 in magnitude (never an f32 subnormal result)
// Both are also evaluated on other values (the method runs before the branch), but those results
// are never used, so nothing depends on what the device does with an f32 denormal (or inf/NaN).
//
// Method, for normal or zero operands x, y, z:
//   p = X * Y            exact: 24 + 24 significant bits, |p| in [2^-252, 2^256] or 0 (f64-normal)
//   s = p + Z            rounded to nearest; every value here is a multiple of 2^-298, so nothing
//                        is ever an f64 subnormal and TwoSum below is exact
//   e = (p - (s - bb)) + (Z - bb), bb = s - p      (TwoSum: s + e == p + Z exactly)
//   result = fconvert(s') rounded to nearest even at 24 bits, where s' is s except when s is an f32
//   rounding midpoint (its 29 bits below f32 precision are 1 0...0) and e != 0: then s' is s's
//   53-bit neighbour toward p + Z (the low word plus or minus 1: no carry).
// Why this is p + Z rounded once (for |s| >= 2^-126, where f32 precision is 24 bits): f32 values
// and midpoints are f64 values, and rounding to nearest is monotone, so s never lies strictly
// beyond an f32 value or midpoint from p + Z; s rounds to f32 as p + Z does unless s is itself a
// midpoint that p + Z is not (e != 0), and then s' is on p + Z's side of it and no farther than the
// next 53-bit value, so it rounds as p + Z does. (This is rounding to odd, which the same argument
// proves, applied only where it can change the result; the steps are 32-bit integer work.) The
// overflow threshold 2^128 - 2^103 is such a midpoint, so overflow to inf is decided the same way.
// Zeros follow IEEE's rules through the f64 operations: p + Z exactly 0 with nonzero terms is +0,
// (-0) + (-0) is -0, and the ±0 of p carries the product's sign.
// Everything else goes to `exact` (the integer algorithm of exact.hpp, correct for every operand):
// a subnormal, infinite or NaN operand, and a result below 2^-126 in magnitude but not 0 (an f32
// subnormal, or a value that rounds to the smallest normal or to zero). So the result is bit for
// bit the integer algorithm's for every operand, NaN canonical included.
//
// tests/vulkan/test_wide_fma.cpp checks it against the host's std::fma: hundreds of millions of
// random operand triples in Release, and targeted ones (ties, cancellations, subnormal results,
// the overflow boundary, ties decided far below 53 bits, special values), also with a
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

template <class B>
struct Fast {
  typename B::F32 result;  // x * y + z rounded once, where the operands are normal or zero and
                           // the result is zero or at least 2^-126 in magnitude
  typename B::B32 hi;      // the high word of the f64 sum s
};

// The method above without the fallback: right only where the operands are normal or zero and
// |x * y + z| is zero or at least 2^-126 (see fma_normal).
template <class B>
Fast<B> fast(B& b, const typename B::F32& x, const typename B::F32& y, const typename B::F32& z) {
  const auto X = b.fconvert(x), Y = b.fconvert(y), Z = b.fconvert(z);
  const auto p = b.mul(X, Y);
  const auto s = b.add(p, Z);
  const auto bb = b.sub(s, p);
  const auto e = b.add(b.sub(p, b.sub(s, bb)), b.sub(Z, bb));
  // s's and e's words (32-bit integer work only).
  const auto sb = b.bits(s);
  const auto lo = b.lo32(sb), hi = b.hi32(sb), e_hi = b.hi32(b.bits(e));
  // e != 0: a nonzero e is an f64 normal, so its exponent field (in the high word) is not 0.
  const auto inexact = b.ne(b.and_(e_hi, b.u32(0x7FFFFFFFu)), b.u32(0));
  // s is an f32 midpoint: its 29 bits below f32 precision are 1 0...0 (s >= 2^-126 here).
  const auto midpoint = b.eq(b.and_(lo, b.u32(0x1FFFFFFFu)), b.u32(0x10000000u));
  const auto toward_zero = b.lt_s(b.xor_(hi, e_hi), b.u32(0));  // e's sign is not s's: p + Z is below |s|
  const auto step = b.sel(toward_zero, b.u32(0xFFFFFFFFu), b.u32(1));
  const auto nudged = b.sel(b.and_(inexact, midpoint), b.add(lo, step), lo);  // never carries: lo ends in 1 0...0
  return {b.fconvert(b.f64_from_bits(b.pack64(nudged, hi))), hi};
}

// x * y + z for f32, rounded once; `exact(x, y, z)` gives it for every operand (the fallback).
template <class B, class Exact>
typename B::F32 fma(B& b, const typename B::F32& x, const typename B::F32& y, const typename B::F32& z,
                    Exact&& exact) {
  const auto hard_in = b.or_(b.or_(hard_f32(b, b.bits(x)), hard_f32(b, b.bits(y))), hard_f32(b, b.bits(z)));
  const Fast<B> f = fast(b, x, y, z);
  // 0 < |s| < 2^-126: the f32 result is subnormal or next to it (s is 0 or an f64 normal).
  const auto mag_hi = b.and_(f.hi, b.u32(0x7FFFFFFFu));
  const auto tiny = b.lt_u(b.sub(mag_hi, b.u32(1)), b.u32(0x38100000u - 1));
  auto result = b.var(f.result);
  b.if_(b.or_(hard_in, tiny), [&] { b.set(result, exact(x, y, z)); });
  return b.get(result);
}

// x * y + z for f32, rounded once, for callers whose operands are normal or zero and whose result
// is zero or at least 2^-126 in magnitude by construction: no branch, no fallback. The seeded f32
// division and square root (seeded_div_sqrt.hpp) are such callers: their fmas see the operands
// scaled into [1, 4), seeds in (1/2, 1], quotients and roots near 1, and remainders that are 0 or
// multiples of 2^-48 (tests/vulkan/test_seeded_div_sqrt.cpp checks that the fallback is never
// needed there, over its exhaustive sweeps).
template <class B>
typename B::F32 fma_normal(B& b, const typename B::F32& x, const typename B::F32& y, const typename B::F32& z) {
  return fast(b, x, y, z).result;
}

}  // namespace vyre::math::wide
