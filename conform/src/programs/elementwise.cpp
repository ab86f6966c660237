// Elementwise tests: one lane per case, each operand read from its own input buffer, the result
// written to `out`. Covers bin, un, cast, bitcast, fma and select.
#include <string>
#include <utility>

#include "programs/test_plan.hpp"

namespace vyre::conform::detail {
namespace {

using namespace vyre::dsl;  // the Expr operators (+, &, >>, ...) live there

// The operand value types of an elementwise op, from the semantics of its family.
std::vector<Type> operand_types(const OpInfo& op) {
  switch (op.family) {
    case OpFamily::Bin: return {op.type, is_shift(op.bin_op) ? Type::U32 : op.type};
    case OpFamily::Un: return {op.type};
    case OpFamily::Cast:
    case OpFamily::Bitcast: return {op.from};
    case OpFamily::Fma: return {op.type, op.type, op.type};
    case OpFamily::Select: return {Type::Bool, op.type, op.type};
    default: return {};
  }
}

Expr apply(const OpInfo& op, std::vector<Expr> x) {
  switch (op.family) {
    case OpFamily::Bin: return dsl::bin(op.bin_op, std::move(x[0]), std::move(x[1]));
    case OpFamily::Un: return dsl::un(op.un_op, std::move(x[0]));
    case OpFamily::Cast: return dsl::cast(op.type, std::move(x[0]));
    case OpFamily::Bitcast: return dsl::bitcast(op.type, std::move(x[0]));
    case OpFamily::Fma: return dsl::fma(std::move(x[0]), std::move(x[1]), std::move(x[2]));
    default: return dsl::select(std::move(x[0]), std::move(x[1]), std::move(x[2]));
  }
}

Type result_type(const OpInfo& op) {
  if (op.family == OpFamily::Bin) return bin_result_type(op.bin_op, op.type);
  if (op.family == OpFamily::Un) return un_result_type(op.un_op, op.type);
  return op.type;
}

const char* const kOperandNames[] = {"a", "b", "c"};

}  // namespace

std::vector<OpTest> elementwise_tests(const OpInfo& op) {
  const std::vector<Type> types = operand_types(op);
  TestPlan plan = lane_plan(op, "elementwise");
  for (std::size_t i = 0; i < types.size(); ++i) {
    plan.operands.push_back(operand_spec(op, i, types[i]));
    plan.buffers.push_back(input(kOperandNames[i], types[i], i));
  }
  plan.buffers.push_back(output("out", result_type(op), 1, op.tolerance));
  plan.body = [op, n = types.size()](const BodyContext&) {
    std::vector<Expr> operands;
    for (std::size_t i = 0; i < n; ++i) operands.push_back(dsl::load(kOperandNames[i], gid()));
    return std::vector<Node>{dsl::store("out", gid(), apply(op, std::move(operands)))};
  };
  return {make_test(std::move(plan))};
}

}  // namespace vyre::conform::detail
