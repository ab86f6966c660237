// Building programs in C++.
//
//   using namespace vyre::dsl;
//   vyre::ProgramBuilder b;
//   b.workgroup(64);
//   auto x = b.buffer("x", Access::Read, Type::U32);
//   auto y = b.buffer("y", Access::Read, Type::U32);
//   auto out = b.buffer("out", Access::Output, Type::U32, 1024);
//   auto i = b.let("i", invocation_id(0));
//   b.store(out, i, x[i] ^ y[i]);
//   vyre::Program p = b.build();
//
// Operators on Expr build Bin nodes (+ - * / % & | ^ << >>, unary - and ~); comparisons are the
// functions eq/ne/lt/le/gt/ge so that == keeps meaning structural equality.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "vyre/ir.hpp"

namespace vyre {
namespace dsl {

inline Expr make(ExprKind kind, std::vector<Expr> args = {}) {
  Expr e;
  e.kind = kind;
  e.args = std::move(args);
  return e;
}

// ---- literals ----
inline Expr lit(Type type, std::uint64_t bits) {
  Expr e = make(ExprKind::Lit);
  e.type = type;
  e.bits = bits;
  return e;
}
inline Expr boolean(bool v) { return lit(Type::Bool, v ? 1 : 0); }
inline Expr u32(std::uint32_t v) { return lit(Type::U32, v); }
inline Expr i32(std::int32_t v) { return lit(Type::I32, static_cast<std::uint32_t>(v)); }
inline Expr u64(std::uint64_t v) { return lit(Type::U64, v); }
inline Expr i64(std::int64_t v) { return lit(Type::I64, static_cast<std::uint64_t>(v)); }
inline Expr f32(float v) { return lit(Type::F32, std::bit_cast<std::uint32_t>(v)); }
inline Expr f64(double v) { return lit(Type::F64, std::bit_cast<std::uint64_t>(v)); }

// ---- names, memory, builtins ----
inline Expr var(std::string name) {
  Expr e = make(ExprKind::Var);
  e.name = std::move(name);
  return e;
}
inline Expr load(std::string buffer, Expr index) {
  Expr e = make(ExprKind::Load, {std::move(index)});
  e.name = std::move(buffer);
  return e;
}
inline Expr buf_len(std::string buffer) {
  Expr e = make(ExprKind::BufLen);
  e.name = std::move(buffer);
  return e;
}
inline Expr axis_builtin(ExprKind kind, std::uint32_t axis) {
  Expr e = make(kind);
  e.axis = axis;
  return e;
}
inline Expr invocation_id(std::uint32_t axis = 0) { return axis_builtin(ExprKind::InvocationId, axis); }
inline Expr local_id(std::uint32_t axis = 0) { return axis_builtin(ExprKind::LocalId, axis); }
inline Expr workgroup_id(std::uint32_t axis = 0) { return axis_builtin(ExprKind::WorkgroupId, axis); }
inline Expr num_workgroups(std::uint32_t axis = 0) { return axis_builtin(ExprKind::NumWorkgroups, axis); }
inline Expr subgroup_lane() { return make(ExprKind::SubgroupLane); }
inline Expr subgroup_size() { return make(ExprKind::SubgroupSize); }

// ---- arithmetic ----
inline Expr bin(BinOp op, Expr a, Expr b) {
  Expr e = make(ExprKind::Bin, {std::move(a), std::move(b)});
  e.bin_op = op;
  return e;
}
inline Expr un(UnOp op, Expr a) {
  Expr e = make(ExprKind::Un, {std::move(a)});
  e.un_op = op;
  return e;
}
inline Expr select(Expr cond, Expr a, Expr b) {
  return make(ExprKind::Select, {std::move(cond), std::move(a), std::move(b)});
}
inline Expr cast(Type to, Expr v) {
  Expr e = make(ExprKind::Cast, {std::move(v)});
  e.type = to;
  return e;
}
inline Expr bitcast(Type to, Expr v) {
  Expr e = make(ExprKind::Bitcast, {std::move(v)});
  e.type = to;
  return e;
}
inline Expr fma(Expr a, Expr b, Expr c) {
  return make(ExprKind::Fma, {std::move(a), std::move(b), std::move(c)});
}

inline Expr eq(Expr a, Expr b) { return bin(BinOp::Eq, std::move(a), std::move(b)); }
inline Expr ne(Expr a, Expr b) { return bin(BinOp::Ne, std::move(a), std::move(b)); }
inline Expr lt(Expr a, Expr b) { return bin(BinOp::Lt, std::move(a), std::move(b)); }
inline Expr le(Expr a, Expr b) { return bin(BinOp::Le, std::move(a), std::move(b)); }
inline Expr gt(Expr a, Expr b) { return bin(BinOp::Gt, std::move(a), std::move(b)); }
inline Expr ge(Expr a, Expr b) { return bin(BinOp::Ge, std::move(a), std::move(b)); }
inline Expr min(Expr a, Expr b) { return bin(BinOp::Min, std::move(a), std::move(b)); }
inline Expr max(Expr a, Expr b) { return bin(BinOp::Max, std::move(a), std::move(b)); }
inline Expr logical_and(Expr a, Expr b) { return bin(BinOp::LogicalAnd, std::move(a), std::move(b)); }
inline Expr logical_or(Expr a, Expr b) { return bin(BinOp::LogicalOr, std::move(a), std::move(b)); }

inline Expr operator+(Expr a, Expr b) { return bin(BinOp::Add, std::move(a), std::move(b)); }
inline Expr operator-(Expr a, Expr b) { return bin(BinOp::Sub, std::move(a), std::move(b)); }
inline Expr operator*(Expr a, Expr b) { return bin(BinOp::Mul, std::move(a), std::move(b)); }
inline Expr operator/(Expr a, Expr b) { return bin(BinOp::Div, std::move(a), std::move(b)); }
inline Expr operator%(Expr a, Expr b) { return bin(BinOp::Mod, std::move(a), std::move(b)); }
inline Expr operator&(Expr a, Expr b) { return bin(BinOp::And, std::move(a), std::move(b)); }
inline Expr operator|(Expr a, Expr b) { return bin(BinOp::Or, std::move(a), std::move(b)); }
inline Expr operator^(Expr a, Expr b) { return bin(BinOp::Xor, std::move(a), std::move(b)); }
inline Expr operator<<(Expr a, Expr b) { return bin(BinOp::Shl, std::move(a), std::move(b)); }
inline Expr operator>>(Expr a, Expr b) { return bin(BinOp::Shr, std::move(a), std::move(b)); }
inline Expr operator-(Expr a) { return un(UnOp::Neg, std::move(a)); }
inline Expr operator~(Expr a) { return un(UnOp::Not, std::move(a)); }

// ---- atomics and subgroups ----
inline Expr atomic(AtomicOp op, std::string buffer, Expr index, Expr value) {
  Expr e = make(ExprKind::Atomic, {std::move(index), std::move(value)});
  e.atomic_op = op;
  e.name = std::move(buffer);
  return e;
}
// Stores `value` if the element equals `expected`; yields the old element.
inline Expr compare_exchange(std::string buffer, Expr index, Expr expected, Expr value) {
  Expr e = make(ExprKind::Atomic, {std::move(index), std::move(value), std::move(expected)});
  e.atomic_op = AtomicOp::CompareExchange;
  e.name = std::move(buffer);
  return e;
}
inline Expr ballot(Expr cond) { return make(ExprKind::SubgroupBallot, {std::move(cond)}); }
inline Expr shuffle(Expr value, Expr lane) {
  return make(ExprKind::SubgroupShuffle, {std::move(value), std::move(lane)});
}
inline Expr reduce(ReduceOp op, Expr value) {
  Expr e = make(ExprKind::SubgroupReduce, {std::move(value)});
  e.reduce_op = op;
  return e;
}

// ---- nodes ----
inline Node node(NodeKind kind) {
  Node n;
  n.kind = kind;
  return n;
}
inline Node let(std::string name, Expr value) {
  Node n = node(NodeKind::Let);
  n.name = std::move(name);
  n.exprs = {std::move(value)};
  return n;
}
inline Node assign(std::string name, Expr value) {
  Node n = node(NodeKind::Assign);
  n.name = std::move(name);
  n.exprs = {std::move(value)};
  return n;
}
inline Node store(std::string buffer, Expr index, Expr value) {
  Node n = node(NodeKind::Store);
  n.name = std::move(buffer);
  n.exprs = {std::move(index), std::move(value)};
  return n;
}
inline Node if_(Expr cond, std::vector<Node> then_body, std::vector<Node> else_body = {}) {
  Node n = node(NodeKind::If);
  n.exprs = {std::move(cond)};
  n.body = std::move(then_body);
  n.else_body = std::move(else_body);
  return n;
}
inline Node loop(std::string var_name, Expr from, Expr to, std::vector<Node> body) {
  Node n = node(NodeKind::Loop);
  n.name = std::move(var_name);
  n.exprs = {std::move(from), std::move(to)};
  n.body = std::move(body);
  return n;
}
inline Node ret() { return node(NodeKind::Return); }
inline Node block(std::vector<Node> body) {
  Node n = node(NodeKind::Block);
  n.body = std::move(body);
  return n;
}
inline Node barrier(BarrierKind kind = BarrierKind::Workgroup) {
  Node n = node(NodeKind::Barrier);
  n.barrier = kind;
  return n;
}
inline Node grid_sync() { return barrier(BarrierKind::GridSync); }

}  // namespace dsl

// A buffer's name with load sugar: `x[i]` is load("x", i).
struct Buf {
  std::string name;
  Expr operator[](Expr index) const { return dsl::load(name, std::move(index)); }
  Expr len() const { return dsl::buf_len(name); }
};

// Statement-by-statement program construction with nested scopes for If/Loop/Block bodies.
class ProgramBuilder {
 public:
  ProgramBuilder() : stack_{&program_.body} {}
  // Copies and moves take the program built so far; the copy appends to its own top-level body
  // (stack_ points into program_, so the defaults would alias the source's body).
  ProgramBuilder(const ProgramBuilder& other) : program_(other.program_), stack_{&program_.body} {}
  ProgramBuilder(ProgramBuilder&& other) noexcept
      : program_(std::move(other.program_)), stack_{&program_.body} {}
  ProgramBuilder& operator=(const ProgramBuilder& other) {
    program_ = other.program_;
    stack_ = {&program_.body};
    return *this;
  }
  ProgramBuilder& operator=(ProgramBuilder&& other) noexcept {
    program_ = std::move(other.program_);
    stack_ = {&program_.body};
    return *this;
  }

  ProgramBuilder& workgroup(std::uint32_t x, std::uint32_t y = 1, std::uint32_t z = 1) {
    program_.workgroup_size = {x, y, z};
    return *this;
  }
  // Declare a buffer with the next free binding.
  Buf buffer(std::string name, Access access, Type element, std::uint32_t count = 0) {
    BufferDecl d;
    d.name = name;
    d.binding = static_cast<std::uint32_t>(program_.buffers.size());
    d.access = access;
    d.element = element;
    d.count = count;
    program_.buffers.push_back(std::move(d));
    return Buf{std::move(name)};
  }
  // Trim the host output of buffer `name` to bytes [begin, end).
  void output_range(const Buf& buf, std::uint64_t begin, std::uint64_t end) {
    for (auto& d : program_.buffers)
      if (d.name == buf.name) d.output_byte_range = ByteRange{begin, end};
  }

  Expr let(std::string name, Expr value) {
    emit(dsl::let(name, std::move(value)));
    return dsl::var(std::move(name));
  }
  void assign(const std::string& name, Expr value) { emit(dsl::assign(name, std::move(value))); }
  void store(const Buf& buf, Expr index, Expr value) {
    emit(dsl::store(buf.name, std::move(index), std::move(value)));
  }
  void if_(Expr cond, const std::function<void()>& then_fn,
           const std::function<void()>& else_fn = {}) {
    Node n = dsl::if_(std::move(cond), nested(then_fn), else_fn ? nested(else_fn) : std::vector<Node>{});
    emit(std::move(n));
  }
  void loop(const std::string& var_name, Expr from, Expr to,
            const std::function<void(Expr)>& body_fn) {
    auto body = nested([&] { body_fn(dsl::var(var_name)); });
    emit(dsl::loop(var_name, std::move(from), std::move(to), std::move(body)));
  }
  void block(const std::function<void()>& body_fn) { emit(dsl::block(nested(body_fn))); }
  void ret() { emit(dsl::ret()); }
  void barrier() { emit(dsl::barrier()); }
  void grid_sync() { emit(dsl::grid_sync()); }
  void emit(Node n) { stack_.back()->push_back(std::move(n)); }

  Program build() const { return program_; }

 private:
  std::vector<Node> nested(const std::function<void()>& fn) {
    std::vector<Node> body;
    stack_.push_back(&body);
    fn();
    stack_.pop_back();
    return body;
  }

  Program program_;
  std::vector<std::vector<Node>*> stack_;
};

}  // namespace vyre
