// log and log2.
//
// x = 2^e * m with m in [sqrt(1/2), sqrt(2)) (integer operations on the bits; subnormals are first
// scaled into the normal range). With f = m - 1 (exact) and s = f / (2 + f):
//   log(m) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)),  R(z) = z Q(z) minimax, z <= 0.02945,
// formed as a double-word (f - f^2/2 with two_sum and an exact f^2/2). Then
//   log2(x) = e + log(m) * (1/ln2)      (double-word arithmetic, one final rounding)
// f64 log uses the same s and R without double-words (fdlibm's formula, see log_f64).
// f32 (bound 2 ULP) skips s and the double-words: log(m) = fma(f^2, G(f), f), see log_fn/log2_fn.
// Specials: log(+-0) = -inf, log(x < 0) = NaN, log(+inf) = +inf, NaN -> NaN.
#pragma once

#include <limits>
#include <type_traits>

#include "math/algorithms/common.hpp"
#include "math/polynomials.hpp"

namespace vyre::math {

template <class P>
struct LogConstants;

template <>
struct LogConstants<P32> {
  static constexpr float kMinNormal = 0x1p-126f;
  static constexpr float kSubnormalScale = 0x1p+24f;
  static constexpr std::uint32_t kSubnormalShift = 24;
  static constexpr std::uint64_t kSqrtHalfBits = 0x3F3504F3u;  // 0.70710677
  static constexpr float kLn2Hi = 0x1.62e430p-1f;
  static constexpr float kLn2Lo = -0x1.05c610p-29f;
  static constexpr float kInvLn2Hi = 0x1.715476p+0f;
  static constexpr float kInvLn2Lo = 0x1.4ae0c0p-26f;
  static constexpr const float (&kPoly)[4] = poly::k_log_f32;
};

template <>
struct LogConstants<P64> {
  static constexpr double kMinNormal = 0x1p-1022;
  static constexpr double kSubnormalScale = 0x1p+54;
  static constexpr std::uint32_t kSubnormalShift = 54;
  static constexpr std::uint64_t kSqrtHalfBits = 0x3FE6A09E667F3BCDull;  // 0.7071067811865476
  static constexpr double kLn2Hi = 0x1.62e42fefa39efp-1;
  static constexpr double kLn2Lo = 0x1.abc9e3b39803fp-56;
  static constexpr double kInvLn2Hi = 0x1.71547652b82fep+0;
  static constexpr double kInvLn2Lo = 0x1.777d0ffda0d24p-56;
  static constexpr const double (&kPoly)[8] = poly::k_log_f64;
};

// The shifted exponent as a B32 (it fits: |e| < 1100).
template <class P, class B>
typename B::B32 exponent_as_s32(B& b, const typename P::template I<B>& e) {
  if constexpr (std::is_same_v<P, P64>) {
    return b.lo32(e);
  } else {
    (void)b;
    return e;
  }
}

template <class P, class B>
typename P::template F<B> exponent_to_float(B& b, const typename B::B32& e) {
  if constexpr (std::is_same_v<P, P64>) {
    return b.s32_to_f64(e);
  } else {
    return b.s32_to_f32(e);
  }
}

template <class P, class B>
struct LogParts {
  typename P::template F<B> e;        // the exponent, as a float (exact)
  DW<typename P::template F<B>> lm;   // log(m), |lo| <= ulp(hi)
};

template <class P, class B>
struct LogReduced {
  typename P::template F<B> e;  // the exponent, as a float (exact)
  typename P::template F<B> f;  // m - 1 (exact), m in [sqrt(1/2), sqrt(2))
};

// xs = 2^e m for finite normal xs > 0, e less e_adjust.
template <class P, class B>
LogReduced<P, B> log_reduce_normal(B& b, const typename P::template F<B>& xs, const typename B::B32& e_adjust) {
  using C = LogConstants<P>;
  using K = typename P::K;
  auto ix = b.sub(b.bits(xs), P::bits_const(b, C::kSqrtHalfBits));
  // ix >> mantissa bits is the exponent e (arithmetic shift; x >= sqrt(1/2) * 2^e).
  auto e_wide = b.shr_s(ix, b.u32(P::kMantissaBits));
  // m = xs 2^-e: e taken off the exponent field, (ix & mantissa mask) + sqrt(1/2)'s bits in one
  // multiply-add (the arithmetic shift floors, so ix - (e << mantissa bits) is ix's low bits).
  auto m_bits = b.sub(b.bits(xs), b.shl(e_wide, b.u32(P::kMantissaBits)));
  auto m = P::from_bits(b, m_bits);
  auto e_int = b.sub(exponent_as_s32<P>(b, e_wide), e_adjust);
  return {exponent_to_float<P>(b, e_int), b.sub(m, b.c(K(1)))};
}

// x = 2^e m for finite x > 0 (subnormals scaled first).
template <class P, class B>
LogReduced<P, B> log_reduce(B& b, const typename P::template F<B>& x) {
  using C = LogConstants<P>;
  auto tiny = b.lt(x, b.c(C::kMinNormal));
  auto xs = b.sel(tiny, b.mul(x, b.c(C::kSubnormalScale)), x);
  return log_reduce_normal<P>(b, xs, b.sel(tiny, b.u32(C::kSubnormalShift), b.u32(0)));
}

// e and log(m) for finite x > 0.
template <class P, class B>
LogParts<P, B> log_parts(B& b, const typename P::template F<B>& x) {
  using C = LogConstants<P>;
  using K = typename P::K;
  auto red = log_reduce<P>(b, x);
  auto f = red.f;
  auto s = b.div(f, b.add(b.c(K(2)), f));
  auto z = b.mul(s, s);
  auto r = b.mul(z, horner(b, z, C::kPoly));
  auto hf = b.mul(b.c(K(0.5)), f);
  auto hfsq = two_prod(b, hf, f);  // f^2 / 2 exactly
  auto corr = b.mul(s, b.add(hfsq.hi, r));
  auto a = two_sum(b, f, b.neg(hfsq.hi));
  auto lo = b.add(b.sub(a.lo, hfsq.lo), corr);
  return {red.e, fast_two_sum(b, a.hi, lo)};
}

// The result for x that is not finite and positive: -inf for +-0, NaN for x < 0, x otherwise
// (+inf, NaN).
template <class P, class B>
typename P::template F<B> log_special(B& b, const typename P::template F<B>& x) {
  using K = typename P::K;
  auto zero = b.eq(x, b.c(K(0)));
  auto negative = b.lt(x, b.c(K(0)));
  auto nan = b.c(std::numeric_limits<K>::quiet_NaN());
  return b.sel(zero, b.c(-std::numeric_limits<K>::infinity()), b.sel(negative, nan, x));
}

template <class P, class B>
typename B::Pred log_domain(B& b, const typename P::template F<B>& x) {
  using K = typename P::K;
  return b.and_(b.gt(x, b.c(K(0))), b.lt(x, b.c(std::numeric_limits<K>::infinity())));
}

// ln2 split for log_f64: the high part has 21 significant bits (e ln2_hi is exact for |e| < 2^32;
// its low word is zero, an immediate in SASS, where a full-width constant costs a load).
inline constexpr double kLogLn2Hi = 0x1.62e42p-1;
inline constexpr double kLogLn2Lo = 0x1.fdf473de6af28p-22;

// f64 log, fdlibm-style without double-words (SPEC §5 allows 2 ULP; sampled within 1, ACCURACY.md):
// with s = f / (2 + f) = f * rcp.rn(2 + f) (s only enters a small correction, so its error of up to
// one ulp costs below 0.1 ulp of the result), hfsq = f^2 / 2 and R = z T(z), z = s^2 (k_log_short_f64),
//   log(x) = e ln2_hi - ((hfsq - (s (hfsq + R) + e ln2_lo)) - f)
// where ln2_hi has 21 significant bits, so e ln2_hi is exact, and where e ln2_hi and the bracket
// nearly cancel (e = 1, m near sqrt(1/2)) the final subtraction is exact (Sterbenz).
// x positive and normal; the result is log(x 2^-e_adjust) (e_adjust is subtracted from e).
template <class B>
typename B::F64 log_f64_normal(B& b, const typename B::F64& x, const typename B::B32& e_adjust) {
  using C = LogConstants<P64>;
  // x = 2^e m on the high word (32-bit integer operations, as fdlibm): m in [sqrt(1/2), sqrt(2))
  // with the bound's low word dropped (m >= 0.70710677; |s| <= 0.17158 stays inside the fit).
  constexpr std::uint32_t kSqrtHalfHi = static_cast<std::uint32_t>(C::kSqrtHalfBits >> 32);
  auto bits = b.bits(x);
  auto hx = b.sub(b.hi32(bits), b.u32(kSqrtHalfHi));
  auto e_int = b.sub(b.shr_s(hx, b.u32(20)), e_adjust);
  auto m_hi = b.add(b.and_(hx, b.u32(0x000FFFFFu)), b.u32(kSqrtHalfHi));
  auto f = b.sub(b.f64_from_bits(b.pack64(b.lo32(bits), m_hi)), b.c(1.0));
  auto e = b.s32_to_f64(e_int);
  auto s = b.mul(f, b.recip(b.add(b.c(2.0), f)));
  auto z = b.mul(s, s);
  auto r = b.mul(z, horner(b, z, poly::k_log_short_f64));
  auto hfsq = b.mul(b.mul(b.c(0.5), f), f);
  auto lo = b.fma(s, b.add(hfsq, r), b.mul(e, b.c(kLogLn2Lo)));
  auto bracket = b.sub(b.sub(hfsq, lo), f);
  return b.fma(e, b.c(kLogLn2Hi), b.neg(bracket));
}

// log_f64_normal for positive normal x (the high word minus 0x00100000 is below 0x7FE00000,
// unsigned); a branch, with a second copy, for the rest: subnormals scaled by 2^54 first, and the
// specials: fma(x, inf, inf) is inf for +inf, NaN for x < 0 and NaN; +-0 give -inf.
template <class B>
typename B::F64 log_f64(B& b, const typename B::F64& x) {
  using C = LogConstants<P64>;
  auto ordinary = b.lt_u(b.sub(b.hi32(b.bits(x)), b.u32(0x00100000u)), b.u32(0x7FE00000u));
  auto out = b.var(log_f64_normal(b, x, b.u32(0)));
  b.if_(b.not_(ordinary), [&] {
    auto tiny = b.lt(x, b.c(C::kMinNormal));
    auto xs = b.sel(tiny, b.mul(x, b.c(C::kSubnormalScale)), x);
    auto y = log_f64_normal(b, xs, b.sel(tiny, b.u32(C::kSubnormalShift), b.u32(0)));
    constexpr double inf = std::numeric_limits<double>::infinity();
    auto special = b.sel(b.eq(x, b.c(0.0)), b.c(-inf), b.fma(x, b.c(inf), b.c(inf)));
    b.set(out, b.sel(log_domain<P64>(b, x), y, special));
  });
  return b.get(out);
}

// f32 log/log2: `from_reduced` on the reduction of positive normal x (bits - 0x00800000 below
// 0x7F000000, unsigned), and in a branch for the rest the subnormal scaling and the special results
// (-inf for +-0, NaN for x < 0, x for +inf and NaN): for every x the bits of the branch-free form
// sel(domain, from_reduced(log_reduce(x)), special).
template <class B, class FromReduced>
typename B::F32 log_f32_branched(B& b, const typename B::F32& x, FromReduced from_reduced) {
  auto ordinary = b.lt_u(b.sub(b.bits(x), b.u32(0x00800000u)), b.u32(0x7F000000u));
  auto out = b.var(from_reduced(log_reduce_normal<P32>(b, x, b.u32(0))));
  b.if_(b.not_(ordinary), [&] {
    b.set(out, b.sel(log_domain<P32>(b, x), from_reduced(log_reduce<P32>(b, x)), log_special<P32>(b, x)));
  });
  return b.get(out);
}

template <class P, class B>
typename P::template F<B> log_fn(B& b, const typename P::template F<B>& x) {
  using C = LogConstants<P>;
  if constexpr (std::is_same_v<P, P32>) {
    // f32 (SPEC allows 2 ULP): log(m) = fma(f^2, G(f), f) with G a degree-9 minimax fit of
    // (log(1 + f) - f) / f^2, then one fma with e ln2 (ln2 rounded to f32; its error is below
    // 0.1 result ulp). No division, no double-word.
    return log_f32_branched(b, x, [&](const LogReduced<P32, B>& red) {
      auto lm = b.fma(b.mul(red.f, red.f), horner(b, red.f, poly::k_log1p_f32), red.f);
      return b.fma(red.e, b.c(C::kLn2Hi), lm);
    });
  } else {
    return log_f64(b, x);
  }
}

template <class P, class B>
typename P::template F<B> log2_fn(B& b, const typename P::template F<B>& x) {
  using C = LogConstants<P>;
  if constexpr (std::is_same_v<P, P32>) {
    // f32: log2(m) = fma(f, 1/ln2 (hi), fma(f, 1/ln2 (lo), f^2 G2(f))) with G2 a degree-9 minimax
    // fit of (log2(1 + f) - f/ln2) / f^2, then e + log2(m) rounded once (exact for e = 0).
    return log_f32_branched(b, x, [&](const LogReduced<P32, B>& red) {
      auto q = b.mul(b.mul(red.f, red.f), horner(b, red.f, poly::k_log2_1p_f32));
      auto lm = b.fma(red.f, b.c(C::kInvLn2Hi), b.fma(red.f, b.c(C::kInvLn2Lo), q));
      return b.add(red.e, lm);
    });
  }
  auto parts = log_parts<P>(b, x);
  auto p = two_prod(b, parts.lm.hi, b.c(C::kInvLn2Hi));
  auto lo = b.fma(parts.lm.hi, b.c(C::kInvLn2Lo), b.fma(parts.lm.lo, b.c(C::kInvLn2Hi), p.lo));
  auto sum = two_sum(b, parts.e, p.hi);
  auto y = b.add(sum.hi, b.add(sum.lo, lo));
  return b.sel(log_domain<P>(b, x), y, log_special<P>(b, x));
}

}  // namespace vyre::math
