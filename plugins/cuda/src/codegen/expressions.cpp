// The expression dispatcher: evaluates operands left to right, then hands the values to the
// lowering of the expression's family.
#include "codegen/expressions.hpp"

#include <cstdint>
#include <optional>
#include <vector>

#include "codegen/memory_access.hpp"
#include "optimize/exact_reciprocal.hpp"
#include "optimize/value_range.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

std::vector<Value> emit_operands(FunctionEmitter& f, const Expr& expr) {
  std::vector<Value> values;
  values.reserve(expr.args.size());
  for (const Expr& arg : expr.args) values.push_back(emit_expr(f, arg));
  return values;
}

void require_arity(const Expr& expr, std::size_t arity) {
  if (expr.args.size() >= arity) return;
  fail(VYRE_ERR_INVALID_PROGRAM, "an expression has fewer operands than its kind needs",
       "validate the program before lowering it");
}

// Vector path of an elementwise entry: the index is this lane's InvocationId.x (elementwise.hpp), and
// the element was loaded for the whole statement.
Value preloaded(const FunctionEmitter& f, std::size_t buffer) {
  if (buffer < f.lane->loaded.size() && !f.lane->loaded[buffer].reg.empty()) return f.lane->loaded[buffer];
  fail(VYRE_ERR_INTERNAL, "the elementwise entry did not load a buffer its statement reads",
       "report this bug in the vyre PTX emitter with the program");
}

Value emit_load_expr(FunctionEmitter& f, const Expr& expr) {
  require_arity(expr, 1);
  std::size_t buffer = buffer_index(f, expr.name);
  if (f.lane != nullptr && f.lane->vector) return preloaded(f, buffer);
  Value index = emit_expr(f, expr.args[0]);
  return emit_load(f, element_ref(f, buffer, index, needs_bounds_check(f, expr)));
}

Value emit_atomic_expr(FunctionEmitter& f, const Expr& expr) {
  bool exchange = expr.atomic_op == AtomicOp::CompareExchange;
  require_arity(expr, exchange ? 3 : 2);
  std::size_t buffer = buffer_index(f, expr.name);
  std::vector<Value> args = emit_operands(f, expr);  // index, value[, expected]
  ElementRef ref = element_ref(f, buffer, args[0], needs_bounds_check(f, expr));
  return emit_atomic(f, expr.atomic_op, ref, args[1], exchange ? &args[2] : nullptr);
}

// An integer Div/Mod the optimizer proved never divides by zero (optimize/value_range.hpp).
bool plain_division(const FunctionEmitter& f, const Expr& expr, const Value& dividend) {
  if (expr.bin_op != BinOp::Div && expr.bin_op != BinOp::Mod) return false;
  if (dividend.type == Type::Bool || is_float(dividend.type)) return false;
  return f.layout().ranges != nullptr && f.layout().ranges->plain_division(expr);
}

// A float Div by a power-of-two literal whose reciprocal is exact (optimize/exact_reciprocal.hpp):
// the reciprocal's bits, for a mul.rn that gives div.rn's bits for every dividend.
std::optional<std::uint64_t> power_of_two_divisor(const FunctionEmitter& f, const Expr& expr, const Value& dividend) {
  if (expr.bin_op != BinOp::Div || f.layout().ranges == nullptr) return std::nullopt;
  if (dividend.type != Type::F32 && dividend.type != Type::F64) return std::nullopt;
  const Expr& divisor = expr.args[1];
  if (divisor.kind != ExprKind::Lit || divisor.type != dividend.type) return std::nullopt;
  return optimize::exact_reciprocal(dividend.type, divisor.bits);
}

}  // namespace

Value emit_expr(FunctionEmitter& f, const Expr& expr) {
  switch (expr.kind) {
    case ExprKind::Lit: return emit_constant(f, expr.type, expr.bits);
    case ExprKind::Var: return f.lookup(expr.name);
    case ExprKind::Load: return emit_load_expr(f, expr);
    case ExprKind::BufLen:
    case ExprKind::InvocationId:
    case ExprKind::LocalId:
    case ExprKind::WorkgroupId:
    case ExprKind::NumWorkgroups:
    case ExprKind::SubgroupLane:
    case ExprKind::SubgroupSize: return emit_builtin(f, expr);
    case ExprKind::Atomic: return emit_atomic_expr(f, expr);
    default: break;
  }
  std::vector<Value> args = emit_operands(f, expr);
  switch (expr.kind) {
    case ExprKind::Bin:
      require_arity(expr, 2);
      if (auto reciprocal = power_of_two_divisor(f, expr, args[0])) {
        Value v = f.value(args[0].type);
        f.ins("mul.rn.{} {}, {}, {};", float_type(args[0].type), v.reg, args[0].reg, immediate(args[0].type, *reciprocal));
        return v;
      }
      if (plain_division(f, expr, args[0])) {
        std::optional<std::uint64_t> literal;
        if (expr.args[1].kind == ExprKind::Lit) literal = expr.args[1].bits;
        return emit_plain_division(f, expr.bin_op, args[0], args[1], literal);
      }
      return emit_binary(f, expr.bin_op, args[0], args[1]);
    case ExprKind::Un: require_arity(expr, 1); return emit_unary(f, expr.un_op, args[0]);
    case ExprKind::Select: require_arity(expr, 3); return emit_select_value(f, args[0], args[1], args[2]);
    case ExprKind::Cast: require_arity(expr, 1); return emit_cast(f, expr.type, args[0]);
    case ExprKind::Bitcast: require_arity(expr, 1); return emit_bitcast(f, expr.type, args[0]);
    case ExprKind::Fma: require_arity(expr, 3); return emit_fma(f, args[0], args[1], args[2]);
    case ExprKind::SubgroupBallot: require_arity(expr, 1); return emit_ballot(f, args[0]);
    case ExprKind::SubgroupShuffle: require_arity(expr, 2); return emit_shuffle(f, args[0], args[1]);
    case ExprKind::SubgroupReduce:
      require_arity(expr, 1);
      return emit_subgroup_reduce(f, expr.reduce_op, args[0]);
    default: break;
  }
  fail(VYRE_ERR_INVALID_PROGRAM, "an expression has an unknown kind",
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
