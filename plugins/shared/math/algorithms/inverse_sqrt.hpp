// inverse_sqrt: y0 = 1 / sqrt(x) (sqrt.rn, rcp.rn: within 1.5 ulp), then one Newton correction
// y = y0 + y0 (1 - x y0^2) / 2 with the residual 1 - x y0^2 formed from the exact square y0^2
// (two_prod), which leaves the result within a hair of correctly rounded. x is first scaled by an
// even power of two into a range where y0^2 cannot overflow or underflow, and the result scaled
// back exactly. Specials (+-0, +inf, x < 0, NaN) take y0 itself: +inf, -inf, +0, NaN.
// That is the f64 algorithm. f32 on backends with rsqrt_approx_ftz (PTX: rsqrt.approx.ftz.f32,
// MUFU.RSQ, relative error d <= 2^-22.9) takes y0 from it and one Newton step with the residual
// formed from s = x y0 rounded (no y0^2, which overflows for subnormal x):
//   e = 1 - s y0 (one fma),  y = fma(y0 / 2, e, y0)
// s's rounding (at most 2^-24 relative) leaves at most 2^-25 relative in y before its rounding,
// the step 3/2 d^2 (< 2^-45): together below one result ulp from 1/sqrt(x) after the last rounding,
// within 1 ULP of the correctly rounded result for every y0 in that error interval (over every
// candidate y0 the CPU model offers, ACCURACY.md). (Until 2026-11-28 s's error s_lo = fma(x, y0, -s)
// entered e too: two fma more for nearly correctly rounded results, 16 SASS per K13 kernel.)
// Specials (+-0, +inf, x < 0, NaN) make s and e NaN; e's NaN becomes 1 in a NaN-dropping minimum
// (min.f32, one FMNMX instead of testing y for NaN and selecting y0: one instruction less, and one
// off the dependency chain), so y = y0 + y0/2 = y0 there: +-inf, +0, NaN. A subnormal x (and
// every x < 2^-126: +-0 and negative ones, whose results stay +-inf and NaN) is first scaled by
// 2^24 and the result by 2^12, both exact: the step runs on a normal x, as the .ftz guess needs.
// That is what ptxas does around rsqrt.approx.f32 itself (O43): written out here, x is dead once
// scaled and y once the result is, so both scalings are predicated FMULs in place, where ptxas's
// own left x alive for s and selected its scaled copy (one FSEL per call more). Backends without
// it (SPIR-V) stop at y0 = rcp.rn(sqrt.rn(x)): two correctly rounded operations, within 1 ULP
// (sqrt's relative error 2^-24 / m, m in [1, 2) its mantissa, is below one result ulp); no
// scaling is needed (1/sqrt of every positive f32 is normal).
#pragma once

#include <type_traits>

#include <limits>

#include "math/algorithms/common.hpp"

namespace vyre::math {

template <class P>
struct InverseSqrtConstants;

template <>
struct InverseSqrtConstants<P32> {
  static constexpr float kTiny = 0x1p-100f;
  static constexpr float kHuge = 0x1p+100f;
  static constexpr float kUp = 0x1p+100f;     // x * kUp -> result * kUpBack
  static constexpr float kUpBack = 0x1p+50f;
  static constexpr float kDown = 0x1p-100f;
  static constexpr float kDownBack = 0x1p-50f;
};

template <>
struct InverseSqrtConstants<P64> {
  static constexpr double kTiny = 0x1p-1000;
  static constexpr double kHuge = 0x1p+1000;
  static constexpr double kUp = 0x1p+1000;
  static constexpr double kUpBack = 0x1p+500;
  static constexpr double kDown = 0x1p-1000;
  static constexpr double kDownBack = 0x1p-500;
};

template <class P, class B>
typename P::template F<B> inverse_sqrt_newton(B& b, const typename P::template F<B>& x) {
  using C = InverseSqrtConstants<P>;
  using K = typename P::K;
  auto tiny = b.lt(x, b.c(C::kTiny));
  auto huge = b.gt(x, b.c(C::kHuge));
  auto factor = b.sel(tiny, b.c(C::kUp), b.sel(huge, b.c(C::kDown), b.c(K(1))));
  auto back = b.sel(tiny, b.c(C::kUpBack), b.sel(huge, b.c(C::kDownBack), b.c(K(1))));
  auto xs = b.mul(x, factor);
  auto y0 = b.recip(b.sqrt(xs));
  auto sq = two_prod(b, y0, y0);
  auto residual = b.fma(b.neg(xs), sq.lo, b.fma(b.neg(xs), sq.hi, b.c(K(1))));
  auto y = b.fma(b.mul(y0, b.c(K(0.5))), residual, y0);
  auto regular = b.and_(b.gt(xs, b.c(K(0))), b.lt(xs, b.c(std::numeric_limits<K>::infinity())));
  return b.mul(b.sel(regular, y, y0), back);
}

template <class B>
typename B::F32 inverse_sqrt_f32(B& b, const typename B::F32& x) {
  if constexpr (requires { b.rsqrt_approx_ftz(x); }) {
    auto tiny = b.lt(x, b.c(0x1p-126f));
    auto xs = b.sel(tiny, b.mul(x, b.c(0x1p24f)), x);
    auto y0 = b.rsqrt_approx_ftz(xs);
    auto s = b.mul(xs, y0);
    // Specials make e NaN (0 inf or inf 0 in s); min_num turns it into 1, and y0 + y0/2 is then
    // y0 itself (+-inf, +0; NaN stays NaN). A regular e is below 2^-21 in magnitude: unchanged.
    auto e = b.min_num(b.fma(b.neg(s), y0, b.c(1.0f)), b.c(1.0f));
    auto y = b.fma(b.mul(y0, b.c(0.5f)), e, y0);
    return b.sel(tiny, b.mul(y, b.c(0x1p12f)), y);
  } else {
    return b.recip(b.sqrt(x));
  }
}

template <class P, class B>
typename P::template F<B> inverse_sqrt_fn(B& b, const typename P::template F<B>& x) {
  if constexpr (std::is_same_v<P, P32>) return inverse_sqrt_f32(b, x);
  else return inverse_sqrt_newton<P>(b, x);
}

}  // namespace vyre::math
