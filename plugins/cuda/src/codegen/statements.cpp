// Statement lowering: Let, Assign, Store, If, Loop (small constant-trip loops unrolled), Return,
// Block, Barrier(workgroup).
#include "codegen/statements.hpp"

#include "codegen/expressions.hpp"
#include "codegen/memory_access.hpp"
#include "codegen/storage_conversion.hpp"
#include "optimize/unroll.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda::codegen {

namespace {

void require_exprs(const Node& node, std::size_t count) {
  if (node.exprs.size() >= count) return;
  fail(VYRE_ERR_INVALID_PROGRAM, "a statement has fewer expressions than its kind needs",
       "validate the program before lowering it");
}

// Let: a fresh register, so later Assigns to other variables never alias it.
void emit_let(FunctionEmitter& f, const Node& node) {
  require_exprs(node, 1);
  Value value = emit_expr(f, node.exprs[0]);
  Value variable = f.value(value.type);
  emit_move(f, variable.reg, value);
  f.declare(node.name, variable);
}

void emit_assign(FunctionEmitter& f, const Node& node) {
  require_exprs(node, 1);
  Value value = emit_expr(f, node.exprs[0]);
  Value variable = f.lookup(node.name);
  emit_move(f, variable.reg, value);
}

void emit_store_node(FunctionEmitter& f, const Node& node) {
  require_exprs(node, 2);
  std::size_t buffer = buffer_index(f, node.name);
  if (f.lane != nullptr && f.lane->vector) {
    // Vector path of an elementwise entry: the index is this lane's InvocationId.x; the entry
    // stores the lanes' values together after the statement.
    Value value = emit_expr(f, node.exprs[1]);
    f.lane->stored.at(buffer) = narrow_for_store(f, f.program().buffers[buffer].element, value);
    return;
  }
  Value index = emit_expr(f, node.exprs[0]);
  Value value = emit_expr(f, node.exprs[1]);
  emit_store(f, element_ref(f, buffer, index, needs_bounds_check(f, node)), value);
}

void emit_if(FunctionEmitter& f, const Node& node) {
  require_exprs(node, 1);
  Value cond = emit_expr(f, node.exprs[0]);
  std::string end = f.new_label("if_end");
  if (node.else_body.empty()) {
    f.ins("@!{} bra {};", cond.reg, end);
    emit_block(f, node.body);
    f.put_label(end);
    return;
  }
  std::string otherwise = f.new_label("else");
  f.ins("@!{} bra {};", cond.reg, otherwise);
  emit_block(f, node.body);
  f.ins("bra {};", end);
  f.put_label(otherwise);
  emit_block(f, node.else_body);
  f.put_label(end);
}

// A small constant-trip loop (optimize/unroll.hpp): one copy of the body per iteration, the
// variable a literal in each. The bounds are side-effect free, so not evaluating them is the same.
void emit_unrolled_loop(FunctionEmitter& f, const Node& node, const optimize::UnrollPlan& plan) {
  f.comment(fmt::format("loop {} unrolled: {} to {}", node.name, plan.from, plan.to));
  for (std::uint32_t k = plan.from; k < plan.to; ++k) {
    f.push_scope();
    f.declare(node.name, emit_constant(f, Type::U32, k));
    for (const Node& child : node.body) emit_statement(f, child);
    f.pop_scope();
  }
}

// Loop(var, from, to): both bounds evaluated once, before the first iteration, into registers of
// their own (the body may assign the variables they came from); var = from, ..., to - 1.
void emit_loop(FunctionEmitter& f, const Node& node) {
  require_exprs(node, 2);
  if (f.layout().ranges != nullptr) {
    if (auto plan = optimize::unroll_plan(node, *f.layout().ranges)) return emit_unrolled_loop(f, node, *plan);
  }
  Value from = emit_expr(f, node.exprs[0]);
  Value to = emit_expr(f, node.exprs[1]);
  Value counter = f.value(Type::U32);
  emit_move(f, counter.reg, from);
  Value bound = f.value(Type::U32);
  emit_move(f, bound.reg, to);
  std::string head = f.new_label("loop");
  std::string end = f.new_label("loop_end");
  f.put_label(head);
  std::string done = f.reg(RegClass::Pred);
  f.ins("setp.ge.u32 {}, {}, {};", done, counter.reg, bound.reg);
  f.ins("@{} bra {};", done, end);
  f.push_scope();
  f.declare(node.name, counter);
  for (const Node& child : node.body) emit_statement(f, child);
  f.pop_scope();
  f.ins("add.u32 {}, {}, 1;", counter.reg, counter.reg);
  f.ins("bra {};", head);
  f.put_label(end);
}

void emit_barrier(FunctionEmitter& f, const Node& node) {
  if (node.barrier == BarrierKind::GridSync)
    fail(VYRE_ERR_INVALID_PROGRAM, "a grid_sync barrier is nested inside another statement",
         "validate the program before lowering it; grid_sync must be a top-level statement");
  // bar.sync: every thread of the CTA arrives, and each thread's earlier memory accesses (global
  // and shared) are performed relative to all of them before any continues (PTX ISA, barrier).
  f.ins("bar.sync 0;");
}

}  // namespace

void emit_block(FunctionEmitter& f, const std::vector<Node>& body) {
  f.push_scope();
  for (const Node& node : body) emit_statement(f, node);
  f.pop_scope();
}

void emit_statement(FunctionEmitter& f, const Node& node) {
  switch (node.kind) {
    case NodeKind::Let: emit_let(f, node); return;
    case NodeKind::Assign: emit_assign(f, node); return;
    case NodeKind::Store: emit_store_node(f, node); return;
    case NodeKind::If: emit_if(f, node); return;
    case NodeKind::Loop: emit_loop(f, node); return;
    case NodeKind::Return: f.ins("bra {};", f.return_label); return;
    case NodeKind::Block: emit_block(f, node.body); return;
    case NodeKind::Barrier: emit_barrier(f, node); return;
  }
  fail(VYRE_ERR_INVALID_PROGRAM, "a statement has an unknown kind",
       "validate the program before lowering it");
}

}  // namespace vyre::cuda::codegen
