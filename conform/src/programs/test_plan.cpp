#include "programs/test_plan.hpp"

#include <memory>
#include <utility>

#include "vyre/conform/witnesses.hpp"

namespace vyre::conform::detail {

namespace {

BufferPlan buffer(std::string name, Access access, Type storage, std::uint32_t per_case = 1) {
  BufferPlan b;
  b.name = std::move(name);
  b.access = access;
  b.storage = storage;
  b.per_case = per_case;
  return b;
}

}  // namespace

BufferPlan input(std::string name, Type storage, std::size_t operand, std::uint32_t per_case) {
  BufferPlan b = zero_input(std::move(name), storage, per_case);
  b.operand = operand;
  return b;
}

BufferPlan zero_input(std::string name, Type storage, std::uint32_t per_case) {
  return buffer(std::move(name), Access::Read, storage, per_case);
}

BufferPlan output(std::string name, Type storage, std::uint32_t per_case, Tolerance tolerance) {
  BufferPlan b = buffer(std::move(name), Access::Output, storage, per_case);
  b.tolerance = tolerance;
  return b;
}

BufferPlan workgroup_buffer(std::string name, Type storage, std::uint32_t count) {
  BufferPlan b = buffer(std::move(name), Access::Workgroup, storage);
  b.workgroup_count = count;
  return b;
}

TestPlan lane_plan(const OpInfo& op, std::string name) {
  TestPlan plan;
  plan.op = op.id;
  plan.name = std::move(name);
  plan.workgroup = {64, 1, 1};
  return plan;
}

TestPlan workgroup_plan(const OpInfo& op, std::string name, std::uint32_t lanes) {
  TestPlan plan = lane_plan(op, std::move(name));
  plan.lanes_per_case = lanes;
  plan.workgroup = {lanes, 1, 1};
  return plan;
}

DispatchConfig workgroup_per_case(const BodyContext& ctx) { return fixed_grid({ctx.cases, 1, 1}); }

DispatchConfig fixed_grid(std::array<std::uint32_t, 3> grid) {
  DispatchConfig c;
  c.grid = grid;
  return c;
}

OperandSpec operand_spec(const OpInfo& op, std::size_t index, Type feed) {
  return OperandSpec{feed, op_witnesses(op, index, feed)};
}

Expr gid() { return dsl::invocation_id(0); }
Expr lid() { return dsl::local_id(0); }

Expr index_16x4() {
  using dsl::operator*;
  using dsl::operator+;
  using dsl::u32;
  return dsl::workgroup_id(0) * u32(64) + dsl::local_id(1) * u32(16) + dsl::local_id(0);
}

namespace {

std::uint32_t declared_count(const BufferPlan& b, std::uint32_t cases) {
  if (b.access == Access::Workgroup) return b.workgroup_count;
  if (b.runtime_sized) return 0;
  return b.per_case * cases;
}

Program build_program(const TestPlan& plan, const BodyContext& ctx) {
  Program p;
  p.workgroup_size = plan.workgroup;
  std::uint32_t binding = 0;
  for (const BufferPlan& b : plan.buffers) {
    BufferDecl d;
    d.name = b.name;
    d.binding = binding++;
    d.access = b.access;
    d.element = b.storage;
    d.count = declared_count(b, ctx.cases);
    p.buffers.push_back(std::move(d));
  }
  p.body = plan.body(ctx);
  return p;
}

DispatchConfig default_config(const BodyContext& ctx) {
  DispatchConfig c;
  c.dispatch_elements = ctx.lanes();
  return c;
}

}  // namespace

OpTest make_test(TestPlan plan) {
  OpTest test;
  test.op = plan.op;
  test.name = plan.name;
  test.operands = plan.operands;
  test.lanes_per_case = plan.lanes_per_case;
  test.max_cases = plan.max_cases;
  for (const BufferPlan& b : plan.buffers) {
    if (is_host_input(b.access))
      test.inputs.push_back(InputSpec{b.name, b.storage, b.per_case, b.operand});
    if (is_host_output(b.access))
      test.outputs.push_back(OutputSpec{b.name, b.storage, b.per_case, b.tolerance, b.compared});
  }
  auto shared = std::make_shared<const TestPlan>(std::move(plan));
  test.build = [shared](std::uint32_t cases) {
    const BodyContext ctx{cases, shared->lanes_per_case};
    BuiltTest built;
    built.program = build_program(*shared, ctx);
    built.config = shared->config ? shared->config(ctx) : default_config(ctx);
    return built;
  };
  return test;
}

}  // namespace vyre::conform::detail
