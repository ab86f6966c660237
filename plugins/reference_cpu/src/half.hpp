// f16 and bf16 storage (SPEC §2 "Types"): loads widen to f32 exactly; stores round f32 to nearest
// even, overflow to infinity, keep subnormals, and write the canonical NaN for any NaN.
#pragma once

#include <bit>
#include <cstdint>

#include "slots.hpp"

namespace vyre::refcpu {

// Round the non-negative integer m * 2^-shift to nearest, ties to even (shift >= 1).
constexpr std::uint32_t round_shift_even(std::uint32_t m, std::uint32_t shift) {
  if (shift >= 32) return 0;  // m < 2^24 <= 2^(shift-1): below one half
  std::uint32_t q = m >> shift;
  std::uint32_t rem = m & ((1u << shift) - 1u);
  std::uint32_t half = 1u << (shift - 1u);
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return q;
}

constexpr std::uint16_t f32_bits_to_f16(std::uint32_t x) {
  auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t ax = x & 0x7FFFFFFFu;
  if (ax > 0x7F800000u) return kCanonicalNanF16;
  if (ax >= 0x477FF000u) return sign | 0x7C00u;  // >= 65520 (or inf) rounds to infinity
  std::uint32_t exponent = ax >> 23;
  if (ax < 0x38800000u) {
    // Below 2^-14: an f16 subnormal q * 2^-24 (f32 subnormals are far below its range).
    if (exponent == 0) return sign;
    std::uint32_t mantissa = (ax & 0x7FFFFFu) | 0x800000u;  // value = mantissa * 2^(exponent-150)
    return sign | static_cast<std::uint16_t>(round_shift_even(mantissa, 126u - exponent));
  }
  // Normal: rebias the exponent and round 23 mantissa bits to 10; a carry moves into the exponent.
  std::uint32_t half_bits = ((exponent - 112u) << 10) | ((ax & 0x7FFFFFu) >> 13);
  std::uint32_t rem = ax & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (half_bits & 1u))) ++half_bits;
  return sign | static_cast<std::uint16_t>(half_bits);
}

constexpr std::uint32_t f16_to_f32_bits(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1Fu;
  std::uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1Fu) return sign | 0x7F800000u | (mantissa << 13);
  if (exponent != 0) return sign | ((exponent + 112u) << 23) | (mantissa << 13);
  if (mantissa == 0) return sign;
  // Subnormal: normalise mantissa * 2^-24.
  int shift = std::countl_zero(mantissa) - 21;  // brings the leading one to bit 10
  mantissa = (mantissa << shift) & 0x3FFu;
  return sign | (static_cast<std::uint32_t>(113 - shift) << 23) | (mantissa << 13);
}

constexpr std::uint16_t f32_bits_to_bf16(std::uint32_t x) {
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) return kCanonicalNanBF16;
  std::uint32_t q = x >> 16;
  std::uint32_t rem = x & 0xFFFFu;
  if (rem > 0x8000u || (rem == 0x8000u && (q & 1u))) ++q;  // a carry rounds up to inf on overflow
  return static_cast<std::uint16_t>(q);
}

constexpr std::uint32_t bf16_to_f32_bits(std::uint16_t b) { return static_cast<std::uint32_t>(b) << 16; }

}  // namespace vyre::refcpu
