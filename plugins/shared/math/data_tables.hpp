// Constant data the math functions read: arrays of 64-bit words that each code generator places in
// module-scope memory (PTX `.global` arrays, SPIR-V private constant arrays).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace vyre::math {

struct DataTable {
  std::string_view name;               // the symbol in generated code
  std::span<const std::uint64_t> words;
};

// The bits of 2/pi for the Payne-Hanek range reduction: word 0 is zero (padding), word i >= 1 holds
// bits 64(i-1)+1 .. 64i after the binary point of 2/pi, most significant first.
const DataTable& two_over_pi_table();

}  // namespace vyre::math
