// Bit-level helpers for the tests of the exact and seeded float algorithms (test_exact_arith,
// test_seeded_div_sqrt): the unsigned type of a float's width, bit equality (any NaN matches any
// NaN), and a value printed with its bits.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace vyre::test {

template <class T>
using UInt = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

template <class T>
bool same(T expected, T actual) {
  if (std::isnan(expected)) return std::isnan(actual);
  return std::bit_cast<UInt<T>>(expected) == std::bit_cast<UInt<T>>(actual);
}

// "1.5 (0x3fc00000)"
template <class T>
std::string hex(T v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g (0x%llx)", static_cast<double>(v),
                static_cast<unsigned long long>(std::bit_cast<UInt<T>>(v)));
  return buf;
}

}  // namespace vyre::test
