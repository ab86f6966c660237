// Expressions: literals, variables, builtins, and dispatch to the operator families.
#include "codegen/emitter.hpp"
#include "vyre/error.hpp"
#include "vyre/ops.hpp"
#include "vyre/typing.hpp"

namespace vyre::vulkan::codegen {

namespace {

[[noreturn]] void emitter_bug(const std::string& what) {
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: " + what, "report this emitter bug with the program");
}

}  // namespace

Value Emitter::expr(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Lit: return {ctx_.lit(e.type, e.bits), e.type};
    case ExprKind::Var: {
      const Variable& v = variable(e.name);
      return {f_.load(ctx_.type(v.type), v.pointer), v.type};
    }
    case ExprKind::Load: return load(e);
    case ExprKind::BufLen: return buf_len(e.name);
    case ExprKind::InvocationId: return {invocation_id(e.axis), Type::U32};
    case ExprKind::LocalId: return {local_[e.axis], Type::U32};
    case ExprKind::WorkgroupId: return {workgroup_id(e.axis), Type::U32};
    case ExprKind::NumWorkgroups: return {ctx_.push_word(f_, 2 + e.axis), Type::U32};
    case ExprKind::SubgroupLane:
      return {op(spv::Op::OpUMod, ctx_.uint(32), {local_linear_, ctx_.u32(32)}), Type::U32};
    case ExprKind::SubgroupSize: return {ctx_.u32(32), Type::U32};
    case ExprKind::Bin: {
      const Value a = expr(e.args.at(0));
      const Value b = expr(e.args.at(1));
      if (a.type == Type::Bool) return bool_binary(e.bin_op, a, b);
      if (is_float(a.type)) return float_binary(e.bin_op, a, b);
      return int_binary(e.bin_op, a, b);
    }
    case ExprKind::Un: {
      const Value a = expr(e.args.at(0));
      if (a.type == Type::Bool) return bool_unary(e.un_op, a);
      if (is_float(a.type)) return float_unary(e.un_op, a);
      return int_unary(e.un_op, a);
    }
    case ExprKind::Select: {
      const Value c = expr(e.args.at(0));
      const Value a = expr(e.args.at(1));
      const Value b = expr(e.args.at(2));
      return {select(ctx_.type(a.type), c.id, a.id, b.id), a.type};
    }
    case ExprKind::Cast: return cast(e.type, expr(e.args.at(0)));
    case ExprKind::Bitcast: return bitcast_value(e.type, expr(e.args.at(0)));
    case ExprKind::Fma: {
      const Value a = expr(e.args.at(0));
      const Value b = expr(e.args.at(1));
      const Value c = expr(e.args.at(2));
      return fma(a, b, c);
    }
    case ExprKind::Atomic: return atomic(e);
    case ExprKind::SubgroupBallot:
    case ExprKind::SubgroupShuffle:
    case ExprKind::SubgroupReduce: return subgroup(e);
  }
  emitter_bug("unknown expression kind " + std::to_string(static_cast<int>(e.kind)));
}

// ---- bool operators ----

Value Emitter::bool_binary(BinOp o, const Value& a, const Value& b) {
  const Id t = ctx_.bool_type();
  switch (o) {
    case BinOp::And: case BinOp::LogicalAnd: return {land(a.id, b.id), Type::Bool};
    case BinOp::Or: case BinOp::LogicalOr: return {lor(a.id, b.id), Type::Bool};
    case BinOp::Xor: case BinOp::Ne: return {op(spv::Op::OpLogicalNotEqual, t, {a.id, b.id}), Type::Bool};
    case BinOp::Eq: return {op(spv::Op::OpLogicalEqual, t, {a.id, b.id}), Type::Bool};
    default: break;
  }
  emitter_bug("bool operator " + std::string(bin_op_name(o)));
}

Value Emitter::bool_unary(UnOp o, const Value& a) {
  if (o == UnOp::Not || o == UnOp::LogicalNot) return {lnot(a.id), Type::Bool};
  emitter_bug("bool operator " + std::string(un_op_name(o)));
}

}  // namespace vyre::vulkan::codegen
