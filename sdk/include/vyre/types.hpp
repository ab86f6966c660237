// Scalar types of the vyre IR (SPEC §2 "Types").
//
// Value types are what expressions compute; storage types are what buffers hold. Every value
// type is also a storage type; the narrow storage types (u8, u16, i8, i16, f16, bf16) widen to a
// value type on load and narrow again on store.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace vyre {

enum class Type : std::uint8_t {
  Bool = 0,
  U32 = 1,
  I32 = 2,
  U64 = 3,
  I64 = 4,
  F32 = 5,
  F64 = 6,
  U8 = 7,
  U16 = 8,
  I8 = 9,
  I16 = 10,
  F16 = 11,
  BF16 = 12,
};

inline constexpr int kTypeCount = 13;

// All value types, in a fixed order used by the op catalog.
inline constexpr Type kValueTypes[] = {Type::Bool, Type::U32, Type::I32, Type::U64,
                                       Type::I64,  Type::F32, Type::F64};
// All storage types (value types first, then the narrow ones).
inline constexpr Type kStorageTypes[] = {Type::Bool, Type::U32, Type::I32, Type::U64, Type::I64,
                                         Type::F32,  Type::F64, Type::U8,  Type::U16, Type::I8,
                                         Type::I16,  Type::F16, Type::BF16};

constexpr bool is_value_type(Type t) { return static_cast<int>(t) <= static_cast<int>(Type::F64); }
constexpr bool is_valid_type(Type t) { return static_cast<int>(t) < kTypeCount; }

constexpr bool is_float(Type t) {
  return t == Type::F32 || t == Type::F64 || t == Type::F16 || t == Type::BF16;
}
constexpr bool is_signed_int(Type t) {
  return t == Type::I32 || t == Type::I64 || t == Type::I8 || t == Type::I16;
}
constexpr bool is_unsigned_int(Type t) {
  return t == Type::U32 || t == Type::U64 || t == Type::U8 || t == Type::U16;
}
constexpr bool is_int(Type t) { return is_signed_int(t) || is_unsigned_int(t); }

// Bytes one element occupies in a buffer. `bool` is stored as a 4-byte word.
constexpr std::uint32_t byte_size(Type t) {
  switch (t) {
    case Type::U8:
    case Type::I8: return 1;
    case Type::U16:
    case Type::I16:
    case Type::F16:
    case Type::BF16: return 2;
    case Type::Bool:
    case Type::U32:
    case Type::I32:
    case Type::F32: return 4;
    case Type::U64:
    case Type::I64:
    case Type::F64: return 8;
  }
  return 0;
}

// Width in bits of a value (bool counts as 1).
constexpr std::uint32_t bit_width(Type t) { return t == Type::Bool ? 1 : byte_size(t) * 8; }

// The value type a load of storage type `t` yields: u8,u16 -> u32; i8,i16 -> i32; f16,bf16 -> f32.
constexpr Type widen(Type t) {
  switch (t) {
    case Type::U8:
    case Type::U16: return Type::U32;
    case Type::I8:
    case Type::I16: return Type::I32;
    case Type::F16:
    case Type::BF16: return Type::F32;
    default: return t;
  }
}

// The unsigned integer type of the same width as integer value type `t` (for abs_diff).
constexpr Type unsigned_of(Type t) {
  switch (t) {
    case Type::I32: return Type::U32;
    case Type::I64: return Type::U64;
    default: return t;
  }
}

// Lower-case name used in op ids, JSON and messages ("u32", "bf16", ...).
std::string_view type_name(Type t);
std::optional<Type> parse_type(std::string_view name);

}  // namespace vyre
