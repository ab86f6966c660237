// Select (both arms already evaluated) and Fma (one rounding, .rn).
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

Value emit_select_value(FunctionEmitter& f, const Value& cond, const Value& a, const Value& b) {
  if (a.type != Type::Bool) return emit_select(f, a.type, cond.reg, a.reg, b.reg);
  // Predicates have no selp: (cond and a) or (not cond and b).
  std::string when_true = f.reg(RegClass::Pred);
  f.ins("and.pred {}, {}, {};", when_true, cond.reg, a.reg);
  std::string otherwise = emit_not(f, cond.reg);
  std::string when_false = f.reg(RegClass::Pred);
  f.ins("and.pred {}, {}, {};", when_false, otherwise, b.reg);
  Value v = f.value(Type::Bool);
  f.ins("or.pred {}, {}, {};", v.reg, when_true, when_false);
  return v;
}

Value emit_fma(FunctionEmitter& f, const Value& a, const Value& b, const Value& c) {
  if (a.type != Type::F32 && a.type != Type::F64)
    fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("fma on {}", type_name(a.type)),
         "validate the program before lowering it; fma takes f32 or f64");
  Value v = f.value(a.type);
  f.ins("fma.rn.{} {}, {}, {}, {};", float_type(a.type), v.reg, a.reg, b.reg, c.reg);
  return v;
}

}  // namespace vyre::cuda::codegen
