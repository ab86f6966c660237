// Integer operator semantics (SPEC §2 "Operators"; docs/SEMANTICS.md "Operators"): total
// functions on two's complement values, no undefined behaviour in C++ either (every wrap goes
// through the unsigned type).
#pragma once

#include <bit>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace vyre::refcpu::intops {

__extension__ typedef __int128 i128;
__extension__ typedef unsigned __int128 u128;

template <class T>
using U = std::make_unsigned_t<T>;
template <class T>
inline constexpr bool kSigned = std::is_signed_v<T>;
template <class T>
inline constexpr std::uint32_t kWidth = sizeof(T) * 8;

template <class T>
constexpr T add(T a, T b) { return static_cast<T>(static_cast<U<T>>(static_cast<U<T>>(a) + static_cast<U<T>>(b))); }
template <class T>
constexpr T sub(T a, T b) { return static_cast<T>(static_cast<U<T>>(static_cast<U<T>>(a) - static_cast<U<T>>(b))); }
template <class T>
constexpr T mul(T a, T b) {
  // Promote through u64 / u128 so that u32 * u32 never becomes a signed int multiply.
  if constexpr (sizeof(T) <= 4) {
    return static_cast<T>(static_cast<std::uint64_t>(static_cast<U<T>>(a)) * static_cast<U<T>>(b));
  } else {
    return static_cast<T>(static_cast<U<T>>(a) * static_cast<U<T>>(b));
  }
}
template <class T>
constexpr T neg(T a) { return static_cast<T>(static_cast<U<T>>(U<T>{0} - static_cast<U<T>>(a))); }

// RISC-V M: x/0 = all ones (-1 signed), x%0 = x, MIN/-1 = MIN, MIN%-1 = 0.
template <class T>
constexpr T div(T a, T b) {
  if (b == 0) return static_cast<T>(~U<T>{0});
  if constexpr (kSigned<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return a;
  }
  return static_cast<T>(a / b);
}
template <class T>
constexpr T mod(T a, T b) {
  if (b == 0) return a;
  if constexpr (kSigned<T>) {
    if (a == std::numeric_limits<T>::min() && b == -1) return 0;
  }
  return static_cast<T>(a % b);
}

// Shift amounts are u32 taken modulo the bit width; shr is arithmetic for signed types.
template <class T>
constexpr T shl(T a, std::uint32_t amount) {
  return static_cast<T>(static_cast<U<T>>(static_cast<U<T>>(a) << (amount % kWidth<T>)));
}
template <class T>
constexpr T shr(T a, std::uint32_t amount) {
  return static_cast<T>(a >> (amount % kWidth<T>));  // arithmetic for signed (C++20)
}
template <class T>
constexpr T rotl(T a, std::uint32_t amount) {
  return static_cast<T>(std::rotl(static_cast<U<T>>(a), static_cast<int>(amount % kWidth<T>)));
}
template <class T>
constexpr T rotr(T a, std::uint32_t amount) {
  return static_cast<T>(std::rotr(static_cast<U<T>>(a), static_cast<int>(amount % kWidth<T>)));
}

template <class T>
constexpr T min(T a, T b) { return b < a ? b : a; }
template <class T>
constexpr T max(T a, T b) { return a < b ? b : a; }
template <class T>
constexpr U<T> abs_diff(T a, T b) {
  return a > b ? static_cast<U<T>>(static_cast<U<T>>(a) - static_cast<U<T>>(b))
               : static_cast<U<T>>(static_cast<U<T>>(b) - static_cast<U<T>>(a));
}

template <class T>
constexpr T sat_add(T a, T b) {
  T r{};
  if (!__builtin_add_overflow(a, b, &r)) return r;
  if constexpr (kSigned<T>) return b > 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  return std::numeric_limits<T>::max();
}
template <class T>
constexpr T sat_sub(T a, T b) {
  T r{};
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  if constexpr (kSigned<T>) return b < 0 ? std::numeric_limits<T>::max() : std::numeric_limits<T>::min();
  return std::numeric_limits<T>::min();
}
// Signed overflow saturates toward the sign of the exact product.
template <class T>
constexpr T sat_mul(T a, T b) {
  T r{};
  if (!__builtin_mul_overflow(a, b, &r)) return r;
  if constexpr (kSigned<T>) {
    return (a < 0) != (b < 0) ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  }
  return std::numeric_limits<T>::max();
}
// Upper half of the exact double-width product (signed for signed types).
template <class T>
constexpr T mul_high(T a, T b) {
  if constexpr (sizeof(T) == 4) {
    if constexpr (kSigned<T>) {
      std::int64_t p = static_cast<std::int64_t>(a) * static_cast<std::int64_t>(b);
      return static_cast<T>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(p) >> 32));
    } else {
      std::uint64_t p = static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b);
      return static_cast<T>(p >> 32);
    }
  } else {
    if constexpr (kSigned<T>) {
      i128 p = static_cast<i128>(a) * static_cast<i128>(b);
      return static_cast<T>(static_cast<std::uint64_t>(static_cast<u128>(p) >> 64));
    } else {
      u128 p = static_cast<u128>(a) * static_cast<u128>(b);
      return static_cast<T>(p >> 64);
    }
  }
}

// abs(MIN) = MIN; abs of an unsigned value is the value.
template <class T>
constexpr T abs(T a) {
  if constexpr (kSigned<T>) return a < 0 ? neg(a) : a;
  return a;
}
// -1/0/1 (0/1 for unsigned values).
template <class T>
constexpr T sign(T a) {
  if constexpr (kSigned<T>) return static_cast<T>((a > 0) - (a < 0));
  return a != 0 ? T{1} : T{0};
}
template <class T>
constexpr std::uint32_t popcount(T a) { return static_cast<std::uint32_t>(std::popcount(static_cast<U<T>>(a))); }
template <class T>
constexpr std::uint32_t clz(T a) { return static_cast<std::uint32_t>(std::countl_zero(static_cast<U<T>>(a))); }
template <class T>
constexpr std::uint32_t ctz(T a) { return static_cast<std::uint32_t>(std::countr_zero(static_cast<U<T>>(a))); }

constexpr std::uint32_t reverse_bits32(std::uint32_t v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
  v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
  return (v >> 16) | (v << 16);
}
template <class T>
constexpr T reverse_bits(T a) {
  if constexpr (sizeof(T) == 4) return static_cast<T>(reverse_bits32(static_cast<std::uint32_t>(a)));
  auto v = static_cast<std::uint64_t>(a);
  std::uint64_t lo = reverse_bits32(static_cast<std::uint32_t>(v));
  std::uint64_t hi = reverse_bits32(static_cast<std::uint32_t>(v >> 32));
  return static_cast<T>((lo << 32) | hi);
}

}  // namespace vyre::refcpu::intops
