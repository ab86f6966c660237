// Host models of the collectives (vyre/group.hpp) for the CUDA tests: reductions with wrapping
// integer sums, folded in rank order, and seeded per-rank data.
#pragma once

#include <doctest/doctest.h>

#include <cstring>
#include <type_traits>
#include <vector>

#include "gpu_support.hpp"
#include "vyre/group.hpp"
#include "vyre/types.hpp"

namespace vyre::cudatest {

using host::Reduce;

template <class F>
inline void with_type(Type t, F&& f) {
  switch (t) {
    case Type::U32: return f(std::uint32_t{});
    case Type::I32: return f(std::int32_t{});
    case Type::U64: return f(std::uint64_t{});
    case Type::I64: return f(std::int64_t{});
    case Type::F32: return f(float{});
    case Type::F64: return f(double{});
    default: FAIL("no model for this type");
  }
}

template <class T>
T combine(T a, T b, Reduce op) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (op) {
      case Reduce::sum:
      case Reduce::sum_rank_order: return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
      case Reduce::min: return a < b ? a : b;
      case Reduce::max: return a > b ? a : b;
      case Reduce::bit_and: return static_cast<T>(a & b);
      case Reduce::bit_or: return static_cast<T>(a | b);
      case Reduce::bit_xor: return static_cast<T>(a ^ b);
    }
  } else {
    switch (op) {
      case Reduce::sum:
      case Reduce::sum_rank_order: return a + b;
      case Reduce::min: return a < b ? a : b;
      case Reduce::max: return a > b ? a : b;
      default: break;
    }
  }
  return a;
}

// Elements [first, first + count) of every part, reduced in rank order (float sums: ((p0 + p1) + p2)...).
inline ByteVector fold(Type t, Reduce op, const std::vector<ByteVector>& parts, std::size_t first, std::size_t count) {
  ByteVector out(count * vyre::byte_size(t));
  with_type(t, [&](auto zero) {
    using T = decltype(zero);
    for (std::size_t i = 0; i < count; ++i) {
      T acc;
      std::memcpy(&acc, parts[0].data() + (first + i) * sizeof(T), sizeof(T));
      for (std::size_t q = 1; q < parts.size(); ++q) {
        T v;
        std::memcpy(&v, parts[q].data() + (first + i) * sizeof(T), sizeof(T));
        acc = combine(acc, v, op);
      }
      std::memcpy(out.data() + i * sizeof(T), &acc, sizeof(T));
    }
  });
  return out;
}

inline std::vector<ByteVector> random_parts(Type t, int ranks, std::size_t count, std::uint64_t seed) {
  std::vector<ByteVector> parts;
  for (int r = 0; r < ranks; ++r) parts.push_back(random_elements(t, count, seed + static_cast<std::uint64_t>(r) * 101));
  return parts;
}

}  // namespace vyre::cudatest
