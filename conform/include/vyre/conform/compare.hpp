// The comparison policy of SPEC §5 and typed formatting of values.
//
// Integers, bools, f16/bf16 storage and every op with a zero tolerance compare bit for bit. Other
// float results compare by ULP distance on the ordered-bit scale (the sign-magnitude bit pattern
// mapped to a monotonic integer, so that adjacent floats are 1 apart, +0 and -0 meet at 0 and a
// sign crossing adds both magnitudes); NaN matches only NaN and the actual NaN must be canonical;
// ±inf and ±0 must match exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "vyre/ops.hpp"
#include "vyre/types.hpp"

namespace vyre::conform {

// Position of a float's bits on the ordered scale (-magnitude for negative values). `t` is a float
// storage type; `bits` is zero-extended from its width.
std::int64_t ordered_bits(Type t, std::uint64_t bits);

// |ordered(a) - ordered(b)|, saturating at UINT64_MAX. Meaningful for non-NaN values; any NaN gives
// UINT64_MAX unless both are NaN (then 0).
std::uint64_t ulp_distance(Type t, std::uint64_t a, std::uint64_t b);

bool is_nan_bits(Type t, std::uint64_t bits);
bool is_inf_bits(Type t, std::uint64_t bits);
bool is_zero_bits(Type t, std::uint64_t bits);

struct Verdict {
  bool match = true;
  // ULP distance for float types (0 when equal, UINT64_MAX when NaN meets a number); nullopt for
  // integer and bool types.
  std::optional<std::uint64_t> ulp;
};

// Compare one element of storage type `t`: `expected` from the reference, `actual` from the
// candidate. With a zero tolerance, or for non-float types, the bits must be equal.
Verdict compare_value(Type t, Tolerance tolerance, std::uint64_t expected, std::uint64_t actual);

// The value as typed text: "1.5", "-0", "nan", "-inf", "4294967295", "-1", "true".
// Floats print the shortest text that reads back to the same bits (f16/bf16 via f32).
std::string format_typed(Type t, std::uint64_t bits);
// "0x3fc00000" with the type's full width of hex digits.
std::string format_hex(Type t, std::uint64_t bits);
// "f32 1.5 (0x3fc00000)".
std::string format_value(Type t, std::uint64_t bits);

// Decode an element of storage type `t` from little-endian bytes at `data` (byte_size(t) bytes).
std::uint64_t read_element(Type t, const std::uint8_t* data);
// Encode `bits` (truncated to the type's width) as little-endian bytes at `data`.
void write_element(Type t, std::uint64_t bits, std::uint8_t* data);

// The value of a float storage type as a double (exact for f16, bf16, f32).
double float_value(Type t, std::uint64_t bits);

}  // namespace vyre::conform
