// sinh, cosh and tanh, on the exponential kernel of exp.hpp (a = |x|):
//   sinh: a < 1: x + x^3 H(x^2) (minimax); else sign(x) (e^a - e^-a) / 2
//   cosh: (e^a + e^-a) / 2 for all a
//   tanh: a < 0.55: x + x^3 T(x^2) (minimax); else sign(x) (1 - 2 / (e^2a + 1))
// With e^a = 2^k (P_hi + P_lo): (e^a +- e^-a) / 2 = 2^(k-1) (P +- 2^-2k / P), the bracket formed as
// a double-word (1/P with one correction step), rounded once and scaled exactly (overflow rounds
// once to inf). a is clamped where the result is already inf (sinh, cosh) or 1 (tanh).
// That is the f64 algorithm. f32 (SPEC §5: 4 ULP; exhaustively within 2, ACCURACY.md) uses the f32
// exponential parts of exp.hpp, e^a = 2^k (1 + r Q), without double-words: sinh/cosh form
// P = 1 + r Q rounded once, g = 2^-2k / P with one reciprocal, P + g (cosh) or r Q + (1 - g) in
// one fma (sinh), and scale (all at twice their value, exp_pair_f32); tanh = 1 - 2 / d with
// d = e^2a + 1 = fma(2^k r, Q, 2^k + 1) rounded once, then one fma. The reciprocal of d in
// [2, 2^30] (tanh) is recip_refined_f32 (common.hpp); sinh's and cosh's of 2P are the unrefined
// guess (recip_guess_f32), see exp_pair_f32.
#pragma once

#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/algorithms/exp.hpp"
#include "math/polynomials.hpp"

namespace vyre::math {

template <class P>
struct HyperbolicConstants;

template <>
struct HyperbolicConstants<P32> {
  static constexpr float kClamp = 90.0f;       // cosh, sinh(90) > FLT_MAX (f64 algorithm's clamp)
  static constexpr float kClampF32 = 89.5f;    // cosh, sinh(89.5) > FLT_MAX, and k <= 129
  static constexpr float kCoshLowF32 = 0x1p-22f;  // cosh(2^-22) = 1 + 2^-45: rounds to 1
  static constexpr float kTanhClamp = 10.0f;   // tanh(10) rounds to 1
  static constexpr std::uint32_t kMaxK = 32;   // beyond, e^-2a is far below an ulp
  static constexpr float kSinhSmall = 1.0f;
  static constexpr float kTanhSmall = 0.55f;
  static constexpr const float (&kSinh)[4] = poly::k_sinh_f32;
  static constexpr const float (&kTanh)[5] = poly::k_tanh_f32;
};

template <>
struct HyperbolicConstants<P64> {
  static constexpr double kClamp = 711.0;
  static constexpr double kTanhClamp = 20.0;
  static constexpr std::uint32_t kMaxK = 64;
  static constexpr double kSinhSmall = 1.0;
  static constexpr double kTanhSmall = 0.55;
  static constexpr const double (&kSinh)[8] = poly::k_sinh_f64;
  static constexpr const double (&kTanh)[11] = poly::k_tanh_f64;
};

// (e^a + sign e^-a) / 2 for 0 <= a (sign = +1 cosh, -1 sinh).
template <class P, class B>
typename P::template F<B> exp_pair(B& b, const typename P::template F<B>& a, typename P::K sign) {
  using C = HyperbolicConstants<P>;
  using K = typename P::K;
  auto ac = b.sel(b.gt(a, b.c(C::kClamp)), b.c(C::kClamp), a);
  auto red = exp_reduce<P>(b, ac);
  auto e = exp_kernel<P>(b, red.r_hi, red.r_lo);
  auto p = fast_two_sum(b, e.hi, e.lo);
  auto inv = b.recip(p.hi);
  auto inv_lo = b.mul(b.sub(b.fma(b.neg(inv), p.hi, b.c(K(1))), b.mul(inv, p.lo)), inv);
  auto kk = b.sel(b.lt_s(red.k, b.u32(C::kMaxK)), red.k, b.u32(C::kMaxK));
  auto sc = pow2<P>(b, b.sub(b.u32(0), b.add(kk, kk)));
  auto g_hi = b.mul(b.mul(inv, sc), b.c(sign));
  auto g_lo = b.mul(b.mul(inv_lo, sc), b.c(sign));
  auto d = two_sum(b, p.hi, g_hi);
  auto v = b.add(d.hi, b.add(d.lo, b.add(p.lo, g_lo)));
  return scale<P>(b, v, b.sub(red.k, b.u32(1)));
}

template <class P, class B>
typename P::template F<B> sinh_dw(B& b, const typename P::template F<B>& x) {
  using C = HyperbolicConstants<P>;
  using K = typename P::K;
  auto a = b.abs(x);
  auto z = b.mul(x, x);
  auto small = b.fma(b.mul(x, z), horner(b, z, C::kSinh), x);
  auto big = with_sign_of<P>(b, exp_pair<P>(b, a, K(-1)), x);
  auto y = b.sel(b.lt(a, b.c(C::kSinhSmall)), small, big);
  return b.sel(b.is_nan(x), x, y);
}

template <class P, class B>
typename P::template F<B> cosh_dw(B& b, const typename P::template F<B>& x) {
  using K = typename P::K;
  auto y = exp_pair<P>(b, b.abs(x), K(1));
  return b.sel(b.is_nan(x), x, y);
}

template <class P, class B>
typename P::template F<B> tanh_dw(B& b, const typename P::template F<B>& x) {
  using C = HyperbolicConstants<P>;
  using K = typename P::K;
  auto a = b.abs(x);
  auto z = b.mul(x, x);
  auto small = b.fma(b.mul(x, z), horner(b, z, C::kTanh), x);
  small = b.sel(b.eq(x, b.c(K(0))), x, small);  // tanh(-0) = -0
  // 1 - 2 / (e^2a + 1), e^2a = 2^k (P_hi + P_lo)
  auto ac = b.sel(b.gt(a, b.c(C::kTanhClamp)), b.c(C::kTanhClamp), a);
  auto red = exp_reduce<P>(b, b.add(ac, ac));
  auto e = exp_kernel<P>(b, red.r_hi, red.r_lo);
  auto sc = pow2<P>(b, red.k);
  auto u = two_sum(b, b.mul(e.hi, sc), b.c(K(1)));
  auto u_lo = b.fma(e.lo, sc, u.lo);
  auto rcp = b.recip(u.hi);
  auto w = b.mul(b.c(K(2)), rcp);
  auto residual = b.fma(b.neg(w), u_lo, b.fma(b.neg(w), u.hi, b.c(K(2))));
  auto w_lo = b.mul(residual, rcp);
  auto h = fast_two_sum(b, b.c(K(1)), b.neg(w));
  auto big = with_sign_of<P>(b, b.add(h.hi, b.sub(h.lo, w_lo)), x);
  auto y = b.sel(b.lt(a, b.c(C::kTanhSmall)), small, big);
  return b.sel(b.is_nan(x), x, y);
}

// f32: (e^a + sign e^-a) / 2 for 0 <= a, e^a = 2^k P, all of it carried at twice its value:
// Q's coefficients doubled (common.hpp doubled()) give p2 = fma(r, 2Q, 2) = 2 P exactly, and
// v2 = 2 v, so the result v 2^(k-1) is the one product v2 2^(k-2).
inline constexpr auto kExpm1Doubled = doubled(poly::k_expm1_f32);

template <class B>
typename B::F32 exp_pair_f32(B& b, const typename B::F32& a, float sign) {
  using C = HyperbolicConstants<P32>;
  // cosh raises a below 2^-22 to it (cosh rounds to 1 on all of [0, 2^-22]); see the reciprocal.
  auto al = sign > 0 ? b.sel(b.lt(a, b.c(C::kCoshLowF32)), b.c(C::kCoshLowF32), a) : a;
  auto ac = b.sel(b.gt(al, b.c(C::kClampF32)), b.c(C::kClampF32), al);
  auto e = exp_f32_parts(b, ac, kExpm1Doubled.c);  // e.q = 2 Q(r)
  auto p2 = b.fma(e.r, e.q, b.c(2.0f));
  // kk - 1 with kk = min(k, kMaxK), from the bits of the rounding sum (one VIADDMNMX).
  auto k1 = k_of_round_bits(b, e.j, -1);
  auto kk1 = b.sel(b.lt_s(k1, b.u32(C::kMaxK - 1)), k1, b.u32(C::kMaxK - 1));
  // 2 2^-2kk / p = 2^(2 - 2kk) / p2: 1/p2 in [0.35, 0.72] times 2^(2 - 2kk) (2kk <= 64) is normal,
  // so the product is exact and is 2 (kk - 1) taken off the exponent field (one integer operation
  // instead of forming the power and multiplying; k >= 0 as a >= 0). A NaN p2 makes 1/p2 NaN,
  // whatever this does to its bits, and v2 NaN.
  // sinh (a >= 1, so k >= 1) weighs 1/p by 2^-2k: at k = 1 (p >= 1.36) v = p - 2^-2/p is above
  // 1.18, at k >= 2 above 0.61, so the guess's error (1 ulp of 1/p) is at most 1/8 ulp of v, and
  // the unrefined guess keeps sinh within 1 ULP (ACCURACY.md). cosh at small a weighs 1/p like p,
  // so a guess of 1/2 - 2^-24 for 1/2 (two float spacings below, within 1 ulp of 1/2 as
  // rcp.approx's bound counts it) would make cosh(0) 1 - 2^-24. Raised to 2^-22, a makes p2 =
  // 2 + 2^-21, and every admissible guess of 1/p2 then gives v2 = 4 (a tie at most, to even), so
  // cosh is 1 wherever it should round to 1; elsewhere the guess alone keeps cosh within 1 ULP
  // (exhaustively, ACCURACY.md), and the Newton step of recip_refined_f32 is not needed.
  // Each guess of 1/p2 is exactly half the guess of 1/p the CPU model offers at the same rank.
  auto inv = recip_guess_f32(b, p2);
  auto scaled = P32::from_bits(b, b.sub(b.bits(inv), b.shl(kk1, b.u32(P32::kMantissaBits + 1))));
  auto g2 = sign < 0 ? b.neg(scaled) : scaled;  // a negation ptxas folds into the sum, not an FMUL by -1
  // sinh (a >= 1: the difference loses up to 1.2 bits) sums r 2Q + (2 + g2) in one fma, so p2's
  // rounding never enters v2; only 2 + g2 is rounded first (|g2| <= 0.72: at most 2^-24). Until
  // O42 it added p's rounding error back to p2 + g2 instead (two more instructions). cosh's sum
  // p2 + g2 needs neither (within 1 ULP as it is).
  auto v2 = sign < 0 ? b.fma(e.r, e.q, b.add(b.c(2.0f), g2)) : b.add(p2, g2);
  // v 2^(k-1) = v2 2^(k-2), k in [0, 129]: one product, rounded once (to inf on overflow).
  return b.mul(v2, pow2_of_round_bits(b, e.j, -2));
}

template <class B>
typename B::F32 sinh_f32(B& b, const typename B::F32& x) {
  using C = HyperbolicConstants<P32>;
  auto a = b.abs(x);
  auto z = b.mul(x, x);
  auto small = b.fma(b.mul(x, z), horner(b, z, C::kSinh), x);
  auto big = with_sign_of<P32>(b, exp_pair_f32(b, a, -1.0f), x);
  return b.sel(b.lt(a, b.c(C::kSinhSmall)), small, big);  // NaN: big is NaN
}

template <class B>
typename B::F32 cosh_f32(B& b, const typename B::F32& x) {
  return exp_pair_f32(b, b.abs(x), 1.0f);  // NaN stays NaN through every step
}

// tanh(|x|) with x's sign: the odd polynomial of |x| is sign-symmetric bit for bit (round to
// nearest even is), and gives +0 at 0 (fma(+0, T(0) < 0, +0) = +0), so -0 keeps its sign.
template <class B>
typename B::F32 tanh_f32(B& b, const typename B::F32& x) {
  using C = HyperbolicConstants<P32>;
  auto a = b.abs(x);
  auto z = b.mul(a, a);
  auto small = b.fma(b.mul(a, z), horner(b, z, C::kTanh), a);
  auto ac = b.sel(b.gt(a, b.c(C::kTanhClamp)), b.c(C::kTanhClamp), a);
  auto e = exp_f32_parts_of_double(b, ac);  // 2a = k ln2 hi + 2h, k in [1, 29] (exp.hpp)
  auto sc = pow2_of_round_bits(b, e.j, 0);
  auto d = b.fma(b.mul(sc, e.r), e.q, b.add(sc, b.c(1.0f)));  // e^2a + 1 = 2^k (1 + h q2) + 1
  auto big = b.fma(b.c(-2.0f), recip_refined_f32(b, d), b.c(1.0f));
  return with_sign_of<P32>(b, b.sel(b.lt(a, b.c(C::kTanhSmall)), small, big), x);  // NaN: big is NaN
}

template <class P, class B>
typename P::template F<B> sinh_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return sinh_f32(b, x);
  else return sinh_dw<P>(b, x);
}

template <class P, class B>
typename P::template F<B> cosh_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return cosh_f32(b, x);
  else return cosh_dw<P>(b, x);
}

template <class P, class B>
typename P::template F<B> tanh_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return tanh_f32(b, x);
  else return tanh_dw<P>(b, x);
}

}  // namespace vyre::math
