#include "large_program.hpp"

#include <fmt/core.h>

#include <bit>
#include <string>

#include "vyre/builder.hpp"

namespace vyre::bench {
namespace {

// Strides of the woven-in statements (after let k when k is a multiple).
constexpr std::uint32_t kBlockStride = 64;
constexpr std::uint32_t kLoopStride = 256;
constexpr std::uint32_t kIfStride = 1024;
constexpr std::uint32_t kLoopTrips = 3;

std::string v(std::uint32_t k) { return fmt::format("v{}", k); }

// v_k = (v_{k-1} op_k c_k) + v_{k/2}, op_k rotating through add, xor, mul (odd constant), rotl.
std::uint32_t constant(std::uint32_t k) { return (k * 0x9E37'79B9u) | 1u; }

Expr let_value(std::uint32_t k) {
  using namespace vyre::dsl;
  Expr prev = var(v(k - 1));
  Expr c = u32(k % 4 == 3 ? k % 31 + 1 : constant(k));
  Expr step;
  switch (k % 4) {
    case 0: step = prev + c; break;
    case 1: step = prev ^ c; break;
    case 2: step = prev * c; break;
    default: step = bin(BinOp::Rotl, prev, c); break;
  }
  return step + var(v(k / 2));
}

std::uint32_t let_value(std::uint32_t k, const std::vector<std::uint32_t>& vals) {
  const std::uint32_t prev = vals[k - 1];
  std::uint32_t step = 0;
  switch (k % 4) {
    case 0: step = prev + constant(k); break;
    case 1: step = prev ^ constant(k); break;
    case 2: step = prev * constant(k); break;
    default: step = std::rotl(prev, static_cast<int>(k % 31 + 1)); break;
  }
  return step + vals[k / 2];
}

void weave(ProgramBuilder& b, std::uint32_t k) {
  using namespace vyre::dsl;
  Expr acc = var("acc");
  Expr vk = var(v(k));
  if (k % kBlockStride == 0)
    b.block([&] {
      Expr t = b.let(fmt::format("t{}", k), vk ^ acc);
      b.assign("acc", t + u32(k));
    });
  if (k % kLoopStride == 0)
    b.loop(fmt::format("j{}", k), u32(0), u32(kLoopTrips), [&](Expr j) { b.assign("acc", (acc + j) ^ vk); });
  if (k % kIfStride == 0)
    b.if_(eq(acc & u32(1), u32(0)), [&] { b.assign("acc", acc ^ vk); }, [&] { b.assign("acc", acc + u32(1)); });
}

std::uint32_t weave(std::uint32_t k, std::uint32_t vk, std::uint32_t acc) {
  if (k % kBlockStride == 0) acc = (vk ^ acc) + k;
  if (k % kLoopStride == 0)
    for (std::uint32_t j = 0; j < kLoopTrips; ++j) acc = (acc + j) ^ vk;
  if (k % kIfStride == 0) acc = (acc & 1u) == 0 ? acc ^ vk : acc + 1;
  return acc;
}

}  // namespace

vyre::Program large_program(std::uint32_t lets) {
  using namespace vyre::dsl;
  ProgramBuilder b;
  b.workgroup(kLargeElements);
  auto a = b.buffer("a", Access::Read, Type::U32, kLargeElements);
  auto out = b.buffer("out", Access::Output, Type::U32, kLargeElements);
  Expr i = b.let("i", invocation_id(0));
  b.let("acc", i);
  b.let(v(0), a[i]);
  for (std::uint32_t k = 1; k < lets; ++k) {
    b.let(v(k), let_value(k));
    weave(b, k);
  }
  b.store(out, i, var(v(lets - 1)) ^ var("acc"));
  return b.build();
}

std::vector<std::uint32_t> large_program_on_host(std::uint32_t lets, std::span<const std::uint32_t> a) {
  std::vector<std::uint32_t> out;
  std::vector<std::uint32_t> vals(lets);
  for (std::uint32_t i = 0; i < a.size(); ++i) {
    std::uint32_t acc = i;
    vals[0] = a[i];
    for (std::uint32_t k = 1; k < lets; ++k) {
      vals[k] = let_value(k, vals);
      acc = weave(k, vals[k], acc);
    }
    out.push_back(vals[lets - 1] ^ acc);
  }
  return out;
}

}  // namespace vyre::bench
