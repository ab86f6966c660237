// asin and acos. With a = |x| and A the minimax tail asin(t) = t + t^3 A(t^2) on t^2 <= 1/4:
//   a <  1/2: asin x = x + x^3 A(x^2),           acos x = pi/2 - asin x
//   a >= 1/2: z = (1 - a)/2 (exact), s = sqrt(z) with its residual s_lo, asin(s) = s + s_lo + s z A(z)
//             asin x = +-(pi/2 - 2 asin(s)),      acos x = 2 asin(s) (x > 0) or pi - 2 asin(s)
// One polynomial evaluation serves both ranges (its argument is selected). The constant sums are
// double-word (two_sum), so the cancellation near a = 1/2 costs nothing. |x| > 1 and +-inf give
// sqrt of a negative number, NaN; NaN propagates.
// f32 (bound 4 ULP) forms the constant sums in plain f32 on the square root as hi + r y / 2 from
// rsqrt.approx.ftz where the backend has it (sqrt_parts_f32; else sqrt.rn and its residual), with
// the polynomial's coefficients doubled.
#pragma once

#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/polynomials.hpp"

namespace vyre::math {

template <class P>
struct AsinConstants;

template <>
struct AsinConstants<P32> {
  static constexpr float kPio2Hi = 0x1.921fb6p+0f;
  static constexpr float kPio2Lo = -0x1.777a5cp-25f;
  static constexpr float kPiHi = 0x1.921fb6p+1f;
  static constexpr float kPiLo = -0x1.777a5cp-24f;
  static constexpr const float (&kPoly)[5] = poly::k_asin_f32;
};

template <>
struct AsinConstants<P64> {
  static constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
  static constexpr double kPio2Lo = 0x1.1a62633145c07p-54;
  static constexpr double kPiHi = 0x1.921fb54442d18p+1;
  static constexpr double kPiLo = 0x1.1a62633145c07p-53;
  static constexpr const double (&kPoly)[13] = poly::k_asin_f64;
};

template <class P, class B>
struct AsinParts {
  typename B::Pred small;          // |x| < 1/2
  typename P::template F<B> zs;    // x^2
  typename P::template F<B> zb;    // (1 - |x|) / 2
  typename P::template F<B> z;     // the polynomial's argument: zs (small) or zb
  typename P::template F<B> poly;  // A(z); f32: 2 A(z)
};

// f32 takes A's coefficients doubled (common.hpp doubled()): the tail is then twice asin's
// (asin_tail2_f32), which is what both f32 functions add (acos) or what an fma halves exactly where
// they do not.
inline constexpr auto kAsinPolyDoubled = doubled(poly::k_asin_f32);

template <class P, class B>
AsinParts<P, B> asin_parts(B& b, const typename P::template F<B>& x) {
  using C = AsinConstants<P>;
  using K = typename P::K;
  auto a = b.abs(x);
  auto small = b.lt(a, b.c(K(0.5)));
  auto zs = b.mul(x, x);
  // f32: (1 - a)/2 as one fma, 1/2 - a/2 rounded once: the same bits as (1 - a) rounded and halved
  // (halving is exact: 1 - a is 0 or at least 2^-24 in magnitude), one instruction instead of two.
  // f64 keeps the two (SPIR-V devices without a native f64 fma emulate it).
  auto zb = std::is_same_v<P, P32> ? b.fma(a, b.c(K(-0.5)), b.c(K(0.5)))
                                   : b.mul(b.sub(b.c(K(1)), a), b.c(K(0.5)));
  auto z = b.sel(small, zs, zb);
  if constexpr (std::is_same_v<P, P32>) return {small, zs, zb, z, horner(b, z, kAsinPolyDoubled.c)};
  else return {small, zs, zb, z, horner(b, z, C::kPoly)};
}

// x^3 A(x^2): asin x = x + small_tail for |x| < 1/2 (f64; f32 shares one product with the root's
// tail, asin_tail2_f32).
template <class P, class B>
typename P::template F<B> asin_small_tail(B& b, const typename P::template F<B>& x, const AsinParts<P, B>& parts) {
  return b.mul(b.mul(x, parts.zs), parts.poly);
}

// f32: both ranges' tails, doubled, from one product, (u z) 2A(z) with u = x (small: 2 x^3 A(x^2)) or
// the root's high part (2 hi zb A(zb)): a select instead of two multiplications.
template <class B>
typename B::F32 asin_tail2_f32(B& b, const typename B::F32& x, const AsinParts<P32, B>& parts,
                               const typename B::F32& root_hi) {
  return b.mul(b.mul(b.sel(parts.small, x, root_hi), parts.z), parts.poly);
}

// a >= 1/2 (f64): asin(s) = s + s_tail with s = sqrt(zb) rounded (sqrt.rn) and its residual.
// Separate from asin_parts so that f32, which forms its root from rsqrt.approx (sqrt_parts_f32), emits
// no sqrt.rn: ptxas keeps an unused sqrt.rn's slow-path test and branch (47 SASS in K13-asin's 8
// evaluations).
template <class P, class B>
struct AsinRoot {
  typename P::template F<B> s;
  typename P::template F<B> s_tail;
};

template <class P, class B>
AsinRoot<P, B> asin_root(B& b, const AsinParts<P, B>& parts) {
  using K = typename P::K;
  auto s = b.sqrt(parts.zb);
  // s_lo = (zb - s^2) / (2 s); zero when s is zero (x = +-1).
  auto residual = b.fma(b.neg(s), s, parts.zb);
  auto s_lo = b.sel(b.gt(s, b.c(K(0))), b.div(residual, b.add(s, s)), b.c(K(0)));
  return {s, b.fma(b.mul(s, parts.zb), parts.poly, s_lo)};
}

// sqrt(z) for z = 0 or normal z <= 1/2 (NaN for z < 0 or NaN) as hi + r y / 2: r = z - hi^2 (one
// fma) and y about 1/hi, so that r y / 2 is the low part (a few correct bits of it are enough);
// callers add r y inside an fma. With rsqrt_approx_ftz (PTX: rsqrt.approx.ftz.f32, MUFU.RSQ; the
// CPU model offers every admissible value): y is the guess (within 2^-22 of 1/sqrt(z)) and hi = z y:
// one MUFU and two operations instead of sqrt.rn and rcp.rn. asin's z = (1 - |x|)/2 is 0 or at
// least 2^-25, so .ftz changes nothing and spares ptxas the subnormal rescaling (four SASS). The
// guess is taken of z + 2^-100, which is z itself for every nonzero z (2^-100 is far below half its
// ulp) and for z < 0 or NaN; at z = 0 it is 2^50 instead of inf, so hi = 0 y and r = 0 - 0 are +0
// and r y is +0 without a test and a select for z = 0. Otherwise hi = sqrt.rn(z) and y its
// reciprocal, 0 where hi is not positive.
template <class B>
struct RootF32 {
  typename B::F32 hi;
  typename B::F32 r;
  typename B::F32 y;
};

template <class B>
RootF32<B> sqrt_parts_f32(B& b, const typename B::F32& z) {
  if constexpr (requires { b.rsqrt_approx_ftz(z); }) {
    auto y = b.rsqrt_approx_ftz(b.add(z, b.c(0x1p-100f)));  // z = 0: y = 2^50, hi = r = +0
    auto hi = b.mul(z, y);
    return {hi, b.fma(b.neg(hi), hi, z), y};
  } else {
    auto root = b.sqrt(z);
    auto positive = b.gt(root, b.c(0.0f));
    return {root, b.fma(b.neg(root), root, z), b.sel(positive, b.recip(root), b.c(0.0f))};
  }
}

template <class P, class B>
typename P::template F<B> asin_fn(B& b, const typename P::template F<B>& x) {
  using C = AsinConstants<P>;
  using K = typename P::K;
  auto parts = asin_parts<P>(b, x);
  if constexpr (std::is_same_v<P, P32>) {
    // pi/2 - 2 (s + s_lo + s_tail) with sqrt(zb) = s + s_lo as hi + r y / 2 (sqrt_parts_f32) and
    // both rounding errors kept: the difference pi/2 (hi) - 2 hi is exact as a fast two-sum
    // (2 hi <= 1 < pi/2), with the doubling inside its fmas (2 hi is exact): the sum rounded once,
    // its error z = s - pi/2 (hi) exact, and -2 hi - z exact. 2 s_lo = r y enters the low part in
    // an fma. Without them the two half-ulp errors add up to 2 ULP (x = 0.837096751).
    auto root = sqrt_parts_f32(b, parts.zb);
    auto tail2 = asin_tail2_f32(b, x, parts, root.hi);  // small: 2 x^3 A(x^2); else 2 s_tail
    auto small = b.fma(b.c(K(0.5)), tail2, x);
    auto s = b.fma(b.c(K(-2)), root.hi, b.c(C::kPio2Hi));
    auto s_err = b.fma(b.c(K(-2)), root.hi, b.sub(b.c(C::kPio2Hi), s));
    auto lo = b.sub(b.fma(b.neg(root.r), root.y, b.add(s_err, b.c(C::kPio2Lo))), tail2);
    auto big = with_sign_of<P>(b, b.add(s, lo), x);
    return b.sel(parts.small, small, big);
  }
  auto small = b.add(x, asin_small_tail<P>(b, x, parts));
  // pi/2 - 2 (s + s_tail)
  auto root = asin_root<P>(b, parts);
  auto h = two_sum(b, b.c(C::kPio2Hi), b.mul(b.c(K(-2)), root.s));
  auto lo = b.fma(b.c(K(-2)), root.s_tail, b.add(h.lo, b.c(C::kPio2Lo)));
  auto big = with_sign_of<P>(b, b.add(h.hi, lo), x);
  return b.sel(parts.small, small, big);
}

template <class P, class B>
typename P::template F<B> acos_fn(B& b, const typename P::template F<B>& x) {
  using C = AsinConstants<P>;
  using K = typename P::K;
  auto parts = asin_parts<P>(b, x);
  if constexpr (std::is_same_v<P, P32>) {
    // f32: the same sums without double-words, on sqrt(zb) = hi + r y / 2 (sqrt_parts_f32) and
    // the doubled tail T2 = 2 x^3 A(x^2) (small) or 2 s_tail = 2 hi zb A(zb) (asin_tail2_f32):
    // small: (pi/2 (hi) - x) + (pi/2 (lo) - T2 / 2); else
    // x > 0: 2 hi + (T2 + r y); x < 0: (pi (hi) - 2 hi) + (pi (lo) - (T2 + r y)), 2 hi exact; both
    // on one rounded T2 + r y.
    // On 2026-11-28 this root, then from the non-.ftz rsqrt.approx, measured slower than sqrt.rn on
    // the H200 (1.32 -> 1.37 of nvcc at the same SASS count) and was reverted; with .ftz (no
    // subnormal rescaling) it is 281 SASS against sqrt.rn's 319 per K13 kernel (2026-12-05).
    auto positive = b.gt(x, b.c(K(0)));
    auto root = sqrt_parts_f32(b, parts.zb);
    auto tail2 = asin_tail2_f32(b, x, parts, root.hi);
    auto small = b.add(b.sub(b.c(C::kPio2Hi), x), b.fma(b.c(K(-0.5)), tail2, b.c(C::kPio2Lo)));
    auto low = b.fma(root.r, root.y, tail2);
    auto pos = b.fma(b.c(K(2)), root.hi, low);
    auto neg = b.add(b.fma(b.c(K(-2)), root.hi, b.c(C::kPiHi)), b.sub(b.c(C::kPiLo), low));
    return b.sel(parts.small, small, b.sel(positive, pos, neg));
  }
  auto root = asin_root<P>(b, parts);
  // pi/2 - (x + small_tail)
  auto hs = two_sum(b, b.c(C::kPio2Hi), b.neg(x));
  auto small = b.add(hs.hi, b.add(hs.lo, b.sub(b.c(C::kPio2Lo), asin_small_tail<P>(b, x, parts))));
  // x > 0: 2 (s + s_tail); x < 0: pi - 2 (s + s_tail)
  auto positive = b.gt(x, b.c(K(0)));
  auto base_hi = b.sel(positive, b.c(K(0)), b.c(C::kPiHi));
  auto base_lo = b.sel(positive, b.c(K(0)), b.c(C::kPiLo));
  auto factor = b.sel(positive, b.c(K(2)), b.c(K(-2)));
  auto h = two_sum(b, base_hi, b.mul(factor, root.s));
  auto lo = b.fma(factor, root.s_tail, b.add(h.lo, base_lo));
  auto big = b.add(h.hi, lo);
  return b.sel(parts.small, small, big);
}

}  // namespace vyre::math
