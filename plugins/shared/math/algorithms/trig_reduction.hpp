// Range reduction for sin, cos and tan: x = n * pi/2 + r with |r| <= ~pi/4, r as a double-word
// r_hi + r_lo, and n mod 4.
//
// Moderate |x| (Cody-Waite, three-part pi/2 = C1 + C2 + C3 with fma): n = rint(x * 2/pi);
// r1 = x - n*C1 is exact (x and n*C1 are multiples of ulp(C1) and |r1| < 2); n*C2 is split exactly
// (two_prod) and subtracted with two_sum (f32: fast_two_sum, exact there); n*C3 is a small
// correction (f32 takes n and leaves the pair as cody_waite_f32 says). The representation error
// n * |pi/2 - C1 - C2 - C3| is below 2^-125 (f64, |x| < 2^30) and 2^-52 (f32, |x| < 2^17), far
// below the closest approach of a float to a multiple of pi/2.
//
// Large |x| (Payne-Hanek, exact integer arithmetic, shared by f32 and f64): x = m * 2^e (m a
// 53-bit integer). Only the bits of 2/pi from position e-1 on matter modulo 4, so a 192-bit window
// W of 2/pi (from the table) gives x * 2/pi mod 4 = m * W / 2^190 (truncation error < 2^-137).
// Bits 64..191 of the product m * W hold the quadrant (top two bits) and a 126-bit fraction
// (dropping bits 0..63 costs < 2^-126), which is rounded to the nearest quadrant, normalized with
// clz and converted to a double-word. The closest double to a multiple of pi/2 is ~2^-61 away, so
// the reduced argument keeps a relative accuracy better than 2^-64.
#pragma once

#include <limits>
#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/data_tables.hpp"

namespace vyre::math {

template <class P, class B>
struct TrigReduction {
  typename B::B32 n;  // quadrant: only n mod 4 is meaningful
  typename P::template F<B> r_hi;
  typename P::template F<B> r_lo;
};

template <class P>
struct TrigConstants;

template <>
struct TrigConstants<P32> {
  static constexpr float kTwoOverPi = 0x1.45f306p-1f;
  static constexpr float kC1 = 0x1.921fb6p+0f;
  static constexpr float kC2 = -0x1.777a5cp-25f;
  static constexpr float kC3 = -0x1.ee59dap-50f;
  static constexpr float kPayneHanekFrom = 0x1p+17f;
};

template <>
struct TrigConstants<P64> {
  static constexpr double kTwoOverPi = 0x1.45f306dc9c883p-1;
  static constexpr double kC1 = 0x1.921fb54442d18p+0;
  static constexpr double kC2 = 0x1.1a62633145c07p-54;
  static constexpr double kC3 = -0x1.f1976b7ed8fbcp-110;
  static constexpr double kPayneHanekFrom = 0x1p+30;
};

// pi/2 as a double-word, for the Payne-Hanek fraction.
inline constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
inline constexpr double kPio2Lo = 0x1.1a62633145c07p-54;

// f32 Cody-Waite. n comes from one fma against 1.5 * 2^23 (|x 2/pi| < 2^22 below kPayneHanekFrom):
// j rounds the exact x 2/pi to an integer n, j - 1.5 * 2^23 is n exactly, and j's bit pattern ends
// in n's low bits (1.5 * 2^23's ends in zeros), which is all a quadrant needs: no FRND, no F2I. Near
// a half-integer this may pick the other neighbour than rint of the rounded product; either way
// |r| <= pi/4 + |x| 2.57e-8 pi/2 (2/pi rounded to f32 is 2.57e-8 low: |r| <= 0.7907 below 2^17, as
// with rint; the f32 kernels' fits cover r^2 <= 0.6254, |r| <= 0.7908: fit_polynomials.py).
// r1 = x - n C1 is exact; r1 is a multiple of 2^-24 (n != 0 needs |x| > 0.78) and |n C2| < 2^-8 has
// an ulp of at most 2^-32, so r1 is a multiple of ulp(n C2 hi) and fast_two_sum is exact
// (Boldo-Daumas). r_lo = (r1 - r_hi - n C2) - n C3, each difference rounded once, is left
// unnormalised: |r_lo| <= ulp(r_hi)/2 + 2^-31 (n C2's rounding error is at most 2^-33 and
// |n C3| < 2^-32.6 for |n| < 2^16.4). The kernels only add r_lo into a sum that rounds once (sin,
// tan) or drop r r_lo (cos: the extra |r| 2^-31 is below 2^-7 of an ulp of cos r), so renormalising
// the pair, three FADD per call until 2026-12-05, bought nothing they use.
inline constexpr float kQuadrantMagic = 0x1.8p23f;

template <class B>
TrigReduction<P32, B> cody_waite_f32(B& b, const typename B::F32& x) {
  using C = TrigConstants<P32>;
  auto j = b.fma(x, b.c(C::kTwoOverPi), b.c(kQuadrantMagic));
  auto nf = b.sub(j, b.c(kQuadrantMagic));
  auto r1 = b.fma(b.neg(nf), b.c(C::kC1), x);
  auto r_hi = b.sub(r1, b.mul(nf, b.c(C::kC2)));
  // r1 - r_hi is exact (fast_two_sum's step), so r1 - r_hi - n C2, the low part before C3, is one
  // fma of it: the exact value that fast_two_sum's error less two_prod's error rounded once to, the
  // same bits with two instructions fewer (until 2026-12-05 both error terms were formed).
  auto lo_c2 = b.fma(b.neg(nf), b.c(C::kC2), b.sub(r1, r_hi));
  auto lo = b.fma(b.neg(nf), b.c(C::kC3), lo_c2);
  return {b.bits(j), r_hi, lo};
}

template <class P, class B>
TrigReduction<P, B> cody_waite(B& b, const typename P::template F<B>& x) {
  using C = TrigConstants<P>;
  if constexpr (std::is_same_v<P, P32>) {
    return cody_waite_f32(b, x);
  } else {
    auto nf = b.rint(b.mul(x, b.c(C::kTwoOverPi)));
    auto r1 = b.fma(b.neg(nf), b.c(C::kC1), x);
    auto p = two_prod(b, nf, b.c(C::kC2));
    auto s = two_sum(b, r1, b.neg(p.hi));
    auto lo = b.fma(b.neg(nf), b.c(C::kC3), b.sub(s.lo, p.lo));
    auto r = fast_two_sum(b, s.hi, lo);
    return {b.to_s32(nf), r.hi, r.lo};
  }
}

// Two 128-bit words (hi:lo) shifted left by n in [0, 127].
template <class B>
DW<typename B::B64> shl128(B& b, const typename B::B64& hi, const typename B::B64& lo,
                           const typename B::B32& n) {
  auto big = b.not_(b.lt_u(n, b.u32(64)));
  auto n_small = b.and_(n, b.u32(63));
  auto spill = b.shr_u(lo, b.sub(b.u32(64), n_small));  // 0 when n_small == 0 (clamped shift)
  auto hi_small = b.or_(b.shl(hi, n_small), spill);
  auto lo_small = b.shl(lo, n_small);
  auto hi_big = b.shl(lo, b.sub(n, b.u32(64)));
  return {b.sel(big, hi_big, hi_small), b.sel(big, b.u64(0), lo_small)};
}

// 64 bits of the table starting `s` (0..63) bits into `first` (followed by `second`).
template <class B>
typename B::B64 window_word(B& b, const typename B::B64& first, const typename B::B64& second,
                            const typename B::B32& s) {
  return b.or_(b.shl(first, s), b.shr_u(second, b.sub(b.u32(64), s)));  // s == 0: shr by 64 is 0
}

// Payne-Hanek reduction of a finite f64 with |x| >= 2^-10.
template <class B>
TrigReduction<P64, B> payne_hanek(B& b, const typename B::F64& x) {
  const DataTable& table = two_over_pi_table();
  auto ax = b.abs(x);
  auto bits = b.bits(ax);
  auto biased = b.lo32(b.shr_u(bits, b.u32(52)));
  auto m = b.or_(b.and_(bits, b.u64(0x000FFFFFFFFFFFFFull)), b.u64(0x0010000000000000ull));
  // x = m * 2^e, e = biased - 1075; the window starts at bit j0 = e - 1 of 2/pi, which is bit
  // t0 = j0 + 63 = biased - 1013 of the table (word 0 is zero padding).
  auto t0 = b.sub(biased, b.u32(1013));
  auto q = b.shr_u(t0, b.u32(6));
  auto s = b.and_(t0, b.u32(63));
  auto t0w = b.load(table, q);
  auto t1w = b.load(table, b.add(q, b.u32(1)));
  auto t2w = b.load(table, b.add(q, b.u32(2)));
  auto t3w = b.load(table, b.add(q, b.u32(3)));
  auto w0 = window_word(b, t0w, t1w, s);
  auto w1 = window_word(b, t1w, t2w, s);
  auto w2 = window_word(b, t2w, t3w, s);
  // Bits 64..191 of m * (w0:w1:w2).
  auto a2 = b.mul_hi_u(m, w2);
  auto a1_lo = b.mul_lo(m, w1);
  auto a1_hi = b.mul_hi_u(m, w1);
  auto a0_lo = b.mul_lo(m, w0);
  auto word1 = b.add(a2, a1_lo);
  auto carry = b.sel(b.lt_u(word1, a2), b.u64(1), b.u64(0));
  auto word2 = b.add(b.add(a1_hi, a0_lo), carry);
  // Quadrant: the top two bits, rounded by bit 61. Fraction: the other 126 bits, as a signed
  // 128-bit value f_hi:f_lo = fraction * 2^128 in [-2^127, 2^127).
  auto n_floor = b.shr_u(word2, b.u32(62));
  auto round_bit = b.and_(b.shr_u(word2, b.u32(61)), b.u64(1));
  auto n = b.lo32(b.add(n_floor, round_bit));
  auto f_hi = b.or_(b.shl(word2, b.u32(2)), b.shr_u(word1, b.u32(62)));
  auto f_lo = b.shl(word1, b.u32(2));
  // |f| and its sign.
  auto negative = b.lt_s(f_hi, b.u64(0));
  auto nf_lo = b.sub(b.u64(0), f_lo);
  auto nf_hi = b.sub(b.xor_(f_hi, b.u64(~0ull)), b.sel(b.eq(f_lo, b.u64(0)), b.u64(~0ull), b.u64(0)));
  auto a_hi = b.sel(negative, nf_hi, f_hi);
  auto a_lo = b.sel(negative, nf_lo, f_lo);
  // Normalize: shift the leading one to bit 127.
  auto hi_zero = b.eq(a_hi, b.u64(0));
  auto lz = b.sel(hi_zero, b.add(b.clz(a_lo), b.u32(64)), b.clz(a_hi));
  auto norm = shl128(b, a_hi, a_lo, lz);
  auto top = b.and_(norm.hi, b.u64(0xFFFFFFFFFFFFF800ull));
  auto rest = b.or_(b.shl(norm.hi, b.u32(53)), b.shr_u(norm.lo, b.u32(11)));
  // |f| / 2^128 = top * 2^(-64-lz) + rest * 2^(-117-lz) (both powers of two are normal).
  auto scale_hi = b.f64_from_bits(b.shl(b.zext64(b.sub(b.u32(1023 - 64), lz)), b.u32(52)));
  auto scale_lo = b.f64_from_bits(b.shl(b.zext64(b.sub(b.u32(1023 - 117), lz)), b.u32(52)));
  auto frac_hi = b.mul(b.u64_to_f64(top), scale_hi);
  auto frac_lo = b.mul(b.u64_to_f64(rest), scale_lo);
  // r = fraction * pi/2.
  auto p = two_prod(b, frac_hi, b.c(kPio2Hi));
  auto lo = b.fma(frac_hi, b.c(kPio2Lo), b.fma(frac_lo, b.c(kPio2Hi), p.lo));
  auto r = fast_two_sum(b, p.hi, lo);
  // Signs: the fraction's and x's.
  auto flip = b.xor_(b.sel(negative, b.u32(1), b.u32(0)), b.sel(b.lt(x, b.c(0.0)), b.u32(1), b.u32(0)));
  auto flipped = b.eq(flip, b.u32(1));
  auto r_hi = b.sel(flipped, b.neg(r.hi), r.hi);
  auto r_lo = b.sel(flipped, b.neg(r.lo), r.lo);
  auto x_negative = b.lt(x, b.c(0.0));
  auto quadrant = b.sel(x_negative, b.sub(b.u32(0), n), n);
  return {quadrant, r_hi, r_lo};
}

// The full reduction: Cody-Waite, replaced by Payne-Hanek for large finite |x|.
template <class P, class B>
TrigReduction<P, B> trig_reduce(B& b, const typename P::template F<B>& x) {
  using C = TrigConstants<P>;
  using K = typename P::K;
  auto cw = cody_waite<P>(b, x);
  auto n = b.var(cw.n);
  auto r_hi = b.var(cw.r_hi);
  auto r_lo = b.var(cw.r_lo);
  auto ax = b.abs(x);
  if constexpr (std::is_same_v<P, P64>) {
    auto large = b.and_(b.ge(ax, b.c(C::kPayneHanekFrom)), b.lt(ax, b.c(std::numeric_limits<K>::infinity())));
    b.if_(large, [&] {
      auto ph = payne_hanek(b, x);
      b.set(n, ph.n);
      b.set(r_hi, ph.r_hi);
      b.set(r_lo, ph.r_lo);
    });
  } else {
    // f32 sends +-inf down this path too (one compare on the common path, not two): as an f64 its
    // window index is that of the largest doubles (in the table), and ax - ax = NaN makes r NaN,
    // as Cody-Waite's would be; for finite ax it adds +0 to a nonzero r_hi.
    b.if_(b.ge(ax, b.c(C::kPayneHanekFrom)), [&] {
      auto ph = payne_hanek(b, b.to_f64(x));
      auto hi = b.to_f32(ph.r_hi);
      auto lo = b.to_f32(b.add(b.sub(ph.r_hi, b.to_f64(hi)), ph.r_lo));
      b.set(n, ph.n);
      b.set(r_hi, b.add(hi, b.sub(ax, ax)));
      b.set(r_lo, lo);
    });
  }
  return {b.get(n), b.get(r_hi), b.get(r_lo)};
}

}  // namespace vyre::math
