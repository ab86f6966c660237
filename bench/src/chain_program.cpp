#include "chain_program.hpp"

#include <fmt/core.h>

#include <bit>

#include "host_data.hpp"
#include "vyre/builder.hpp"

namespace vyre::bench {
namespace {

// Statements: i, v0 = a[i], kSteps chain steps, r = v ^ salt, the store.
constexpr std::size_t kSteps = kChainStatements - 4;

enum class StepOp : std::uint8_t { Add, Mul, Xor, Rotl, Sub, MulHigh };
constexpr std::size_t kStepOps = 6;

struct Step {
  StepOp op;
  std::uint32_t constant;
};

std::vector<Step> chain_steps(std::uint32_t salt) {
  std::uint64_t state = 0xC4A1'0000'0000'0000ull | salt;
  std::vector<Step> steps;
  for (std::size_t k = 0; k < kSteps; ++k) {
    const std::uint64_t r = splitmix64(state);
    const auto op = static_cast<StepOp>(k % kStepOps);
    auto constant = static_cast<std::uint32_t>(r >> 32);
    if (op == StepOp::Mul || op == StepOp::MulHigh) constant |= 1u;  // odd: no information lost
    if (op == StepOp::Rotl) constant = constant % 31 + 1;
    steps.push_back(Step{op, constant});
  }
  return steps;
}

Expr step_expr(const Step& s, Expr v) {
  using namespace vyre::dsl;
  switch (s.op) {
    case StepOp::Add: return v + u32(s.constant);
    case StepOp::Mul: return v * u32(s.constant);
    case StepOp::Xor: return v ^ u32(s.constant);
    case StepOp::Rotl: return bin(BinOp::Rotl, v, u32(s.constant));
    case StepOp::Sub: return v - u32(s.constant);
    case StepOp::MulHigh: return bin(BinOp::MulHigh, v, u32(s.constant)) ^ v;
  }
  return v;
}

std::uint32_t step_value(const Step& s, std::uint32_t v) {
  switch (s.op) {
    case StepOp::Add: return v + s.constant;
    case StepOp::Mul: return v * s.constant;
    case StepOp::Xor: return v ^ s.constant;
    case StepOp::Rotl: return std::rotl(v, static_cast<int>(s.constant));
    case StepOp::Sub: return v - s.constant;
    case StepOp::MulHigh:
      return static_cast<std::uint32_t>((std::uint64_t{v} * s.constant) >> 32) ^ v;
  }
  return v;
}

}  // namespace

vyre::Program chain_program(std::uint32_t salt) {
  using namespace vyre::dsl;
  vyre::ProgramBuilder b;
  b.workgroup(64);
  auto a = b.buffer("a", Access::Read, Type::U32, kChainElements);
  auto out = b.buffer("out", Access::Output, Type::U32, kChainElements);
  auto i = b.let("i", invocation_id(0));
  Expr v = b.let("v0", a[i]);
  const std::vector<Step> steps = chain_steps(salt);
  for (std::size_t k = 0; k < steps.size(); ++k) v = b.let(fmt::format("v{}", k + 1), step_expr(steps[k], v));
  auto r = b.let("r", v ^ u32(salt));
  b.store(out, i, r);
  return b.build();
}

std::vector<std::uint32_t> chain_on_host(std::uint32_t salt, std::span<const std::uint32_t> a) {
  const std::vector<Step> steps = chain_steps(salt);
  std::vector<std::uint32_t> out;
  out.reserve(a.size());
  for (std::uint32_t v : a) {
    for (const Step& s : steps) v = step_value(s, v);
    out.push_back(v ^ salt);
  }
  return out;
}

}  // namespace vyre::bench
