// Does a program qualify for the elementwise entry? (The conditions are in elementwise.hpp.)
#include <algorithm>
#include <set>
#include <string>

#include "codegen/elementwise.hpp"
#include "vyre/geometry.hpp"

namespace vyre::cuda::codegen {

namespace {

class ShapeCheck {
 public:
  explicit ShapeCheck(const Program& program) : program_(program) {}

  std::optional<ElementwiseShape> run() {
    if (needs_full_workgroups(program_) || has_grid_sync(program_)) return std::nullopt;
    if (program_.body.size() > kMaxStatements) return std::nullopt;
    collect_assigned();
    for (const Node& node : program_.body) {
      if (!statement_ok(node)) return std::nullopt;
    }
    if (nodes_ > kMaxExpressionNodes || accessed_.empty()) return std::nullopt;
    return ElementwiseShape{std::vector<std::size_t>(accessed_.begin(), accessed_.end())};
  }

 private:
  void collect_assigned() {
    for (const Node& node : program_.body) {
      if (node.kind == NodeKind::Assign) assigned_.insert(node.name);
    }
  }

  bool statement_ok(const Node& node) {
    switch (node.kind) {
      case NodeKind::Let:
        if (node.exprs.size() != 1 || !expr_ok(node.exprs[0])) return false;
        if (is_index(node.exprs[0]) && assigned_.count(node.name) == 0) index_vars_.insert(node.name);
        return true;
      case NodeKind::Assign: return node.exprs.size() == 1 && expr_ok(node.exprs[0]);
      case NodeKind::Store:
        return node.exprs.size() == 2 && is_index(node.exprs[0]) && access_ok(node.name) &&
               expr_ok(node.exprs[1]);
      default: return false;
    }
  }

  // InvocationId.x, or a variable bound to it (transitively) and never assigned.
  bool is_index(const Expr& e) const {
    if (e.kind == ExprKind::InvocationId) return e.axis == 0;
    return e.kind == ExprKind::Var && index_vars_.count(e.name) != 0;
  }

  bool access_ok(const std::string& buffer) {
    for (std::size_t i = 0; i < program_.buffers.size(); ++i) {
      const BufferDecl& decl = program_.buffers[i];
      if (decl.name != buffer) continue;
      const std::uint32_t bytes = byte_size(decl.element);
      if (decl.access == Access::Workgroup || (bytes != 4 && bytes != 8)) return false;
      accessed_.insert(i);
      return true;
    }
    return false;
  }

  bool expr_ok(const Expr& e) {
    ++nodes_;
    switch (e.kind) {
      case ExprKind::Lit:
      case ExprKind::Var:
      case ExprKind::BufLen:
      case ExprKind::SubgroupSize: break;
      case ExprKind::InvocationId:
        if (e.axis != 0) return false;
        break;
      case ExprKind::Load:
        if (e.args.size() != 1 || !is_index(e.args[0]) || !access_ok(e.name)) return false;
        return true;  // the index is not evaluated in the vector path
      case ExprKind::Bin:
      case ExprKind::Un:
      case ExprKind::Select:
      case ExprKind::Cast:
      case ExprKind::Bitcast:
      case ExprKind::Fma: break;
      default: return false;  // atomics, subgroup ops, geometry builtins
    }
    return std::all_of(e.args.begin(), e.args.end(), [this](const Expr& arg) { return expr_ok(arg); });
  }

  const Program& program_;
  std::set<std::string> assigned_;
  std::set<std::string> index_vars_;
  std::set<std::size_t> accessed_;
  std::size_t nodes_ = 0;
};

void collect_loads(const Program& program, const Expr& e, std::set<std::size_t>& out) {
  if (e.kind == ExprKind::Load) {
    for (std::size_t i = 0; i < program.buffers.size(); ++i) {
      if (program.buffers[i].name == e.name) out.insert(i);
    }
  }
  for (const Expr& arg : e.args) collect_loads(program, arg, out);
}

}  // namespace

std::optional<ElementwiseShape> elementwise_shape(const Program& program) {
  return ShapeCheck(program).run();
}

std::vector<std::size_t> loaded_buffers(const Program& program, const Node& node) {
  std::set<std::size_t> loads;
  for (const Expr& e : node.exprs) collect_loads(program, e, loads);
  return {loads.begin(), loads.end()};
}

}  // namespace vyre::cuda::codegen
