// How vyre value types live in PTX registers and how they are spelled in instructions.
//
//   bool      -> .pred   (%p)       u32, i32 -> .b32 (%r)     u64, i64 -> .b64 (%rd)
//   f32       -> .f32    (%f)       f64      -> .f64 (%fd)    16-bit storage scratch -> .b16 (%h)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vyre/types.hpp"

namespace vyre::cuda::codegen {

enum class RegClass : std::uint8_t { Pred, B16, B32, B64, F32, F64 };
inline constexpr int kRegClassCount = 6;

// The register class that holds a value of value type `t`.
RegClass reg_class(Type t);
std::string_view reg_class_decl(RegClass c);    // ".pred", ".b16", ...
std::string_view reg_class_prefix(RegClass c);  // "%p", "%h", ...
std::string_view mov_type(RegClass c);          // "pred", "b16", "b32", "b64", "f32", "f64"

bool is_wide(Type t);  // a 64-bit value (u64, i64, f64)

// Instruction type suffixes (without the dot) for value types.
std::string_view int_type(Type t);    // u32 -> "u32", i32 -> "s32", u64 -> "u64", i64 -> "s64"
std::string_view bits_type(Type t);   // "b32" or "b64" (by width; bool has none)
std::string_view float_type(Type t);  // "f32" or "f64"

// The PTX immediate for a literal of value type `t` whose bits are `bits` (zero-extended).
std::string immediate(Type t, std::uint64_t bits);
// Immediates for the canonical quiet NaN and for ±0 / 1 of a float type.
std::string canonical_nan_bits(Type t);  // integer immediate of the canonical NaN's bits
std::string float_immediate(Type t, double value);

}  // namespace vyre::cuda::codegen
