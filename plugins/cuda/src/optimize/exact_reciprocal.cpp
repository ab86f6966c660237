// Exact reciprocals of power-of-two float literals (exact_reciprocal.hpp).
#include "optimize/exact_reciprocal.hpp"

namespace vyre::cuda::optimize {

std::optional<std::uint64_t> exact_reciprocal(Type t, std::uint64_t bits) {
  unsigned mantissa_bits = 0, exponent_bits = 0;
  if (t == Type::F32) {
    mantissa_bits = 23;
    exponent_bits = 8;
    bits &= 0xFFFFFFFFull;
  } else if (t == Type::F64) {
    mantissa_bits = 52;
    exponent_bits = 11;
  } else {
    return std::nullopt;
  }
  const std::uint64_t sign = bits >> (mantissa_bits + exponent_bits);
  const std::uint64_t exponent = (bits >> mantissa_bits) & ((std::uint64_t{1} << exponent_bits) - 1);
  const std::uint64_t mantissa = bits & ((std::uint64_t{1} << mantissa_bits) - 1);
  const std::uint64_t max_exponent = (std::uint64_t{1} << exponent_bits) - 1;  // inf/NaN
  const std::uint64_t bias = max_exponent >> 1;
  // d = ±2^(exponent - bias), a normal number; 1/d has the biased exponent 2 * bias - exponent,
  // which must be a normal one too: in [1, max_exponent - 1].
  if (mantissa != 0 || exponent == 0 || exponent >= max_exponent) return std::nullopt;
  const std::uint64_t reciprocal = 2 * bias - exponent;
  if (reciprocal == 0 || reciprocal >= max_exponent) return std::nullopt;
  return (sign << (mantissa_bits + exponent_bits)) | (reciprocal << mantissa_bits);
}

}  // namespace vyre::cuda::optimize
