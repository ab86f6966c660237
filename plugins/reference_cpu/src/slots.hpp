// How values live in the reference interpreter's registers: every lane of every register is one
// 64-bit word holding the value's bits, zero-extended from the type's width (the same encoding as
// a Lit, docs/SEMANTICS.md "Types and literals"). Slot<T> converts between that word and the C++
// type that computes with it.
#pragma once

#include <bit>
#include <cstdint>

#include "vyre/types.hpp"

namespace vyre::refcpu {

inline constexpr std::uint32_t kCanonicalNanF32 = 0x7FC00000u;
inline constexpr std::uint64_t kCanonicalNanF64 = 0x7FF8000000000000ull;
inline constexpr std::uint16_t kCanonicalNanF16 = 0x7E00u;
inline constexpr std::uint16_t kCanonicalNanBF16 = 0x7FC0u;

template <Type T>
struct Slot;

template <>
struct Slot<Type::Bool> {
  using C = bool;
  static C get(std::uint64_t s) { return s != 0; }
  static std::uint64_t put(C v) { return v ? 1u : 0u; }
};
template <>
struct Slot<Type::U32> {
  using C = std::uint32_t;
  static C get(std::uint64_t s) { return static_cast<C>(s); }
  static std::uint64_t put(C v) { return v; }
};
template <>
struct Slot<Type::I32> {
  using C = std::int32_t;
  static C get(std::uint64_t s) { return static_cast<C>(static_cast<std::uint32_t>(s)); }
  static std::uint64_t put(C v) { return static_cast<std::uint32_t>(v); }
};
template <>
struct Slot<Type::U64> {
  using C = std::uint64_t;
  static C get(std::uint64_t s) { return s; }
  static std::uint64_t put(C v) { return v; }
};
template <>
struct Slot<Type::I64> {
  using C = std::int64_t;
  static C get(std::uint64_t s) { return static_cast<C>(s); }
  static std::uint64_t put(C v) { return static_cast<std::uint64_t>(v); }
};
template <>
struct Slot<Type::F32> {
  using C = float;
  static C get(std::uint64_t s) { return std::bit_cast<float>(static_cast<std::uint32_t>(s)); }
  static std::uint64_t put(C v) { return std::bit_cast<std::uint32_t>(v); }
};
template <>
struct Slot<Type::F64> {
  using C = double;
  static C get(std::uint64_t s) { return std::bit_cast<double>(s); }
  static std::uint64_t put(C v) { return std::bit_cast<std::uint64_t>(v); }
};

}  // namespace vyre::refcpu
