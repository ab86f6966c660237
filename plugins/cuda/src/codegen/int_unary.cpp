// Integer unary operators (u32, i32, u64, i64). Bit counts return u32; clz(0) = ctz(0) = width;
// abs(MIN) = MIN; neg wraps; abs of an unsigned value is the value; sign is -1/0/1 (0/1 unsigned).
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

bool is_signed(Type t) { return t == Type::I32 || t == Type::I64; }
std::string signed_type(Type t) { return is_wide(t) ? "s64" : "s32"; }

Value negate(FunctionEmitter& f, const Value& a) {
  Value v = f.value(a.type);
  f.ins("neg.{} {}, {};", signed_type(a.type), v.reg, a.reg);
  return v;
}

// max(a, -a) in two's complement: |a|, and MIN for MIN (no reliance on abs.s32 of MIN).
Value absolute(FunctionEmitter& f, const Value& a) {
  if (!is_signed(a.type)) return a;
  Value negated = negate(f, a);
  Value v = f.value(a.type);
  f.ins("max.{} {}, {}, {};", int_type(a.type), v.reg, a.reg, negated.reg);
  return v;
}

Value sign(FunctionEmitter& f, const Value& a) {
  std::string_view bits = bits_type(a.type);
  std::string positive = f.reg(RegClass::Pred);
  f.ins("setp.{}.{} {}, {}, 0;", is_signed(a.type) ? "gt" : "ne", int_type(a.type), positive,
        a.reg);
  Value one_or_zero = f.value(a.type);
  f.ins("selp.{} {}, 1, 0, {};", bits, one_or_zero.reg, positive);
  if (!is_signed(a.type)) return one_or_zero;
  std::string negative = f.reg(RegClass::Pred);
  f.ins("setp.lt.{} {}, {}, 0;", int_type(a.type), negative, a.reg);
  Value v = f.value(a.type);
  f.ins("selp.{} {}, -1, {}, {};", bits, v.reg, one_or_zero.reg, negative);
  return v;
}

Value bit_count(FunctionEmitter& f, std::string_view op, const Value& a) {
  Value v = f.value(Type::U32);
  f.ins("{}.{} {}, {};", op, bits_type(a.type), v.reg, a.reg);
  return v;
}

Value reverse_bits(FunctionEmitter& f, const Value& a) {
  Value v = f.value(a.type);
  f.ins("brev.{} {}, {};", bits_type(a.type), v.reg, a.reg);
  return v;
}

}  // namespace

Value emit_int_unary(FunctionEmitter& f, UnOp op, const Value& a) {
  switch (op) {
    case UnOp::Neg: return negate(f, a);
    case UnOp::Not: {
      Value v = f.value(a.type);
      f.ins("not.{} {}, {};", bits_type(a.type), v.reg, a.reg);
      return v;
    }
    case UnOp::LogicalNot: {
      Value v = f.value(Type::Bool);
      f.ins("setp.eq.{} {}, {}, 0;", int_type(a.type), v.reg, a.reg);
      return v;
    }
    case UnOp::Abs: return absolute(f, a);
    case UnOp::Sign: return sign(f, a);
    case UnOp::Popcount: return bit_count(f, "popc", a);
    case UnOp::Clz: return bit_count(f, "clz", a);
    case UnOp::Ctz: return bit_count(f, "clz", reverse_bits(f, a));
    case UnOp::ReverseBits: return reverse_bits(f, a);
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM,
       fmt::format("un.{}.{} is not an operator", un_op_name(op), type_name(a.type)),
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
