// exp and exp2 (and the exponential kernel sinh, cosh and tanh share).
//
// exp(x) = 2^k * e^r with k = rint(x / ln2) and r = x - k ln2 as a double-word: r_hi = x - k*LN2_HI
// is exact (fma; x and k*LN2_HI are multiples of ulp(LN2_HI) and |r_hi| < 1/2), r_lo = -k*LN2_LO.
// e^r = 1 + r + r^2 * R(r) (minimax R, |r| <= 0.3467) is formed as a double-word, rounded once, and
// scaled by 2^k in two exact steps so overflow and gradual underflow round once. Where the result
// is subnormal the double-word is first rounded to odd, which makes the second rounding correct.
// exp2(x) = 2^k * e^((x - k) ln2), with (x - k) exact and (x - k)*ln2 as a double-word.
// That is the f64 exp2 algorithm (and the kernel sinh, cosh and tanh use in both precisions); f64
// exp is the cheaper exp_f64 below (one rounded r, no double-words).
//
// f32 exp and exp2 take a cheaper route (SPEC §5 allows 2 ULP; exhaustively within 1, ACCURACY.md):
// k = rint(x log2 e) and its integer bits in one fma against 1.5 * 2^23, r = x - k ln2 rounded
// once (the first product term exact), e^r = 1 + r Q(r) with Q a minimax fit of (e^r - 1)/r and
// one final fma; exp2 likewise with the exact f = x - rint(x) and a fit of (2^f - 1)/f. The
// result y in [0.7, 1.42] is scaled by 2^k: where |x| < 86 (exp2: 124), |k| <= 124 and 2^k y is
// normal, so k added to y's exponent field is the exact product; elsewhere (and NaN) a branch
// scales in two steps (scale()), which rounds once on overflow and in the subnormal range a
// second time (at most half a subnormal ulp more), and sends x beyond the clamps to +inf / +0.
// Both paths give the bits the two-step scale gives for every input.
#pragma once

#include <cstddef>
#include <iterator>
#include <limits>
#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/polynomials.hpp"

namespace vyre::math {

template <class P>
struct ExpConstants;

template <>
struct ExpConstants<P32> {
  static constexpr float kLog2e = 0x1.715476p+0f;
  static constexpr float kLn2Hi = 0x1.62e430p-1f;
  static constexpr float kLn2Lo = -0x1.05c610p-29f;
  static constexpr float kExpMax = 89.0f;      // exp(89) > FLT_MAX: clamping keeps +inf
  static constexpr float kExpMin = -104.0f;    // exp(-104) < 2^-150: clamping keeps +0
  static constexpr float kExp2Max = 130.0f;
  static constexpr float kExp2Min = -152.0f;
  static constexpr std::int32_t kMinNormalK = -126;  // 2^k * [0.7, 1.42) may be subnormal below
  static constexpr const float (&kPoly)[6] = poly::k_exp_f32;
};

template <>
struct ExpConstants<P64> {
  static constexpr double kLog2e = 0x1.71547652b82fep+0;
  static constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
  static constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
  static constexpr double kExpMax = 710.0;
  static constexpr double kExpMin = -746.0;
  static constexpr double kExp2Max = 1030.0;
  static constexpr double kExp2Min = -1080.0;
  static constexpr std::int32_t kMinNormalK = -1022;
  static constexpr const double (&kPoly)[12] = poly::k_exp_f64;
};

// e^(r_hi + r_lo) as a double-word (unnormalized), for |r_hi| <= 0.3467 and |r_lo| << |r_hi|.
template <class P, class B>
DW<typename P::template F<B>> exp_kernel(B& b, const typename P::template F<B>& r_hi,
                                         const typename P::template F<B>& r_lo) {
  using C = ExpConstants<P>;
  using K = typename P::K;
  auto poly = horner(b, r_hi, C::kPoly);
  auto q = b.mul(b.mul(r_hi, r_hi), poly);  // r^2 R(r), about r^2 / 2
  auto s = two_sum(b, r_hi, q);
  auto p = fast_two_sum(b, b.c(K(1)), s.hi);
  // e^(r_hi + r_lo) = e^r_hi (1 + r_lo + ...): the r_lo term is r_lo e^r_hi = r_lo (1 + s.hi).
  auto lo = b.add(b.add(p.lo, s.lo), b.fma(r_lo, s.hi, r_lo));
  return {p.hi, lo};
}

// The argument reduction of exp: k and r = x - k ln2 (double-word), for clamped finite x.
template <class P, class B>
struct ExpReduction {
  typename B::B32 k;
  typename P::template F<B> r_hi;
  typename P::template F<B> r_lo;
};

template <class P, class B>
ExpReduction<P, B> exp_reduce(B& b, const typename P::template F<B>& x) {
  using C = ExpConstants<P>;
  auto kf = b.rint(b.mul(x, b.c(C::kLog2e)));
  auto r_hi = b.fma(b.neg(kf), b.c(C::kLn2Hi), x);
  auto r_lo = b.mul(b.neg(kf), b.c(C::kLn2Lo));
  return {b.to_s32(kf), r_hi, r_lo};
}

// (hi + lo) * 2^k rounded once (see the file comment), for hi + lo in [0.7, 1.5).
template <class P, class B>
typename P::template F<B> exp_scale(B& b, const DW<typename P::template F<B>>& v,
                                    const typename B::B32& k) {
  using C = ExpConstants<P>;
  using K = typename P::K;
  auto n = fast_two_sum(b, v.hi, v.lo);
  // Round to odd: if the double-word is inexact and hi is even, step hi towards lo.
  auto hi_bits = b.bits(n.hi);
  auto one = P::bits_const(b, 1);
  auto is_even = b.eq(b.and_(hi_bits, one), P::bits_const(b, 0));
  auto up = b.and_(is_even, b.gt(n.lo, b.c(K(0))));
  auto down = b.and_(is_even, b.lt(n.lo, b.c(K(0))));
  auto odd_bits = b.sel(up, b.add(hi_bits, one), b.sel(down, b.sub(hi_bits, one), hi_bits));
  auto subnormal = b.lt_s(k, b.u32(static_cast<std::uint32_t>(C::kMinNormalK)));
  auto m = b.sel(subnormal, P::from_bits(b, odd_bits), n.hi);
  return scale<P>(b, m, k);
}

// f32: k and 2^k from one fma: j = x * m + 1.5 * 2^23 (|x m| < 2^22) rounds x m to an integer k,
// kf = j - 1.5 * 2^23 is k exactly and k itself is the difference of the bit patterns. The pattern's
// low 9 bits are zero, so j's bits shifted into the exponent field are k's: (j << 23) = (k << 23)
// modulo 2^32, and 2^k or y 2^k needs no k (one shift-and-add, LEA).
inline constexpr float kRoundMagic = 0x1.8p23f;
inline constexpr std::uint32_t kRoundMagicBits = 0x4B400000u;
static_assert((kRoundMagicBits << P32::kMantissaBits) == 0u);

// f32: x = k ln2 + r (x clamped, |x| < 2^22 / log2 e) with r rounded once, and Q(r), e^r = 1 + r Q(r).
template <class B>
struct ExpF32Parts {
  typename B::B32 j;  // the bits of the rounding sum j, kRoundMagicBits + k
  typename B::F32 r;
  typename B::F32 q;
};

// k + offset from the bits of the rounding sum: one subtraction.
template <class B>
typename B::B32 k_of_round_bits(B& b, const typename B::B32& j, std::int32_t offset = 0) {
  return b.sub(j, b.u32(kRoundMagicBits - static_cast<std::uint32_t>(offset)));
}

// 2^(k + offset) from the bits of j = kRoundMagicBits + k, for k + offset in the normal range:
// (j << 23) + ((offset + 127) << 23), one shift-and-add (LEA) where forming k, biasing it and
// shifting takes ptxas two instructions.
template <class B>
typename B::F32 pow2_of_round_bits(B& b, const typename B::B32& j, std::int32_t offset) {
  const auto biased = static_cast<std::uint32_t>(offset + P32::kBias) << P32::kMantissaBits;
  return b.f32_from_bits(b.add(b.shl(j, b.u32(P32::kMantissaBits)), b.u32(biased)));
}

// q is Q(r) from Q's coefficients `q_coefficients` (default: Q itself; sinh and cosh take them
// doubled, q = 2 Q(r) exactly).
template <class B, std::size_t N = std::size(poly::k_expm1_f32)>
ExpF32Parts<B> exp_f32_parts(B& b, const typename B::F32& xc, const float (&q_coefficients)[N] = poly::k_expm1_f32) {
  using C = ExpConstants<P32>;
  auto j = b.fma(xc, b.c(C::kLog2e), b.c(kRoundMagic));
  auto kf = b.sub(j, b.c(kRoundMagic));
  auto r_hi = b.fma(b.neg(kf), b.c(C::kLn2Hi), xc);
  auto r = b.fma(b.neg(kf), b.c(C::kLn2Lo), r_hi);
  return {b.bits(j), r, horner(b, r, q_coefficients)};
}

// The parts of e^(2a) without forming 2a (tanh): the reduction of 2a at half scale, h = r/2 =
// fma(-k, ln2 hi/2, a), and q2 = 2 Q(2h) from Q's coefficients scaled by 2^(i+1) (every Horner
// step exactly scaled), so e^(2a) = 2^k (1 + h q2). Only tanh uses it, and tanh needs less of
// it than exp does: the reduction drops exp_f32_parts' second step, fma(-k, ln2 lo/2, .) (O44).
// That leaves k ln2 lo / 2 (|ln2 lo| = 1.9e-9) out of h: a relative error of k 2^-29 in e^(2a),
// which tanh's 1 - 2/d (d = e^(2a) + 1 > 0.7 2^k) weighs by (2/d)(1 - 1/d) < 2^(2-k): at most
// 2^-28, 1/16 ulp of its result (k >= 2, results in [0.5, 1); 0.024 ulp at a = 0.55, where the
// weight is 0.375). One FFMA per call.
template <std::size_t N>
constexpr ScaledCoefficients<N> coefficients_at_double(const float (&c)[N]) {
  ScaledCoefficients<N> out{};
  float scale = 2.0f;
  for (std::size_t i = 0; i < N; ++i, scale *= 2.0f) out.c[i] = c[i] * scale;
  return out;
}

inline constexpr auto kExpm1AtDouble = coefficients_at_double(poly::k_expm1_f32);

template <class B>
ExpF32Parts<B> exp_f32_parts_of_double(B& b, const typename B::F32& a) {
  using C = ExpConstants<P32>;
  auto j = b.fma(a, b.c(2.0f * C::kLog2e), b.c(kRoundMagic));
  auto kf = b.sub(j, b.c(kRoundMagic));
  auto h = b.fma(b.neg(kf), b.c(0.5f * C::kLn2Hi), a);
  return {b.bits(j), h, horner(b, h, kExpm1AtDouble.c)};
}

// |x| below these: |k| <= 124, so 2^k y (y in [0.7, 1.42]) is normal.
inline constexpr float kExpF32Direct = 86.0f;    // 86 log2 e = 124.07
inline constexpr float kExp2F32Direct = 124.0f;

// 2^k y for f32 exp/exp2 (see the file comment), k from the bits of the rounding sum j: y's
// exponent field plus k (j << 23) where |x| < `direct`, else the two-step scale, +inf above `max`,
// +0 below `min`, and NaN for NaN. y and j may be anything (even from an infinite x) where x is
// outside [min, max] or NaN.
template <class B>
typename B::F32 exp_f32_scale(B& b, const typename B::F32& x, const typename B::F32& y, const typename B::B32& j,
                              float direct, float max, float min) {
  auto out = b.var(P32::from_bits(b, b.add(b.bits(y), b.shl(j, b.u32(P32::kMantissaBits)))));
  b.if_(b.not_(b.lt(b.abs(x), b.c(direct))), [&] {
    auto s = scale<P32>(b, y, k_of_round_bits(b, j));
    s = b.sel(b.gt(x, b.c(max)), b.c(std::numeric_limits<float>::infinity()), s);
    s = b.sel(b.lt(x, b.c(min)), b.c(0.0f), s);
    b.set(out, b.sel(b.is_nan(x), x, s));
  });
  return b.get(out);
}

// x in [kExpMin, kExpMax] needs no clamp in exp_f32_parts (|x log2 e| < 2^22).
template <class B>
typename B::F32 exp_f32(B& b, const typename B::F32& x) {
  using C = ExpConstants<P32>;
  auto e = exp_f32_parts(b, x);
  auto y = b.fma(e.r, e.q, b.c(1.0f));
  return exp_f32_scale(b, x, y, e.j, kExpF32Direct, C::kExpMax, C::kExpMin);
}

template <class B>
typename B::F32 exp2_f32(B& b, const typename B::F32& x) {
  using C = ExpConstants<P32>;
  auto j = b.add(x, b.c(kRoundMagic));
  auto f = b.sub(x, b.sub(j, b.c(kRoundMagic)));  // exact, |f| <= 1/2, for |x| < 2^22
  auto y = b.fma(f, horner(b, f, poly::k_exp2m1_f32), b.c(1.0f));
  return exp_f32_scale(b, x, y, b.bits(j), kExp2F32Direct, C::kExp2Max, C::kExp2Min);
}

// f64 exp, table-free and without double-words (SPEC §5 allows 2 ULP; sampled within 1, ACCURACY.md):
// k = rint(x log2 e) from one fma against 1.5 * 2^52 (the low word of the sum is k), r = x - k ln2
// rounded once (the first fma exact, |r| <= 0.3467), e^r = 1 + r (1 + r T(r)) with T the degree-9
// part of a minimax fit of e^r (k_exp_nested_f64, e^r within 2^-56.5 relative), y in [0.707, 1.415).
// For |x| < 708, 2^k y is normal and formed by adding k to y's exponent field. Otherwise (and for
// NaN) a branch scales in two steps (overflow gives inf, gradual underflow rounds once more, which
// costs at most half a subnormal ulp since y's error is then below half of one) and sends x > 710
// to +inf and x < -746 to +0 (there k and r are not meaningful).
inline constexpr double kRoundMagic64 = 0x1.8p52;
inline constexpr double kExpNormalBelow = 708.0;  // |x| < 708: 2^k y is normal (|k| <= 1022)
// ln2 = hi + lo with hi of 21 significant bits (its low word zero: an immediate in SASS, where a
// full-width constant costs a load): k hi is exact and so is x - k hi (|x - k hi| < 1/2 is a
// multiple of ulp(x)); ln2 - hi - lo = -2.3e-23.
inline constexpr double kExpLn2Hi = 0x1.62e42p-1;
inline constexpr double kExpLn2Lo = 0x1.fdf473de6af28p-22;

template <class B>
typename B::F64 exp_f64(B& b, const typename B::F64& x) {
  using C = ExpConstants<P64>;
  auto j = b.fma(x, b.c(C::kLog2e), b.c(kRoundMagic64));
  auto kf = b.sub(j, b.c(kRoundMagic64));
  auto k = b.lo32(b.bits(j));
  auto r = b.fma(b.neg(kf), b.c(kExpLn2Lo), b.fma(b.neg(kf), b.c(kExpLn2Hi), x));
  auto q = b.fma(r, horner(b, r, poly::k_exp_nested_f64), b.c(1.0));
  auto y = b.fma(r, q, b.c(1.0));
  auto y_bits = b.bits(y);
  auto hi = b.add(b.hi32(y_bits), b.shl(k, b.u32(20)));
  auto out = b.var(b.f64_from_bits(b.pack64(b.lo32(y_bits), hi)));
  b.if_(b.not_(b.lt(b.abs(x), b.c(kExpNormalBelow))), [&] {
    auto s = scale<P64>(b, y, k);
    s = b.sel(b.gt(x, b.c(C::kExpMax)), b.c(std::numeric_limits<double>::infinity()), s);
    b.set(out, b.sel(b.lt(x, b.c(C::kExpMin)), b.c(0.0), s));
  });
  return b.get(out);
}

template <class P, class B>
typename P::template F<B> exp2_dw(B& b, const typename P::template F<B>& x) {
  using C = ExpConstants<P>;
  auto xc = b.sel(b.gt(x, b.c(C::kExp2Max)), b.c(C::kExp2Max), x);
  xc = b.sel(b.lt(xc, b.c(C::kExp2Min)), b.c(C::kExp2Min), xc);
  auto kf = b.rint(xc);
  auto r = b.sub(xc, kf);  // exact, |r| <= 1/2
  auto r_ln2 = two_prod(b, r, b.c(C::kLn2Hi));
  auto r_lo = b.fma(r, b.c(C::kLn2Lo), r_ln2.lo);
  auto e = exp_kernel<P>(b, r_ln2.hi, r_lo);
  auto y = exp_scale<P>(b, e, b.to_s32(kf));
  return b.sel(b.is_nan(x), x, y);
}

template <class P, class B>
typename P::template F<B> exp_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return exp_f32(b, x);
  else return exp_f64(b, x);
}

template <class P, class B>
typename P::template F<B> exp2_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return exp2_f32(b, x);
  else return exp2_dw<P>(b, x);
}

}  // namespace vyre::math
