// Atomics on global and workgroup buffers. A case is 64 lanes. Each lane applies the op to:
//   - a shared word (16 lanes per word): the final memory is compared for add/and/or/xor/min/max
//     (deterministic), the returned values never (they depend on scheduling);
//   - its own solo word: final memory and returned value are both compared;
//   - a word past the end of the buffer: must return 0 and change nothing.
// compare_exchange expects the solo word's initial value on even lanes (the store happens) and an
// arbitrary value on odd lanes (it usually does not).
#include <utility>

#include "programs/test_plan.hpp"

namespace vyre::conform::detail {
namespace {

using namespace vyre::dsl;  // the Expr operators (+, &, >>, ...) live there

using dsl::load;
using dsl::store;
using dsl::u32;

constexpr std::uint32_t kLanes = 64;
constexpr std::uint32_t kLanesPerSharedWord = 16;
constexpr std::uint32_t kSharedWords = kLanes / kLanesPerSharedWord;

bool final_memory_deterministic(AtomicOp op) {
  return op != AtomicOp::Exchange && op != AtomicOp::CompareExchange;
}

// The atomic on `buffer[index]` with this lane's value (and expected value for compare_exchange).
Expr apply(const OpInfo& op, const std::string& buffer, Expr index, Expr expected) {
  Expr value = load("val", gid());
  if (op.atomic_op == AtomicOp::CompareExchange)
    return dsl::compare_exchange(buffer, std::move(index), std::move(expected), std::move(value));
  return dsl::atomic(op.atomic_op, buffer, std::move(index), std::move(value));
}

// On even lanes the solo word's initial value, else the lane's `exp` operand.
Expr solo_expected() {
  return dsl::select(dsl::eq(gid() & u32(1), u32(0)), load("init", gid()), load("exp", gid()));
}

Expr shared_expected() { return load("exp", gid()); }

TestPlan base_plan(const OpInfo& op, const char* name) {
  const Type t = op.type;
  TestPlan plan = workgroup_plan(op, name, kLanes);
  plan.operands = {operand_spec(op, 0, t), operand_spec(op, 1, t)};
  plan.buffers = {input("init", t, 0, kLanes), input("val", t, 1, kLanes)};
  if (op.atomic_op == AtomicOp::CompareExchange) {
    plan.operands.push_back(operand_spec(op, 2, t));
    plan.buffers.push_back(input("exp", t, 2, kLanes));
  }
  return plan;
}

BufferPlan shared_returns(Type t) {
  BufferPlan b = output("shared_old", t, kLanes);
  b.compared = false;
  return b;
}

OpTest global_test(const OpInfo& op) {
  const Type t = op.type;
  TestPlan plan = base_plan(op, "global buffer");
  BufferPlan shared = input("shared", t, 0, kSharedWords);
  shared.access = Access::ReadWrite;
  shared.compared = final_memory_deterministic(op.atomic_op);
  BufferPlan solo = input("solo", t, 0, kLanes);
  solo.access = Access::ReadWrite;
  plan.buffers.push_back(shared);
  plan.buffers.push_back(solo);
  plan.buffers.push_back(output("old", t, kLanes));
  plan.buffers.push_back(shared_returns(t));
  plan.buffers.push_back(output("past_end_old", t, kLanes));
  plan.body = [op](const BodyContext& ctx) {
    const auto total = static_cast<std::uint32_t>(ctx.lanes());
    return std::vector<Node>{
        store("shared_old", gid(), apply(op, "shared", gid() >> u32(4), shared_expected())),
        store("old", gid(), apply(op, "solo", gid(), solo_expected())),
        store("past_end_old", gid(), apply(op, "solo", gid() + u32(total), solo_expected())),
    };
  };
  return make_test(std::move(plan));
}

OpTest workgroup_test(const OpInfo& op) {
  const Type t = op.type;
  TestPlan plan = base_plan(op, "workgroup buffer");
  plan.buffers.push_back(workgroup_buffer("w_shared", t, kSharedWords));
  plan.buffers.push_back(workgroup_buffer("w_solo", t, kLanes));
  BufferPlan shared_out = output("shared", t, kLanes);
  shared_out.compared = final_memory_deterministic(op.atomic_op);
  plan.buffers.push_back(shared_out);
  plan.buffers.push_back(output("solo", t, kLanes));
  plan.buffers.push_back(output("old", t, kLanes));
  plan.buffers.push_back(shared_returns(t));
  plan.buffers.push_back(output("past_end_old", t, kLanes));
  plan.body = [op](const BodyContext&) {
    return std::vector<Node>{
        dsl::if_(dsl::lt(lid(), u32(kSharedWords)), {store("w_shared", lid(), load("init", gid()))}),
        store("w_solo", lid(), load("init", gid())),
        dsl::barrier(),
        store("shared_old", gid(), apply(op, "w_shared", lid() >> u32(4), shared_expected())),
        store("old", gid(), apply(op, "w_solo", lid(), solo_expected())),
        store("past_end_old", gid(), apply(op, "w_solo", lid() + u32(kLanes), solo_expected())),
        dsl::barrier(),
        store("solo", gid(), load("w_solo", lid())),
        store("shared", gid(), load("w_shared", lid() >> u32(4))),
    };
  };
  return make_test(std::move(plan));
}

}  // namespace

std::vector<OpTest> atomic_tests(const OpInfo& op) {
  return {op.workgroup_atomic ? workgroup_test(op) : global_test(op)};
}

}  // namespace vyre::conform::detail
