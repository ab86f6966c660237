// sin, cos and tan: after the reduction x = n pi/2 + (r_hi + r_lo), both kernels are evaluated
// (no divergent branch) as double-words (f64 and f32 tan; f32 sin and cos: sin_cos_parts_f32)
//   sin(r) = r + r^3 S(r^2) + r_lo (1 - r^2/2)
//   cos(r) = (1 - r^2/2) + r^4 C(r^2) - r r_lo    (1 - r^2/2 with its rounding error, r^2 exact)
// and combined by quadrant: sin x = +-sin r or +-cos r, cos x likewise, and tan x = sin r / cos r
// or -cos r / sin r, a double-word quotient (one division, one correction step) (f64).
// f32 tan (tan_f32) has its own kernel instead: tan r = r + r^3 T(r^2) in plain f32, and -1/tan r
// from that sum's double-word with one reciprocal and one correction.
#pragma once

#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/algorithms/trig_reduction.hpp"
#include "math/polynomials.hpp"

namespace vyre::math {

template <class P>
struct TrigPoly;

template <>
struct TrigPoly<P32> {
  static constexpr const float (&kSin)[3] = poly::k_sin_f32;
  static constexpr const float (&kCos)[3] = poly::k_cos_f32;
};

template <>
struct TrigPoly<P64> {
  static constexpr const double (&kSin)[7] = poly::k_sin_f64;
  static constexpr const double (&kCos)[7] = poly::k_cos_f64;
};

template <class P, class B>
DW<typename P::template F<B>> sin_kernel(B& b, const TrigReduction<P, B>& r) {
  using K = typename P::K;
  auto z = b.mul(r.r_hi, r.r_hi);
  auto v = b.mul(z, r.r_hi);
  auto s = horner(b, z, TrigPoly<P>::kSin);
  auto lo_term = b.fma(b.mul(b.c(K(-0.5)), z), r.r_lo, r.r_lo);
  auto tail = b.fma(v, s, lo_term);
  return fast_two_sum(b, r.r_hi, tail);
}

template <class P, class B>
DW<typename P::template F<B>> cos_kernel(B& b, const TrigReduction<P, B>& r) {
  using K = typename P::K;
  auto z = two_prod(b, r.r_hi, r.r_hi);
  auto hz = b.mul(b.c(K(0.5)), z.hi);
  auto w = b.sub(b.c(K(1)), hz);
  auto w_err = b.sub(b.sub(b.c(K(1)), w), hz);  // exact: the rounding error of w
  auto c = horner(b, z.hi, TrigPoly<P>::kCos);
  auto small = b.fma(b.c(K(0.5)), z.lo, b.mul(r.r_hi, r.r_lo));  // z_lo/2 + r r_lo
  auto tail = b.add(w_err, b.fma(b.mul(z.hi, z.hi), c, b.neg(small)));
  return fast_two_sum(b, w, tail);
}

// f32 sin and cos (SPEC §5: 4 ULP): both kernels in plain f32 arithmetic, r_lo entering once:
//   sin(r) = r + fma(r^3, S(r^2), r_lo),   cos(r) = fma(r^2, fma(r^2, C(r^2), -1/2), 1)
// (cos drops r r_lo, below half an ulp of cos r). The parts up to the quadrant's choice are the
// same for sin x and cos x (SinCosF32): a caller that needs both of one x computes them once and
// selects twice (the CUDA emitter does, codegen/math_call.cpp), with the same bits as two calls.
template <class B>
struct SinCosF32 {
  typename B::F32 s;  // sin r
  typename B::F32 c;  // cos r
  typename B::B32 n;  // the quadrant count of the reduction
};

template <class B>
SinCosF32<B> sin_cos_parts_f32(B& b, const TrigReduction<P32, B>& r) {
  auto z = b.mul(r.r_hi, r.r_hi);
  auto s = b.add(r.r_hi, b.fma(b.mul(z, r.r_hi), horner(b, z, TrigPoly<P32>::kSin), r.r_lo));
  auto c = b.fma(z, b.fma(z, horner(b, z, TrigPoly<P32>::kCos), b.c(-0.5f)), b.c(1.0f));
  return {s, c, r.n};
}

// The parts of |x|: sin is odd and cos even, so sin x takes x's sign bit at the end (a bit
// operation, which also gives sin(-0) = -0: sin(+0) is +0) and cos x needs nothing. The reduction
// is symmetric (round to nearest even is), so |x| reduces to the negated n and r of x.
template <class B>
SinCosF32<B> sin_cos_parts_f32(B& b, const typename B::F32& x) {
  return sin_cos_parts_f32(b, trig_reduce<P32>(b, b.abs(x)));
}

// sin x (shift 0) or cos x (shift 1) from the parts of |x|.
template <class B>
typename B::F32 sin_cos_select_f32(B& b, const SinCosF32<B>& parts, const typename B::F32& x,
                                   std::uint32_t shift) {
  // Quadrant n + shift: odd takes the other kernel; bit 1 is the sign, (n + shift) << 30 puts it at
  // the sign bit ((n << 30) + (shift << 30), one shift-and-add), and sin adds x's sign bit to it.
  // Both flips are one XOR of the result's bits (no negate-and-select).
  // (Tests against zero, which ptxas folds into the LOP3: any_bit.)
  auto low = b.and_(parts.n, b.u32(1));
  auto odd = shift == 0 ? b.ne(low, b.u32(0)) : b.eq(low, b.u32(0));
  auto y = b.sel(odd, parts.c, parts.s);
  auto quadrant = b.shl(parts.n, b.u32(30));
  auto sign = shift == 0 ? b.xor_(quadrant, b.bits(x)) : b.add(quadrant, b.u32(shift << 30));
  return flip_sign_of<P32>(b, y, b.f32_from_bits(sign));
}

// (sin r, cos r) chosen and signed for the quadrant of sin (shift 0) or cos (shift 1).
template <class P, class B>
typename P::template F<B> sin_or_cos_dw(B& b, const TrigReduction<P, B>& r, std::uint32_t shift) {
  auto s = sin_kernel<P>(b, r);
  auto c = cos_kernel<P>(b, r);
  auto n = b.add(r.n, b.u32(shift));
  auto odd = any_bit(b, n, 1);
  auto negative = any_bit(b, n, 2);
  auto y = b.add(b.sel(odd, c.hi, s.hi), b.sel(odd, c.lo, s.lo));
  return b.sel(negative, b.neg(y), y);
}

template <class P, class B>
typename P::template F<B> sin_fn(B& b, const typename P::template F<B>& x) {
  using K = typename P::K;
  if constexpr (std::is_same_v<P, P32>) {
    return sin_cos_select_f32(b, sin_cos_parts_f32(b, x), x, 0);
  } else {
    auto r = trig_reduce<P>(b, x);
    auto y = sin_or_cos_dw<P>(b, r, 0);
    return b.sel(b.eq(x, b.c(K(0))), x, y);  // sin(-0) = -0
  }
}

template <class P, class B>
typename P::template F<B> cos_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return sin_cos_select_f32(b, sin_cos_parts_f32(b, x), x, 1);
  else return sin_or_cos_dw<P>(b, trig_reduce<P>(b, x), 1);
}

// f32 tan (SPEC §5: 5 ULP; exhaustively within 1, ACCURACY.md): one odd polynomial on the reduced
// argument, tan r = r_hi + t with t = fma(r_hi^3, T(r_hi^2), r_lo (1 + r_hi^2)) (T a degree-6 fit on
// |r| <= 0.7908; r_lo enters with tan's derivative 1 + tan^2 r, approximated by 1 + r^2). Even
// quadrants return r_hi + t rounded once; odd quadrants -1/(r_hi + t) = -(q + q e) with q a first
// guess of 1/(r_hi + t rounded) (recip_guess_f32: rcp.approx, within 1 ulp) and e = 1 - q r_hi - q t
// (two fma, the inner one first: 1 - q r_hi is about t/T, so its rounding stays near 2^-26 of the
// result, and the sum r_hi + t is never needed as a double-word). With q = (1 + d)/T, q (1 + e) is
// (1 - d^2)/T up to e's rounding. In an odd quadrant |r_hi + t| ~ |r| lies in (2^-62, 1.1] (no
// double, so no float, is within 2^-61 of a nonzero multiple of pi/2: trig_reduction.hpp), so it and
// its reciprocal are normal and .ftz changes nothing; in even quadrants (tiny or zero x included, q
// then possibly inf) cot is discarded. (Until O41, 2026-12-05, the sum was a fast_two_sum
// double-word (t_hi, t_lo) and e = 1 - q t_hi - q t_lo: two FADD more per call.)
template <class B>
typename B::F32 tan_f32(B& b, const typename B::F32& x) {
  auto r = trig_reduce<P32>(b, b.abs(x));  // tan is odd: x's sign bit at the end (tan(-0) = -0)
  auto z = b.mul(r.r_hi, r.r_hi);
  auto tail = b.fma(b.mul(z, r.r_hi), horner(b, z, poly::k_tan_f32), b.fma(r.r_lo, z, r.r_lo));
  auto t_hi = b.add(r.r_hi, tail);
  auto q = recip_guess_f32(b, t_hi);
  auto e = b.fma(b.neg(q), tail, b.fma(b.neg(q), r.r_hi, b.c(1.0f)));
  auto cot = b.fma(q, e, q);
  auto odd = any_bit(b, r.n, 1);
  return flip_sign_of<P32>(b, b.sel(odd, b.neg(cot), t_hi), x);
}

template <class P, class B>
typename P::template F<B> tan_dw(B& b, const typename P::template F<B>& x) {
  using K = typename P::K;
  auto r = trig_reduce<P>(b, x);
  auto s = sin_kernel<P>(b, r);
  auto c = cos_kernel<P>(b, r);
  auto odd = any_bit(b, r.n, 1);
  auto num_hi = b.sel(odd, c.hi, s.hi);
  auto num_lo = b.sel(odd, c.lo, s.lo);
  auto den_hi = b.sel(odd, s.hi, c.hi);
  auto den_lo = b.sel(odd, s.lo, c.lo);
  // q = num / den as q0 + q0_lo: q0 = num_hi * (1/den_hi), then one correction step.
  auto rcp = b.recip(den_hi);
  auto q0 = b.mul(num_hi, rcp);
  auto residual = b.fma(b.neg(q0), den_hi, num_hi);
  residual = b.add(residual, b.fma(b.neg(q0), den_lo, num_lo));
  auto q = b.fma(residual, rcp, q0);
  auto y = b.sel(odd, b.neg(q), q);
  return b.sel(b.eq(x, b.c(K(0))), x, y);  // tan(-0) = -0
}

template <class P, class B>
typename P::template F<B> tan_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return tan_f32(b, x);
  else return tan_dw<P>(b, x);
}

}  // namespace vyre::math
