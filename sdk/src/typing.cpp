// expr_type: the type an expression evaluates to under SPEC §2's typing rules, or nullopt when it
// is ill-typed. The validator reports *why*; this function only answers *what*.
#include "vyre/typing.hpp"

#include "vyre/error.hpp"
#include "vyre/ops.hpp"

namespace vyre {

namespace {

bool is_index_type(Type t) { return t == Type::U32 || t == Type::I32; }

struct Typer {
  const BufferIndex& buffers;
  const Scope& scope;
  std::span<const std::optional<Type>> given;  // the root's operand types, or empty: recurse

  std::optional<Type> operand(const Expr& e, std::size_t i) const {
    if (i >= e.args.size()) return std::nullopt;
    if (!given.empty()) return given[i];
    return Typer{buffers, scope, {}}.type_of(e.args[i]);
  }

  std::optional<Type> type_of(const Expr& e) const {
    switch (e.kind) {
      case ExprKind::Lit:
        return is_value_type(e.type) && e.args.empty() ? std::optional(e.type) : std::nullopt;
      case ExprKind::Var: return e.args.empty() ? variable_type(e.name) : std::nullopt;
      case ExprKind::Load: return load_type(e);
      case ExprKind::BufLen: return buf_len_type(e);
      case ExprKind::InvocationId:
      case ExprKind::LocalId:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups: return axis_builtin_type(e);
      case ExprKind::SubgroupLane:
      case ExprKind::SubgroupSize: return e.args.empty() ? std::optional(Type::U32) : std::nullopt;
      case ExprKind::Bin: return bin_type(e);
      case ExprKind::Un: return un_type(e);
      case ExprKind::Select: return select_type(e);
      case ExprKind::Cast: return conversion_type(e, cast_defined);
      case ExprKind::Bitcast: return conversion_type(e, bitcast_defined);
      case ExprKind::Fma: return fma_type(e);
      case ExprKind::Atomic: return atomic_type(e);
      case ExprKind::SubgroupBallot: return ballot_type(e);
      case ExprKind::SubgroupShuffle: return shuffle_type(e);
      case ExprKind::SubgroupReduce: return reduce_type(e);
    }
    return std::nullopt;
  }

  std::optional<Type> variable_type(std::string_view name) const {
    const Type* t = scope.find(name);
    return t == nullptr ? std::nullopt : std::optional(*t);
  }

  std::optional<Type> load_type(const Expr& e) const {
    const BufferDecl* buffer = buffers.find(e.name);
    if (buffer == nullptr || e.args.size() != 1 || !is_valid_type(buffer->element)) return std::nullopt;
    auto index = operand(e, 0);
    if (!index || !is_index_type(*index)) return std::nullopt;
    return widen(buffer->element);
  }

  std::optional<Type> buf_len_type(const Expr& e) const {
    if (!e.args.empty() || buffers.find(e.name) == nullptr) return std::nullopt;
    return Type::U32;
  }

  std::optional<Type> axis_builtin_type(const Expr& e) const {
    if (!e.args.empty() || e.axis > 2) return std::nullopt;
    return Type::U32;
  }

  std::optional<Type> bin_type(const Expr& e) const {
    if (e.args.size() != 2) return std::nullopt;
    auto a = operand(e, 0);
    auto b = operand(e, 1);
    if (!a || !b || !bin_op_defined(e.bin_op, *a)) return std::nullopt;
    Type expected_b = is_shift(e.bin_op) ? Type::U32 : *a;
    if (*b != expected_b) return std::nullopt;
    return bin_result_type(e.bin_op, *a);
  }

  std::optional<Type> un_type(const Expr& e) const {
    if (e.args.size() != 1) return std::nullopt;
    auto a = operand(e, 0);
    if (!a || !un_op_defined(e.un_op, *a)) return std::nullopt;
    return un_result_type(e.un_op, *a);
  }

  std::optional<Type> select_type(const Expr& e) const {
    if (e.args.size() != 3) return std::nullopt;
    auto cond = operand(e, 0);
    auto a = operand(e, 1);
    auto b = operand(e, 2);
    if (!cond || !a || !b || *cond != Type::Bool || *a != *b) return std::nullopt;
    return a;
  }

  std::optional<Type> conversion_type(const Expr& e, bool (*defined)(Type, Type)) const {
    if (e.args.size() != 1) return std::nullopt;
    auto from = operand(e, 0);
    if (!from || !defined(*from, e.type)) return std::nullopt;
    return e.type;
  }

  std::optional<Type> fma_type(const Expr& e) const {
    if (e.args.size() != 3) return std::nullopt;
    auto a = operand(e, 0);
    auto b = operand(e, 1);
    auto c = operand(e, 2);
    if (!a || !b || !c || *a != *b || *a != *c) return std::nullopt;
    if (*a != Type::F32 && *a != Type::F64) return std::nullopt;
    return a;
  }

  std::optional<Type> atomic_type(const Expr& e) const {
    const BufferDecl* buffer = buffers.find(e.name);
    if (buffer == nullptr || !is_writable(buffer->access)) return std::nullopt;
    std::size_t arity = e.atomic_op == AtomicOp::CompareExchange ? 3 : 2;
    if (e.args.size() != arity) return std::nullopt;
    bool workgroup = buffer->access == Access::Workgroup;
    if (!atomic_defined(e.atomic_op, buffer->element, workgroup)) return std::nullopt;
    auto index = operand(e, 0);
    if (!index || !is_index_type(*index)) return std::nullopt;
    for (std::size_t i = 1; i < arity; ++i)
      if (operand(e, i) != buffer->element) return std::nullopt;
    return buffer->element;
  }

  std::optional<Type> ballot_type(const Expr& e) const {
    if (e.args.size() != 1 || operand(e, 0) != Type::Bool) return std::nullopt;
    return Type::U32;
  }

  std::optional<Type> shuffle_type(const Expr& e) const {
    if (e.args.size() != 2) return std::nullopt;
    auto value = operand(e, 0);
    if (!value || !shuffle_defined(*value) || operand(e, 1) != Type::U32) return std::nullopt;
    return value;
  }

  std::optional<Type> reduce_type(const Expr& e) const {
    if (e.args.size() != 1) return std::nullopt;
    auto value = operand(e, 0);
    if (!value || !reduce_defined(e.reduce_op, *value)) return std::nullopt;
    return value;
  }
};

}  // namespace

std::optional<Type> expr_type(const Expr& expr, const BufferIndex& buffers, const Scope& scope) {
  return Typer{buffers, scope, {}}.type_of(expr);
}

std::optional<Type> expr_type(const Expr& expr, const Program& program, const Scope& scope) {
  return expr_type(expr, BufferIndex(program), scope);
}

std::optional<Type> expr_type_from(const Expr& expr, std::span<const std::optional<Type>> operands,
                                   const BufferIndex& buffers, const Scope& scope) {
  if (operands.size() != expr.args.size())
    fail(VYRE_ERR_INTERNAL, "expr_type_from needs one type per operand", "pass operands.size() == args.size()");
  if (operands.empty()) return Typer{buffers, scope, {}}.type_of(expr);
  return Typer{buffers, scope, operands}.type_of(expr);
}

}  // namespace vyre
