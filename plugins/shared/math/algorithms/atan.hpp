// atan. With a = |x| (clamped to 2^60 / 2^30, beyond which atan rounds to pi/2 anyway):
//   a <= tan(pi/8):            t = a,                 atan a = t' 
//   tan(pi/8) < a <= tan(3pi/8): t = (a - 1)/(a + 1), atan a = pi/4 + t'
//   a > tan(3pi/8):            t = -1/a,              atan a = pi/2 + t'
// where t' = atan(t) = t + t^3 T(t^2) (minimax T, t^2 <= 0.1717). The quotient is one division,
// t = num / den as a double-word (num and den with their rounding errors, one correction step);
// the constant is added as a double-word. The sign of x is copied onto the result; NaN propagates.
// f32 (bound 5 ULP) uses one reduction t = |x| or 1/|x| and one polynomial on [0, 1] instead (atan_fn).
#pragma once

#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/polynomials.hpp"

namespace vyre::math {

template <class P>
struct AtanConstants;

template <>
struct AtanConstants<P32> {
  static constexpr float kTanPi8 = 0x1.a8279ap-2f;   // 0.41421357
  static constexpr float kTan3Pi8 = 0x1.3504f4p+1f;  // 2.4142137
  static constexpr float kClamp = 0x1p+30f;
  static constexpr float kPio4Hi = 0x1.921fb6p-1f;
  static constexpr float kPio4Lo = -0x1.777a5cp-26f;
  static constexpr float kPio2Hi = 0x1.921fb6p+0f;
  static constexpr float kPio2Lo = -0x1.777a5cp-25f;
  static constexpr const float (&kPoly)[6] = poly::k_atan_f32;
};

template <>
struct AtanConstants<P64> {
  static constexpr double kTanPi8 = 0x1.a827999fcef32p-2;   // 0.41421356237309503
  static constexpr double kTan3Pi8 = 0x1.3504f333f9de6p+1;  // 2.414213562373095
  static constexpr double kClamp = 0x1p+60;
  static constexpr double kPio4Hi = 0x1.921fb54442d18p-1;
  static constexpr double kPio4Lo = 0x1.1a62633145c07p-55;
  static constexpr double kPio2Hi = 0x1.921fb54442d18p+0;
  static constexpr double kPio2Lo = 0x1.1a62633145c07p-54;
  static constexpr const double (&kPoly)[12] = poly::k_atan_f64;
};

template <class P, class B>
typename P::template F<B> atan_fn(B& b, const typename P::template F<B>& x) {
  using C = AtanConstants<P>;
  using K = typename P::K;
  if constexpr (std::is_same_v<P, P32>) {
    // f32 (SPEC allows 5 ULP): t = |x| or 1/|x| (recip_refined_f32) in [0, 1], atan t =
    // t + t^3 T1(t^2) with T1 a degree-8 minimax fit on t^2 in [0, 1] (one fma-Horner), and for
    // |x| > 1 atan |x| = (pi/2 (hi) - t) + (pi/2 (lo) - t^3 T1). No double-words; t^3 T1 is never
    // rounded on its own, its product sits inside the fma that adds it to t or to pi/2 (lo)
    // (O39: one instruction less, and the sums are as accurate or more). The reciprocal
    // is taken of min(|x|, 2^126), inside recip_refined_f32's domain (its guess of 1/inf is 0 and
    // the step then NaN): beyond 2^126, t = 2^-126 instead of 1/|x| in [0, 2^-126], and
    // (pi/2 (hi) - t) + pi/2 (lo) rounds to pi/2 (hi) for every such t.
    auto a = b.abs(x);
    auto big = b.gt(a, b.c(K(1)));
    auto a_rcp = b.sel(b.gt(a, b.c(0x1p126f)), b.c(0x1p126f), a);
    auto t = b.sel(big, recip_refined_f32(b, a_rcp), a);
    auto z = b.mul(t, t);
    auto w = b.mul(t, z);
    auto poly = horner(b, z, poly::k_atan1_f32);
    auto small_y = b.fma(w, poly, t);
    auto big_y = b.add(b.sub(b.c(C::kPio2Hi), t), b.fma(b.neg(w), poly, b.c(C::kPio2Lo)));
    // NaN: a, t and small_y are NaN (NaN > 1 is false), so the result is a NaN.
    return with_sign_of<P>(b, b.sel(big, big_y, small_y), x);
  }
  auto a = b.abs(x);
  a = b.sel(b.gt(a, b.c(C::kClamp)), b.c(C::kClamp), a);
  auto mid = b.gt(a, b.c(C::kTanPi8));
  auto big = b.gt(a, b.c(C::kTan3Pi8));
  auto am1 = two_sum(b, a, b.c(K(-1)));
  auto ap1 = two_sum(b, a, b.c(K(1)));
  auto zero = b.c(K(0));
  auto num = b.sel(big, b.c(K(-1)), b.sel(mid, am1.hi, a));
  auto num_lo = b.sel(big, zero, b.sel(mid, am1.lo, zero));
  auto den = b.sel(big, a, b.sel(mid, ap1.hi, b.c(K(1))));
  auto den_lo = b.sel(big, zero, b.sel(mid, ap1.lo, zero));
  auto rcp = b.recip(den);
  auto t = b.mul(num, rcp);
  auto residual = b.add(b.fma(b.neg(t), den, num), b.fma(b.neg(t), den_lo, num_lo));
  auto t_lo = b.mul(residual, rcp);
  auto z = b.mul(t, t);
  auto poly = horner(b, z, C::kPoly);
  // atan(t + t_lo) = t + t^3 T(t^2) + t_lo / (1 + t^2)
  auto tail = b.fma(b.mul(t, z), poly, b.fma(b.neg(t_lo), z, t_lo));
  auto base_hi = b.sel(big, b.c(C::kPio2Hi), b.sel(mid, b.c(C::kPio4Hi), zero));
  auto base_lo = b.sel(big, b.c(C::kPio2Lo), b.sel(mid, b.c(C::kPio4Lo), zero));
  auto h = two_sum(b, base_hi, t);
  auto y = b.add(h.hi, b.add(h.lo, b.add(tail, base_lo)));
  auto signed_y = with_sign_of<P>(b, y, x);
  return b.sel(b.is_nan(x), x, signed_y);
}

}  // namespace vyre::math
