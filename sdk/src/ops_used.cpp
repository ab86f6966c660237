// ops_used: the set of op ids (SPEC §4) a program needs, which the registry routes on and conform
// certifies. Operand types come from expr_type, so the program must be well-typed.
#include <array>
#include <optional>
#include <set>
#include <span>
#include <string>

#include "vyre/error.hpp"
#include "vyre/ops.hpp"
#include "vyre/typing.hpp"

namespace vyre {

namespace {

std::string dotted(std::initializer_list<std::string_view> parts) {
  std::string id;
  for (auto part : parts) {
    if (!id.empty()) id += '.';
    id += part;
  }
  return id;
}

// Operand types as a walk computes them bottom-up: no expression kind takes more than 3 operands.
constexpr std::size_t kMaxOperands = 3;
using OperandTypes = std::array<std::optional<Type>, kMaxOperands>;

class OpsCollector {
 public:
  explicit OpsCollector(const Program& program) : program_(program), buffers_(program) {}

  std::set<std::string> collect() {
    for (const auto& decl : program_.buffers)
      if (decl.access == Access::Workgroup) ids_.insert("mem.workgroup");
    visit_body(program_.body);
    return std::move(ids_);
  }

 private:
  [[noreturn]] static void ill_typed(const Expr& e) {
    fail(VYRE_ERR_INVALID_PROGRAM,
         "cannot list the ops of an ill-typed program (a '" + std::string(expr_kind_name(e.kind)) +
             "' expression has no type)",
         "run vyre::validate on the program and fix the problems it reports");
  }

  const BufferDecl& buffer(const std::string& name) {
    const BufferDecl* decl = buffers_.find(name);
    if (decl == nullptr)
      fail(VYRE_ERR_INVALID_PROGRAM, "the program uses undeclared buffer '" + name + "'",
           "declare the buffer or run vyre::validate first");
    return *decl;
  }

  // Types `e` bottom-up (each expression once) and records its op; throws for an ill-typed one.
  Type visit_expr(const Expr& e) {
    if (e.args.size() > kMaxOperands) ill_typed(e);
    OperandTypes operands;
    for (std::size_t i = 0; i < e.args.size(); ++i) operands[i] = visit_expr(e.args[i]);
    auto t = expr_type_from(e, std::span(operands.data(), e.args.size()), buffers_, scope_);
    if (!t) ill_typed(e);
    record_expr(e, operands);
    return *t;
  }

  // Operands that reach here are well-typed (expr_type_from accepted `e`).
  void record_expr(const Expr& e, const OperandTypes& operands) {
    auto operand = [&](std::size_t i) { return type_name(*operands[i]); };
    switch (e.kind) {
      case ExprKind::Lit:
      case ExprKind::Var: return;
      case ExprKind::Load:
        ids_.insert(dotted({"load", type_name(buffer(e.name).element)}));
        return;
      case ExprKind::BufLen: ids_.insert("builtin.buf_len"); return;
      case ExprKind::InvocationId: ids_.insert("builtin.invocation_id"); return;
      case ExprKind::LocalId: ids_.insert("builtin.local_id"); return;
      case ExprKind::WorkgroupId: ids_.insert("builtin.workgroup_id"); return;
      case ExprKind::NumWorkgroups: ids_.insert("builtin.num_workgroups"); return;
      case ExprKind::SubgroupLane: ids_.insert("builtin.subgroup_lane"); return;
      case ExprKind::SubgroupSize: ids_.insert("builtin.subgroup_size"); return;
      case ExprKind::Bin: ids_.insert(dotted({"bin", bin_op_name(e.bin_op), operand(0)})); return;
      case ExprKind::Un: ids_.insert(dotted({"un", un_op_name(e.un_op), operand(0)})); return;
      case ExprKind::Select: ids_.insert(dotted({"select", operand(1)})); return;
      case ExprKind::Cast: ids_.insert(dotted({"cast", operand(0), type_name(e.type)})); return;
      case ExprKind::Bitcast: ids_.insert(dotted({"bitcast", operand(0), type_name(e.type)})); return;
      case ExprKind::Fma: ids_.insert(dotted({"fma", operand(0)})); return;
      case ExprKind::Atomic: record_atomic(e); return;
      case ExprKind::SubgroupBallot: ids_.insert("subgroup.ballot"); return;
      case ExprKind::SubgroupShuffle: ids_.insert(dotted({"subgroup", "shuffle", operand(0)})); return;
      case ExprKind::SubgroupReduce:
        ids_.insert(dotted({"subgroup", "reduce", reduce_op_name(e.reduce_op), operand(0)}));
        return;
    }
  }

  void record_atomic(const Expr& e) {
    const BufferDecl& decl = buffer(e.name);
    std::string id = dotted({"atomic", atomic_op_name(e.atomic_op), type_name(decl.element)});
    if (decl.access == Access::Workgroup) id += ".workgroup";
    ids_.insert(std::move(id));
  }

  void visit_body(const std::vector<Node>& body) {
    ++depth_;
    scope_.open();
    for (const auto& node : body) visit_node(node);
    scope_.close();
    --depth_;
  }

  static std::size_t expr_count(NodeKind kind) {
    switch (kind) {
      case NodeKind::Let:
      case NodeKind::Assign:
      case NodeKind::If: return 1;
      case NodeKind::Store:
      case NodeKind::Loop: return 2;
      default: return 0;
    }
  }

  void visit_node(const Node& n) {
    if (n.exprs.size() != expr_count(n.kind))
      fail(VYRE_ERR_INVALID_PROGRAM,
           "a '" + std::string(node_kind_name(n.kind)) + "' node has " +
               std::to_string(n.exprs.size()) + " expressions",
           "run vyre::validate on the program and fix the problems it reports");
    OperandTypes types;
    for (std::size_t i = 0; i < n.exprs.size(); ++i) types[i] = visit_expr(n.exprs[i]);
    switch (n.kind) {
      case NodeKind::Let:
        ids_.insert("node.let");
        scope_.declare(n.name, *types[0]);
        return;
      case NodeKind::Assign: ids_.insert("node.assign"); return;
      case NodeKind::Store:
        ids_.insert(dotted({"store", type_name(buffer(n.name).element)}));
        return;
      case NodeKind::If:
        ids_.insert("node.if");
        visit_body(n.body);
        visit_body(n.else_body);
        return;
      case NodeKind::Loop:
        ids_.insert("node.loop");
        scope_.open();
        scope_.declare(n.name, Type::U32);
        visit_body(n.body);
        scope_.close();
        return;
      case NodeKind::Return: ids_.insert("node.return"); return;
      case NodeKind::Block:
        ids_.insert("node.block");
        visit_body(n.body);
        return;
      case NodeKind::Barrier: record_barrier(n); return;
    }
  }

  void record_barrier(const Node& n) {
    if (n.barrier != BarrierKind::GridSync) {
      ids_.insert("node.barrier");
      return;
    }
    ids_.insert("node.grid_sync");
    if (depth_ != 1) return;  // misplaced (the validator says so); names stay as they are
    // Nothing crosses a grid_sync: the validator rejects later uses of earlier names.
    scope_.clear();
  }

  const Program& program_;
  BufferIndex buffers_;
  Scope scope_;
  int depth_ = 0;
  std::set<std::string> ids_;
};

}  // namespace

std::vector<std::string> ops_used(const Program& program) {
  auto ids = OpsCollector(program).collect();
  return {ids.begin(), ids.end()};
}

std::vector<std::string> ops_used(const Program& program, const DispatchConfig& config) {
  auto ids = OpsCollector(program).collect();
  if (config.fixpoint_iterations > 1) ids.insert("dispatch.fixpoint");
  return {ids.begin(), ids.end()};
}

}  // namespace vyre
