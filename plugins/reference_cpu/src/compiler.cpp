// Program -> Executable. Expressions are flattened into register instructions (children first,
// left to right, so side effects keep SPEC's operand order); statements keep their structure so
// the interpreter can mask lanes for If, Loop and Return. Temporaries are recycled through a free
// list; variables get a register for their scope (or share an immutable one).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "executable.hpp"
#include "kernels.hpp"
#include "vyre/buffer_index.hpp"
#include "vyre/error.hpp"
#include "vyre/ops.hpp"
#include "vyre/scoped_names.hpp"

namespace vyre::refcpu {
namespace {

struct Operand {
  std::uint32_t reg = 0;
  Type type = Type::U32;
  bool owned = false;  // a temporary this expression produced (free it, or adopt it)
};

struct Variable {
  std::uint32_t reg = 0;
  Type type = Type::U32;
  bool owned = false;  // the register is released when the scope ends
};

[[noreturn]] void internal(const std::string& path, const std::string& problem) {
  fail(VYRE_ERR_INTERNAL,
       fmt::format("reference_cpu cannot compile {}: {}", path.empty() ? "the program" : path, problem),
       "validate the program with vyre::validate first; if it passes, report this as a "
       "reference_cpu bug with the program attached");
}

void collect_assigned(const std::vector<Node>& body, std::unordered_set<std::string>& out) {
  for (const Node& n : body) {
    if (n.kind == NodeKind::Assign) out.insert(n.name);
    collect_assigned(n.body, out);
    collect_assigned(n.else_body, out);
  }
}

bool may_return(const std::vector<Stmt>& body) {
  for (const Stmt& s : body)
    if (s.may_return) return true;
  return false;
}

class Compiler {
 public:
  explicit Compiler(const Program& program) : program_(program), buffers_(program) {
    collect_assigned(program.body, assigned_);
  }

  std::shared_ptr<const Executable> run() {
    for (std::size_t i = 0; i < program_.buffers.size(); ++i) {
      const BufferDecl& d = program_.buffers[i];
      if (d.access == Access::Workgroup)
        exe_.workgroup_buffers.push_back({static_cast<std::uint32_t>(i), d.count, byte_size(d.element)});
    }
    exe_.phases.emplace_back();
    out_ = &exe_.phases.back();
    for (std::size_t i = 0; i < program_.body.size(); ++i) {
      const Node& n = program_.body[i];
      if (n.kind == NodeKind::Barrier && n.barrier == BarrierKind::GridSync) {
        end_phase();
        continue;
      }
      node(n, fmt::format("body[{}]", i));
    }
    exe_.reg_count = std::max<std::uint32_t>(next_reg_, 1);
    return std::make_shared<const Executable>(std::move(exe_));
  }

 private:
  // ---- registers ----
  std::uint32_t alloc() {
    if (!free_.empty()) {
      std::uint32_t r = free_.back();
      free_.pop_back();
      return r;
    }
    return next_reg_++;
  }
  void release(const Operand& op) {
    if (op.owned) free_.push_back(op.reg);
  }
  std::uint32_t fixed(FillKind kind, std::uint32_t arg, std::uint64_t value) {
    auto key = std::make_tuple(kind, arg, value);
    auto it = fixed_.find(key);
    if (it != fixed_.end()) return it->second;
    std::uint32_t reg = next_reg_++;
    fixed_.emplace(key, reg);
    immutable_.insert(reg);
    bool per_workgroup = kind == FillKind::WorkgroupId || kind == FillKind::InvocationId;
    (per_workgroup ? exe_.workgroup_fills : exe_.dispatch_fills).push_back({reg, kind, arg, value});
    return reg;
  }
  Operand builtin(FillKind kind, std::uint32_t arg) { return {fixed(kind, arg, 0), Type::U32, false}; }

  // ---- scopes ----
  void release_variable(const Variable& v) {
    if (v.owned) free_.push_back(v.reg);
  }
  void push_scope() { vars_.open(); }
  void pop_scope() {
    vars_.close([this](const Variable& v) { release_variable(v); });
  }
  const Variable& lookup(const std::string& name, const std::string& path) {
    const Variable* v = vars_.find(name);
    if (v == nullptr) internal(path, fmt::format("variable '{}' is not in scope", name));
    return *v;
  }
  // Every variable and temporary is dead at a grid_sync (validation forbids crossing it).
  void end_phase() {
    vars_.clear([this](const std::string&, const Variable& v) { release_variable(v); });
    exe_.phases.emplace_back();
    out_ = &exe_.phases.back();
  }

  // ---- emission ----
  std::vector<Instr>& code() {
    if (out_->empty() || out_->back().kind != StmtKind::Code) out_->emplace_back();
    return out_->back().code;
  }
  void emit(KernelFn fn, std::uint32_t dst, std::uint32_t a = 0, std::uint32_t b = 0,
            std::uint32_t c = 0, std::uint32_t mem = 0, std::uint32_t site = 0,
            bool elementwise = true) {
    code().push_back(Instr{fn, dst, a, b, c, mem, site});
    last_elementwise_ = elementwise;
  }
  // Barriers and subgroup ops are the statements that can fail at run time.
  std::uint32_t site(const std::string& path, const std::string& what) {
    exe_.can_fail = true;
    exe_.sites.push_back(what.empty() ? path : fmt::format("{} ({})", path, what));
    return static_cast<std::uint32_t>(exe_.sites.size() - 1);
  }

  KernelFn need(KernelFn fn, const std::string& path, const std::string& what) {
    if (fn == nullptr) internal(path, fmt::format("no kernel for {}", what));
    return fn;
  }

  std::uint32_t buffer_index(const std::string& name, const std::string& path) {
    auto i = buffers_.position(name);
    if (!i) internal(path, fmt::format("buffer '{}' is not declared", name));
    return static_cast<std::uint32_t>(*i);
  }

  // ---- expressions ----
  Operand expr(const Expr& e, const std::string& path) {
    switch (e.kind) {
      case ExprKind::Lit: return {fixed(FillKind::Constant, 0, e.bits), e.type, false};
      case ExprKind::Var: {
        const Variable& v = lookup(e.name, path);
        return {v.reg, v.type, false};
      }
      case ExprKind::Load: return load(e, path);
      case ExprKind::BufLen: return builtin(FillKind::BufLen, buffer_index(e.name, path));
      case ExprKind::InvocationId: return builtin(FillKind::InvocationId, axis(e, path));
      case ExprKind::LocalId: return builtin(FillKind::LocalId, axis(e, path));
      case ExprKind::WorkgroupId: return builtin(FillKind::WorkgroupId, axis(e, path));
      case ExprKind::NumWorkgroups: return builtin(FillKind::NumWorkgroups, axis(e, path));
      case ExprKind::SubgroupLane: return builtin(FillKind::SubgroupLane, 0);
      case ExprKind::SubgroupSize: return {fixed(FillKind::Constant, 0, 32), Type::U32, false};
      case ExprKind::Bin: return binary(e, path);
      case ExprKind::Un: return unary(e, path);
      case ExprKind::Select: return select(e, path);
      case ExprKind::Cast: return convert(e, path, false);
      case ExprKind::Bitcast: return convert(e, path, true);
      case ExprKind::Fma: return fma(e, path);
      case ExprKind::Atomic: return atomic(e, path);
      case ExprKind::SubgroupBallot:
      case ExprKind::SubgroupShuffle:
      case ExprKind::SubgroupReduce: return subgroup(e, path);
    }
    internal(path, "unknown expression kind");
  }

  void arity(const Expr& e, std::size_t n, const std::string& path) {
    if (e.args.size() != n) internal(path, fmt::format("expected {} operands, got {}", n, e.args.size()));
  }
  std::uint32_t axis(const Expr& e, const std::string& path) {
    if (e.axis > 2) internal(path, fmt::format("builtin axis {} is not 0, 1 or 2", e.axis));
    return e.axis;
  }
  void check_index(const Operand& index, const std::string& path) {
    if (index.type != Type::U32 && index.type != Type::I32)
      internal(path, fmt::format("index of type {} (need u32 or i32)", type_name(index.type)));
  }

  Operand load(const Expr& e, const std::string& path) {
    arity(e, 1, path);
    std::uint32_t mem = buffer_index(e.name, path);
    Type storage = program_.buffers[mem].element;
    Operand index = expr(e.args[0], path);
    check_index(index, path);
    release(index);
    std::uint32_t d = alloc();
    emit(need(load_kernel(storage, index.type), path, "load"), d, index.reg, 0, 0, mem);
    return {d, widen(storage), true};
  }

  // Evaluates all N operands left to right, then frees them so that the result may take one of
  // their registers: an elementwise kernel reads each lane's operands before writing that lane.
  template <std::size_t N>
  std::array<Operand, N> elementwise_operands(const Expr& e, const std::string& path) {
    arity(e, N, path);
    std::array<Operand, N> operands;
    for (std::size_t i = 0; i < N; ++i) operands[i] = expr(e.args[i], path);
    for (const Operand& op : operands) release(op);
    return operands;
  }

  Operand binary(const Expr& e, const std::string& path) {
    auto [a, b] = elementwise_operands<2>(e, path);
    std::uint32_t d = alloc();
    auto what = fmt::format("bin.{}.{}", bin_op_name(e.bin_op), type_name(a.type));
    emit(need(bin_kernel(e.bin_op, a.type), path, what), d, a.reg, b.reg);
    return {d, bin_result_type(e.bin_op, a.type), true};
  }

  Operand unary(const Expr& e, const std::string& path) {
    auto [a] = elementwise_operands<1>(e, path);
    std::uint32_t d = alloc();
    auto what = fmt::format("un.{}.{}", un_op_name(e.un_op), type_name(a.type));
    emit(need(un_kernel(e.un_op, a.type), path, what), d, a.reg);
    return {d, un_result_type(e.un_op, a.type), true};
  }

  Operand select(const Expr& e, const std::string& path) {
    auto [c, a, b] = elementwise_operands<3>(e, path);
    std::uint32_t d = alloc();
    emit(select_kernel(), d, c.reg, a.reg, b.reg);
    return {d, a.type, true};
  }

  Operand convert(const Expr& e, const std::string& path, bool bitcast) {
    auto [a] = elementwise_operands<1>(e, path);
    std::uint32_t d = alloc();
    auto what = fmt::format("{}.{}.{}", bitcast ? "bitcast" : "cast", type_name(a.type), type_name(e.type));
    KernelFn fn = bitcast ? bitcast_kernel(a.type, e.type) : cast_kernel(a.type, e.type);
    emit(need(fn, path, what), d, a.reg);
    return {d, e.type, true};
  }

  Operand fma(const Expr& e, const std::string& path) {
    auto [a, b, c] = elementwise_operands<3>(e, path);
    std::uint32_t d = alloc();
    emit(need(fma_kernel(a.type), path, fmt::format("fma.{}", type_name(a.type))), d, a.reg, b.reg, c.reg);
    return {d, a.type, true};
  }

  Operand atomic(const Expr& e, const std::string& path) {
    bool cmpxchg = e.atomic_op == AtomicOp::CompareExchange;
    arity(e, cmpxchg ? 3 : 2, path);
    std::uint32_t mem = buffer_index(e.name, path);
    Type element = program_.buffers[mem].element;
    Operand index = expr(e.args[0], path);
    Operand value = expr(e.args[1], path);
    Operand expected = cmpxchg ? expr(e.args[2], path) : value;
    check_index(index, path);
    release(index);
    release(value);
    if (cmpxchg) release(expected);
    std::uint32_t d = alloc();
    auto what = fmt::format("atomic.{}.{}", atomic_op_name(e.atomic_op), type_name(element));
    emit(need(atomic_kernel(e.atomic_op, element, index.type), path, what), d, index.reg,
         value.reg, expected.reg, mem);
    return {d, element, true};
  }

  // The destination is allocated before the operands are freed: subgroup kernels read other
  // lanes' operands, so they must not write over them.
  Operand subgroup(const Expr& e, const std::string& path) {
    if (e.kind == ExprKind::SubgroupBallot) {
      arity(e, 1, path);
      Operand c = expr(e.args[0], path);
      std::uint32_t d = alloc();
      emit(ballot_kernel(), d, c.reg, 0, 0, 0, site(path, "subgroup.ballot"), false);
      release(c);
      return {d, Type::U32, true};
    }
    if (e.kind == ExprKind::SubgroupShuffle) {
      arity(e, 2, path);
      Operand v = expr(e.args[0], path);
      Operand lane = expr(e.args[1], path);
      std::uint32_t d = alloc();
      auto what = fmt::format("subgroup.shuffle.{}", type_name(v.type));
      emit(shuffle_kernel(), d, v.reg, lane.reg, 0, 0, site(path, what), false);
      release(v);
      release(lane);
      return {d, v.type, true};
    }
    arity(e, 1, path);
    Operand v = expr(e.args[0], path);
    std::uint32_t d = alloc();
    auto what = fmt::format("subgroup.reduce.{}.{}", reduce_op_name(e.reduce_op), type_name(v.type));
    emit(need(reduce_kernel(e.reduce_op, v.type), path, what), d, v.reg, 0, 0, 0, site(path, what), false);
    release(v);
    return {d, v.type, true};
  }

  // ---- statements ----
  void node(const Node& n, const std::string& path) {
    switch (n.kind) {
      case NodeKind::Let: return let(n, path);
      case NodeKind::Assign: return assign(n, path);
      case NodeKind::Store: return store(n, path);
      case NodeKind::If: return if_(n, path);
      case NodeKind::Loop: return loop(n, path);
      case NodeKind::Return: {
        Stmt s;
        s.kind = StmtKind::Return;
        s.may_return = true;
        out_->push_back(std::move(s));
        return;
      }
      case NodeKind::Block:
        push_scope();
        for (std::size_t i = 0; i < n.body.size(); ++i) node(n.body[i], fmt::format("{}.block[{}]", path, i));
        pop_scope();
        return;
      case NodeKind::Barrier: {
        if (n.barrier == BarrierKind::GridSync) internal(path, "grid_sync below the top level");
        Stmt s;
        s.kind = StmtKind::Barrier;
        s.site = site(path, "barrier");
        out_->push_back(std::move(s));
        return;
      }
    }
    internal(path, "unknown node kind");
  }

  void exprs(const Node& n, std::size_t count, const std::string& path) {
    if (n.exprs.size() != count)
      internal(path, fmt::format("expected {} expressions, got {}", count, n.exprs.size()));
  }

  void let(const Node& n, const std::string& path) {
    exprs(n, 1, path);
    Operand v = expr(n.exprs[0], path + ".value");
    Variable var{v.reg, v.type, v.owned};
    bool shareable = immutable_.count(v.reg) != 0 && assigned_.count(n.name) == 0;
    if (!v.owned && !shareable) {
      var.reg = alloc();
      var.owned = true;
      emit(copy_kernel(), var.reg, v.reg);
    }
    vars_.declare(n.name, var);
  }

  void assign(const Node& n, const std::string& path) {
    exprs(n, 1, path);
    Operand v = expr(n.exprs[0], path + ".value");
    std::uint32_t target = lookup(n.name, path).reg;
    std::vector<Instr>& c = code();
    if (v.owned && last_elementwise_ && !c.empty() && c.back().dst == v.reg) {
      c.back().dst = target;  // the value's own instruction writes the variable (masked)
    } else {
      emit(copy_kernel(), target, v.reg);
    }
    release(v);
  }

  void store(const Node& n, const std::string& path) {
    exprs(n, 2, path);
    std::uint32_t mem = buffer_index(n.name, path);
    Type storage = program_.buffers[mem].element;
    Operand index = expr(n.exprs[0], path + ".index");
    Operand value = expr(n.exprs[1], path + ".value");
    check_index(index, path);
    emit(need(store_kernel(storage, index.type), path, "store"), 0, index.reg, value.reg, 0, mem);
    release(index);
    release(value);
  }

  // Compile `body` as the child statement list `out` one level deeper, in its own scope.
  void nested(const std::vector<Node>& body, std::vector<Stmt>& out, const std::string& prefix) {
    std::vector<Stmt>* saved = out_;
    out_ = &out;
    ++depth_;
    exe_.max_depth = std::max(exe_.max_depth, depth_);
    push_scope();
    for (std::size_t i = 0; i < body.size(); ++i) node(body[i], fmt::format("{}[{}]", prefix, i));
    pop_scope();
    --depth_;
    out_ = saved;
  }

  void if_(const Node& n, const std::string& path) {
    exprs(n, 1, path);
    Operand cond = expr(n.exprs[0], path + ".cond");
    release(cond);  // read once, at the split, before either branch runs
    Stmt s;
    s.kind = StmtKind::If;
    s.cond = cond.reg;
    nested(n.body, s.then_body, path + ".then");
    nested(n.else_body, s.else_body, path + ".else");
    s.may_return = may_return(s.then_body) || may_return(s.else_body);
    out_->push_back(std::move(s));
  }

  // Bounds are evaluated once; the loop variable is a private register the loop increments, and
  // `to` is held in a register nothing else writes while the loop runs.
  void loop(const Node& n, const std::string& path) {
    exprs(n, 2, path);
    Operand from = expr(n.exprs[0], path + ".from");
    Operand to = expr(n.exprs[1], path + ".to");
    std::uint32_t var = from.reg;
    if (!from.owned) {
      var = alloc();
      emit(copy_kernel(), var, from.reg);
    }
    std::uint32_t limit = to.reg;
    bool limit_owned = to.owned;
    if (!to.owned && immutable_.count(to.reg) == 0) {
      limit = alloc();
      limit_owned = true;
      emit(copy_kernel(), limit, to.reg);
    }
    Stmt s;
    s.kind = StmtKind::Loop;
    s.var = var;
    s.to = limit;
    push_scope();
    vars_.declare(n.name, Variable{var, Type::U32, true});
    nested(n.body, s.then_body, path + ".body");
    pop_scope();  // releases the loop variable
    if (limit_owned) free_.push_back(limit);
    s.may_return = may_return(s.then_body);
    out_->push_back(std::move(s));
  }

  const Program& program_;
  Executable exe_;
  std::vector<Stmt>* out_ = nullptr;
  std::uint32_t depth_ = 0;
  std::uint32_t next_reg_ = 0;
  std::vector<std::uint32_t> free_;
  std::map<std::tuple<FillKind, std::uint32_t, std::uint64_t>, std::uint32_t> fixed_;
  std::unordered_set<std::uint32_t> immutable_;
  BufferIndex buffers_;
  ScopedNames<Variable> vars_;
  std::unordered_set<std::string> assigned_;
  bool last_elementwise_ = false;
};

}  // namespace

std::shared_ptr<const Executable> compile_program(const Program& program) {
  return Compiler(program).run();
}

}  // namespace vyre::refcpu
