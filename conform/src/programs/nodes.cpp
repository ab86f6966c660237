// Statement nodes (let, assign, if, loop, return, block, barrier, grid_sync) and
// dispatch.fixpoint. Each test's outputs depend on the node behaving exactly as SPEC §2 and
// docs/SEMANTICS.md say: scoping, evaluation order, loop bounds evaluated once, return ending the
// invocation (or the phase), barriers ordering workgroup memory, grid_sync ordering the grid.
#include <utility>

#include "programs/test_plan.hpp"

namespace vyre::conform::detail {
namespace {

using namespace vyre::dsl;  // the Expr operators (+, &, >>, ...) live there

using dsl::assign;
using dsl::let;
using dsl::load;
using dsl::store;
using dsl::u32;
using dsl::var;

Expr a() { return load("a", gid()); }
Expr b() { return load("b", gid()); }

// Two u32 operands a, b (one lane per case) and `outputs` u32 outputs.
TestPlan two_operand_plan(const OpInfo& op, const char* name, std::initializer_list<const char*> outputs) {
  TestPlan plan = lane_plan(op, name);
  plan.operands = {operand_spec(op, 0, Type::U32), operand_spec(op, 1, Type::U32)};
  plan.buffers = {input("a", Type::U32, 0), input("b", Type::U32, 1)};
  for (const char* o : outputs) plan.buffers.push_back(output(o, Type::U32));
  return plan;
}

std::vector<Node> let_body() {
  return {let("x", a()), let("y", b()), let("z", var("x")), store("out", gid(), var("y")),
          store("out2", gid(), var("z"))};
}

std::vector<Node> assign_body() {
  return {let("acc", a()),
          store("out", gid(), var("acc")),
          assign("acc", b()),
          dsl::block({assign("acc", var("acc") ^ u32(0x5A5A5A5A))}),
          store("out2", gid(), var("acc"))};
}

std::vector<Node> if_body() {
  return {
      dsl::if_(dsl::lt(a(), b()),
               {store("out", gid(), a()),
                dsl::if_(dsl::eq(a() & u32(1), u32(1)), {store("out2", gid(), u32(1))},
                         {store("out2", gid(), u32(2))})},
               {store("out", gid(), b())}),
      dsl::if_(dsl::eq(a(), b()), {store("out3", gid(), u32(7))}),
  };
}

// s = fold over j in [a % 17, b % 23) of s * 31 + j; nested loops count pairs; assigning the
// bound's variable inside the loop does not change the trip count.
std::vector<Node> loop_body() {
  return {
      let("s", u32(0)),
      dsl::loop("j", a() % u32(17), b() % u32(23), {assign("s", var("s") * u32(31) + var("j"))}),
      store("out", gid(), var("s")),
      let("pairs", u32(0)),
      dsl::loop("p", u32(0), a() % u32(5),
                {dsl::loop("q", var("p"), u32(6), {assign("pairs", var("pairs") + u32(1))})}),
      store("out2", gid(), var("pairs")),
      let("n", b() % u32(9)),
      let("trips", u32(0)),
      dsl::loop("k", u32(0), var("n"),
                {assign("n", var("n") + u32(1)), assign("trips", var("trips") + u32(1))}),
      store("out3", gid(), var("trips")),
  };
}

// Return ends the invocation: from an if, and from inside a loop.
std::vector<Node> return_body() {
  return {
      dsl::loop("j", u32(0), b() % u32(8),
                {dsl::if_(dsl::eq(var("j"), u32(3)), {store("out2", gid(), var("j") + u32(100))}),
                 dsl::if_(dsl::eq(var("j") + (a() & u32(3)), u32(4)), {dsl::ret()})}),
      store("out2", gid(), u32(7)),
      dsl::if_(dsl::eq(a() & u32(1), u32(1)), {store("out", gid(), u32(11)), dsl::ret()}),
      store("out", gid(), u32(22)),
  };
}

// Sibling blocks reuse a name; a block's variable ends with it.
std::vector<Node> block_body() {
  return {
      let("t", a()),
      dsl::block({let("u", var("t") * u32(3)), store("out", gid(), var("u"))}),
      dsl::block({let("u", b() ^ u32(5)), store("out2", gid(), var("u") + var("t"))}),
  };
}

OpTest two_operand_test(const OpInfo& op, const char* name, std::initializer_list<const char*> outputs,
                        std::vector<Node> (*body)()) {
  TestPlan plan = two_operand_plan(op, name, outputs);
  plan.body = [body](const BodyContext&) { return body(); };
  return make_test(std::move(plan));
}

OpTest simple_node_test(const OpInfo& op) {
  switch (op.node) {
    case NodeKind::Let: return two_operand_test(op, "bindings", {"out", "out2"}, let_body);
    case NodeKind::Assign: return two_operand_test(op, "assignments", {"out", "out2"}, assign_body);
    case NodeKind::If: return two_operand_test(op, "branches", {"out", "out2", "out3"}, if_body);
    case NodeKind::Loop: return two_operand_test(op, "loops", {"out", "out2", "out3"}, loop_body);
    case NodeKind::Return: return two_operand_test(op, "early return", {"out", "out2"}, return_body);
    default: return two_operand_test(op, "scopes", {"out", "out2"}, block_body);
  }
}

// Barrier: four rounds of "add the right neighbour's value", each read separated from the next
// write by a barrier, inside a loop; then a reversal across the workgroup.
OpTest barrier_test(const OpInfo& op) {
  TestPlan plan = workgroup_plan(op, "neighbour exchange", 64);
  plan.operands = {operand_spec(op, 0, Type::U32)};
  plan.buffers = {input("a", Type::U32, 0, 64), workgroup_buffer("wg", Type::U32, 64),
                  output("out", Type::U32, 64), output("reversed", Type::U32, 64)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{
        store("wg", lid(), a()),
        dsl::barrier(),
        dsl::loop("r", u32(0), u32(4),
                  {let("right", load("wg", (lid() + u32(1)) & u32(63))), dsl::barrier(),
                   store("wg", lid(), load("wg", lid()) + var("right")), dsl::barrier()}),
        store("out", gid(), load("wg", lid())),
        store("reversed", gid(), load("wg", u32(63) - lid())),
    };
  };
  return make_test(std::move(plan));
}

// grid_sync: 32 workgroups of 64 and three phases. Phase 2 reads what other workgroups wrote in
// phase 1, and workgroup memory is zero again; invocations that returned in phase 1 run phase 2.
OpTest grid_sync_test(const OpInfo& op) {
  constexpr std::uint32_t kWorkgroups = 32;
  constexpr std::uint32_t kInvocations = kWorkgroups * 64;
  TestPlan plan = lane_plan(op, "three phases");
  plan.lanes_per_case = kInvocations;
  plan.max_cases = 1;
  plan.operands = {operand_spec(op, 0, Type::U32)};
  plan.buffers = {input("a", Type::U32, 0, kInvocations), workgroup_buffer("wg", Type::U32, 64),
                  output("tmp", Type::U32, kInvocations), output("out", Type::U32, kInvocations),
                  output("out2", Type::U32, kInvocations)};
  plan.body = [](const BodyContext&) {
    const Expr mask = u32(kInvocations - 1);
    return std::vector<Node>{
        store("tmp", gid(), a() * u32(3)),
        dsl::if_(dsl::eq(a() & u32(1), u32(1)), {dsl::ret()}),
        store("wg", lid(), a() | u32(1)),
        dsl::grid_sync(),
        store("out", gid(), load("tmp", (gid() + u32(197)) & mask) + load("wg", lid())),
        dsl::grid_sync(),
        store("out2", gid(), load("out", (gid() * u32(7)) & mask) ^ load("tmp", gid())),
    };
  };
  plan.config = [](const BodyContext&) { return fixed_grid({kWorkgroups, 1, 1}); };
  return make_test(std::move(plan));
}

// dispatch.fixpoint: 4 iterations on the same buffers; `output` buffers are zeroed only once.
OpTest fixpoint_test(const OpInfo& op) {
  TestPlan plan = lane_plan(op, "four iterations");
  plan.operands = {operand_spec(op, 0, Type::U32), operand_spec(op, 1, Type::U32)};
  BufferPlan acc = input("acc", Type::U32, 0);
  acc.access = Access::ReadWrite;
  plan.buffers = {acc, input("a", Type::U32, 1), output("count", Type::U32)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{
        store("acc", gid(), load("acc", gid()) * u32(3) + a()),
        store("count", gid(), load("count", gid()) + u32(1)),
    };
  };
  plan.config = [](const BodyContext& ctx) {
    DispatchConfig c;
    c.dispatch_elements = ctx.lanes();
    c.fixpoint_iterations = 4;
    return c;
  };
  return make_test(std::move(plan));
}

}  // namespace

std::vector<OpTest> node_tests(const OpInfo& op) {
  if (op.family == OpFamily::Dispatch) return {fixpoint_test(op)};
  if (op.node == NodeKind::Barrier) return {op.grid_sync_node ? grid_sync_test(op) : barrier_test(op)};
  return {simple_node_test(op)};
}

}  // namespace vyre::conform::detail
