#include "programs.hpp"

#include <bit>
#include <functional>

#include "vyre/builder.hpp"

namespace vyre::bench {

using vyre::Access;
using vyre::Type;

vyre::Program xor_program(std::uint32_t count) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(kWorkgroup);
  auto a = b.buffer("a", Access::Read, Type::U32, count);
  auto x = b.buffer("b", Access::Read, Type::U32, count);
  auto out = b.buffer("out", Access::Output, Type::U32, count);
  auto i = b.let("i", invocation_id(0));
  b.store(out, i, a[i] ^ x[i]);
  return b.build();
}

vyre::Program sum_program() {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(kWorkgroup);
  auto data = b.buffer("data", Access::Read, Type::U32);
  b.buffer("total", Access::Output, Type::U64, 1);
  auto gid = b.let("gid", invocation_id(0));
  auto stride = b.let("stride", num_workgroups(0) * u32(kWorkgroup));
  auto chunk = b.let("chunk", var("stride") * u32(4));
  auto trips = b.let("trips", (data.len() + chunk - u32(1)) / chunk);
  b.let("acc", u64(0));
  b.loop("k", u32(0), trips, [&](Expr k) {
    auto base = b.let("base", k * chunk + gid);
    // Four loads in flight before the first add; out-of-bounds loads read 0 (SPEC §2).
    auto w0 = b.let("w0", cast(Type::U64, data[base]));
    auto w1 = b.let("w1", cast(Type::U64, data[base + stride]));
    auto w2 = b.let("w2", cast(Type::U64, data[base + stride * u32(2)]));
    auto w3 = b.let("w3", cast(Type::U64, data[base + stride * u32(3)]));
    b.assign("acc", var("acc") + ((w0 + w1) + (w2 + w3)));
  });
  auto warp_sum = b.let("warp_sum", reduce(ReduceOp::Add, var("acc")));
  b.if_(eq(subgroup_lane(), u32(0)),
        [&] { b.let("previous", atomic(AtomicOp::Add, "total", u32(0), warp_sum)); });
  return b.build();
}

namespace {

// One step: `target` = op(target, other), over buffers x then y (declaration order).
vyre::Program sequence_step(std::uint32_t count, bool writes_x, const std::function<Expr(Expr, Expr)>& op) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(kWorkgroup);
  auto x = b.buffer("x", writes_x ? Access::ReadWrite : Access::Read, Type::U32, count);
  auto y = b.buffer("y", writes_x ? Access::Read : Access::ReadWrite, Type::U32, count);
  auto i = b.let("i", invocation_id(0));
  if (writes_x) b.store(x, i, op(x[i], y[i]));
  else b.store(y, i, op(y[i], x[i]));
  return b.build();
}

}  // namespace

std::array<vyre::Program, 4> sequence_step_programs(std::uint32_t count) {
  using namespace vyre::dsl;
  return {
      sequence_step(count, true, [](Expr x, Expr) { return x + u32(1); }),
      sequence_step(count, false, [](Expr y, Expr x) { return y ^ x; }),
      sequence_step(count, true, [](Expr x, Expr) { return bin(BinOp::Rotl, x, u32(7)); }),
      sequence_step(count, false, [](Expr y, Expr x) { return y + x; }),
  };
}

void sequence_steps_on_host(std::span<std::uint32_t> x, std::span<std::uint32_t> y, std::uint64_t repeats) {
  for (std::uint64_t r = 0; r < repeats; ++r) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] += 1;
      y[i] ^= x[i];
      x[i] = std::rotl(x[i], 7);
      y[i] += x[i];
    }
  }
}

}  // namespace vyre::bench
