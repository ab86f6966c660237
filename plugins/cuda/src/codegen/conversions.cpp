// Cast and Bitcast (SPEC §2 "Casts", SEMANTICS "NaN bit patterns are never observable").
//   int -> int     truncate, or extend by the source's signedness
//   int -> float   round to nearest even (cvt.rn)
//   float -> int   round toward zero, saturate (cvt.rzi clamps by default), NaN -> 0 (explicit:
//                  cvt yields MIN-like patterns for NaN from f64 or into 64-bit integers)
//   f64 -> f32     round to nearest even; f32 -> f64 exact
//   bool -> number 0/1; number -> bool `x != 0` (NaN -> true, -0 -> false)
//   bitcast float -> int yields the canonical NaN's bits for every NaN
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

bool is_float_value(Type t) { return t == Type::F32 || t == Type::F64; }
bool is_signed(Type t) { return t == Type::I32 || t == Type::I64; }

Value from_bool(FunctionEmitter& f, Type to, const Value& a) {
  if (is_float_value(to))
    return emit_select(f, to, a.reg, float_immediate(to, 1.0), float_immediate(to, 0.0));
  Value v = f.value(to);
  f.ins("selp.{} {}, 1, 0, {};", bits_type(to), v.reg, a.reg);
  return v;
}

Value to_bool(FunctionEmitter& f, const Value& a) {
  if (!is_float_value(a.type)) return Value{emit_nonzero(f, a), Type::Bool};
  Value v = f.value(Type::Bool);
  f.ins("setp.neu.{} {}, {}, {};", float_type(a.type), v.reg, a.reg, float_immediate(a.type, 0.0));
  return v;
}

Value int_to_int(FunctionEmitter& f, Type to, const Value& a) {
  Value v = f.value(to);
  if (is_wide(to) == is_wide(a.type)) {
    f.ins("mov.{} {}, {};", bits_type(to), v.reg, a.reg);
  } else if (is_wide(to)) {
    std::string_view source = is_signed(a.type) ? "s32" : "u32";
    f.ins("cvt.{}64.{} {}, {};", is_signed(a.type) ? "s" : "u", source, v.reg, a.reg);
  } else {
    f.ins("cvt.u32.u64 {}, {};", v.reg, a.reg);
  }
  return v;
}

Value int_to_float(FunctionEmitter& f, Type to, const Value& a) {
  Value v = f.value(to);
  f.ins("cvt.rn.{}.{} {}, {};", float_type(to), int_type(a.type), v.reg, a.reg);
  return v;
}

Value float_to_int(FunctionEmitter& f, Type to, const Value& a) {
  Value truncated = f.value(to);
  f.ins("cvt.rzi.{}.{} {}, {};", int_type(to), float_type(a.type), truncated.reg, a.reg);
  std::string nan = f.reg(RegClass::Pred);
  f.ins("testp.notanumber.{} {}, {};", float_type(a.type), nan, a.reg);
  Value v = f.value(to);
  f.ins("selp.{} {}, 0, {}, {};", bits_type(to), v.reg, truncated.reg, nan);
  return v;
}

Value float_to_float(FunctionEmitter& f, Type to, const Value& a) {
  Value v = f.value(to);
  if (to == Type::F64)
    f.ins("cvt.f64.f32 {}, {};", v.reg, a.reg);
  else
    f.ins("cvt.rn.f32.f64 {}, {};", v.reg, a.reg);
  return v;
}

}  // namespace

Value emit_cast(FunctionEmitter& f, Type to, const Value& a) {
  if (a.type == to)
    fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("a cast from {} to itself", type_name(to)),
         "validate the program before lowering it; drop the cast");
  if (a.type == Type::Bool) return from_bool(f, to, a);
  if (to == Type::Bool) return to_bool(f, a);
  bool from_float = is_float_value(a.type);
  bool to_float = is_float_value(to);
  if (!from_float && !to_float) return int_to_int(f, to, a);
  if (!from_float) return int_to_float(f, to, a);
  if (!to_float) return float_to_int(f, to, a);
  return float_to_float(f, to, a);
}

Value emit_canonical_bits(FunctionEmitter& f, const Value& value) {
  Type bits_value = is_wide(value.type) ? Type::U64 : Type::U32;
  Value bits = f.value(bits_value);
  f.ins("mov.{} {}, {};", bits_type(value.type), bits.reg, value.reg);
  std::string nan = f.reg(RegClass::Pred);
  f.ins("testp.notanumber.{} {}, {};", float_type(value.type), nan, value.reg);
  Value v = f.value(bits_value);
  f.ins("selp.{} {}, {}, {}, {};", bits_type(value.type), v.reg, canonical_nan_bits(value.type),
        bits.reg, nan);
  return v;
}

Value emit_bitcast(FunctionEmitter& f, Type to, const Value& a) {
  if (is_wide(a.type) != is_wide(to) || a.type == Type::Bool || to == Type::Bool)
    fail(VYRE_ERR_INVALID_PROGRAM,
         fmt::format("a bitcast from {} to {}", type_name(a.type), type_name(to)),
         "validate the program before lowering it; bitcast only between types of one width");
  if (is_float_value(a.type)) {
    Value bits = emit_canonical_bits(f, a);
    if (!is_float_value(to)) return Value{bits.reg, to};
    Value v = f.value(to);
    f.ins("mov.{} {}, {};", bits_type(to), v.reg, bits.reg);
    return v;
  }
  if (!is_float_value(to)) return Value{a.reg, to};  // same bits, same register class
  Value v = f.value(to);
  f.ins("mov.{} {}, {};", bits_type(to), v.reg, a.reg);
  return v;
}

}  // namespace vyre::cuda::codegen
