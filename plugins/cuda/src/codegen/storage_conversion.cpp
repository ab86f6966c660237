// Widening loaded storage elements to value registers and narrowing values for stores.
#include "codegen/storage_conversion.hpp"

#include "codegen/expressions.hpp"
#include "codegen/target_info.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

constexpr const char* kF16CanonicalNan = "0x7E00";
constexpr const char* kBf16CanonicalNan = "0x7FC0";

// bf16 -> f32 is exact: the bf16 bits are the upper half of the f32 bits.
Value widen_bf16(FunctionEmitter& f, const std::string& raw) {
  std::string bits = f.reg(RegClass::B32);
  f.ins("shl.b32 {}, {}, 16;", bits, raw);
  Value v = f.value(Type::F32);
  f.ins("mov.b32 {}, {};", v.reg, bits);
  return v;
}

// `narrowed` (a 16-bit register holding `value` narrowed), or `canonical_nan` where `value` is NaN.
std::string with_canonical_nan(FunctionEmitter& f, const Value& value, const std::string& narrowed,
                               const char* canonical_nan) {
  std::string nan = f.reg(RegClass::Pred);
  f.ins("testp.notanumber.f32 {}, {};", nan, value.reg);
  std::string out = f.reg(RegClass::B16);
  f.ins("selp.b16 {}, {}, {}, {};", out, canonical_nan, narrowed, nan);
  return out;
}

// f32 -> f16, round to nearest even (overflow to inf, subnormals kept), NaN -> 0x7E00.
std::string narrow_f16(FunctionEmitter& f, const Value& value) {
  std::string half = f.reg(RegClass::B16);
  f.ins("cvt.rn.f16.f32 {}, {};", half, value.reg);
  return with_canonical_nan(f, value, half, kF16CanonicalNan);
}

// f32 -> bf16 with cvt.rn.bf16.f32 (sm_80+), NaN -> 0x7FC0.
std::string narrow_bf16_cvt(FunctionEmitter& f, const Value& value) {
  std::string half = f.reg(RegClass::B16);
  f.ins("cvt.rn.bf16.f32 {}, {};", half, value.reg);
  return with_canonical_nan(f, value, half, kBf16CanonicalNan);
}

// f32 -> bf16 in integer arithmetic (older targets): add 0x7FFF plus the lowest kept bit, keep the
// upper half. That is round to nearest even, and it carries an overflow into the inf pattern.
std::string narrow_bf16_integer(FunctionEmitter& f, const Value& value) {
  std::string bits = f.reg(RegClass::B32);
  f.ins("mov.b32 {}, {};", bits, value.reg);
  std::string lsb = f.reg(RegClass::B32);
  f.ins("bfe.u32 {}, {}, 16, 1;", lsb, bits);
  std::string biased = f.reg(RegClass::B32);
  f.ins("add.u32 {}, {}, 0x7FFF;", biased, bits);
  std::string rounded = f.reg(RegClass::B32);
  f.ins("add.u32 {}, {}, {};", rounded, biased, lsb);
  std::string upper = f.reg(RegClass::B32);
  f.ins("shr.u32 {}, {}, 16;", upper, rounded);
  std::string half = f.reg(RegClass::B16);
  f.ins("cvt.u16.u32 {}, {};", half, upper);
  return with_canonical_nan(f, value, half, kBf16CanonicalNan);
}

}  // namespace

StorageAccess storage_access(Type storage) {
  switch (storage) {
    case Type::Bool: return {RegClass::B32, "u32", RegClass::B32, "u32"};
    case Type::U32:
    case Type::I32: return {RegClass::B32, "b32", RegClass::B32, "b32"};
    case Type::U64:
    case Type::I64: return {RegClass::B64, "b64", RegClass::B64, "b64"};
    case Type::F32: return {RegClass::F32, "f32", RegClass::B32, "b32"};
    case Type::F64: return {RegClass::F64, "f64", RegClass::B64, "b64"};
    case Type::U8: return {RegClass::B32, "u8", RegClass::B32, "u8"};
    case Type::I8: return {RegClass::B32, "s8", RegClass::B32, "u8"};
    case Type::U16: return {RegClass::B32, "u16", RegClass::B32, "u16"};
    case Type::I16: return {RegClass::B32, "s16", RegClass::B32, "u16"};
    case Type::F16: return {RegClass::B16, "b16", RegClass::B16, "b16"};
    case Type::BF16: return {RegClass::B32, "u16", RegClass::B16, "b16"};
  }
  fail(VYRE_ERR_INVALID_PROGRAM, "a buffer has an unknown element type",
       "validate the program before lowering it");
}

std::string_view zero_immediate(RegClass c) {
  switch (c) {
    case RegClass::F32: return "0f00000000";
    case RegClass::F64: return "0d0000000000000000";
    default: return "0";
  }
}

Value widen_loaded(FunctionEmitter& f, Type storage, const std::string& raw) {
  switch (storage) {
    case Type::Bool: {
      std::string p = f.reg(RegClass::Pred);
      f.ins("setp.ne.u32 {}, {}, 0;", p, raw);
      return Value{p, Type::Bool};
    }
    case Type::F16: {
      Value v = f.value(Type::F32);
      f.ins("cvt.f32.f16 {}, {};", v.reg, raw);
      return v;
    }
    case Type::BF16: return widen_bf16(f, raw);
    default: return Value{raw, widen(storage)};
  }
}

std::string narrow_for_store(FunctionEmitter& f, Type storage, const Value& value) {
  switch (storage) {
    case Type::Bool: {
      std::string word = f.reg(RegClass::B32);
      f.ins("selp.u32 {}, 1, 0, {};", word, value.reg);
      return word;
    }
    case Type::F32:
    case Type::F64: return emit_canonical_bits(f, value).reg;
    case Type::F16: return narrow_f16(f, value);
    case Type::BF16:
      return has_bf16_convert(f.target()) ? narrow_bf16_cvt(f, value) : narrow_bf16_integer(f, value);
    default: return value.reg;  // integers: st.u8/u16/b32/b64 truncate
  }
}

}  // namespace vyre::cuda::codegen
