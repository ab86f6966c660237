// IEEE binary16 conversions on the host (SPEC §2: f16 loads widen exactly, stores round to nearest
// even, overflow to inf, NaN to the canonical 0x7E00).
#pragma once

#include <bit>
#include <cstdint>

namespace vyre::bench::kernels {

inline float f16_to_f32(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  const std::uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  if (exponent == 0) {  // zero or subnormal: mantissa x 2^-24, exact in f32
    const float magnitude = static_cast<float>(mantissa) * 0x1p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

inline std::uint16_t f32_to_f16(float f) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const std::uint16_t sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t abs = bits & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return 0x7E00;                      // NaN
  if (abs >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to inf (>= 65520)
  if (abs < 0x38800000u) {                                   // below 2^-14: subnormal or zero
    // value = abs_float; subnormal step 2^-24: round(value / 2^-24) to nearest even.
    const float scaled = std::bit_cast<float>(abs) * 0x1p24f;  // exact (power of two)
    const std::uint32_t whole = static_cast<std::uint32_t>(scaled);
    const float rest = scaled - static_cast<float>(whole);
    std::uint32_t m = whole;
    if (rest > 0.5f || (rest == 0.5f && (whole & 1u))) ++m;
    return static_cast<std::uint16_t>(sign | m);
  }
  const std::uint32_t exponent = ((abs >> 23) - 112) << 10;
  const std::uint32_t mantissa = abs & 0x7FFFFFu;
  std::uint32_t h = exponent | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;  // may carry into the exponent: still right
  return static_cast<std::uint16_t>(sign | h);
}

}  // namespace vyre::bench::kernels
