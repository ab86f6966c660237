// Float unary operators (f32, f64): exact sign/rounding operations, correctly rounded sqrt and
// reciprocal (.rn, no flush to zero), classification, and the transcendentals through the math
// library. sign(±0) = ±0 and sign(NaN) = NaN.
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

Value plain(FunctionEmitter& f, std::string_view op, const Value& a) {
  Value v = f.value(a.type);
  f.ins("{}.{} {}, {};", op, float_type(a.type), v.reg, a.reg);
  return v;
}

// Rounding to an integral value in float format: cvt.r{n,m,p,z}i.fT.fT.
Value round_integral(FunctionEmitter& f, std::string_view mode, const Value& a) {
  Value v = f.value(a.type);
  f.ins("cvt.{}.{}.{} {}, {};", mode, float_type(a.type), float_type(a.type), v.reg, a.reg);
  return v;
}

// ±1 with a's sign, except a itself when a is ±0 or NaN.
Value sign(FunctionEmitter& f, const Value& a) {
  std::string_view t = float_type(a.type);
  Value unit = f.value(a.type);
  f.ins("copysign.{} {}, {}, {};", t, unit.reg, a.reg, float_immediate(a.type, 1.0));
  std::string zero_or_nan = f.reg(RegClass::Pred);
  f.ins("setp.equ.{} {}, {}, {};", t, zero_or_nan, a.reg, float_immediate(a.type, 0.0));
  return emit_select(f, a.type, zero_or_nan, a.reg, unit.reg);
}

Value classify(FunctionEmitter& f, std::string_view test, const Value& a) {
  Value v = f.value(Type::Bool);
  f.ins("testp.{}.{} {}, {};", test, float_type(a.type), v.reg, a.reg);
  return v;
}

}  // namespace

Value emit_float_unary(FunctionEmitter& f, UnOp op, const Value& a) {
  switch (op) {
    case UnOp::Neg: return plain(f, "neg", a);
    case UnOp::Abs: return plain(f, "abs", a);
    case UnOp::Sign: return sign(f, a);
    case UnOp::Floor: return round_integral(f, "rmi", a);
    case UnOp::Ceil: return round_integral(f, "rpi", a);
    case UnOp::Trunc: return round_integral(f, "rzi", a);
    case UnOp::Round: return round_integral(f, "rni", a);
    case UnOp::Sqrt: return plain(f, "sqrt.rn", a);
    case UnOp::Reciprocal: return plain(f, "rcp.rn", a);
    case UnOp::IsNan: return classify(f, "notanumber", a);
    case UnOp::IsInf: return classify(f, "infinite", a);
    case UnOp::IsFinite: return classify(f, "finite", a);
    case UnOp::InverseSqrt:
    case UnOp::Exp:
    case UnOp::Exp2:
    case UnOp::Log:
    case UnOp::Log2:
    case UnOp::Sin:
    case UnOp::Cos:
    case UnOp::Tan:
    case UnOp::Asin:
    case UnOp::Acos:
    case UnOp::Atan:
    case UnOp::Sinh:
    case UnOp::Cosh:
    case UnOp::Tanh: return emit_math_call(f, op, a);
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM,
       fmt::format("un.{}.{} is not an operator", un_op_name(op), type_name(a.type)),
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
