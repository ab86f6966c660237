// Statements: the entry prologue, scopes, Let/Assign, If, Loop, Return, Block, Barrier.
#include "codegen/emitter.hpp"
#include "vyre/error.hpp"
#include "vyre/geometry.hpp"

namespace vyre::vulkan::codegen {

using spirv::w;

namespace {

constexpr std::uint32_t kBarrierSemantics =
    w(spv::MemorySemanticsMask::AcquireRelease) | w(spv::MemorySemanticsMask::UniformMemory) |
    w(spv::MemorySemanticsMask::WorkgroupMemory);

}  // namespace

Emitter::Emitter(ModuleContext& context, spirv::Function& function) : ctx_(context), f_(function) {
  scopes_.open();
}

Id Emitter::fop(spv::Op op, Id type, std::initializer_list<std::uint32_t> operands) {
  const Id id = f_.op(op, type, operands);
  ctx_.module().decorate(id, spv::Decoration::NoContraction);
  return id;
}

Id Emitter::workgroup_id(std::uint32_t axis) {
  const Id vec = f_.load(ctx_.module().vector_type(ctx_.uint(32), 3), ctx_.builtin(spv::BuiltIn::WorkgroupId));
  return op(spv::Op::OpCompositeExtract, ctx_.uint(32), {vec, axis});
}

Id Emitter::invocation_id(std::uint32_t axis) {
  const Id u32 = ctx_.uint(32);
  const Id base = op(spv::Op::OpIMul, u32, {workgroup_id(axis), ctx_.workgroup_spec(axis + 1)});
  return op(spv::Op::OpIAdd, u32, {base, local_[axis]});
}

void Emitter::entry_prologue(bool tail_guard_possible) {
  const Id u32 = ctx_.uint(32);
  if (uses_subgroup_ops(ctx_.program())) {
    // Lanes of a full 32-wide hardware subgroup are 32 consecutive vyre local ids.
    const Id sg = f_.load(u32, ctx_.builtin(spv::BuiltIn::SubgroupId));
    const Id lane = f_.load(u32, ctx_.builtin(spv::BuiltIn::SubgroupLocalInvocationId));
    local_linear_ = op(spv::Op::OpIAdd, u32, {op(spv::Op::OpIMul, u32, {sg, ctx_.u32(32)}), lane});
  } else {
    local_linear_ = f_.load(u32, ctx_.builtin(spv::BuiltIn::LocalInvocationIndex));
  }
  const Id wx = ctx_.workgroup_spec(1);
  const Id wy = ctx_.workgroup_spec(2);
  local_[0] = op(spv::Op::OpUMod, u32, {local_linear_, wx});
  const Id rest = op(spv::Op::OpUDiv, u32, {local_linear_, wx});
  local_[1] = op(spv::Op::OpUMod, u32, {rest, wy});
  local_[2] = op(spv::Op::OpUDiv, u32, {rest, wy});
  zero_workgroup_memory();
  if (!tail_guard_possible) return;
  const Id guard = ine(ctx_.push_word(f_, 1), ctx_.u32(0));
  const Id past = op(spv::Op::OpUGreaterThanEqual, ctx_.bool_type(), {invocation_id(0), ctx_.push_word(f_, 0)});
  if_then(land(guard, past), [&] { f_.ret(); });
}

// Every invocation zeroes a strided share of each workgroup buffer, then all meet at a barrier.
void Emitter::zero_workgroup_memory() {
  bool any = false;
  const Id u32 = ctx_.uint(32);
  for (const BufferVar& b : ctx_.buffers()) {
    if (!b.workgroup) continue;
    any = true;
    const Id i = f_.local(u32);
    f_.store(i, local_linear_);
    const Id header = f_.label(), body = f_.label(), cont = f_.label(), merge = f_.label();
    f_.branch(header);
    f_.begin(header);
    const Id index = f_.load(u32, i);
    const Id more = ult(index, ctx_.u32(b.count));
    f_.loop_merge(merge, cont);
    f_.branch_if(more, body, merge);
    f_.begin(body);
    const Id ptr = op(spv::Op::OpAccessChain, ctx_.pointer(spv::StorageClass::Workgroup, b.raw_type),
                      {b.variable, index});
    f_.store(ptr, ctx_.module().constant(b.raw_type, 0));
    f_.branch(cont);
    f_.begin(cont);
    f_.store(i, op(spv::Op::OpIAdd, u32, {index, ctx_.workgroup_spec(0)}));
    f_.branch(header);
    f_.begin(merge);
  }
  if (any) barrier();
}

void Emitter::barrier() {
  const Id scope = ctx_.u32(w(spv::Scope::Workgroup));
  f_.inst(spv::Op::OpControlBarrier, {scope, scope, ctx_.u32(kBarrierSemantics)});
}

const Emitter::Variable& Emitter::variable(const std::string& name) const {
  if (const Variable* v = scopes_.find(name)) return *v;
  fail(VYRE_ERR_INTERNAL, "SPIR-V emitter: variable '" + name + "' is not in scope",
       "report this emitter bug (the validator checks scopes)");
}

void Emitter::statements(const std::vector<Node>& body) {
  scopes_.open();
  for (const Node& n : body) {
    if (!f_.open()) break;  // after a Return: dead code
    statement(n);
  }
  scopes_.close();
}

void Emitter::statement(const Node& n) {
  switch (n.kind) {
    case NodeKind::Let: {
      const Value v = expr(n.exprs.at(0));
      const Id ptr = f_.local(ctx_.type(v.type));
      f_.store(ptr, v.id);
      scopes_.declare(n.name, {ptr, v.type});
      return;
    }
    case NodeKind::Assign: {
      const Value v = expr(n.exprs.at(0));
      f_.store(variable(n.name).pointer, v.id);
      return;
    }
    case NodeKind::Store: store(n); return;
    case NodeKind::If: if_node(n); return;
    case NodeKind::Loop: loop_node(n); return;
    case NodeKind::Return: f_.ret(); return;
    case NodeKind::Block: statements(n.body); return;
    case NodeKind::Barrier:
      // grid_sync splits the program into entry points (lower.cpp) and never reaches here.
      if (n.barrier == BarrierKind::Workgroup) barrier();
      return;
  }
}

void Emitter::if_node(const Node& n) {
  const Value cond = expr(n.exprs.at(0));
  const Id then_label = f_.label(), else_label = f_.label(), merge = f_.label();
  f_.selection_merge(merge);
  f_.branch_if(cond.id, then_label, n.else_body.empty() ? merge : else_label);
  bool reaches_merge = n.else_body.empty();
  f_.begin(then_label);
  statements(n.body);
  if (f_.open()) {
    f_.branch(merge);
    reaches_merge = true;
  }
  if (!n.else_body.empty()) {
    f_.begin(else_label);
    statements(n.else_body);
    if (f_.open()) {
      f_.branch(merge);
      reaches_merge = true;
    }
  }
  f_.begin(merge);
  if (!reaches_merge) f_.unreachable();
}

void Emitter::loop_node(const Node& n) {
  const Id u32 = ctx_.uint(32);
  const Value from = expr(n.exprs.at(0));
  const Value to = expr(n.exprs.at(1));
  const Id counter = f_.local(u32);
  f_.store(counter, from.id);
  const Id header = f_.label(), body = f_.label(), cont = f_.label(), merge = f_.label();
  f_.branch(header);
  f_.begin(header);
  const Id i = f_.load(u32, counter);
  const Id more = ult(i, to.id);
  f_.loop_merge(merge, cont);
  f_.branch_if(more, body, merge);
  f_.begin(body);
  // The loop variable is read-only: a fresh Function variable holding this trip's value.
  const Id var = f_.local(u32);
  f_.store(var, i);
  scopes_.open();
  scopes_.declare(n.name, {var, Type::U32});
  statements(n.body);
  scopes_.close();
  if (f_.open()) f_.branch(cont);
  f_.begin(cont);
  f_.store(counter, op(spv::Op::OpIAdd, u32, {f_.load(u32, counter), ctx_.u32(1)}));
  f_.branch(header);
  f_.begin(merge);
}

}  // namespace vyre::vulkan::codegen
