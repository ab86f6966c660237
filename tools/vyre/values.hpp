// Typed values on the command line: parsing input bytes and printing output bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/types.hpp"

namespace vyre::cli {

// "0a0b0c0d" (spaces, '_' and ',' between bytes allowed) -> bytes. Throws UsageError.
std::vector<std::byte> parse_hex(std::string_view text);

// "1,2,-3" or "1.5,nan,-inf" as elements of `type`, little-endian. Throws UsageError (f16/bf16
// values are not parsed: pass hex: or a file).
std::vector<std::byte> parse_values(Type type, std::string_view text);

// `count` pseudo-random elements of `type`, reproducible from `seed`: integers uniform over their
// bits, bools 0/1, floats uniform in [-1, 1) (f16/bf16 rounded from such an f32), never NaN/inf.
std::vector<std::byte> random_values(Type type, std::size_t count, std::uint64_t seed);

// One element of `type` at `bytes` (size byte_size(type)) as text: "7", "-1", "0.5", "nan",
// "true".
std::string format_value(Type type, std::span<const std::byte> bytes);

// Bytes as hex, grouped per element ("01000000 02000000").
std::string format_hex(std::span<const std::byte> bytes, std::size_t group);

}  // namespace vyre::cli
