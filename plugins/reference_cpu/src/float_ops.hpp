// Float operator semantics (SPEC §2, §5; docs/SEMANTICS.md "Floating point in the reference").
// f32 operations are computed in double and rounded once (double has more than 2*24+2 bits, so
// add/sub/mul/div/sqrt stay correctly rounded); f64 add/sub/mul/div/sqrt are the host's IEEE
// operations; f64 transcendentals are computed in x87 long double and rounded once. The build
// uses neither -ffast-math nor FP contraction, and subnormals are kept.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "slots.hpp"

namespace vyre::refcpu::floatops {

// The wider type an F is computed in: f32 -> double, f64 -> long double (transcendentals only).
template <class F>
using Wide = std::conditional_t<std::is_same_v<F, float>, double, long double>;

template <class F>
F add(F a, F b) {
  if constexpr (std::is_same_v<F, float>) return static_cast<float>(double{a} + double{b});
  return a + b;
}
template <class F>
F sub(F a, F b) {
  if constexpr (std::is_same_v<F, float>) return static_cast<float>(double{a} - double{b});
  return a - b;
}
template <class F>
F mul(F a, F b) {
  if constexpr (std::is_same_v<F, float>) return static_cast<float>(double{a} * double{b});
  return a * b;
}
template <class F>
F div(F a, F b) {
  if constexpr (std::is_same_v<F, float>) return static_cast<float>(double{a} / double{b});
  return a / b;
}

// min/max: a NaN operand yields the other; min(-0,+0) = -0, max(-0,+0) = +0.
template <class F>
F min(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? a : b;
  return a < b ? a : b;
}
template <class F>
F max(F a, F b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b) return std::signbit(a) ? b : a;
  return a < b ? b : a;
}

template <class F>
F neg(F a) { return -a; }
template <class F>
F abs(F a) { return std::fabs(a); }
// sign(±0) = ±0, sign(NaN) = NaN, else ±1.
template <class F>
F sign(F a) {
  if (std::isnan(a) || a == 0) return a;
  return a > 0 ? F{1} : F{-1};
}
template <class F>
F floor(F a) { return std::floor(a); }
template <class F>
F ceil(F a) { return std::ceil(a); }
template <class F>
F trunc(F a) { return std::trunc(a); }
// Ties to even, independent of the current rounding mode.
inline float round(float a) { return __builtin_roundevenf(a); }
inline double round(double a) { return __builtin_roundeven(a); }

template <class F>
F sqrt(F a) {
  if constexpr (std::is_same_v<F, float>) return static_cast<float>(std::sqrt(double{a}));
  return std::sqrt(a);
}
template <class F>
F reciprocal(F a) {
  if constexpr (std::is_same_v<F, float>) return static_cast<float>(1.0 / double{a});
  return F{1} / a;
}
template <class F>
F inverse_sqrt(F a) {
  Wide<F> w = a;
  return static_cast<F>(Wide<F>{1} / std::sqrt(w));
}

template <class F>
bool is_nan(F a) { return std::isnan(a); }
template <class F>
bool is_inf(F a) { return std::isinf(a); }
template <class F>
bool is_finite(F a) { return std::isfinite(a); }

// Transcendentals: evaluate in Wide<F> (std:: overloads pick the double / long double function)
// and round once.
#define VYRE_REFCPU_WIDE_FN(name, fn)                 \
  template <class F>                                  \
  F name(F a) {                                       \
    return static_cast<F>(std::fn(static_cast<Wide<F>>(a))); \
  }
VYRE_REFCPU_WIDE_FN(exp, exp)
VYRE_REFCPU_WIDE_FN(exp2, exp2)
VYRE_REFCPU_WIDE_FN(log, log)
VYRE_REFCPU_WIDE_FN(log2, log2)
VYRE_REFCPU_WIDE_FN(sin, sin)
VYRE_REFCPU_WIDE_FN(cos, cos)
VYRE_REFCPU_WIDE_FN(tan, tan)
VYRE_REFCPU_WIDE_FN(asin, asin)
VYRE_REFCPU_WIDE_FN(acos, acos)
VYRE_REFCPU_WIDE_FN(atan, atan)
VYRE_REFCPU_WIDE_FN(sinh, sinh)
VYRE_REFCPU_WIDE_FN(cosh, cosh)
VYRE_REFCPU_WIDE_FN(tanh, tanh)
#undef VYRE_REFCPU_WIDE_FN

inline float fma(float a, float b, float c) { return std::fma(a, b, c); }
inline double fma(double a, double b, double c) { return std::fma(a, b, c); }

// The canonical NaN for any NaN; everything else unchanged (stores, bitcasts, f32<->f64 casts).
inline std::uint32_t canonical_bits(float a) {
  return std::isnan(a) ? kCanonicalNanF32 : std::bit_cast<std::uint32_t>(a);
}
inline std::uint64_t canonical_bits(double a) {
  return std::isnan(a) ? kCanonicalNanF64 : std::bit_cast<std::uint64_t>(a);
}

// float -> integer: round toward zero, saturate, NaN -> 0. The bounds are powers of two, exact in
// both float types.
template <class I, class F>
I to_int_saturating(F a) {
  if (std::isnan(a)) return 0;
  F t = std::trunc(a);
  constexpr F kHalfRange = static_cast<F>(std::numeric_limits<I>::max() / 2 + 1);  // 2^(w-1) or 2^(w-2)
  if constexpr (std::is_signed_v<I>) {
    constexpr F kUpper = F{2} * kHalfRange;  // 2^(w-1)
    if (t < -kUpper) return std::numeric_limits<I>::min();
    if (t >= kUpper) return std::numeric_limits<I>::max();
    return static_cast<I>(t);
  } else {
    constexpr F kUpper = F{2} * kHalfRange;  // 2^w
    if (t <= F{0}) return 0;  // negatives and -0
    if (t >= kUpper) return std::numeric_limits<I>::max();
    return static_cast<I>(t);
  }
}

}  // namespace vyre::refcpu::floatops
