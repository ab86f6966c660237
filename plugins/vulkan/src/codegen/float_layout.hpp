// The bit layout of f32 and f64, for exact integer manipulation of float bit patterns.
#pragma once

#include <cstdint>

#include "vyre/types.hpp"

namespace vyre::vulkan::codegen {

struct FloatLayout {
  std::uint32_t width;           // 32 or 64
  std::uint32_t mantissa_bits;   // 23 or 52
  std::uint64_t sign;            // the sign bit
  std::uint64_t exponent_mask;   // all exponent bits (the bits of +inf)
  std::uint64_t mantissa_mask;
  std::uint64_t one;             // the bits of 1.0
  std::uint64_t canonical_nan;   // SPEC §2
  std::uint32_t bias;            // 127 or 1023 (both odd)
};

constexpr FloatLayout layout_of(Type t) {
  if (t == Type::F64)
    return {64, 52, 0x8000000000000000ull, 0x7FF0000000000000ull, 0x000FFFFFFFFFFFFFull,
            0x3FF0000000000000ull, 0x7FF8000000000000ull, 1023};
  return {32, 23, 0x80000000u, 0x7F800000u, 0x007FFFFFu, 0x3F800000u, 0x7FC00000u, 127};
}

}  // namespace vyre::vulkan::codegen
