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

// SPEC's min/max is PTX's min/max.f32/f64 as the PTX ISA defines them (9.7.3.11-12): the other
// operand where one is NaN, and "if values of both inputs are 0.0, then +0.0 > -0.0", so
// min(-0, +0) = -0 and max(-0, +0) = +0. (A NaN out of two NaNs is canonicalised where it is stored.)
Value min_max(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  Value v = f.value(a.type);
  f.ins("{}.{} {}, {}, {};", op == BinOp::Min ? "min" : "max", float_type(a.type), v.reg, a.reg, b.reg);
  return v;
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
