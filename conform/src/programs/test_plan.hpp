// Private to conform: one description of a test's buffers from which both the program's buffer
// declarations and the OpTest's input/output specs are made, so the two always agree.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "vyre/builder.hpp"
#include "vyre/conform/op_programs.hpp"

namespace vyre::conform::detail {

struct BufferPlan {
  std::string name;
  Access access = Access::Read;
  Type storage = Type::U32;
  std::uint32_t per_case = 1;          // elements per case (ignored for workgroup buffers)
  std::optional<std::size_t> operand;  // host inputs: the operand that feeds it; nullopt: zeros
  Tolerance tolerance;                 // host outputs: how they are compared
  bool compared = true;                // host outputs: false where scheduling decides the content
  bool runtime_sized = false;          // declare count 0 (host inputs only)
  std::uint32_t workgroup_count = 0;   // workgroup buffers: their fixed count
};

BufferPlan input(std::string name, Type storage, std::size_t operand, std::uint32_t per_case = 1);
BufferPlan zero_input(std::string name, Type storage, std::uint32_t per_case = 1);
BufferPlan output(std::string name, Type storage, std::uint32_t per_case = 1, Tolerance tolerance = {});
BufferPlan workgroup_buffer(std::string name, Type storage, std::uint32_t count);

// What a test's body sees while being built for some number of cases.
struct BodyContext {
  std::uint32_t cases = 0;
  std::uint32_t lanes_per_case = 1;
  std::uint64_t lanes() const { return std::uint64_t{cases} * lanes_per_case; }
};

struct TestPlan {
  std::string op;
  std::string name;
  std::vector<OperandSpec> operands;
  std::uint32_t lanes_per_case = 1;
  std::uint32_t max_cases = 0;
  std::array<std::uint32_t, 3> workgroup{1, 1, 1};
  std::vector<BufferPlan> buffers;
  // The entry body for a number of cases.
  std::function<std::vector<Node>(const BodyContext&)> body;
  // The dispatch config; default: dispatch_elements = cases * lanes_per_case.
  std::function<DispatchConfig(const BodyContext&)> config;
};

// A plan for `op` with one lane per case, run in 1-D workgroups of 64 (the default geometry);
// a test with another geometry changes the fields that differ.
TestPlan lane_plan(const OpInfo& op, std::string name);
// A plan for `op` whose case is one 1-D workgroup of `lanes` invocations.
TestPlan workgroup_plan(const OpInfo& op, std::string name, std::uint32_t lanes);

// TestPlan::config values: an explicit grid instead of one derived from the element count.
DispatchConfig workgroup_per_case(const BodyContext& ctx);  // {cases, 1, 1}
DispatchConfig fixed_grid(std::array<std::uint32_t, 3> grid);

// Turn a plan into the public OpTest.
OpTest make_test(TestPlan plan);

// The operand spec for operand `index` of `op`, fed with values of `feed` (its witness table plus
// the op's branch points).
OperandSpec operand_spec(const OpInfo& op, std::size_t index, Type feed);

// invocation_id(0), local_id(0): the builtins most tests index with.
Expr gid();
Expr lid();

// A 16 x 4 workgroup: subgroups are 32 consecutive local *linear* ids, so rows 0-1 form subgroup
// 0. With one such workgroup per case (64 lanes), index_16x4() is the invocation's lane index:
// workgroup_id(0) * 64 + local_id(1) * 16 + local_id(0).
inline constexpr std::array<std::uint32_t, 3> kWorkgroup16x4{16, 4, 1};
Expr index_16x4();

// Tests of the families (one file each).
std::vector<OpTest> elementwise_tests(const OpInfo& op);  // bin, un, cast, bitcast, fma, select
std::vector<OpTest> memory_tests(const OpInfo& op);       // load, store, mem.workgroup
std::vector<OpTest> atomic_tests(const OpInfo& op);
std::vector<OpTest> subgroup_tests(const OpInfo& op);
std::vector<OpTest> builtin_tests(const OpInfo& op);
std::vector<OpTest> node_tests(const OpInfo& op);         // node.*, dispatch.fixpoint

}  // namespace vyre::conform::detail
