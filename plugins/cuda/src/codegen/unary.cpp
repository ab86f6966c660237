// Unary operators: dispatch by operand type, and the bool operators.
#include "codegen/expressions.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

Value emit_unary(FunctionEmitter& f, UnOp op, const Value& a) {
  switch (a.type) {
    case Type::Bool:
      if (op == UnOp::Not || op == UnOp::LogicalNot) return Value{emit_not(f, a.reg), Type::Bool};
      break;
    case Type::F32:
    case Type::F64: return emit_float_unary(f, op, a);
    case Type::U32:
    case Type::I32:
    case Type::U64:
    case Type::I64: return emit_int_unary(f, op, a);
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM,
       fmt::format("un.{}.{} is not an operator", un_op_name(op), type_name(a.type)),
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
