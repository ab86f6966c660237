// Loads and stores of every storage type, and workgroup memory.
#include <utility>

#include "programs/test_plan.hpp"

namespace vyre::conform::detail {
namespace {

using namespace vyre::dsl;  // the Expr operators (+, &, >>, ...) live there

using dsl::load;
using dsl::store;
using dsl::u32;

// Uniform buffers may live in constant memory: keep them small.
constexpr std::uint32_t kUniformCases = 256;

// The type a buffer of storage `s` is fed with: its own values, except bool, whose buffer words
// are fed arbitrary u32 words (any non-zero word loads as true).
Type load_feed(Type s) { return s == Type::Bool ? Type::U32 : s; }

// load.<s>: out[i] = src[i] (widened, then stored as the widened type), and a load past the end
// of the buffer, which must yield zero.
OpTest load_test(const OpInfo& op, Access access, std::uint32_t max_cases) {
  const Type s = op.type;
  TestPlan plan = lane_plan(op, access == Access::Uniform ? "uniform buffer" : "read buffer");
  plan.operands = {operand_spec(op, 0, load_feed(s))};
  BufferPlan src = input("src", s, 0);
  src.access = access;
  plan.buffers = {src, output("out", widen(s)), output("past_end", widen(s))};
  plan.max_cases = max_cases;
  plan.body = [](const BodyContext& ctx) {
    return std::vector<Node>{
        store("out", gid(), load("src", gid())),
        store("past_end", gid(), load("src", gid() + u32(ctx.cases))),
    };
  };
  return make_test(std::move(plan));
}

// store.<s>: dst[i] = src[i], narrowing from the widened value type.
OpTest store_test(const OpInfo& op) {
  const Type s = op.type;
  const Type value = widen(s);
  TestPlan plan = lane_plan(op, "narrowing store");
  plan.operands = {operand_spec(op, 0, load_feed(value))};
  plan.buffers = {input("src", value, 0), output("dst", s)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{store("dst", gid(), load("src", gid()))};
  };
  return make_test(std::move(plan));
}

// mem.workgroup: workgroup buffers start at zero, are shared by the workgroup across a barrier,
// drop stores past their end (without touching the next buffer) and read zero there.
OpTest workgroup_memory_test(const OpInfo& op) {
  TestPlan plan = workgroup_plan(op, "workgroup buffers", 64);
  plan.operands = {operand_spec(op, 0, Type::U32)};
  plan.buffers = {input("a", Type::U32, 0, 64),      workgroup_buffer("wg", Type::U32, 64),
                  workgroup_buffer("wg2", Type::U32, 16), output("initial", Type::U32, 64),
                  output("swapped", Type::U32, 64),  output("past_end", Type::U32, 64),
                  output("neighbour", Type::U32, 64)};
  plan.body = [](const BodyContext&) {
    return std::vector<Node>{
        store("initial", gid(), load("wg", lid()) | load("wg2", lid() & u32(15))),
        dsl::barrier(),
        store("wg", lid() + u32(64), u32(0xDEADBEEF)),
        store("wg", lid(), load("a", gid())),
        dsl::barrier(),
        store("swapped", gid(), load("wg", u32(63) - lid())),
        store("past_end", gid(), load("wg", lid() + u32(64))),
        store("neighbour", gid(), load("wg2", lid() & u32(15))),
    };
  };
  return make_test(std::move(plan));
}

}  // namespace

std::vector<OpTest> memory_tests(const OpInfo& op) {
  switch (op.family) {
    case OpFamily::Load:
      return {load_test(op, Access::Read, 0), load_test(op, Access::Uniform, kUniformCases)};
    case OpFamily::Store: return {store_test(op)};
    default: return {workgroup_memory_test(op)};
  }
}

}  // namespace vyre::conform::detail
