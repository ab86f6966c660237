// The zero-sign analysis (zero_sign.hpp says what it proves and why).
#include "optimize/zero_sign.hpp"

#include <set>
#include <string>

namespace vyre::cuda::optimize {

namespace {

constexpr int kMaxPasses = 8;

enum class Context { Blind, AsResult, Observed };

// How a unary operator passes the sign of a zero operand on.
Context unary_context(UnOp op) {
  switch (op) {
    case UnOp::Exp:
    case UnOp::Exp2:
    case UnOp::Cos:
    case UnOp::Cosh:
    case UnOp::Acos:
    case UnOp::Log:
    case UnOp::Log2:
    case UnOp::IsNan:
    case UnOp::IsInf:
    case UnOp::IsFinite: return Context::Blind;
    case UnOp::Reciprocal:
    case UnOp::InverseSqrt: return Context::Observed;
    default: return Context::AsResult;  // neg, abs, sign, rounding, sqrt, sin, tan, asin, atan, sinh, tanh; ints
  }
}

}  // namespace

class ZeroSignWalk {
 public:
  ZeroSignWalk(ZeroSignAnalysis& out, const Program& program) : out_(out), program_(program) {
    for (const BufferDecl& b : program.buffers)
      if (b.access != Access::Workgroup) observed_buffers_.insert(b.name);
  }

  void run() {
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      changed_ = false;
      body(program_.body);
      if (!changed_) {
        recording_ = true;
        body(program_.body);
        return;
      }
    }
    // No fixpoint within the limit: prove nothing.
  }

 private:
  ZeroSignAnalysis& out_;
  const Program& program_;
  std::set<std::string> observed_vars_;     // variables some use of which observes the sign
  std::set<std::string> observed_buffers_;  // global buffers, and workgroup buffers read so
  bool changed_ = false;
  bool recording_ = false;

  bool var_blind(const std::string& name) const { return observed_vars_.count(name) == 0; }
  bool buffer_blind(const std::string& name) const { return observed_buffers_.count(name) == 0; }

  void observe_var(const std::string& name) {
    if (observed_vars_.insert(name).second) changed_ = true;
  }
  void observe_buffer(const std::string& name) {
    if (observed_buffers_.insert(name).second) changed_ = true;
  }

  void body(const std::vector<Node>& nodes) {
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) statement(*it);
  }

  void statement(const Node& n) {
    switch (n.kind) {
      case NodeKind::Let:
      case NodeKind::Assign:
        if (!n.exprs.empty()) expr(n.exprs[0], var_blind(n.name));
        return;
      case NodeKind::Store:
        if (n.exprs.size() == 2) {
          expr(n.exprs[1], buffer_blind(n.name));
          expr(n.exprs[0], true);
        }
        return;
      case NodeKind::If:
        body(n.else_body);
        body(n.body);
        for (const Expr& e : n.exprs) expr(e, true);
        return;
      case NodeKind::Loop:
        body(n.body);
        for (const Expr& e : n.exprs) expr(e, true);
        return;
      case NodeKind::Block: body(n.body); return;
      default: return;
    }
  }

  // `blind`: whether the consumer of e's value is blind to the sign of a zero.
  void expr(const Expr& e, bool blind) {
    switch (e.kind) {
      case ExprKind::Var:
        if (!blind) observe_var(e.name);
        return;
      case ExprKind::Load:
        if (!blind) observe_buffer(e.name);
        for (const Expr& a : e.args) expr(a, true);
        return;
      case ExprKind::Bin:
        if (e.args.size() != 2) return all(e, false);
        if (is_comparison(e.bin_op) || e.bin_op == BinOp::LogicalAnd || e.bin_op == BinOp::LogicalOr)
          return all(e, true);
        if (e.bin_op == BinOp::Div) {
          expr(e.args[0], blind);
          expr(e.args[1], false);
          return;
        }
        if (recording_ && blind && (e.bin_op == BinOp::Min || e.bin_op == BinOp::Max)) out_.blind_.insert(&e);
        return all(e, blind);
      case ExprKind::Un: {
        const Context c = unary_context(e.un_op);
        return all(e, c == Context::Blind || (c == Context::AsResult && blind));
      }
      case ExprKind::Select:
        if (e.args.size() != 3) return all(e, false);
        expr(e.args[0], true);
        expr(e.args[1], blind);
        expr(e.args[2], blind);
        return;
      case ExprKind::Cast:
        // To a float: the zero's sign is kept; to an integer or bool: both zeros give 0 / false.
        return all(e, e.type == Type::F32 || e.type == Type::F64 ? blind : true);
      case ExprKind::Bitcast: return all(e, false);
      case ExprKind::Fma: return all(e, blind);
      case ExprKind::SubgroupReduce: return all(e, blind);
      case ExprKind::SubgroupShuffle:
        if (e.args.size() != 2) return all(e, false);
        expr(e.args[0], blind);
        expr(e.args[1], true);
        return;
      case ExprKind::SubgroupBallot:
      case ExprKind::Atomic: return all(e, true);  // bool and integer operands
      default: return all(e, false);  // literals, builtins, BufLen: no operands
    }
  }

  void all(const Expr& e, bool blind) {
    for (const Expr& a : e.args) expr(a, blind);
  }
};

ZeroSignAnalysis::ZeroSignAnalysis(const Program& program) { ZeroSignWalk(*this, program).run(); }

}  // namespace vyre::cuda::optimize
