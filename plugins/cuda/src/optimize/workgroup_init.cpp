// The zero-start analysis of workgroup memory (workgroup_init.hpp says what it proves and why).
#include "optimize/workgroup_init.hpp"

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>


namespace vyre::cuda::optimize {

namespace {

// Evaluation limits: variables are followed this deep, and a statement's condition and index
// together may hold this many expression nodes (the evaluation runs once per local invocation).
constexpr int kMaxDepth = 16;
constexpr std::size_t kMaxNodes = 256;
constexpr std::uint32_t kSubgroupWidth = 32;

struct Value {
  std::uint32_t bits = 0;
  Type type = Type::U32;  // U32, I32 or Bool
};

std::int32_t as_signed(std::uint32_t v) { return static_cast<std::int32_t>(v); }

// SPEC's total semantics of the 32-bit integer and bool operators the evaluator knows.
std::optional<Value> binary(BinOp op, Value a, Value b) {
  if (a.type != b.type) return std::nullopt;
  const Type t = a.type;
  const bool s = t == Type::I32;
  const std::uint32_t x = a.bits, y = b.bits;
  auto boolean = [](bool v) { return Value{v ? 1u : 0u, Type::Bool}; };
  if (t == Type::Bool) {
    switch (op) {
      case BinOp::And:
      case BinOp::LogicalAnd: return boolean(x != 0 && y != 0);
      case BinOp::Or:
      case BinOp::LogicalOr: return boolean(x != 0 || y != 0);
      case BinOp::Xor:
      case BinOp::Ne: return boolean((x != 0) != (y != 0));
      case BinOp::Eq: return boolean((x != 0) == (y != 0));
      default: return std::nullopt;
    }
  }
  switch (op) {
    case BinOp::Add: return Value{x + y, t};
    case BinOp::Sub: return Value{x - y, t};
    case BinOp::Mul: return Value{x * y, t};
    case BinOp::Div:
      if (y == 0) return Value{0xFFFFFFFFu, t};
      if (s && x == 0x80000000u && y == 0xFFFFFFFFu) return Value{x, t};
      return Value{s ? static_cast<std::uint32_t>(as_signed(x) / as_signed(y)) : x / y, t};
    case BinOp::Mod:
      if (y == 0) return Value{x, t};
      if (s && x == 0x80000000u && y == 0xFFFFFFFFu) return Value{0, t};
      return Value{s ? static_cast<std::uint32_t>(as_signed(x) % as_signed(y)) : x % y, t};
    case BinOp::Shl: return Value{x << (y & 31), t};
    case BinOp::Shr:
      return Value{s ? static_cast<std::uint32_t>(as_signed(x) >> (y & 31)) : x >> (y & 31), t};
    case BinOp::And: return Value{x & y, t};
    case BinOp::Or: return Value{x | y, t};
    case BinOp::Xor: return Value{x ^ y, t};
    case BinOp::Min: return Value{s ? (as_signed(x) < as_signed(y) ? x : y) : (x < y ? x : y), t};
    case BinOp::Max: return Value{s ? (as_signed(x) > as_signed(y) ? x : y) : (x > y ? x : y), t};
    case BinOp::Eq: return boolean(x == y);
    case BinOp::Ne: return boolean(x != y);
    case BinOp::Lt: return boolean(s ? as_signed(x) < as_signed(y) : x < y);
    case BinOp::Le: return boolean(s ? as_signed(x) <= as_signed(y) : x <= y);
    case BinOp::Gt: return boolean(s ? as_signed(x) > as_signed(y) : x > y);
    case BinOp::Ge: return boolean(s ? as_signed(x) >= as_signed(y) : x >= y);
    case BinOp::LogicalAnd: return boolean(x != 0 && y != 0);
    case BinOp::LogicalOr: return boolean(x != 0 || y != 0);
    default: return std::nullopt;
  }
}

std::optional<Value> unary(UnOp op, Value a) {
  switch (op) {
    case UnOp::Not:
      if (a.type == Type::Bool) return std::nullopt;
      return Value{~a.bits, a.type};
    case UnOp::Neg:
      if (a.type == Type::Bool) return std::nullopt;
      return Value{0u - a.bits, a.type};
    case UnOp::LogicalNot: return Value{a.bits == 0 ? 1u : 0u, Type::Bool};
    default: return std::nullopt;
  }
}

std::optional<Value> cast(Type to, Value a) {
  if (to == Type::Bool) return Value{a.bits != 0 ? 1u : 0u, Type::Bool};
  if (to == Type::U32 || to == Type::I32) return Value{a.bits, to};  // same width, or bool's 0/1
  return std::nullopt;
}

// The never-assigned variables in scope at a statement, by name: their initialisers (null: a name
// whose value the evaluator does not know).
using Bindings = std::unordered_map<std::string, const Expr*>;

// Evaluates an expression for one local invocation.
class Evaluator {
 public:
  Evaluator(const Bindings& bindings, const std::array<std::uint32_t, 3>& workgroup)
      : bindings_(bindings), workgroup_(workgroup) {}

  void set_invocation(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    id_ = {x, y, z};
    linear_ = x + y * workgroup_[0] + z * workgroup_[0] * workgroup_[1];
  }

  std::optional<Value> eval(const Expr& e, int depth = 0) const {
    if (depth > kMaxDepth) return std::nullopt;
    switch (e.kind) {
      case ExprKind::Lit:
        if (e.type != Type::U32 && e.type != Type::I32 && e.type != Type::Bool) return std::nullopt;
        return Value{static_cast<std::uint32_t>(e.bits), e.type};
      case ExprKind::LocalId:
        if (e.axis > 2) return std::nullopt;
        return Value{id_[e.axis], Type::U32};
      case ExprKind::SubgroupLane: return Value{linear_ % kSubgroupWidth, Type::U32};
      case ExprKind::SubgroupSize: return Value{kSubgroupWidth, Type::U32};
      case ExprKind::Var: {
        auto found = bindings_.find(e.name);
        if (found == bindings_.end() || found->second == nullptr) return std::nullopt;
        return eval(*found->second, depth + 1);
      }
      case ExprKind::Bin: {
        if (e.args.size() != 2) return std::nullopt;
        auto a = eval(e.args[0], depth + 1);
        auto b = a ? eval(e.args[1], depth + 1) : std::nullopt;
        if (!b) return std::nullopt;
        return binary(e.bin_op, *a, *b);
      }
      case ExprKind::Un: {
        if (e.args.size() != 1) return std::nullopt;
        auto a = eval(e.args[0], depth + 1);
        if (!a) return std::nullopt;
        return unary(e.un_op, *a);
      }
      case ExprKind::Select: {
        if (e.args.size() != 3) return std::nullopt;
        auto c = eval(e.args[0], depth + 1);
        auto a = c ? eval(e.args[1], depth + 1) : std::nullopt;
        auto b = a ? eval(e.args[2], depth + 1) : std::nullopt;
        if (!b || a->type != b->type) return std::nullopt;
        return c->bits != 0 ? *a : *b;
      }
      case ExprKind::Cast: {
        if (e.args.size() != 1) return std::nullopt;
        auto a = eval(e.args[0], depth + 1);
        if (!a) return std::nullopt;
        return cast(e.type, *a);
      }
      default: return std::nullopt;  // loads, atomics, subgroup ops, grid builtins, BufLen, floats
    }
  }

 private:
  const Bindings& bindings_;
  const std::array<std::uint32_t, 3>& workgroup_;
  std::array<std::uint32_t, 3> id_{};
  std::uint32_t linear_ = 0;
};

std::size_t expr_nodes(const Expr& e, std::size_t limit) {
  std::size_t n = 1;
  for (const Expr& a : e.args) {
    if (n > limit) break;
    n += expr_nodes(a, limit);
  }
  return n;
}

bool expr_reads(const Expr& e, const std::string& buffer) {
  if ((e.kind == ExprKind::Load || e.kind == ExprKind::Atomic) && e.name == buffer) return true;
  for (const Expr& a : e.args)
    if (expr_reads(a, buffer)) return true;
  return false;
}

bool node_reads(const Node& n, const std::string& buffer) {
  for (const Expr& e : n.exprs)
    if (expr_reads(e, buffer)) return true;
  for (const Node& s : n.body)
    if (node_reads(s, buffer)) return true;
  for (const Node& s : n.else_body)
    if (node_reads(s, buffer)) return true;
  return false;
}

bool node_returns(const Node& n) {
  if (n.kind == NodeKind::Return) return true;
  for (const Node& s : n.body)
    if (node_returns(s)) return true;
  for (const Node& s : n.else_body)
    if (node_returns(s)) return true;
  return false;
}

void collect_assigned(const std::vector<Node>& body, std::set<std::string>& names) {
  for (const Node& n : body) {
    if (n.kind == NodeKind::Assign) names.insert(n.name);
    collect_assigned(n.body, names);
    collect_assigned(n.else_body, names);
  }
}

class Coverage {
 public:
  Coverage(const Program& program, const std::array<std::uint32_t, 3>& workgroup)
      : workgroup_(workgroup) {
    collect_assigned(program.body, assigned_);
  }

  bool unobserved(const BufferDecl& buffer, const std::vector<const Node*>& phase) const {
    Bindings bindings;
    bool stored = false;  // a covering store has run, the barrier after it not yet
    for (const Node* n : phase) {
      if (n->kind == NodeKind::Barrier && n->barrier == BarrierKind::Workgroup && stored) return true;
      if (node_reads(*n, buffer.name)) return false;
      if (!stored && node_returns(*n)) return false;  // some invocations might not reach the store
      if (!stored && covers(*n, buffer, bindings)) stored = true;
      bind(*n, bindings);
    }
    return true;  // the phase never reads the buffer
  }

 private:
  const std::array<std::uint32_t, 3>& workgroup_;
  std::set<std::string> assigned_;

  // A Let's binding. A name bound twice (a shadowing Let in a nested scope) or ever assigned is
  // unknown from then on: an earlier initialiser naming it must not see the new value.
  void bind(const Node& n, Bindings& bindings) const {
    if (n.kind != NodeKind::Let || n.exprs.empty()) return;
    const bool known = assigned_.count(n.name) == 0 && bindings.count(n.name) == 0;
    bindings[n.name] = known ? &n.exprs[0] : nullptr;
  }

  // Whether `n` (a top-level statement) stores to every element of `buffer`.
  bool covers(const Node& n, const BufferDecl& buffer, const Bindings& outer) const {
    if (n.kind == NodeKind::Store) return n.name == buffer.name && n.exprs.size() == 2 && covered(nullptr, n.exprs[0], buffer, outer);
    if (n.kind != NodeKind::If || n.exprs.empty()) return false;
    Bindings inner = outer;
    for (const Node& s : n.body) {
      if (s.kind == NodeKind::Store && s.name == buffer.name && s.exprs.size() == 2 &&
          covered(&n.exprs[0], s.exprs[0], buffer, inner))
        return true;
      bind(s, inner);
    }
    return false;
  }

  // Whether the store index `index`, under `cond` (null: always), reaches every element.
  bool covered(const Expr* cond, const Expr& index, const BufferDecl& buffer, const Bindings& bindings) const {
    if (buffer.count == 0) return false;
    if (expr_nodes(index, kMaxNodes) + (cond ? expr_nodes(*cond, kMaxNodes) : 0) > kMaxNodes) return false;
    std::vector<bool> hit(buffer.count, false);
    std::size_t remaining = buffer.count;
    Evaluator ev(bindings, workgroup_);
    for (std::uint32_t z = 0; z < workgroup_[2]; ++z)
      for (std::uint32_t y = 0; y < workgroup_[1]; ++y)
        for (std::uint32_t x = 0; x < workgroup_[0]; ++x) {
          ev.set_invocation(x, y, z);
          if (cond) {
            auto c = ev.eval(*cond);
            if (!c) return false;
            if (c->bits == 0) continue;
          }
          auto i = ev.eval(index);
          if (!i || i->type == Type::Bool) return false;
          if (i->type == Type::I32 && (i->bits & 0x80000000u) != 0) continue;  // out of bounds: dropped
          if (i->bits < buffer.count && !hit[i->bits]) {
            hit[i->bits] = true;
            --remaining;
          }
        }
    return remaining == 0;
  }
};

}  // namespace

std::vector<bool> zero_start_unobserved(const Program& program, const std::vector<const Node*>& phase,
                                        const std::array<std::uint32_t, 3>& workgroup) {
  std::vector<bool> out(program.buffers.size(), false);
  const std::uint64_t invocations = std::uint64_t{workgroup[0]} * workgroup[1] * workgroup[2];
  if (invocations == 0 || invocations > 1024) return out;
  Coverage coverage(program, workgroup);
  for (std::size_t i = 0; i < program.buffers.size(); ++i) {
    const BufferDecl& buffer = program.buffers[i];
    if (buffer.access == Access::Workgroup) out[i] = coverage.unobserved(buffer, phase);
  }
  return out;
}

}  // namespace vyre::cuda::optimize
