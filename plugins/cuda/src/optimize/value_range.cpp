// The value-range analysis: one walk over the program in emission order, with lexical scopes for
// variables and a stack of guard facts (value_range.hpp says what it knows and why it is sound).
#include "optimize/value_range.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "vyre/buffer_index.hpp"
#include "vyre/geometry.hpp"
#include "vyre/scoped_names.hpp"
#include "vyre/typing.hpp"

namespace vyre::cuda::optimize {

namespace {

// CUDA's launch limits: block dims (1024, 1024, 64) with at most 1024 threads, grid dims
// (2^31 - 1, 65535, 65535). Sharded entries add workgroup_base to %ctaid.x, staying below the
// dispatch's grid_x, which the geometry checks keep below 2^32.
constexpr std::uint64_t kMaxLocalId = 1023;
constexpr std::uint64_t kMaxGridX = 0xFFFFFFFFull;
constexpr std::uint64_t kMaxGridYZ = 65535;
constexpr std::uint64_t kSubgroupSize = 32;
// How deep guard facts look through logical operators and variables' initialisers.
constexpr int kMaxFactDepth = 32;
// A never-assigned variable read under guard facts re-evaluates its (stable) initialiser under
// them: through at most this many nested variables, and at most RangeAnalysis::kReevaluationBudget
// expression nodes per analysis (a hostile program cannot make the walk expensive; past the budget
// the variables keep the interval of their definition, which is sound).
constexpr int kMaxReevaluationDepth = 4;

// A stable expression's canonical form: an id interned from (tag, operator or type, operand ids),
// so equal ids mean structurally equal expressions over the same bindings: equal values.
using Canon = std::uint64_t;
using CanonKey = std::array<std::uint64_t, 5>;

struct CanonKeyHash {
  std::size_t operator()(const CanonKey& key) const {
    std::uint64_t h = 0x9E3779B97F4A7C15ull;
    for (std::uint64_t v : key) h = (h ^ v) * 0xBF58476D1CE4E5B9ull + (h >> 29);
    return static_cast<std::size_t>(h);
  }
};

enum CanonTag : std::uint64_t { kLit = 1, kLen, kBuiltin, kLane, kGroupSize, kBin, kUn, kSelect, kCast, kBitcast, kFma, kFresh };

unsigned width(Type t) {
  switch (t) {
    case Type::Bool: return 1;
    case Type::U32:
    case Type::I32: return 32;
    case Type::U64:
    case Type::I64: return 64;
    default: return 0;
  }
}

bool integral(Type t) { return t == Type::U32 || t == Type::I32 || t == Type::U64 || t == Type::I64; }
bool signed_type(Type t) { return t == Type::I32 || t == Type::I64; }

std::uint64_t max_of(unsigned w) { return w >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1; }
Interval full(unsigned w) { return {0, max_of(w)}; }
Interval point(std::uint64_t v) { return {v, v}; }
Interval join(Interval a, Interval b) { return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)}; }
// The sign bit is clear for every value: signed and unsigned views agree.
bool non_negative(Interval a, unsigned w) { return a.hi <= (max_of(w) >> 1); }
// The smallest 2^k - 1 >= x.
std::uint64_t fill_ones(std::uint64_t x) {
  for (unsigned s = 1; s < 64; s <<= 1) x |= x >> s;
  return x;
}

Interval add(Interval a, Interval b, unsigned w) {
  if (a.hi > max_of(w) - b.hi) return full(w);
  return {a.lo + b.lo, a.hi + b.hi};
}

Interval sub(Interval a, Interval b, unsigned w) {
  if (a.lo < b.hi) return full(w);
  return {a.lo - b.hi, a.hi - b.lo};
}

Interval mul(Interval a, Interval b, unsigned w) {
  if (b.hi != 0 && a.hi > max_of(w) / b.hi) return full(w);
  return {a.lo * b.lo, a.hi * b.hi};
}

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b, unsigned w) {
  if (b != 0 && a > max_of(w) / b) return max_of(w);
  return a * b;
}

std::uint64_t sat_add(std::uint64_t a, std::uint64_t b, unsigned w) {
  return a > max_of(w) - b ? max_of(w) : a + b;
}

std::uint64_t high_half(std::uint64_t a, std::uint64_t b, unsigned w) {
  if (w == 32) return (a * b) >> 32;
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(a) * b) >> 64);
}

// Unsigned view of both operands is valid: unsigned types, or signed ones known non-negative.
bool unsigned_view(Type t, Interval a, Interval b, unsigned w) {
  return !signed_type(t) || (non_negative(a, w) && non_negative(b, w));
}

Interval binary_range(BinOp op, Type t, Interval a, Interval b) {
  const unsigned w = width(t);
  switch (op) {
    // Wrapping arithmetic is the same on two's-complement bits, so the unsigned rules hold for
    // signed types too as long as nothing wraps.
    case BinOp::Add: return add(a, b, w);
    case BinOp::Sub: return sub(a, b, w);
    case BinOp::Mul: return mul(a, b, w);
    case BinOp::Div:  // x / 0 = all ones (unsigned) or -1 (signed)
      if (b.lo == 0 || !unsigned_view(t, a, b, w)) return full(w);
      return {a.lo / b.hi, a.hi / b.lo};
    case BinOp::Mod:  // x % 0 = x; otherwise below the divisor
      if (!unsigned_view(t, a, b, w)) return full(w);
      if (a.hi < b.lo) return a;
      if (b.lo == 0) return {0, a.hi};
      return {0, std::min(a.hi, b.hi - 1)};
    case BinOp::Shl:  // the amount is taken modulo the width
      if (b.hi >= w || a.hi > (max_of(w) >> b.hi)) return full(w);
      return {a.lo << b.lo, a.hi << b.hi};
    case BinOp::Shr:
      if (signed_type(t) && !non_negative(a, w)) return full(w);
      if (b.hi >= w) return {0, a.hi};  // a right shift by any amount never grows the value
      return {a.lo >> b.hi, a.hi >> b.lo};
    case BinOp::Min:
      if (!unsigned_view(t, a, b, w)) return full(w);
      return {std::min(a.lo, b.lo), std::min(a.hi, b.hi)};
    case BinOp::Max:
      if (!unsigned_view(t, a, b, w)) return full(w);
      return {std::max(a.lo, b.lo), std::max(a.hi, b.hi)};
    case BinOp::AbsDiff: {
      if (!unsigned_view(t, a, b, w)) return full(w);
      const std::uint64_t up = a.hi > b.lo ? a.hi - b.lo : 0;
      const std::uint64_t down = b.hi > a.lo ? b.hi - a.lo : 0;
      return {0, std::max(up, down)};
    }
    case BinOp::SatAdd:
      if (signed_type(t)) return full(w);
      return {sat_add(a.lo, b.lo, w), sat_add(a.hi, b.hi, w)};
    case BinOp::SatSub:
      if (signed_type(t)) return full(w);
      return {a.lo > b.hi ? a.lo - b.hi : 0, a.hi > b.lo ? a.hi - b.lo : 0};
    case BinOp::SatMul:
      if (signed_type(t)) return full(w);
      return {sat_mul(a.lo, b.lo, w), sat_mul(a.hi, b.hi, w)};
    case BinOp::MulHigh:
      if (signed_type(t)) return full(w);
      return {high_half(a.lo, b.lo, w), high_half(a.hi, b.hi, w)};
    case BinOp::And: return {0, std::min(a.hi, b.hi)};
    case BinOp::Or: return {std::max(a.lo, b.lo), fill_ones(std::max(a.hi, b.hi))};
    case BinOp::Xor: return {0, fill_ones(std::max(a.hi, b.hi))};
    case BinOp::Rotl:
    case BinOp::Rotr: return full(w);
    default: return {0, 1};  // comparisons and logical operators: bool
  }
}

std::optional<Interval> unary_range(UnOp op, Type t, Interval a) {
  const unsigned w = width(t);
  switch (op) {
    case UnOp::Neg:
      if (a == point(0)) return a;
      if (a.lo == 0) return full(w);
      return Interval{max_of(w) - a.hi + 1, max_of(w) - a.lo + 1};
    case UnOp::Not: return Interval{max_of(w) - a.hi, max_of(w) - a.lo};
    case UnOp::LogicalNot:
    case UnOp::IsNan:
    case UnOp::IsInf:
    case UnOp::IsFinite: return Interval{0, 1};
    case UnOp::Popcount:
    case UnOp::Clz:
    case UnOp::Ctz: return Interval{0, w};
    default: return integral(t) ? std::optional<Interval>(full(w)) : std::nullopt;
  }
}

// Cast from `from` (interval `a`) to `to`, both integer or bool.
Interval cast_range(Type from, Type to, Interval a) {
  const unsigned wf = width(from), wt = width(to);
  if (to == Type::Bool) {
    if (a.lo > 0) return point(1);
    if (a.hi == 0) return point(0);
    return {0, 1};
  }
  if (from == Type::Bool) return a;
  if (wt < wf) return a.hi <= max_of(wt) ? a : full(wt);  // truncation
  if (wt == wf || !signed_type(from) || non_negative(a, wf)) return a;  // same bits, or zero-extended
  return full(wt);  // sign extension of a possibly negative value
}

std::optional<Interval> meet(Interval a, Interval b) {
  Interval m{std::max(a.lo, b.lo), std::min(a.hi, b.hi)};
  if (m.lo > m.hi) return std::nullopt;
  return m;
}

// What the walk knows about one expression at one program point.
struct Info {
  std::optional<Type> type;
  std::optional<Interval> range;   // integer and bool values
  std::optional<Canon> canon;  // stable expressions only: equal canon, equal value
};

struct Binding {
  std::uint64_t id = 0;
  std::optional<Type> type;
  bool assigned = false;            // the target of some Assign: its value changes
  std::optional<Interval> range;    // never-assigned variables
  std::optional<Canon> canon;  // never-assigned variables: its value's, or a fresh one
  const Expr* init = nullptr;       // never-assigned Let bound to a stable expression
};

// Guard facts with an undo log, so leaving a guarded region restores the facts before it.
class Facts {
 public:
  void push() { marks_.push_back(log_.size()); }
  void pop() {
    const std::size_t mark = marks_.back();
    marks_.pop_back();
    while (log_.size() > mark) {
      Undo& undo = log_.back();
      if (undo.below_len) {
        below_len_.erase(*undo.below_len);
      } else if (undo.old) {
        bounds_[undo.key] = *undo.old;
      } else {
        bounds_.erase(undo.key);
      }
      log_.pop_back();
    }
  }
  // Forget everything (a grid_sync): the open frames stay open, empty.
  void clear() {
    bounds_.clear();
    below_len_.clear();
    log_.clear();
    std::fill(marks_.begin(), marks_.end(), 0);
  }

  void refine(Canon canon, Interval bound) {
    auto found = bounds_.find(canon);
    std::optional<Interval> old;
    if (found != bounds_.end()) old = found->second;
    Interval next = bound;
    if (old) {
      auto both = meet(*old, bound);
      if (!both) return;  // the region is unreachable: any fact is sound, keep the old one
      next = *both;
    }
    if (old && *old == next) return;
    log_.push_back(Undo{canon, old, std::nullopt});
    bounds_[canon] = next;
  }
  bool empty() const { return bounds_.empty(); }
  std::optional<Interval> bound(Canon canon) const {
    auto found = bounds_.find(canon);
    if (found == bounds_.end()) return std::nullopt;
    return found->second;
  }

  void add_below_len(Canon canon, std::size_t buffer) {
    auto key = std::make_pair(canon, buffer);
    if (!below_len_.insert(key).second) return;
    log_.push_back(Undo{0, std::nullopt, key});
  }
  bool below_len(Canon canon, std::size_t buffer) const {
    return below_len_.count({canon, buffer}) != 0;
  }

 private:
  struct Undo {
    Canon key = 0;
    std::optional<Interval> old;
    std::optional<std::pair<Canon, std::size_t>> below_len;
  };
  std::unordered_map<Canon, Interval> bounds_;
  std::set<std::pair<Canon, std::size_t>> below_len_;
  std::vector<Undo> log_;
  std::vector<std::size_t> marks_;
};

void collect_assigned(const std::vector<Node>& body, std::set<std::string>& names) {
  for (const Node& n : body) {
    if (n.kind == NodeKind::Assign) names.insert(n.name);
    collect_assigned(n.body, names);
    collect_assigned(n.else_body, names);
  }
}

bool always_exits(const std::vector<Node>& body);

bool exits(const Node& n) {
  switch (n.kind) {
    case NodeKind::Return: return true;
    case NodeKind::Block: return always_exits(n.body);
    case NodeKind::If: return always_exits(n.body) && always_exits(n.else_body);
    default: return false;  // a loop may run no iteration
  }
}

bool always_exits(const std::vector<Node>& body) { return std::any_of(body.begin(), body.end(), exits); }

}  // namespace

Interval full_range(Type t) { return full(width(t)); }

std::optional<std::pair<std::uint32_t, std::uint32_t>> RangeAnalysis::constant_bounds(const Node& loop) const {
  auto found = constant_loops_.find(&loop);
  if (found == constant_loops_.end()) return std::nullopt;
  return found->second;
}

std::optional<Interval> RangeAnalysis::range(const Expr& expr) const {
  auto found = ranges_.find(&expr);
  if (found == ranges_.end()) return std::nullopt;
  return found->second;
}

class RangeWalk {
 public:
  RangeWalk(RangeAnalysis& out, const Program& program, const RangeAssumptions& assumptions)
      : out_(out), program_(program), buffers_(program), assumptions_(assumptions) {
    collect_assigned(program.body, assigned_);
    interned_.reserve(1024);
    // The covering facts rest on the tail guard, which full-workgroup code does not have.
    if (!needs_full_workgroups(program)) {
      for (std::uint32_t b : assumptions.covering)
        if (b < program.buffers.size() && program.buffers[b].access != Access::Workgroup) covering_.insert(b);
    }
    invocation_x_ = intern({kBuiltin, static_cast<std::uint64_t>(ExprKind::InvocationId), 0, 0, 0});
  }

  void run() {
    open();
    for (const Node& n : program_.body) statement(n);
    close();
    out_.covering_used_.assign(covering_used_.begin(), covering_used_.end());
  }

 private:
  RangeAnalysis& out_;
  const Program& program_;
  BufferIndex buffers_;
  const RangeAssumptions& assumptions_;
  std::set<std::string> assigned_;
  std::set<std::uint32_t> covering_;       // RangeAssumptions::covering, where it holds
  std::set<std::uint32_t> covering_used_;  // those that proved an access
  Canon invocation_x_ = 0;                 // InvocationId.x's canon
  ScopedNames<Binding> bindings_;
  Scope types_;
  Facts facts_;
  std::uint64_t next_id_ = 0;
  int reevaluation_depth_ = 0;
  std::uint64_t reevaluation_budget_ = RangeAnalysis::kReevaluationBudget;

  void open() {
    bindings_.open();
    types_.open();
    facts_.push();
  }
  void close() {
    facts_.pop();
    types_.close();
    bindings_.close();
  }

  void block(const std::vector<Node>& body) {
    open();
    for (const Node& n : body) statement(n);
    close();
  }

  void declare(const std::string& name, Binding binding) {
    if (binding.type) types_.declare(name, *binding.type);
    bindings_.declare(name, std::move(binding));
  }

  // ---- statements ----

  void statement(const Node& n) {
    switch (n.kind) {
      case NodeKind::Let: let(n); return;
      case NodeKind::Assign:
        if (!n.exprs.empty()) root(n.exprs[0]);
        return;
      case NodeKind::Store: store(n); return;
      case NodeKind::If: if_(n); return;
      case NodeKind::Loop: loop(n); return;
      case NodeKind::Block: block(n.body); return;
      case NodeKind::Barrier:
        if (n.barrier == BarrierKind::GridSync) facts_.clear();
        return;
      case NodeKind::Return: return;
    }
  }

  void let(const Node& n) {
    if (n.exprs.empty()) return;
    Info value = root(n.exprs[0]);
    Binding b;
    b.id = next_id_++;
    b.type = value.type;
    b.assigned = assigned_.count(n.name) != 0;
    if (!b.assigned) {
      b.range = value.range;
      b.canon = value.canon ? *value.canon : fresh(b.id);
      if (value.canon) b.init = &n.exprs[0];
    }
    declare(n.name, std::move(b));
  }

  void store(const Node& n) {
    if (n.exprs.size() < 2) return;
    Info index = root(n.exprs[0]);
    root(n.exprs[1]);
    access(&n, n.name, index);
  }

  void if_(const Node& n) {
    if (n.exprs.empty()) return;
    const Expr& cond = n.exprs[0];
    root(cond);
    open();
    assume(cond, true);
    for (const Node& s : n.body) statement(s);
    close();
    open();
    assume(cond, false);
    for (const Node& s : n.else_body) statement(s);
    close();
    // Code after the if runs only through a branch that does not always end the invocation.
    const bool then_exits = always_exits(n.body), else_exits = always_exits(n.else_body);
    if (then_exits && !else_exits) assume(cond, false);
    if (else_exits && !then_exits) assume(cond, true);
  }

  void loop(const Node& n) {
    if (n.exprs.size() < 2) return;
    Info from = root(n.exprs[0]);
    Info to = root(n.exprs[1]);
    const bool constant = from.canon && to.canon && from.range && to.range && from.range->lo == from.range->hi &&
                          to.range->lo == to.range->hi;
    if (constant) {
      out_.constant_loops_[&n] = {static_cast<std::uint32_t>(from.range->lo), static_cast<std::uint32_t>(to.range->lo)};
    }
    Binding counter;
    counter.id = next_id_++;
    counter.type = Type::U32;
    counter.canon = fresh(counter.id);  // constant within one iteration
    counter.range = full(32);
    if (from.range && to.range) {
      // var = from, ..., to - 1: a body that runs has from.lo <= var <= to.hi - 1.
      if (to.range->hi >= 1 && from.range->lo <= to.range->hi - 1) {
        counter.range = Interval{from.range->lo, to.range->hi - 1};
      } else {
        counter.range = point(0);  // the body never runs
      }
    }
    open();
    for (std::size_t buffer : bounded_by_len(n.exprs[1])) facts_.add_below_len(*counter.canon, buffer);
    declare(n.name, std::move(counter));
    for (const Node& s : n.body) statement(s);
    close();
  }

  // ---- accesses ----

  void access(const void* site, const std::string& buffer_name, const Info& index) {
    ++out_.accesses_;
    auto position = buffers_.position(buffer_name);
    if (!position || !index.type || !index.range) return;
    const BufferDecl& decl = program_.buffers[*position];
    const bool u32_index = *index.type == Type::U32;
    const bool non_negative_i32 = *index.type == Type::I32 && non_negative(*index.range, 32);
    // A workgroup buffer has its declared count; so does a global one declared with count > 0
    // (every binding of it is checked to be exactly count elements before launch: kit
    // bound_elements, and again where the runtime passes the length, kernel_args.cpp).
    if (decl.count > 0 && (u32_index || non_negative_i32) && index.range->hi < decl.count) {
      out_.proven_.insert(site);
      return;
    }
    if (decl.access == Access::Workgroup || !u32_index || !index.canon) return;
    if (facts_.below_len(*index.canon, *position)) {
      out_.proven_.insert(site);
      return;
    }
    const auto buffer = static_cast<std::uint32_t>(*position);
    if (*index.canon == invocation_x_ && covering_.count(buffer) != 0) {
      out_.proven_.insert(site);
      covering_used_.insert(buffer);
    }
  }

  // ---- guard facts ----

  // Global buffers b with value(e) <= BufLen(b), whenever e is evaluated.
  // `depth` bounds the walk through variables' initialisers (a chain of aliases can be long).
  std::vector<std::size_t> bounded_by_len(const Expr& e, int depth = 0) {
    std::vector<std::size_t> out;
    if (e.kind == ExprKind::BufLen) {
      auto position = buffers_.position(e.name);
      if (position && program_.buffers[*position].access != Access::Workgroup) out.push_back(*position);
    } else if (e.kind == ExprKind::Bin && e.bin_op == BinOp::Min && e.args.size() == 2) {
      // u32 min: at most either operand (BufLen is u32, so a min bounded by one is u32).
      for (const Expr& arg : e.args)
        for (std::size_t b : bounded_by_len(arg, depth + 1)) out.push_back(b);
    } else if (e.kind == ExprKind::Var) {
      const Binding* b = bindings_.find(e.name);
      if (b != nullptr && !b->assigned && b->init != nullptr && depth < kMaxFactDepth) return bounded_by_len(*b->init, depth + 1);
    }
    return out;
  }

  void assume(const Expr& cond, bool truth, int depth = 0) {
    if (depth > kMaxFactDepth) return;
    switch (cond.kind) {
      case ExprKind::Var: {
        const Binding* b = bindings_.find(cond.name);
        if (b != nullptr && !b->assigned && b->init != nullptr) assume(*b->init, truth, depth + 1);
        return;
      }
      case ExprKind::Un:
        if (cond.un_op == UnOp::LogicalNot && cond.args.size() == 1) assume(cond.args[0], !truth, depth + 1);
        return;
      case ExprKind::Bin: break;
      default: return;
    }
    if (cond.args.size() != 2) return;
    const Expr& x = cond.args[0];
    const Expr& y = cond.args[1];
    switch (cond.bin_op) {
      case BinOp::LogicalAnd:
        if (truth) {
          assume(x, true, depth + 1);
          assume(y, true, depth + 1);
        }
        return;
      case BinOp::LogicalOr:
        if (!truth) {
          assume(x, false, depth + 1);
          assume(y, false, depth + 1);
        }
        return;
      case BinOp::Lt: truth ? less(x, y, true) : less(y, x, false); return;
      case BinOp::Le: truth ? less(x, y, false) : less(y, x, true); return;
      case BinOp::Gt: truth ? less(y, x, true) : less(x, y, false); return;
      case BinOp::Ge: truth ? less(y, x, false) : less(x, y, true); return;
      case BinOp::Eq:
        if (truth) equal(x, y);
        return;
      case BinOp::Ne:
        if (!truth) equal(x, y);
        if (truth) nonzero(x, y);
        return;
      default: return;
    }
  }

  // Both operands' ranges, when the comparison of their types is the unsigned comparison of bits.
  bool comparable(const Info& a, const Info& b) {
    if (!a.type || !b.type || !integral(*a.type) || !a.range || !b.range) return false;
    return unsigned_view(*a.type, *a.range, *b.range, width(*a.type));
  }

  // x < y (strict) or x <= y holds from here on.
  void less(const Expr& x, const Expr& y, bool strict) {
    Info a = eval(x, false);
    Info b = eval(y, false);
    if (!comparable(a, b)) return;
    if (strict && a.canon && *a.type == Type::U32)
      for (std::size_t buffer : bounded_by_len(y)) facts_.add_below_len(*a.canon, buffer);
    const std::uint64_t gap = strict ? 1 : 0;
    if (a.canon && b.range->hi >= gap) facts_.refine(*a.canon, Interval{0, b.range->hi - gap});
    if (b.canon && a.range->lo <= max_of(width(*b.type)) - gap)
      facts_.refine(*b.canon, Interval{a.range->lo + gap, max_of(width(*b.type))});
  }

  void equal(const Expr& x, const Expr& y) {
    Info a = eval(x, false);
    Info b = eval(y, false);
    if (!a.type || !b.type || !a.range || !b.range) return;
    if (a.canon) facts_.refine(*a.canon, *b.range);
    if (b.canon) facts_.refine(*b.canon, *a.range);
  }

  // x != y holds from here on: where one side is the literal 0, the other's bits are not 0.
  void nonzero(const Expr& x, const Expr& y) {
    Info a = eval(x, false);
    Info b = eval(y, false);
    if (!a.type || !b.type || !integral(*a.type) || !a.range || !b.range) return;
    const Interval bits = full(width(*a.type));
    if (b.range == point(0) && a.canon) facts_.refine(*a.canon, Interval{1, bits.hi});
    if (a.range == point(0) && b.canon) facts_.refine(*b.canon, Interval{1, bits.hi});
  }

  // ---- expressions ----

  std::unordered_map<CanonKey, Canon, CanonKeyHash> interned_;

  Canon intern(const CanonKey& key) { return interned_.try_emplace(key, interned_.size() + 1).first->second; }
  Canon fresh(std::uint64_t binding) { return intern({kFresh, binding, 0, 0, 0}); }

  // The canon of an operator node over its operands' canons (none when an operand is not stable).
  std::optional<Canon> join_canon(CanonTag tag, std::uint64_t op, std::span<const Info> args) {
    CanonKey key{tag, op, 0, 0, 0};
    for (std::size_t i = 0; i < args.size() && i < 3; ++i) {
      if (!args[i].canon) return std::nullopt;
      key[2 + i] = *args[i].canon;
    }
    return intern(key);
  }

  // `record`: remember the ranges and check the accesses (the walk's one visit in emission order);
  // otherwise only compute (guard facts re-evaluate their operands).
  Info eval(const Expr& e, bool record) {
    Info info = compute(e, record);
    if (info.canon && info.range) {
      if (auto bound = facts_.bound(*info.canon)) {
        if (auto both = meet(*info.range, *bound)) info.range = *both;
      }
    }
    return info;
  }

  // A statement's operand (or an access's index): evaluated, and its interval kept for range().
  Info root(const Expr& e) {
    Info info = eval(e, true);
    if (info.range) out_.ranges_[&e] = *info.range;
    return info;
  }

  Info compute(const Expr& e, bool record) {
    switch (e.kind) {
      case ExprKind::Lit: {
        Info info{e.type, std::nullopt, intern({kLit, static_cast<std::uint64_t>(e.type), e.bits, 0, 0})};
        if (integral(e.type) || e.type == Type::Bool) info.range = point(e.bits & max_of(width(e.type)));
        return info;
      }
      case ExprKind::Var: {
        const Binding* b = bindings_.find(e.name);
        if (b == nullptr) return {};
        Info info{b->type, std::nullopt, std::nullopt};
        if (b->type && (integral(*b->type) || *b->type == Type::Bool)) {
          info.range = b->assigned ? full(width(*b->type)) : b->range;
        }
        if (!b->assigned) info.canon = b->canon;
        if (info.range) info.range = reevaluated(*b, *info.range);
        return info;
      }
      case ExprKind::BufLen: {
        auto position = buffers_.position(e.name);
        Info info{Type::U32, full(32), std::nullopt};
        if (position) info.canon = intern({kLen, *position, 0, 0, 0});
        // Declared with a count (every workgroup buffer; a global one with count > 0): exactly it.
        if (position && program_.buffers[*position].count > 0) info.range = point(program_.buffers[*position].count);
        return info;
      }
      case ExprKind::LocalId:
      case ExprKind::WorkgroupId:
      case ExprKind::NumWorkgroups:
      case ExprKind::InvocationId: return builtin(e);
      case ExprKind::SubgroupLane: return Info{Type::U32, Interval{0, kSubgroupSize - 1}, intern({kLane, 0, 0, 0, 0})};
      case ExprKind::SubgroupSize: return Info{Type::U32, point(kSubgroupSize), intern({kGroupSize, 0, 0, 0, 0})};
      default: break;
    }
    // Every kind has at most 3 operands; a validated program has no more (extra ones are ignored).
    std::array<Info, 3> operand_info;
    std::array<std::optional<Type>, 3> types;
    const std::size_t count = std::min<std::size_t>(e.args.size(), 3);
    for (std::size_t i = 0; i < count; ++i) {
      operand_info[i] = eval(e.args[i], record);
      types[i] = operand_info[i].type;
    }
    const std::span<const Info> args(operand_info.data(), count);
    Info info;
    if (e.args.size() > 3) return info;
    info.type = expr_type_from(e, std::span<const std::optional<Type>>(types.data(), count), buffers_, types_);
    if (!info.type) return info;
    const Type t = *info.type;
    switch (e.kind) {
      case ExprKind::Load:
      case ExprKind::Atomic:
        info.range = e.kind == ExprKind::Load ? loaded_range(e.name, t)
                     : integral(t)           ? std::optional<Interval>(full(width(t)))
                                             : std::nullopt;
        if (record && !args.empty()) {
          if (args[0].range) out_.ranges_[&e.args[0]] = *args[0].range;
          access(&e, e.name, args[0]);
        }
        return info;
      case ExprKind::SubgroupBallot:
      case ExprKind::SubgroupShuffle:
      case ExprKind::SubgroupReduce:
        if (integral(t) || t == Type::Bool) info.range = full(width(t));
        return info;
      case ExprKind::Bin: {
        if (args.size() != 2) return info;
        info.canon = join_canon(kBin, static_cast<std::uint64_t>(e.bin_op), args);
        if (is_comparison(e.bin_op) || e.bin_op == BinOp::LogicalAnd || e.bin_op == BinOp::LogicalOr) {
          info.range = Interval{0, 1};
          return info;
        }
        const std::optional<Type>& operand = args[0].type;
        if (record && (e.bin_op == BinOp::Div || e.bin_op == BinOp::Mod) && operand && integral(*operand) &&
            plain(*operand, args[0].range, args[1].range))
          out_.plain_divisions_.insert(&e);
        if (operand && integral(*operand) && args[0].range && args[1].range)
          info.range = binary_range(e.bin_op, *operand, *args[0].range, *args[1].range);
        else if (integral(t))
          info.range = full(width(t));
        return info;
      }
      case ExprKind::Un: {
        if (args.size() != 1) return info;
        info.canon = join_canon(kUn, static_cast<std::uint64_t>(e.un_op), args);
        const std::optional<Type>& operand = args[0].type;
        if (operand && args[0].range) {
          info.range = unary_range(e.un_op, *operand, *args[0].range);
        } else if (integral(t) || t == Type::Bool) {
          info.range = full(width(t));
        }
        return info;
      }
      case ExprKind::Select:
        if (args.size() != 3) return info;
        info.canon = join_canon(kSelect, 0, args);
        if (args[1].range && args[2].range) {
          info.range = join(*args[1].range, *args[2].range);
          if (args[0].range == point(1)) info.range = args[1].range;
          if (args[0].range == point(0)) info.range = args[2].range;
        }
        return info;
      case ExprKind::Cast:
      case ExprKind::Bitcast: {
        if (args.size() != 1) return info;
        info.canon = join_canon(e.kind == ExprKind::Cast ? kCast : kBitcast, static_cast<std::uint64_t>(t), args);
        const std::optional<Type>& from = args[0].type;
        const bool integral_to = integral(t) || t == Type::Bool;
        const bool integral_from = from && (integral(*from) || *from == Type::Bool);
        if (integral_to && integral_from && args[0].range) {
          info.range = cast_range(*from, t, *args[0].range);
        } else if (integral_to) {
          info.range = full(width(t));
        }
        return info;
      }
      case ExprKind::Fma: info.canon = join_canon(kFma, 0, args); return info;
      default: return info;
    }
  }

  // A never-assigned variable bound to a stable expression holds that expression's value, which
  // the guard facts in force here may bound more tightly than where it was defined (`let i = y * w
  // + x` before `if x < w - 1 && y < h - 1`): its initialiser evaluated again under them, met with
  // `range`. Sound because a stable expression's value cannot change within an invocation.
  Interval reevaluated(const Binding& b, Interval range) {
    if (b.init == nullptr || facts_.empty() || reevaluation_depth_ >= kMaxReevaluationDepth) return range;
    const std::uint64_t nodes = count_nodes(*b.init);
    if (nodes > reevaluation_budget_) return range;
    reevaluation_budget_ -= nodes;
    out_.reevaluated_nodes_ += nodes;
    ++reevaluation_depth_;
    const Info again = eval(*b.init, false);
    --reevaluation_depth_;
    if (!again.range) return range;
    return meet(range, *again.range).value_or(range);
  }

  // Counted once per initialiser (a program may read one variable many times).
  std::unordered_map<const Expr*, std::uint64_t> node_counts_;
  std::uint64_t count_nodes(const Expr& e) {
    auto [it, inserted] = node_counts_.try_emplace(&e, 0);
    if (inserted) it->second = subtree_size(e);
    return it->second;
  }
  static std::uint64_t subtree_size(const Expr& e) {
    std::uint64_t n = 1;
    for (const Expr& a : e.args) n += subtree_size(a);
    return n;
  }

  // A division of `t` whose divisor (interval `b`) is never 0 and, for signed types, never the
  // -1 of MIN / -1 unless the dividend (interval `a`) is never MIN.
  static bool plain(Type t, const std::optional<Interval>& a, const std::optional<Interval>& b) {
    if (!b || b->lo == 0) return false;
    if (!signed_type(t)) return true;
    const unsigned w = width(t);
    const std::uint64_t minus_one = max_of(w), min_bits = std::uint64_t{1} << (w - 1);
    if (b->hi < minus_one) return true;
    return a && (a->hi < min_bits || a->lo > min_bits);
  }

  // A load widens its element: narrow unsigned storage stays below its width's maximum.
  std::optional<Interval> loaded_range(const std::string& buffer, Type value_type) {
    if (!integral(value_type) && value_type != Type::Bool) return std::nullopt;
    const BufferDecl* decl = buffers_.find(buffer);
    if (decl != nullptr && decl->element == Type::U8) return Interval{0, 0xFF};
    if (decl != nullptr && decl->element == Type::U16) return Interval{0, 0xFFFF};
    return full(width(value_type));
  }

  Info builtin(const Expr& e) {
    if (e.axis > 2) return {};
    Info info{Type::U32, std::nullopt, intern({kBuiltin, static_cast<std::uint64_t>(e.kind), e.axis, 0, 0})};
    const std::uint64_t grid_max = e.axis == 0 ? kMaxGridX : kMaxGridYZ;
    const std::uint64_t size = assumptions_.workgroup ? (*assumptions_.workgroup)[e.axis] : 0;
    const Interval local{0, size != 0 ? std::min(size - 1, kMaxLocalId) : kMaxLocalId};
    const Interval group{0, grid_max - 1};
    switch (e.kind) {
      case ExprKind::LocalId: info.range = local; break;
      case ExprKind::WorkgroupId: info.range = group; break;
      case ExprKind::NumWorkgroups: info.range = Interval{1, grid_max}; break;
      default:
        info.range = add(mul(group, Interval{1, local.hi + 1}, 32), local, 32);
        break;
    }
    return info;
  }
};

RangeAnalysis::RangeAnalysis(const Program& program, const RangeAssumptions& assumptions) {
  RangeWalk(*this, program, assumptions).run();
}

}  // namespace vyre::cuda::optimize
