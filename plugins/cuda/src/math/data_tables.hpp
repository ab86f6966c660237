// Module-scope constant data the math functions read (PTX `.global` arrays of 64-bit words).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace vyre::cuda::math {

struct DataTable {
  std::string_view name;               // the PTX symbol
  std::span<const std::uint64_t> words;
};

// The bits of 2/pi for the Payne-Hanek range reduction: word 0 is zero (padding), word i >= 1 holds
// bits 64(i-1)+1 .. 64i after the binary point of 2/pi, most significant first.
const DataTable& two_over_pi_table();

// The PTX definition of a table: `.global .align 8 .b64 name[n] = {...};`
std::string data_table_ptx(const DataTable& table);

}  // namespace vyre::cuda::math
