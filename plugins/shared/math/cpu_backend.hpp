// The CPU backend of the math instruction set: every operation computes exactly what the PTX
// instruction that PtxBackend emits for it computes on the GPU (IEEE-754 binary32/binary64, round
// to nearest even, no flush to zero, PTX's clamping of shift amounts and saturating float-to-int
// conversions). The algorithms in algorithms/*.hpp are templates over the backend, so evaluating
// one with CpuBackend runs, bit for bit, the instruction sequence of its PTX function. This is how
// the library is certified without a GPU (tests/cuda/math, ACCURACY.md).
//
// Requirements on the host: SSE2 floating point (FLT_EVAL_METHOD == 0), the default rounding mode,
// no FTZ/DAZ, and no floating-point contraction (-ffp-contract=off).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "math/data_tables.hpp"

namespace vyre::math {

class CpuBackend {
 public:
  struct F32 { float v; };
  struct F64 { double v; };
  struct B32 { std::uint32_t v; };
  struct B64 { std::uint64_t v; };
  struct Pred { bool v; };
  template <class T>
  struct Var { T value; };

  // ---- constants ----
  static F32 c(float v) { return {v}; }
  static F64 c(double v) { return {v}; }
  static B32 u32(std::uint32_t v) { return {v}; }
  static B64 u64(std::uint64_t v) { return {v}; }

  // ---- float arithmetic (add.rn, sub.rn, mul.rn, fma.rn, div.rn, sqrt.rn, neg, abs) ----
  static F32 add(F32 a, F32 b) { return {a.v + b.v}; }
  static F64 add(F64 a, F64 b) { return {a.v + b.v}; }
  static F32 sub(F32 a, F32 b) { return {a.v - b.v}; }
  static F64 sub(F64 a, F64 b) { return {a.v - b.v}; }
  static F32 mul(F32 a, F32 b) { return {a.v * b.v}; }
  static F64 mul(F64 a, F64 b) { return {a.v * b.v}; }
  static F32 fma(F32 a, F32 b, F32 c) { return {std::fma(a.v, b.v, c.v)}; }
  static F64 fma(F64 a, F64 b, F64 c) { return {std::fma(a.v, b.v, c.v)}; }
  static F32 div(F32 a, F32 b) { return {a.v / b.v}; }
  static F64 div(F64 a, F64 b) { return {a.v / b.v}; }
  // 1 / a correctly rounded (PTX rcp.rn: the same bits as div.rn of 1, cheaper in SASS).
  static F32 recip(F32 a) { return {1.0f / a.v}; }
  static F64 recip(F64 a) { return {1.0 / a.v}; }
  static F32 sqrt(F32 a) { return {std::sqrt(a.v)}; }
  static F64 sqrt(F64 a) { return {std::sqrt(a.v)}; }
  // The approximate instructions, rsqrt.approx.ftz.f32 (inverse_sqrt f32's first guess, and asin
  // and acos f32's root; modelled on rsqrt.approx.f32) and rcp.approx.ftz.f32 (the reciprocal in
  // tanh, sinh, cosh, atan and tan f32). The GPU's bits are not specified, only an error bound
  // (PTX ISA) and the IEEE special values, so each model returns the approx_pick-th float (from
  // below; the largest if there are fewer) of those the bound admits, and a sweep over every pick
  // (kRsqrtApproxPicks, kRcpApproxPicks) checks each value the device may return. A function uses
  // at most one of them. The pick is per thread: a sweep sets it in each of its threads.
  // approx_admitted holds the most floats any call since the caller last reset it admitted, so a
  // sweep knows when a larger pick can no longer change an evaluation (every call already returned
  // its largest admissible float).
  static inline thread_local int approx_pick = 0;
  static inline thread_local int approx_admitted = 0;
  static constexpr int kRsqrtApproxPicks = 5;  // the interval is < 4.3 float spacings wide
  static constexpr int kRcpApproxPicks = 4;    // v +- ulp(v): 3 floats, 4 below a power of two
  // rsqrt.approx.f32: relative error at most 2^-22.9; +-0 -> +-inf, +inf -> +0, x < 0 and NaN -> NaN.
  static F32 rsqrt_approx(F32 a) {
    const float x = a.v;
    if (x != x || x < 0.0f) return {std::numeric_limits<float>::quiet_NaN()};
    if (x == 0.0f) return {std::copysign(std::numeric_limits<float>::infinity(), x)};
    if (x == std::numeric_limits<float>::infinity()) return {0.0f};
    const double v = 1.0 / std::sqrt(static_cast<double>(x));  // within 2^-52 relative
    static const double eps = std::exp2(-22.9) * (1 + 0x1p-40);  // widened by the error of v
    return {pick_within(v * (1 - eps), v * (1 + eps))};
  }
  // rsqrt.approx.ftz.f32: rsqrt.approx.f32 with subnormal inputs flushed to zero of their sign
  // (-> +-inf); no result of a normal input is subnormal.
  static F32 rsqrt_approx_ftz(F32 a) {
    if (std::fabs(a.v) < std::numeric_limits<float>::min()) return rsqrt_approx({std::copysign(0.0f, a.v)});
    return rsqrt_approx(a);
  }
  // rcp.approx.ftz.f32: at most 1 ulp (of the exact 1/x) from 1/x; subnormal inputs and results
  // flush to zero of their sign; +-0 -> +-inf, +-inf -> +-0, NaN -> NaN.
  static F32 rcp_approx_ftz(F32 a) {
    float x = a.v;
    if (x != x) return {std::numeric_limits<float>::quiet_NaN()};
    if (std::fabs(x) < std::numeric_limits<float>::min()) x = std::copysign(0.0f, x);
    if (x == 0.0f) return {std::copysign(std::numeric_limits<float>::infinity(), x)};
    if (std::isinf(x)) return {std::copysign(0.0f, x)};
    // v is within 2^-53 relative of 1/x, and exact where 1/x is a float (x a power of two); no
    // other float lies within 2^-53 of a float spacing from 1/x (x y = 1 +- 2^-53 has no solution
    // in floats), so the floats within 1 ulp of v are those within 1 ulp of 1/x.
    const double v = 1.0 / static_cast<double>(x);
    const double ulp = std::ldexp(1.0, std::ilogb(v) - 23);
    const float y = pick_within(v - ulp, v + ulp);
    if (std::fabs(y) < std::numeric_limits<float>::min()) return {std::copysign(0.0f, x)};
    return {y};
  }
  // min.f32 (PTX ISA, as SPEC's min, codegen/float_binary.cpp): the smaller operand; where exactly
  // one is NaN, the other one; NaN if both are; -0 below +0.
  static F32 min_num(F32 a, F32 b) {
    if (a.v != a.v) return b;
    if (b.v != b.v) return a;
    if (a.v == b.v) return std::signbit(a.v) ? a : b;
    return b.v < a.v ? b : a;
  }
  static F32 neg(F32 a) { return {-a.v}; }
  static F64 neg(F64 a) { return {-a.v}; }
  static F32 abs(F32 a) { return {std::fabs(a.v)}; }
  static F64 abs(F64 a) { return {std::fabs(a.v)}; }
  // cvt.rni.fXX.fXX: round to the nearest integer, ties to even.
  static F32 rint(F32 a) { return {std::nearbyint(a.v)}; }
  static F64 rint(F64 a) { return {std::nearbyint(a.v)}; }

  // ---- float comparisons (setp.lt/le/gt/ge/eq: false when either operand is NaN) ----
  static Pred lt(F32 a, F32 b) { return {a.v < b.v}; }
  static Pred lt(F64 a, F64 b) { return {a.v < b.v}; }
  static Pred le(F32 a, F32 b) { return {a.v <= b.v}; }
  static Pred le(F64 a, F64 b) { return {a.v <= b.v}; }
  static Pred gt(F32 a, F32 b) { return {a.v > b.v}; }
  static Pred gt(F64 a, F64 b) { return {a.v > b.v}; }
  static Pred ge(F32 a, F32 b) { return {a.v >= b.v}; }
  static Pred ge(F64 a, F64 b) { return {a.v >= b.v}; }
  static Pred eq(F32 a, F32 b) { return {a.v == b.v}; }
  static Pred eq(F64 a, F64 b) { return {a.v == b.v}; }
  static Pred is_nan(F32 a) { return {a.v != a.v}; }
  static Pred is_nan(F64 a) { return {a.v != a.v}; }

  // ---- selection (selp) ----
  static F32 sel(Pred p, F32 a, F32 b) { return p.v ? a : b; }
  static F64 sel(Pred p, F64 a, F64 b) { return p.v ? a : b; }
  static B32 sel(Pred p, B32 a, B32 b) { return p.v ? a : b; }
  static B64 sel(Pred p, B64 a, B64 b) { return p.v ? a : b; }

  // ---- conversions ----
  static F32 to_f32(F64 a) { return {static_cast<float>(a.v)}; }   // cvt.rn.f32.f64
  static F64 to_f64(F32 a) { return {static_cast<double>(a.v)}; }  // cvt.f64.f32
  static B32 to_s32(F32 a) { return {static_cast<std::uint32_t>(saturate_s32(a.v))}; }  // cvt.rzi.s32.f32
  static B32 to_s32(F64 a) { return {static_cast<std::uint32_t>(saturate_s32(a.v))}; }  // cvt.rzi.s32.f64
  static F32 s32_to_f32(B32 a) { return {static_cast<float>(static_cast<std::int32_t>(a.v))}; }
  static F64 s32_to_f64(B32 a) { return {static_cast<double>(static_cast<std::int32_t>(a.v))}; }
  static F64 u64_to_f64(B64 a) { return {static_cast<double>(a.v)}; }  // cvt.rn.f64.u64
  static B32 bits(F32 a) { return {std::bit_cast<std::uint32_t>(a.v)}; }
  static B64 bits(F64 a) { return {std::bit_cast<std::uint64_t>(a.v)}; }
  static F32 f32_from_bits(B32 a) { return {std::bit_cast<float>(a.v)}; }
  static F64 f64_from_bits(B64 a) { return {std::bit_cast<double>(a.v)}; }
  static B32 lo32(B64 a) { return {static_cast<std::uint32_t>(a.v)}; }        // cvt.u32.u64
  static B32 hi32(B64 a) { return {static_cast<std::uint32_t>(a.v >> 32)}; }  // mov.b64 {lo, hi}
  static B64 pack64(B32 lo, B32 hi) { return {(std::uint64_t{hi.v} << 32) | lo.v}; }
  static B64 zext64(B32 a) { return {a.v}; }  // cvt.u64.u32

  // ---- 32-bit integers ----
  static B32 add(B32 a, B32 b) { return {a.v + b.v}; }
  static B32 sub(B32 a, B32 b) { return {a.v - b.v}; }
  static B32 mul_lo(B32 a, B32 b) { return {a.v * b.v}; }
  static B32 and_(B32 a, B32 b) { return {a.v & b.v}; }
  static B32 or_(B32 a, B32 b) { return {a.v | b.v}; }
  static B32 xor_(B32 a, B32 b) { return {a.v ^ b.v}; }
  // shl.b32 / shr.u32 / shr.s32: amounts >= 32 are clamped to 32.
  static B32 shl(B32 a, B32 n) { return {n.v >= 32 ? 0u : a.v << n.v}; }
  static B32 shr_u(B32 a, B32 n) { return {n.v >= 32 ? 0u : a.v >> n.v}; }
  static B32 shr_s(B32 a, B32 n) {
    const auto s = static_cast<std::int32_t>(a.v);
    return {static_cast<std::uint32_t>(n.v >= 32 ? (s >> 31) : (s >> n.v))};
  }
  static Pred eq(B32 a, B32 b) { return {a.v == b.v}; }
  static Pred ne(B32 a, B32 b) { return {a.v != b.v}; }
  static Pred lt_u(B32 a, B32 b) { return {a.v < b.v}; }
  static Pred lt_s(B32 a, B32 b) {
    return {static_cast<std::int32_t>(a.v) < static_cast<std::int32_t>(b.v)};
  }

  // ---- 64-bit integers ----
  static B64 add(B64 a, B64 b) { return {a.v + b.v}; }
  static B64 sub(B64 a, B64 b) { return {a.v - b.v}; }
  static B64 mul_lo(B64 a, B64 b) { return {a.v * b.v}; }
  static B64 mul_hi_u(B64 a, B64 b) {
    return {static_cast<std::uint64_t>((static_cast<unsigned __int128>(a.v) * b.v) >> 64)};
  }
  static B64 and_(B64 a, B64 b) { return {a.v & b.v}; }
  static B64 or_(B64 a, B64 b) { return {a.v | b.v}; }
  static B64 xor_(B64 a, B64 b) { return {a.v ^ b.v}; }
  static B64 shl(B64 a, B32 n) { return {n.v >= 64 ? 0u : a.v << n.v}; }
  static B64 shr_u(B64 a, B32 n) { return {n.v >= 64 ? 0u : a.v >> n.v}; }
  static B64 shr_s(B64 a, B32 n) {
    const auto s = static_cast<std::int64_t>(a.v);
    return {static_cast<std::uint64_t>(n.v >= 64 ? (s >> 63) : (s >> n.v))};
  }
  static B32 clz(B64 a) { return {a.v == 0 ? 64u : static_cast<std::uint32_t>(std::countl_zero(a.v))}; }
  static Pred eq(B64 a, B64 b) { return {a.v == b.v}; }
  static Pred ne(B64 a, B64 b) { return {a.v != b.v}; }
  static Pred lt_u(B64 a, B64 b) { return {a.v < b.v}; }
  static Pred lt_s(B64 a, B64 b) {
    return {static_cast<std::int64_t>(a.v) < static_cast<std::int64_t>(b.v)};
  }

  // ---- predicates ----
  static Pred and_(Pred a, Pred b) { return {a.v && b.v}; }
  static Pred or_(Pred a, Pred b) { return {a.v || b.v}; }
  static Pred not_(Pred a) { return {!a.v}; }

  // ---- module data (ld.global.nc.u64 of word `index` of a table) ----
  static B64 load(const DataTable& table, B32 index) {
    if (index.v >= table.words.size()) throw std::out_of_range("math table index out of range");
    return {table.words[index.v]};
  }

  // ---- structured control flow ----
  template <class T>
  static Var<T> var(T init) { return {init}; }
  template <class T>
  static T get(const Var<T>& v) { return v.value; }
  template <class T>
  static void set(Var<T>& v, T value) { v.value = value; }
  template <class Then>
  static void if_(Pred p, Then&& then) {
    if (p.v) then();
  }

 private:
  // cvt.rzi.s32.fXX: truncate, saturate to the s32 range, NaN -> 0.
  template <class T>
  static std::int32_t saturate_s32(T a) {
    if (a != a) return 0;
    if (a >= static_cast<T>(2147483647.0)) return std::numeric_limits<std::int32_t>::max();
    if (a <= static_cast<T>(-2147483648.0)) return std::numeric_limits<std::int32_t>::min();
    return static_cast<std::int32_t>(a);
  }

  // The approx_pick-th float of [lo, hi] (lo <= hi, finite, of one sign) from below, or its largest;
  // counts the floats of [lo, hi] into approx_admitted.
  static float pick_within(double lo, double hi) {
    float first = static_cast<float>(lo);
    if (static_cast<double>(first) < lo) first = std::nextafter(first, std::numeric_limits<float>::infinity());
    float y = first;
    int admitted = 1;
    for (float next = std::nextafter(first, std::numeric_limits<float>::infinity());
         static_cast<double>(next) <= hi; next = std::nextafter(next, std::numeric_limits<float>::infinity())) {
      if (admitted <= approx_pick) y = next;
      ++admitted;
    }
    if (admitted > approx_admitted) approx_admitted = admitted;
    return y;
  }
};

}  // namespace vyre::math
