// Bit layouts of the float storage types (private to conform).
#pragma once

#include <cstdint>

#include "vyre/types.hpp"

namespace vyre::conform::detail {

struct FloatLayout {
  std::uint32_t exponent_bits = 0;
  std::uint32_t mantissa_bits = 0;

  std::uint32_t width() const { return 1 + exponent_bits + mantissa_bits; }
  std::uint64_t sign_mask() const { return std::uint64_t{1} << (exponent_bits + mantissa_bits); }
  std::uint64_t magnitude_mask() const { return sign_mask() - 1; }
  std::uint64_t mantissa_mask() const { return (std::uint64_t{1} << mantissa_bits) - 1; }
  std::uint64_t max_exponent_field() const { return (std::uint64_t{1} << exponent_bits) - 1; }
  std::uint64_t inf_bits() const { return max_exponent_field() << mantissa_bits; }
  std::uint64_t quiet_nan_bits() const {
    return inf_bits() | (std::uint64_t{1} << (mantissa_bits - 1));
  }
  int bias() const { return (1 << (exponent_bits - 1)) - 1; }
};

// The layout of float storage type `t` (f16, bf16, f32, f64); zero widths for other types.
constexpr FloatLayout float_layout(Type t) {
  switch (t) {
    case Type::F16: return {5, 10};
    case Type::BF16: return {8, 7};
    case Type::F32: return {8, 23};
    case Type::F64: return {11, 52};
    default: return {};
  }
}

constexpr std::uint64_t width_mask(Type t) {
  const std::uint32_t bits = bit_width(t);
  return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
}

}  // namespace vyre::conform::detail
