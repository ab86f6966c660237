// Float division by a power of two as a multiplication (issue 11 §2). For a literal divisor
// d = ±2^k whose reciprocal ±2^-k is a normal number of the same type, x / d and x * (1/d) are
// the same real number for every x, so the correctly rounded div.rn and mul.rn (round to nearest
// even, no flush to zero) give the same bits for every x: subnormal results, overflow to infinity,
// signed zeros, infinities and NaN included. mul.rn is one FMUL where div.rn is a reciprocal
// iteration with a range check and an out-of-line slow path (FCHK, CALL) in SASS.
#pragma once

#include <cstdint>
#include <optional>

#include "vyre/ir.hpp"

namespace vyre::cuda::optimize {

// The bits of 1/d when `bits` (an f32 or f64 literal's bits) is ±2^k with 1/d a normal number of
// type `t`; nullopt for every other value or type (zeros, subnormals, non-powers of two, inf, NaN,
// and powers of two whose reciprocal would be subnormal or overflow).
std::optional<std::uint64_t> exact_reciprocal(Type t, std::uint64_t bits);

}  // namespace vyre::cuda::optimize
