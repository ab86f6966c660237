// Subgroup ops: a case is one workgroup of 64 invocations (two subgroups of 32).
#include <utility>

#include "programs/test_plan.hpp"

namespace vyre::conform::detail {
namespace {

using namespace vyre::dsl;  // the Expr operators (+, &, >>, ...) live there

using dsl::load;
using dsl::store;
using dsl::u32;

constexpr std::uint32_t kLanes = 64;

OpTest ballot_test(const OpInfo& op) {
  TestPlan plan = workgroup_plan(op, "ballot", kLanes);
  plan.operands = {operand_spec(op, 0, Type::Bool)};
  plan.buffers = {input("cond", Type::Bool, 0, kLanes), output("out", Type::U32, kLanes)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{store("out", gid(), dsl::ballot(load("cond", gid())))};
  };
  return make_test(std::move(plan));
}

// Lanes are consecutive local *linear* ids (see kWorkgroup16x4).
OpTest ballot_2d_test(const OpInfo& op) {
  TestPlan plan = workgroup_plan(op, "ballot, 16x4 workgroup", kLanes);
  plan.workgroup = kWorkgroup16x4;
  plan.operands = {operand_spec(op, 0, Type::Bool)};
  plan.buffers = {input("cond", Type::Bool, 0, kLanes), output("out", Type::U32, kLanes)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{dsl::let("i", index_16x4()),
                             store("out", dsl::var("i"), dsl::ballot(load("cond", dsl::var("i"))))};
  };
  plan.config = workgroup_per_case;
  return make_test(std::move(plan));
}

OpTest shuffle_test(const OpInfo& op) {
  const Type t = op.type;
  TestPlan plan = workgroup_plan(op, "shuffle", kLanes);
  plan.operands = {operand_spec(op, 0, t), operand_spec(op, 1, Type::U32)};
  plan.buffers = {input("v", t, 0, kLanes), input("lane", Type::U32, 1, kLanes),
                  output("out", t, kLanes)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{
        store("out", gid(), dsl::shuffle(load("v", gid()), load("lane", gid())))};
  };
  return make_test(std::move(plan));
}

OpTest reduce_test(const OpInfo& op) {
  const Type t = op.type;
  TestPlan plan = workgroup_plan(op, "reduce", kLanes);
  plan.operands = {operand_spec(op, 0, t)};
  plan.buffers = {input("v", t, 0, kLanes), output("out", t, kLanes, op.tolerance)};
  plan.body = [op](const BodyContext&) {
    return std::vector<Node>{store("out", gid(), dsl::reduce(op.reduce_op, load("v", gid())))};
  };
  return make_test(std::move(plan));
}

}  // namespace

std::vector<OpTest> subgroup_tests(const OpInfo& op) {
  switch (op.subgroup) {
    case SubgroupKind::Ballot: return {ballot_test(op), ballot_2d_test(op)};
    case SubgroupKind::Shuffle: return {shuffle_test(op)};
    default: return {reduce_test(op)};
  }
}

}  // namespace vyre::conform::detail
