// Float binary operators (f32, f64): IEEE round-to-nearest-even arithmetic (explicit .rn, which
// also keeps ptxas from contracting mul+add into fma), no flush to zero, SPEC's min/max and
// comparisons that are false on NaN except `ne`.
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

Value rounded(FunctionEmitter& f, std::string_view op, const Value& a, const Value& b) {
  Value v = f.value(a.type);
  f.ins("{}.rn.{} {}, {}, {};", op, float_type(a.type), v.reg, a.reg, b.reg);
  return v;
}

// min/max.f32/f64 return the other operand when one is NaN and order -0 below +0 (PTX ISA). The
// zero case is also fixed up explicitly: operands that compare equal differ at most in the sign
// of zero, so min is their bitwise OR (-0 wins) and max their bitwise AND (+0 wins).
Value min_max(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  bool is_min = op == BinOp::Min;
  Type t = a.type;
  std::string_view bits = bits_type(t);
  RegClass bits_class = is_wide(t) ? RegClass::B64 : RegClass::B32;
  Value picked = f.value(t);
  f.ins("{}.{} {}, {}, {};", is_min ? "min" : "max", float_type(t), picked.reg, a.reg, b.reg);
  std::string equal = f.reg(RegClass::Pred);
  f.ins("setp.eq.{} {}, {}, {};", float_type(t), equal, a.reg, b.reg);
  std::string a_bits = f.reg(bits_class);
  std::string b_bits = f.reg(bits_class);
  f.ins("mov.{} {}, {};", bits, a_bits, a.reg);
  f.ins("mov.{} {}, {};", bits, b_bits, b.reg);
  std::string merged_bits = f.reg(bits_class);
  f.ins("{}.{} {}, {}, {};", is_min ? "or" : "and", bits, merged_bits, a_bits, b_bits);
  Value merged = f.value(t);
  f.ins("mov.{} {}, {};", bits, merged.reg, merged_bits);
  return emit_select(f, t, equal, merged.reg, picked.reg);
}

Value comparison(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  // Ne is unordered-or-not-equal (NaN != x is true); the other conditions are ordered (false on NaN).
  const std::string_view cmp = op == BinOp::Ne ? "neu" : comparison_condition(op);
  Value v = f.value(Type::Bool);
  f.ins("setp.{}.{} {}, {}, {};", cmp, float_type(a.type), v.reg, a.reg, b.reg);
  return v;
}

}  // namespace

Value emit_float_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  switch (op) {
    case BinOp::Add: return rounded(f, "add", a, b);
    case BinOp::Sub: return rounded(f, "sub", a, b);
    case BinOp::Mul: return rounded(f, "mul", a, b);
    case BinOp::Div: return rounded(f, "div", a, b);
    case BinOp::Min:
    case BinOp::Max: return min_max(f, op, a, b);
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge: return comparison(f, op, a, b);
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM,
       fmt::format("bin.{}.{} is not an operator", bin_op_name(op), type_name(a.type)),
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
