// Binary operators: dispatch by operand type, and the bool operators (predicate logic).
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

Value emit_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  switch (a.type) {
    case Type::Bool: return emit_bool_binary(f, op, a, b);
    case Type::F32:
    case Type::F64: return emit_float_binary(f, op, a, b);
    case Type::U32:
    case Type::I32:
    case Type::U64:
    case Type::I64: return emit_int_binary(f, op, a, b);
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("binary operator on type {}", type_name(a.type)),
       "validate the program before lowering it");
}

std::string_view comparison_condition(BinOp op) {
  switch (op) {
    case BinOp::Eq: return "eq";
    case BinOp::Ne: return "ne";
    case BinOp::Lt: return "lt";
    case BinOp::Le: return "le";
    case BinOp::Gt: return "gt";
    default: return "ge";
  }
}

Value emit_bool_binary(FunctionEmitter& f, BinOp op, const Value& a, const Value& b) {
  Value v = f.value(Type::Bool);
  switch (op) {
    case BinOp::And:
    case BinOp::LogicalAnd: f.ins("and.pred {}, {}, {};", v.reg, a.reg, b.reg); return v;
    case BinOp::Or:
    case BinOp::LogicalOr: f.ins("or.pred {}, {}, {};", v.reg, a.reg, b.reg); return v;
    case BinOp::Xor:
    case BinOp::Ne: f.ins("xor.pred {}, {}, {};", v.reg, a.reg, b.reg); return v;
    case BinOp::Eq: {
      std::string differ = f.reg(RegClass::Pred);
      f.ins("xor.pred {}, {}, {};", differ, a.reg, b.reg);
      f.ins("not.pred {}, {};", v.reg, differ);
      return v;
    }
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM, fmt::format("bin.{}.bool is not an operator", bin_op_name(op)),
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
