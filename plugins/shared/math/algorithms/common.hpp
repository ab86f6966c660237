// Building blocks shared by the math algorithms: the two precisions (P32, P64), error-free
// transformations (two_sum, fast_two_sum, two_prod), double-word values, polynomial evaluation and
// exact scaling by powers of two. Every function here is a template over the backend B (CpuBackend
// or PtxBackend) and uses only its operations, so it means the same on the CPU and the GPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vyre::math {

// binary32: values F32, same-width bits B32.
struct P32 {
  using K = float;
  template <class B> using F = typename B::F32;
  template <class B> using I = typename B::B32;
  static constexpr int kMantissaBits = 23;
  static constexpr int kBias = 127;
  static constexpr std::uint64_t kSignBit = 0x80000000u;
  static constexpr std::uint64_t kMantissaMask = 0x007FFFFFu;
  template <class B>
  static I<B> bits_const(B& b, std::uint64_t v) { return b.u32(static_cast<std::uint32_t>(v)); }
  // An exponent (a B32 holding a small signed integer) as the integer type of this precision.
  template <class B>
  static I<B> widen_exponent(B&, const typename B::B32& e) { return e; }
  template <class B>
  static F<B> from_bits(B& b, const I<B>& v) { return b.f32_from_bits(v); }
};

// binary64: values F64, same-width bits B64.
struct P64 {
  using K = double;
  template <class B> using F = typename B::F64;
  template <class B> using I = typename B::B64;
  static constexpr int kMantissaBits = 52;
  static constexpr int kBias = 1023;
  static constexpr std::uint64_t kSignBit = 0x8000000000000000ull;
  static constexpr std::uint64_t kMantissaMask = 0x000FFFFFFFFFFFFFull;
  template <class B>
  static I<B> bits_const(B& b, std::uint64_t v) { return b.u64(v); }
  template <class B>
  static I<B> widen_exponent(B& b, const typename B::B32& e) {
    // e >= 0 here (a biased exponent), so zero extension is sign extension.
    return b.zext64(e);
  }
  template <class B>
  static F<B> from_bits(B& b, const I<B>& v) { return b.f64_from_bits(v); }
};

// A double-word value hi + lo with |lo| <= ulp(hi) (or unnormalized where documented).
template <class F>
struct DW {
  F hi;
  F lo;
};

// s + e == a + b exactly (Knuth), any magnitudes.
template <class B, class F>
DW<F> two_sum(B& b, const F& x, const F& y) {
  F s = b.add(x, y);
  F yv = b.sub(s, x);
  F xv = b.sub(s, yv);
  F ey = b.sub(y, yv);
  F ex = b.sub(x, xv);
  return {s, b.add(ex, ey)};
}

// s + e == a + b exactly, requires |a| >= |b| or a == 0 (Dekker).
template <class B, class F>
DW<F> fast_two_sum(B& b, const F& x, const F& y) {
  F s = b.add(x, y);
  F z = b.sub(s, x);
  return {s, b.sub(y, z)};
}

// p + e == a * b exactly (no underflow), via fma.
template <class B, class F>
DW<F> two_prod(B& b, const F& x, const F& y) {
  F p = b.mul(x, y);
  return {p, b.fma(x, y, b.neg(p))};
}

// Horner evaluation of c[0] + c[1] z + ... + c[n-1] z^(n-1), with fma.
template <class B, class F, class K, std::size_t N>
F horner(B& b, const F& z, const K (&c)[N]) {
  F acc = b.c(c[N - 1]);
  for (std::size_t i = N - 1; i-- > 0;) acc = b.fma(acc, z, b.c(c[i]));
  return acc;
}

// f32 polynomial coefficients scaled by powers of two at compile time. Horner on c[i] 2 (doubled)
// gives exactly twice every step of Horner on c wherever the steps stay normal and finite (every
// caller's do: the coefficients' own magnitudes dominate each step), so an algorithm can carry a
// factor 2 it needs later for free.
template <std::size_t N>
struct ScaledCoefficients {
  float c[N];
};

template <std::size_t N>
constexpr ScaledCoefficients<N> doubled(const float (&c)[N]) {
  ScaledCoefficients<N> out{};
  for (std::size_t i = 0; i < N; ++i) out.c[i] = 2.0f * c[i];
  return out;
}

// 2^k as a value of precision P, for k (a B32 holding a signed integer) in the normal range.
template <class P, class B>
typename P::template F<B> pow2(B& b, const typename B::B32& k) {
  auto biased = b.add(k, b.u32(static_cast<std::uint32_t>(P::kBias)));
  auto wide = P::widen_exponent(b, biased);
  return P::from_bits(b, b.shl(wide, b.u32(P::kMantissaBits)));
}

// x * 2^k in two steps, x * 2^(k>>1) exact and the second multiplication rounding once: overflow
// gives inf, underflow rounds once into the subnormals. For x within a few binades of 1 and
// |k| <= 2 * (kBias - 1), so that both powers of two and x * 2^(k>>1) are normal.
template <class P, class B>
typename P::template F<B> scale(B& b, const typename P::template F<B>& x, const typename B::B32& k) {
  auto k1 = b.shr_s(k, b.u32(1));
  auto k2 = b.sub(k, k1);
  return b.mul(b.mul(x, pow2<P>(b, k1)), pow2<P>(b, k2));
}

// 1 / a for f32 a whose magnitude is in [2^-126, 2^126] (or NaN): on backends with
// rcp_approx_ftz (PTX: MUFU.RCP, at most 1 ulp from 1/a; a and 1/a normal, so .ftz changes
// nothing) its guess y and one Newton step y + y (1 - a y), the residual from one fma (exact to
// 2^-48) and the step's error y e^2 < 2^-45 relative: within 0.5 ulp + 2^-45 relative of 1/a (the
// bits of rcp.rn but for rare near-halfway cases, one ulp apart). The CPU model sweeps every
// admissible guess (cpu_backend.hpp). Elsewhere rcp.rn itself.
template <class B>
typename B::F32 recip_refined_f32(B& b, const typename B::F32& a) {
  if constexpr (requires { b.rcp_approx_ftz(a); }) {
    auto y = b.rcp_approx_ftz(a);
    return b.fma(y, b.fma(b.neg(a), y, b.c(1.0f)), y);
  } else {
    return b.recip(a);
  }
}

// A first guess of 1 / a for f32 a whose magnitude is in [2^-126, 2^126] (or NaN, inf, 0 in
// lanes whose result is discarded), for an algorithm that corrects it itself: rcp_approx_ftz where
// the backend has it (within 1 ulp of 1/a; the CPU model sweeps every admissible guess), else
// rcp.rn.
template <class B>
typename B::F32 recip_guess_f32(B& b, const typename B::F32& a) {
  if constexpr (requires { b.rcp_approx_ftz(a); }) {
    return b.rcp_approx_ftz(a);
  } else {
    return b.recip(a);
  }
}

// Whether v & mask is nonzero, as a test against zero: ptxas folds `and` + `setp.ne 0` into one
// LOP3 that writes the predicate, where a compare with the mask itself costs an ISETP more.
template <class B>
typename B::Pred any_bit(B& b, const typename B::B32& v, std::uint32_t mask) {
  return b.ne(b.and_(v, b.u32(mask)), b.u32(0));
}

// `value` with its sign bit flipped where `sign_source`'s is set (an odd function of |x| made one
// of x).
template <class P, class B>
typename P::template F<B> flip_sign_of(B& b, const typename P::template F<B>& value,
                                       const typename P::template F<B>& sign_source) {
  auto sign = b.and_(b.bits(sign_source), P::bits_const(b, P::kSignBit));
  return P::from_bits(b, b.xor_(b.bits(value), sign));
}

// The bits of `magnitude` (>= 0) with the sign bit of `sign_source`.
template <class P, class B>
typename P::template F<B> with_sign_of(B& b, const typename P::template F<B>& magnitude,
                                       const typename P::template F<B>& sign_source) {
  auto sign = b.and_(b.bits(sign_source), P::bits_const(b, P::kSignBit));
  return P::from_bits(b, b.or_(b.bits(magnitude), sign));
}

}  // namespace vyre::math
