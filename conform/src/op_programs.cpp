#include "vyre/conform/op_programs.hpp"

#include <string>

#include "programs/test_plan.hpp"
#include "vyre/error.hpp"

namespace vyre::conform {

std::vector<OpTest> op_tests(const OpInfo& op) {
  switch (op.family) {
    case OpFamily::Bin:
    case OpFamily::Un:
    case OpFamily::Cast:
    case OpFamily::Bitcast:
    case OpFamily::Fma:
    case OpFamily::Select: return detail::elementwise_tests(op);
    case OpFamily::Load:
    case OpFamily::Store:
    case OpFamily::Mem: return detail::memory_tests(op);
    case OpFamily::Atomic: return detail::atomic_tests(op);
    case OpFamily::Subgroup: return detail::subgroup_tests(op);
    case OpFamily::Builtin: return detail::builtin_tests(op);
    case OpFamily::NodeOp:
    case OpFamily::Dispatch: return detail::node_tests(op);
  }
  fail(VYRE_ERR_INTERNAL, "op " + op.id + " has a family the conform op-program generator does not know",
       "add its tests to conform/src/op_programs.cpp");
}

std::vector<OpTest> op_tests(std::string_view op_id) {
  const OpInfo* op = find_op(op_id);
  if (!op)
    fail(VYRE_ERR_NOT_FOUND, "'" + std::string(op_id) + "' is not an op id of the catalog",
         "list the valid ids with `vyre ops`");
  return op_tests(*op);
}

std::optional<std::uint64_t> lane_of_output(const OpTest& test, const OutputSpec& output,
                                            std::uint64_t case_index, std::uint64_t element) {
  const std::uint64_t first_lane = case_index * test.lanes_per_case;
  if (output.per_case == test.lanes_per_case) return first_lane + element;
  if (output.per_case % test.lanes_per_case == 0)
    return first_lane + element / (output.per_case / test.lanes_per_case);
  return std::nullopt;
}

}  // namespace vyre::conform
