// Emits the IR into one SPIR-V function: statements (statements.cpp), expressions
// (expressions.cpp) and the operators, each family in its own file (int_ops.cpp, float_ops.cpp,
// conversions.cpp, memory.cpp, subgroup.cpp). Operands are evaluated left to right, all of them
// (SPEC §2), which is the order the SSA instructions are emitted in.
//
// Values live in SSA ids; IR variables (Let, Loop) are Function-storage variables in lexical
// scopes. An IR Return is OpReturn: after it, the rest of the enclosing statement list is dead and
// not emitted.
#pragma once

#include <string>
#include <vector>

#include "codegen/context.hpp"
#include "vyre/scoped_names.hpp"

namespace vyre::vulkan::codegen {

class Emitter {
 public:
  Emitter(ModuleContext& context, spirv::Function& function);

  // The prologue of an entry point: local ids, zeroed workgroup memory, the tail guard.
  void entry_prologue(bool tail_guard_possible);
  void statements(const std::vector<Node>& body);
  Value expr(const Expr& e);

  ModuleContext& ctx() { return ctx_; }
  spirv::Function& fn() { return f_; }

  // ---- small builders used across the op files ----
  Id op(spv::Op op, Id type, std::initializer_list<std::uint32_t> operands) { return f_.op(op, type, operands); }
  // A float instruction that must not be fused with its neighbours (NoContraction).
  Id fop(spv::Op op, Id type, std::initializer_list<std::uint32_t> operands);
  Id select(Id type, Id cond, Id a, Id b) { return op(spv::Op::OpSelect, type, {cond, a, b}); }
  Id bitcast(Id type, Id v) { return op(spv::Op::OpBitcast, type, {v}); }
  Id ieq(Id a, Id b) { return op(spv::Op::OpIEqual, ctx_.bool_type(), {a, b}); }
  Id ine(Id a, Id b) { return op(spv::Op::OpINotEqual, ctx_.bool_type(), {a, b}); }
  Id ult(Id a, Id b) { return op(spv::Op::OpULessThan, ctx_.bool_type(), {a, b}); }
  Id slt(Id a, Id b) { return op(spv::Op::OpSLessThan, ctx_.bool_type(), {a, b}); }
  Id land(Id a, Id b) { return op(spv::Op::OpLogicalAnd, ctx_.bool_type(), {a, b}); }
  Id lor(Id a, Id b) { return op(spv::Op::OpLogicalOr, ctx_.bool_type(), {a, b}); }
  Id lnot(Id a) { return op(spv::Op::OpLogicalNot, ctx_.bool_type(), {a}); }
  // Runs `then` only where `cond` holds (a structured selection); the block after it continues.
  template <class Then>
  void if_then(Id cond, Then&& then);

  // ---- operator families ----
  Value int_binary(BinOp op, const Value& a, const Value& b);
  Value int_unary(UnOp op, const Value& a);
  Value bool_binary(BinOp op, const Value& a, const Value& b);
  Value bool_unary(UnOp op, const Value& a);
  Value float_binary(BinOp op, const Value& a, const Value& b);
  Value float_unary(UnOp op, const Value& a);
  Value fma(const Value& a, const Value& b, const Value& c);
  Value cast(Type to, const Value& v);
  Value bitcast_value(Type to, const Value& v);
  Value load(const Expr& e);
  void store(const Node& n);
  Value atomic(const Expr& e);
  Value buf_len(const std::string& buffer);
  Value subgroup(const Expr& e);

  // ---- float bit helpers (float_bits.cpp): exact integer manipulation of float bit patterns ----
  Id float_bits(const Value& v);                        // the uint of the same width
  Id is_nan(const Value& v);                            // bool
  Id canonical_bits(const Value& v);                    // bits, NaN replaced by the canonical NaN
  Id f16_bits_to_f32(Id bits32);                        // f16 in the low 16 bits -> f32 value
  Id f32_to_f16_bits(const Value& v);                   // f32 -> f16 bits in a u32 (RNE)
  Id bf16_bits_to_f32(Id bits32);
  Id f32_to_bf16_bits(const Value& v);

  // ---- invocation geometry (computed once in the prologue) ----
  Id local_linear() const { return local_linear_; }
  Id local_id(std::uint32_t axis) const { return local_[axis]; }
  Id invocation_id(std::uint32_t axis);
  Id workgroup_id(std::uint32_t axis);

 private:
  struct Variable {
    Id pointer;
    Type type;
  };
  void statement(const Node& n);
  void if_node(const Node& n);
  void loop_node(const Node& n);
  void barrier();
  const Variable& variable(const std::string& name) const;
  void zero_workgroup_memory();

  ModuleContext& ctx_;
  spirv::Function& f_;
  ScopedNames<Variable> scopes_;  // O(log n) lookups: a program's size never makes them quadratic
  Id local_linear_ = 0;
  Id local_[3] = {0, 0, 0};
  Id workgroup_vec_ = 0;
};

template <class Then>
void Emitter::if_then(Id cond, Then&& then) {
  const Id body = f_.label();
  const Id merge = f_.label();
  f_.selection_merge(merge);
  f_.branch_if(cond, body, merge);
  f_.begin(body);
  then();
  if (f_.open()) f_.branch(merge);
  f_.begin(merge);
}

}  // namespace vyre::vulkan::codegen
