// Correctly rounded division and square root from a correctly rounded fused multiply-add and a
// low-precision seed, for backends whose fma is exact (Vulkan with VK_KHR_shader_fma: OpFmaKHR)
// but whose division and square root are not (Vulkan: OpFDiv is 2.5 ULP, inversesqrt 2 ULP). The
// CUDA plugin has div.rn / sqrt.rn and does not use these.
//
// The backend provides, besides the usual operations (add/mul/fma/neg, bits, comparisons,
// selection, structured control flow):
//   approx_recip(a)  ~ 1/a     for a in [1, 2)
//   approx_rsqrt(a)  ~ 1/sqrt(a) for a in [1, 4)
// each within a relative error of 2^-14 (P32) or 2^-16 (P64, refined by one Newton step here);
// Vulkan's OpFDiv and GLSL.std.450 InverseSqrt on f32 (2.5 and 2 ULP: about 2^-21) meet this with a
// wide margin (for P64 seeds computed in f32: 2^-21 plus the f32 rounding of the operand, 2^-24).
// The results do not depend on which seed within the bound the backend gives. (The argument below
// needs only a monotone rounding of the fmas and products, not round-to-nearest; only
// round-to-nearest is tested.)
//
// Method (division; square root is alike). Operands whose exponents could make a step inexact go
// to `exact` (the integer algorithms of exact.hpp): zero, subnormal, infinite or NaN operands (a
// zero dividend over a normal divisor is answered directly), and quotients whose exponent could
// leave the normal range. For the rest, x = xs * 2^ex, y = ys * 2^ey with xs, ys in [1, 2), so the
// quotient is (xs / ys) * 2^(ex - ey) with xs / ys in (1/2, 2): every step below stays in the normal
// range and the final scaling by 2^(ex - ey) is exact (an exponent addition on the bits).
//   r  = seed of 1/ys (one Newton step r += r(1 - ys r) for P64)
//   q0 = xs r;  q1 = q0 + (xs - ys q0) r   (fma; q1 is within 0.5 ULP + 2^-3 ULP of xs / ys: q0's
//   error, 2^(M+1) e ULP for a seed error e (2^-14, or 2^-32 after Newton), shrinks by e again)
//   rem = xs - ys q1 (fma, rounded once)
// The correctly rounded quotient is q1, its successor or its predecessor. With h+ and h- half the
// distance from q1 to its successor and predecessor, xs / ys lies above the midpoint q1 + h+ iff
// xs - ys q1 > ys h+, below q1 - h- iff xs - ys q1 < -ys h-, and on a midpoint on equality. ys h+
// and ys h- are exact (ys times a power of two). rem may be rounded, but xs - ys q1 and ys h+ are
// both multiples of g = 2^-M h+ and ys h+ +- g are floats (likewise for h-), so rounding (monotone) keeps each
// comparison's answer. Ties go to the even neighbour. The comparisons are integer comparisons of
// the bits: for a positive float t (ys h+, ys h-, s u+, s u-: never zero or subnormal) and any
// non-NaN v, v > t iff bits(v) > bits(t) as signed integers (a negative v, or -0, has the sign bit
// set); so rem > t, -rem > t and their equalities need no float comparison (which the SPIR-V
// backend computes with integer work for devices that flush subnormals).
// Square root: x = ms * 2^(2k) with ms in [1, 4); s approximates sqrt(ms) in [1, 2] with an
// rsqrt-seeded Goldschmidt iteration and one fma correction; with u+ and u- the distances to
// s's neighbours, sqrt(ms) > s + u+/2 iff ms - s^2 > s u+ (both sides are multiples of u+^2, and
// s u+ + u+^2 / 4 is strictly between two such multiples), and sqrt(ms) < s - u-/2 iff
// ms - s^2 <= -s u- (likewise); a square root is never a midpoint.
//
// tests/vulkan/test_seeded_div_sqrt.cpp checks both against the host's IEEE division and square
// root with seeds perturbed up to the bound above: f32 sqrt exhaustively over [1, 4) (every
// significand and exponent parity: the method is the same at every exponent), f32 reciprocals
// exhaustively over [1, 2), and millions of random and near-midpoint operands (more with
// VYRE_TEST_SEEDED_CASES; 25 million per kind passed).
#pragma once

#include "math/algorithms/common.hpp"

namespace vyre::math::seeded {

template <class P>
struct Layout {
  static constexpr int M = P::kMantissaBits;
  static constexpr std::uint64_t kFieldMax = 2 * P::kBias + 1;  // the all-ones exponent field
  static constexpr std::uint64_t kExponentMask = kFieldMax << M;
  static constexpr std::uint64_t kOne = std::uint64_t(P::kBias) << M;
  // Newton steps refining the seed: the seed's 2^-16 becomes 2^-32 for P64.
  static constexpr int kNewtonSteps = M > 23 ? 1 : 0;
  // A signed constant as the precision's integer type.
  static constexpr std::uint64_t s(std::int64_t v) { return static_cast<std::uint64_t>(v); }
};

// x / y, correctly rounded; `exact(x, y)` gives it for every operand (the fallback).
template <class P, class B, class Exact>
typename P::template F<B> div(B& b, const typename P::template F<B>& x, const typename P::template F<B>& y,
                              Exact&& exact) {
  using L = Layout<P>;
  using K = typename P::K;
  auto k = [&](std::uint64_t v) { return P::bits_const(b, v); };
  const auto m = b.u32(static_cast<std::uint32_t>(L::M));
  const auto xb = b.bits(x), yb = b.bits(y);
  const auto ex = b.shr_u(b.and_(xb, k(L::kExponentMask)), m);
  const auto ey = b.shr_u(b.and_(yb, k(L::kExponentMask)), m);
  const auto sign = b.and_(b.xor_(xb, yb), k(P::kSignBit));
  const auto x_zero = b.eq(b.and_(xb, k(~P::kSignBit & (L::kExponentMask | P::kMantissaMask))), k(0));
  const auto x_special = b.or_(b.eq(ex, k(0)), b.eq(ex, k(L::kFieldMax)));
  const auto y_normal = b.not_(b.or_(b.eq(ey, k(0)), b.eq(ey, k(L::kFieldMax))));
  // The quotient is (xs / ys) * 2^d with xs / ys in (1/2, 2): normal for d in [2 - bias, bias].
  const auto d = b.sub(ex, ey);
  const auto out_of_range = b.or_(b.lt_s(d, k(L::s(2 - P::kBias))), b.lt_s(k(L::s(P::kBias)), d));
  const auto hard = b.or_(b.not_(y_normal), b.and_(b.not_(x_zero), b.or_(x_special, out_of_range)));

  const auto xs = P::from_bits(b, b.or_(b.and_(xb, k(P::kMantissaMask)), k(L::kOne)));
  const auto ys = P::from_bits(b, b.or_(b.and_(yb, k(P::kMantissaMask)), k(L::kOne)));
  const auto minus_ys = b.neg(ys);
  auto r = b.approx_recip(ys);
  for (int i = 0; i < L::kNewtonSteps; ++i) r = b.fma(r, b.fma(minus_ys, r, b.c(K(1))), r);
  const auto q0 = b.mul(xs, r);
  const auto q1 = b.fma(b.fma(minus_ys, q0, xs), r, q0);
  const auto rem = b.fma(minus_ys, q1, xs);

  // q1's neighbours: half the distance up (h+) and down (h-, smaller when q1 is a power of two).
  const auto qb = b.bits(q1);
  const auto half_up = P::from_bits(b, b.sub(b.and_(qb, k(L::kExponentMask)), k(std::uint64_t(L::M + 1) << L::M)));
  const auto power_of_two = b.eq(b.and_(qb, k(P::kMantissaMask)), k(0));
  const auto half_down = b.sel(power_of_two, b.mul(half_up, b.c(K(0.5))), half_up);
  // Compared as signed integers (see above_below): rem against ys h+, and -rem against ys h-.
  const auto t_up = b.bits(b.mul(ys, half_up));
  const auto t_down = b.bits(b.mul(ys, half_down));
  const auto rem_bits = b.bits(rem);
  const auto minus_rem = b.xor_(rem_bits, k(P::kSignBit));
  const auto odd = b.ne(b.and_(qb, k(1)), k(0));
  const auto up = b.or_(b.lt_s(t_up, rem_bits), b.and_(b.eq(rem_bits, t_up), odd));
  const auto down = b.or_(b.lt_s(t_down, minus_rem), b.and_(b.eq(minus_rem, t_down), odd));
  auto bits = b.sub(b.add(qb, b.sel(up, k(1), k(0))), b.sel(down, k(1), k(0)));
  bits = b.or_(b.add(bits, b.shl(d, m)), sign);  // exact scaling by 2^d, then the sign
  auto result = b.var(P::from_bits(b, b.sel(x_zero, sign, bits)));
  b.if_(hard, [&] { b.set(result, exact(x, y)); });
  return b.get(result);
}

// sqrt(x), correctly rounded; `exact(x)` gives it for every operand (the fallback).
template <class P, class B, class Exact>
typename P::template F<B> sqrt(B& b, const typename P::template F<B>& x, Exact&& exact) {
  using L = Layout<P>;
  using K = typename P::K;
  auto k = [&](std::uint64_t v) { return P::bits_const(b, v); };
  const auto m = b.u32(static_cast<std::uint32_t>(L::M));
  const auto xb = b.bits(x);
  const auto e = b.shr_u(b.and_(xb, k(L::kExponentMask)), m);
  const auto zero = b.eq(b.and_(xb, k(~P::kSignBit & (L::kExponentMask | P::kMantissaMask))), k(0));
  // Zeros are their own root; negative, subnormal, infinite and NaN operands go to `exact`.
  const auto hard = b.and_(b.not_(zero), b.or_(b.or_(b.eq(e, k(0)), b.eq(e, k(L::kFieldMax))),
                                               b.ne(b.and_(xb, k(P::kSignBit)), k(0))));
  // x = ms * 2^(2 half) with ms in [1, 4): the exponent's parity goes into ms.
  const auto unbiased = b.sub(e, k(static_cast<std::uint64_t>(P::kBias)));
  const auto parity = b.and_(unbiased, k(1));
  const auto half = b.shr_s(b.sub(unbiased, parity), b.u32(1));
  const auto ms = P::from_bits(b, b.or_(b.and_(xb, k(P::kMantissaMask)),
                                        b.shl(b.add(k(static_cast<std::uint64_t>(P::kBias)), parity), m)));
  const auto r = b.approx_rsqrt(ms);
  auto s = b.mul(ms, r);          // ~ sqrt(ms)
  auto h = b.mul(r, b.c(K(0.5)));  // ~ 1 / (2 sqrt(ms))
  for (int i = 0; i < L::kNewtonSteps; ++i) {
    const auto g = b.fma(b.neg(s), h, b.c(K(0.5)));
    s = b.fma(s, g, s);
    h = b.fma(h, g, h);
  }
  s = b.fma(b.fma(b.neg(s), s, ms), h, s);
  const auto rem = b.fma(b.neg(s), s, ms);

  const auto sb = b.bits(s);
  const auto ulp_up = P::from_bits(b, b.sub(b.and_(sb, k(L::kExponentMask)), k(std::uint64_t(L::M) << L::M)));
  const auto power_of_two = b.eq(b.and_(sb, k(P::kMantissaMask)), k(0));
  const auto ulp_down = b.sel(power_of_two, b.mul(ulp_up, b.c(K(0.5))), ulp_up);
  const auto rem_bits = b.bits(rem);
  const auto up = b.lt_s(b.bits(b.mul(s, ulp_up)), rem_bits);                                 // rem > s u+
  const auto down = b.not_(b.lt_s(b.xor_(rem_bits, k(P::kSignBit)), b.bits(b.mul(s, ulp_down))));  // -rem >= s u-
  auto bits = b.sub(b.add(sb, b.sel(up, k(1), k(0))), b.sel(down, k(1), k(0)));
  bits = b.add(bits, b.shl(half, m));  // exact scaling by 2^half
  auto result = b.var(b.sel(zero, x, P::from_bits(b, bits)));
  b.if_(hard, [&] { b.set(result, exact(x)); });
  return b.get(result);
}

}  // namespace vyre::math::seeded
