// Register classes, instruction type suffixes and immediates of the PTX emitter.
#include "codegen/ptx_types.hpp"

#include <bit>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

RegClass reg_class(Type t) {
  switch (t) {
    case Type::Bool: return RegClass::Pred;
    case Type::U32:
    case Type::I32: return RegClass::B32;
    case Type::U64:
    case Type::I64: return RegClass::B64;
    case Type::F32: return RegClass::F32;
    case Type::F64: return RegClass::F64;
    default: break;
  }
  fail(VYRE_ERR_INTERNAL, fmt::format("the PTX emitter asked for a register of storage type {}",
                                      type_name(t)),
       "report this bug; narrow storage types are widened before they reach a register");
}

std::string_view reg_class_decl(RegClass c) {
  constexpr std::string_view names[] = {".pred", ".b16", ".b32", ".b64", ".f32", ".f64"};
  return names[static_cast<int>(c)];
}

std::string_view reg_class_prefix(RegClass c) {
  constexpr std::string_view names[] = {"%p", "%h", "%r", "%rd", "%f", "%fd"};
  return names[static_cast<int>(c)];
}

std::string_view mov_type(RegClass c) {
  constexpr std::string_view names[] = {"pred", "b16", "b32", "b64", "f32", "f64"};
  return names[static_cast<int>(c)];
}

bool is_wide(Type t) { return t == Type::U64 || t == Type::I64 || t == Type::F64; }

std::string_view int_type(Type t) {
  switch (t) {
    case Type::U32: return "u32";
    case Type::I32: return "s32";
    case Type::U64: return "u64";
    case Type::I64: return "s64";
    default: break;
  }
  fail(VYRE_ERR_INTERNAL, fmt::format("int_type of {}", type_name(t)),
       "report this bug; only integer value types have an integer suffix");
}

std::string_view bits_type(Type t) { return is_wide(t) ? "b64" : "b32"; }

std::string_view float_type(Type t) { return t == Type::F64 ? "f64" : "f32"; }

std::string immediate(Type t, std::uint64_t bits) {
  switch (t) {
    case Type::Bool: return bits != 0 ? "1" : "0";
    case Type::F32: return fmt::format("0f{:08X}", static_cast<std::uint32_t>(bits));
    case Type::F64: return fmt::format("0d{:016X}", bits);
    case Type::U64:
    case Type::I64: return fmt::format("0x{:016X}", bits);
    default: return fmt::format("0x{:08X}", static_cast<std::uint32_t>(bits));
  }
}

std::string canonical_nan_bits(Type t) {
  return t == Type::F64 ? "0x7FF8000000000000" : "0x7FC00000";
}

std::string float_immediate(Type t, double value) {
  if (t == Type::F64) return immediate(t, std::bit_cast<std::uint64_t>(value));
  return immediate(t, std::bit_cast<std::uint32_t>(static_cast<float>(value)));
}

}  // namespace vyre::cuda::codegen
