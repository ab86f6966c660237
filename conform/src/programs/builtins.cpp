// Builtins: every axis of the id builtins on a 3-D grid of 3-D workgroups, the 1-D default
// geometry with its tail guard, subgroup lanes over local linear ids, and buffer lengths.
#include <utility>

#include "programs/test_plan.hpp"

namespace vyre::conform::detail {
namespace {

using namespace vyre::dsl;  // the Expr operators (+, &, >>, ...) live there

using dsl::load;
using dsl::store;
using dsl::u32;

constexpr std::array<std::uint32_t, 3> kWorkgroup3d{4, 2, 2};
constexpr std::array<std::uint32_t, 3> kGrid3d{3, 2, 2};

Expr axis_value(Builtin b, std::uint32_t axis) {
  switch (b) {
    case Builtin::InvocationId: return dsl::invocation_id(axis);
    case Builtin::LocalId: return dsl::local_id(axis);
    case Builtin::WorkgroupId: return dsl::workgroup_id(axis);
    default: return dsl::num_workgroups(axis);
  }
}

// (iz * extent_y + iy) * extent_x + ix: the invocation's linear index in the whole 3-D grid.
Expr linear_invocation() {
  const std::uint32_t ex = kGrid3d[0] * kWorkgroup3d[0];
  const std::uint32_t ey = kGrid3d[1] * kWorkgroup3d[1];
  return (dsl::invocation_id(2) * u32(ey) + dsl::invocation_id(1)) * u32(ex) + dsl::invocation_id(0);
}

std::vector<Node> store_axes(Builtin b, Expr slot) {
  std::vector<Node> body{dsl::let("slot", std::move(slot))};
  for (std::uint32_t axis = 0; axis < 3; ++axis)
    body.push_back(store("out", dsl::var("slot") * u32(3) + u32(axis), axis_value(b, axis)));
  return body;
}

OpTest grid_3d_test(const OpInfo& op) {
  const std::uint32_t invocations = kGrid3d[0] * kGrid3d[1] * kGrid3d[2] * kWorkgroup3d[0] *
                                    kWorkgroup3d[1] * kWorkgroup3d[2];
  TestPlan plan = lane_plan(op, "3-D grid");
  plan.lanes_per_case = invocations;
  plan.max_cases = 1;
  plan.workgroup = kWorkgroup3d;
  plan.buffers = {output("out", Type::U32, invocations * 3)};
  plan.body = [b = op.builtin](const BodyContext&) { return store_axes(b, linear_invocation()); };
  plan.config = [](const BodyContext&) { return fixed_grid(kGrid3d); };
  return make_test(std::move(plan));
}

// 1-D default geometry: ceil(N / 64) workgroups; invocations past N do nothing.
OpTest default_geometry_test(const OpInfo& op) {
  TestPlan plan = lane_plan(op, "1-D default geometry");
  plan.buffers = {output("out", Type::U32, 3)};
  plan.body = [b = op.builtin](const BodyContext&) { return store_axes(b, gid()); };
  return make_test(std::move(plan));
}

OpTest subgroup_builtin_test(const OpInfo& op) {
  TestPlan plan = workgroup_plan(op, "16x4 workgroup", 64);
  plan.workgroup = kWorkgroup16x4;
  plan.buffers = {output("out", Type::U32, 64)};
  plan.body = [b = op.builtin](const BodyContext&) {
    Expr value = b == Builtin::SubgroupLane ? dsl::subgroup_lane() : dsl::subgroup_size();
    return std::vector<Node>{store("out", index_16x4(), std::move(value))};
  };
  plan.config = workgroup_per_case;
  return make_test(std::move(plan));
}

// BufLen of runtime-sized inputs of several element sizes and of a declared output.
OpTest buf_len_test(const OpInfo& op) {
  TestPlan plan = lane_plan(op, "buffer lengths");
  BufferPlan words = zero_input("words", Type::U32, 1);
  BufferPlan bytes = zero_input("bytes", Type::U8, 3);
  BufferPlan halves = zero_input("halves", Type::F16, 2);
  BufferPlan uniform = zero_input("uniform_words", Type::U32, 1);
  for (BufferPlan* b : {&words, &bytes, &halves, &uniform}) b->runtime_sized = true;
  uniform.access = Access::Uniform;
  plan.max_cases = 256;  // the uniform buffer stays small
  plan.buffers = {words, bytes, halves, uniform, output("out", Type::U32, 5)};
  plan.body = [](const BodyContext&) {
    std::vector<Node> body{dsl::let("slot", gid() * u32(5))};
    const char* names[] = {"words", "bytes", "halves", "uniform_words", "out"};
    for (std::uint32_t k = 0; k < 5; ++k)
      body.push_back(store("out", dsl::var("slot") + u32(k), dsl::buf_len(names[k])));
    return body;
  };
  return make_test(std::move(plan));
}

}  // namespace

std::vector<OpTest> builtin_tests(const OpInfo& op) {
  switch (op.builtin) {
    case Builtin::SubgroupLane:
    case Builtin::SubgroupSize: return {subgroup_builtin_test(op)};
    case Builtin::BufLen: return {buf_len_test(op)};
    default: return {grid_3d_test(op), default_geometry_test(op)};
  }
}

}  // namespace vyre::conform::detail
