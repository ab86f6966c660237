// Correctly rounded division, square root and fused multiply-add from exact integer operations,
// for backends whose instruction set does not promise them (Vulkan: OpFDiv is 2.5 ULP, sqrt is
// "inherited from inversesqrt", GLSL fma may be unfused). Every step is integer arithmetic on the
// operands' bit patterns, so the results do not depend on the device's float behaviour (rounding
// mode, denormal flushing); the CPU twin checks them bit for bit against the host's IEEE
// operations (tests/vulkan/test_exact_arith.cpp).
//
// Notation: a finite nonzero value is sig * 2^scale with an integer significand `sig` (B64) and
// a signed exponent `scale` (B32). round_pack() turns such a value, plus a sticky bit standing for
// nonzero bits below `sig`, into the nearest-even float: overflow gives inf, results below the
// normal range round once into the subnormals.
#pragma once

#include "math/algorithms/common.hpp"

namespace vyre::math::exact {

// ---- layout and unpacking -----------------------------------------------------------------------

template <class P>
struct Bits {
  static constexpr int M = P::kMantissaBits;
  static constexpr int kExponentMax = P::kBias * 2 + 1;  // the all-ones exponent field
  static constexpr std::uint64_t kInf = std::uint64_t(kExponentMax) << M;
  static constexpr std::uint64_t kNaN = kInf | (std::uint64_t{1} << (M - 1));
};

// The float's bits in a B64 (f32 zero-extended), and back.
template <class P, class B>
typename B::B64 bits64(B& b, const typename P::template F<B>& x) {
  if constexpr (P::kMantissaBits == 23) return b.zext64(b.bits(x));
  else return b.bits(x);
}
template <class P, class B>
typename P::template F<B> from_bits64(B& b, const typename B::B64& v) {
  if constexpr (P::kMantissaBits == 23) return b.f32_from_bits(b.lo32(v));
  else return b.f64_from_bits(v);
}

template <class B>
struct Parts {
  typename B::B64 sign;   // the sign bit, in place (bit 31 or 63)
  typename B::B64 mag;    // bits without the sign
  typename B::B64 sig;    // finite nonzero: significand with its leading one at bit M
  typename B::B32 scale;  // finite nonzero: value = sig * 2^scale
};

template <class P, class B>
Parts<B> unpack(B& b, const typename B::B64& bits) {
  using X = Bits<P>;
  const std::uint64_t sign_bit = P::kSignBit;
  Parts<B> p;
  p.sign = b.and_(bits, b.u64(sign_bit));
  p.mag = b.and_(bits, b.u64(~sign_bit & ((sign_bit << 1) - 1)));
  const auto field = b.lo32(b.shr_u(p.mag, b.u32(X::M)));
  const auto mant = b.and_(p.mag, b.u64(P::kMantissaMask));
  // Subnormals: shift the fraction up to bit M; exponent 1 - shift.
  const auto shift = b.sub(b.clz(mant), b.u32(63 - X::M));
  const auto is_sub = b.eq(field, b.u32(0));
  p.sig = b.sel(is_sub, b.shl(mant, shift), b.or_(mant, b.u64(std::uint64_t{1} << X::M)));
  const auto biased = b.sel(is_sub, b.sub(b.u32(1), shift), field);
  p.scale = b.sub(biased, b.u32(static_cast<std::uint32_t>(P::kBias + X::M)));
  return p;
}

// ---- rounding -------------------------------------------------------------------------------------

// The float nearest (ties to even) to ±(sig + sticky*eps) * 2^scale, as bits; sig != 0.
template <class P, class B>
typename B::B64 round_pack(B& b, const typename B::B64& sign, const typename B::B64& sig,
                           const typename B::B32& scale, const typename B::Pred& sticky) {
  using X = Bits<P>;
  const auto top = b.sub(b.u32(63), b.clz(sig));             // leading bit position
  const auto biased = b.add(b.add(top, scale), b.u32(static_cast<std::uint32_t>(P::kBias)));
  // Bits to drop: down to M + 1 significant bits, more below the normal range.
  auto r = b.sub(top, b.u32(X::M));
  const auto below = b.lt_s(biased, b.u32(1));
  r = b.sel(below, b.add(r, b.sub(b.u32(1), biased)), r);
  const auto drops = b.lt_s(b.u32(0), r);
  // r <= 0: exact, shift up. r > 0: keep sig >> r and round on the rest.
  const auto up_shift = b.sub(b.u32(0), r);
  const auto kept_down = b.shr_u(sig, r);                        // r >= 64: 0
  const auto rest = b.sub(sig, b.shl(kept_down, r));            // r >= 64: all of sig
  const auto half = b.shl(b.u64(1), b.sub(r, b.u32(1)));        // r == 64: 2^63; r > 64: 0
  const auto half_valid = b.lt_s(r, b.u32(65));
  const auto odd = b.ne(b.and_(kept_down, b.u64(1)), b.u64(0));
  const auto above_half = b.lt_u(half, rest);
  const auto at_half = b.and_(b.eq(rest, half), b.or_(sticky, odd));
  const auto round_up = b.and_(half_valid, b.or_(above_half, at_half));
  const auto rounded = b.add(kept_down, b.sel(round_up, b.u64(1), b.u64(0)));
  const auto kept = b.sel(drops, rounded, b.shl(sig, up_shift));
  // Normal: exponent field (biased - 1) plus the kept significand (its leading one carries in).
  // (A carry out of the top rounds into the next binade, up to exactly inf.)
  const auto field = b.zext64(b.sel(below, b.u32(1), biased));
  const auto normal = b.add(b.shl(b.sub(field, b.u64(1)), b.u32(X::M)), kept);
  auto out = b.sel(below, kept, normal);
  const auto overflow = b.lt_s(b.u32(X::kExponentMax - 1), biased);
  out = b.sel(overflow, b.u64(X::kInf), out);
  return b.or_(sign, out);
}

// ---- 128-bit helpers (hi, lo) -----------------------------------------------------------------------

template <class B>
struct U128 {
  typename B::B64 hi;
  typename B::B64 lo;
};

// x << n for 0 <= n < 128.
template <class B>
U128<B> shl128(B& b, const U128<B>& x, const typename B::B32& n) {
  const auto big = b.lt_u(b.u32(63), n);
  const auto small_hi = b.or_(b.shl(x.hi, n), b.shr_u(x.lo, b.sub(b.u32(64), n)));  // n == 0: lo >> 64 == 0
  const auto big_hi = b.shl(x.lo, b.sub(n, b.u32(64)));
  return {b.sel(big, big_hi, small_hi), b.sel(big, b.u64(0), b.shl(x.lo, n))};
}

// x >> n, with every bit shifted out ORed into the lowest bit ("jamming"); any n >= 0.
template <class B>
U128<B> shr128_jam(B& b, const U128<B>& x, const typename B::B32& n) {
  const auto big = b.lt_u(b.u32(63), n);
  const auto huge = b.lt_u(b.u32(127), n);
  // n < 64
  const auto s_lo = b.or_(b.shr_u(x.lo, n), b.shl(x.hi, b.sub(b.u32(64), n)));
  const auto s_hi = b.shr_u(x.hi, n);
  const auto s_lost = b.ne(b.shl(x.lo, b.sub(b.u32(64), n)), b.u64(0));
  // 64 <= n < 128
  const auto m = b.sub(n, b.u32(64));
  const auto b_lo = b.shr_u(x.hi, m);
  const auto b_lost = b.or_(b.ne(x.lo, b.u64(0)), b.ne(b.shl(x.hi, b.sub(b.u32(64), m)), b.u64(0)));
  const auto any = b.or_(b.ne(x.hi, b.u64(0)), b.ne(x.lo, b.u64(0)));
  auto lo = b.sel(big, b_lo, s_lo);
  auto hi = b.sel(big, b.u64(0), s_hi);
  // n == 0: lo << 64 is 0, nothing lost.
  auto lost = b.or_(b.and_(big, b_lost), b.and_(b.not_(big), s_lost));
  lo = b.sel(huge, b.u64(0), lo);
  hi = b.sel(huge, b.u64(0), hi);
  lost = b.or_(b.and_(huge, any), b.and_(b.not_(huge), lost));
  return {hi, b.or_(lo, b.sel(lost, b.u64(1), b.u64(0)))};
}

template <class B>
typename B::B32 clz128(B& b, const U128<B>& x) {
  return b.sel(b.ne(x.hi, b.u64(0)), b.clz(x.hi), b.add(b.u32(64), b.clz(x.lo)));
}

// ---- the operations -----------------------------------------------------------------------------------

// x / y, correctly rounded.
template <class P, class B>
typename P::template F<B> div(B& b, const typename P::template F<B>& x, const typename P::template F<B>& y) {
  using X = Bits<P>;
  const auto xb = bits64<P>(b, x), yb = bits64<P>(b, y);
  const auto px = unpack<P>(b, xb), py = unpack<P>(b, yb);
  const auto sign = b.xor_(px.sign, py.sign);
  // Restoring long division of the significands: X::M + 3 quotient bits, the remainder as sticky.
  constexpr int kBits = X::M + 3;
  auto rem = px.sig;
  auto q = b.u64(0);
  for (int i = 0; i < kBits; ++i) {
    const auto ge = b.not_(b.lt_u(rem, py.sig));
    q = b.or_(b.shl(q, b.u32(1)), b.sel(ge, b.u64(1), b.u64(0)));
    rem = b.sel(ge, b.sub(rem, py.sig), rem);
    rem = b.shl(rem, b.u32(1));
  }
  const auto scale = b.sub(b.sub(px.scale, py.scale), b.u32(kBits - 1));
  auto out = round_pack<P>(b, sign, q, scale, b.ne(rem, b.u64(0)));
  // Specials: NaN operands, 0/0 and inf/inf are NaN; x/0 and inf/y are inf; 0/y and x/inf are 0.
  const auto inf = b.u64(X::kInf);
  const auto x_zero = b.eq(px.mag, b.u64(0)), y_zero = b.eq(py.mag, b.u64(0));
  const auto x_inf = b.eq(px.mag, inf), y_inf = b.eq(py.mag, inf);
  const auto nan = b.or_(b.or_(b.lt_u(inf, px.mag), b.lt_u(inf, py.mag)),
                         b.or_(b.and_(x_zero, y_zero), b.and_(x_inf, y_inf)));
  out = b.sel(b.or_(x_zero, y_inf), sign, out);
  out = b.sel(b.or_(x_inf, y_zero), b.or_(sign, inf), out);
  out = b.sel(nan, b.u64(X::kNaN), out);
  return from_bits64<P>(b, out);
}

// sqrt(x), correctly rounded.
template <class P, class B>
typename P::template F<B> sqrt(B& b, const typename P::template F<B>& x) {
  using X = Bits<P>;
  const auto xb = bits64<P>(b, x);
  const auto p = unpack<P>(b, xb);
  // Make the exponent even: sqrt(sig * 2^scale) = sqrt(sig') * 2^(scale' / 2).
  const auto odd = b.ne(b.and_(p.scale, b.u32(1)), b.u32(0));
  const auto sig = b.sel(odd, b.shl(p.sig, b.u32(1)), p.sig);
  const auto scale = b.sel(odd, b.sub(p.scale, b.u32(1)), p.scale);
  // Digit-by-digit square root of sig * 2^(2G), enough for X::M + 3 root bits.
  constexpr int kSigBits = (X::M + 2 + 1) / 2 * 2;  // sig's width, rounded up to even
  constexpr int kG = X::M / 2 + 2;
  constexpr int kSteps = kSigBits / 2 + kG;
  auto rem = b.u64(0);
  auto root = b.u64(0);
  for (int i = 0; i < kSteps; ++i) {
    const int pos = kSigBits - 2 - 2 * i;  // the radicand pair's position within sig
    const auto pair = pos >= 0 ? b.and_(b.shr_u(sig, b.u32(static_cast<std::uint32_t>(pos))), b.u64(3)) : b.u64(0);
    rem = b.or_(b.shl(rem, b.u32(2)), pair);
    const auto trial = b.or_(b.shl(root, b.u32(2)), b.u64(1));
    const auto ge = b.not_(b.lt_u(rem, trial));
    rem = b.sel(ge, b.sub(rem, trial), rem);
    root = b.or_(b.shl(root, b.u32(1)), b.sel(ge, b.u64(1), b.u64(0)));
  }
  const auto half_scale = b.shr_s(scale, b.u32(1));
  auto out = round_pack<P>(b, b.u64(0), root, b.sub(half_scale, b.u32(kG)), b.ne(rem, b.u64(0)));
  // Specials: NaN and negative nonzero -> NaN; ±0 -> ±0; +inf -> +inf.
  const auto inf = b.u64(X::kInf);
  const auto zero = b.eq(p.mag, b.u64(0));
  const auto nan = b.or_(b.lt_u(inf, p.mag), b.and_(b.ne(p.sign, b.u64(0)), b.not_(zero)));
  out = b.sel(zero, xb, out);
  out = b.sel(b.eq(xb, inf), inf, out);
  out = b.sel(nan, b.u64(X::kNaN), out);
  return from_bits64<P>(b, out);
}

// x * y + z with one rounding.
template <class P, class B>
typename P::template F<B> fma(B& b, const typename P::template F<B>& x, const typename P::template F<B>& y,
                              const typename P::template F<B>& z) {
  using X = Bits<P>;
  constexpr std::uint32_t kLead = 125;  // both addends normalised to a leading one at bit 125
  const auto xb = bits64<P>(b, x), yb = bits64<P>(b, y), zb = bits64<P>(b, z);
  const auto px = unpack<P>(b, xb), py = unpack<P>(b, yb), pz = unpack<P>(b, zb);
  const auto sp = b.xor_(px.sign, py.sign);
  // The exact product (<= 2M + 2 bits) and z, each shifted to lead at bit kLead.
  const U128<B> prod{b.mul_hi_u(px.sig, py.sig), b.mul_lo(px.sig, py.sig)};
  const auto p_shift = b.sub(clz128(b, prod), b.u32(127 - kLead));
  const auto P128 = shl128(b, prod, p_shift);
  const auto p_scale = b.sub(b.add(px.scale, py.scale), p_shift);
  const auto z_shift = b.u32(kLead - X::M);
  const auto Z128 = shl128(b, U128<B>{b.u64(0), pz.sig}, z_shift);
  const auto z_scale = b.sub(pz.scale, z_shift);
  // Align the smaller exponent to the larger; add or subtract.
  const auto p_first = b.not_(b.lt_s(p_scale, z_scale));
  const auto big_hi = b.sel(p_first, P128.hi, Z128.hi), big_lo = b.sel(p_first, P128.lo, Z128.lo);
  const auto small_hi = b.sel(p_first, Z128.hi, P128.hi), small_lo = b.sel(p_first, Z128.lo, P128.lo);
  const auto big_sign = b.sel(p_first, sp, pz.sign), small_sign = b.sel(p_first, pz.sign, sp);
  const auto scale = b.sel(p_first, p_scale, z_scale);
  const auto gap = b.sel(p_first, b.sub(p_scale, z_scale), b.sub(z_scale, p_scale));
  const auto small = shr128_jam(b, U128<B>{small_hi, small_lo}, gap);
  // Sum (no carry out of bit 127: both are below 2^126).
  const auto sum_lo = b.add(big_lo, small.lo);
  const auto sum_hi = b.add(b.add(big_hi, small.hi), b.sel(b.lt_u(sum_lo, big_lo), b.u64(1), b.u64(0)));
  // Difference, and its sign when small > big (possible only for equal scales).
  const auto diff_lo = b.sub(big_lo, small.lo);
  const auto borrow = b.sel(b.lt_u(big_lo, small.lo), b.u64(1), b.u64(0));
  const auto diff_hi = b.sub(b.sub(big_hi, small.hi), borrow);
  const auto negative = b.ne(b.and_(diff_hi, b.u64(0x8000000000000000ull)), b.u64(0));
  const auto neg_lo = b.sub(b.u64(0), diff_lo);
  const auto neg_hi = b.sub(b.sub(b.u64(0), diff_hi), b.sel(b.ne(diff_lo, b.u64(0)), b.u64(1), b.u64(0)));
  const auto same = b.eq(big_sign, small_sign);
  U128<B> r{b.sel(same, sum_hi, b.sel(negative, neg_hi, diff_hi)), b.sel(same, sum_lo, b.sel(negative, neg_lo, diff_lo))};
  const auto r_sign = b.sel(same, big_sign, b.sel(negative, small_sign, big_sign));
  const auto r_zero = b.and_(b.eq(r.hi, b.u64(0)), b.eq(r.lo, b.u64(0)));
  // Normalise to a 64-bit significand with a sticky bit, then round once.
  const auto lz = clz128(b, r);
  const auto norm = shl128(b, r, b.sel(r_zero, b.u32(0), lz));
  auto out = round_pack<P>(b, r_sign, b.sel(r_zero, b.u64(1), norm.hi), b.add(b.sub(scale, lz), b.u32(64)),
                           b.ne(norm.lo, b.u64(0)));
  out = b.sel(r_zero, b.u64(0), out);  // exact cancellation: +0
  // Specials, last to first in priority.
  const auto inf = b.u64(X::kInf);
  const auto x_zero = b.eq(px.mag, b.u64(0)), y_zero = b.eq(py.mag, b.u64(0)), z_zero = b.eq(pz.mag, b.u64(0));
  const auto x_inf = b.eq(px.mag, inf), y_inf = b.eq(py.mag, inf), z_inf = b.eq(pz.mag, inf);
  const auto p_zero = b.or_(x_zero, y_zero);
  const auto p_inf = b.or_(x_inf, y_inf);
  // z == 0 (product finite, nonzero): the rounded product. Product zero: z, or a signed zero.
  const auto zero_sum = b.sel(b.and_(b.ne(sp, b.u64(0)), b.ne(pz.sign, b.u64(0))), zb, b.u64(0));
  out = b.sel(p_zero, b.sel(z_zero, zero_sum, zb), out);
  out = b.sel(z_inf, zb, out);
  out = b.sel(p_inf, b.or_(sp, inf), out);
  const auto nan = b.or_(b.or_(b.lt_u(inf, px.mag), b.lt_u(inf, py.mag)),
                         b.or_(b.lt_u(inf, pz.mag),
                               b.or_(b.and_(p_inf, p_zero), b.and_(b.and_(p_inf, z_inf), b.ne(sp, pz.sign)))));
  out = b.sel(nan, b.u64(X::kNaN), out);
  return from_bits64<P>(b, out);
}

}  // namespace vyre::math::exact
