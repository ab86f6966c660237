// Unrolling small constant-trip loops (issue 11 §2). A Loop whose bounds the value-range analysis
// found constant and side-effect free (RangeAnalysis::constant_bounds), with at most
// kMaxUnrollTrips iterations, a small body and no loop inside it, is emitted as one copy of the body
// per iteration with the loop variable a literal (codegen/statements.cpp): no counter, compare or
// branch, and ptxas folds the variable into the index arithmetic (tile[ly * 16 + k] becomes an
// immediate address offset). The semantics are those of the rolled loop: the bounds are evaluated
// once in both (here they have no side effects and one value), the variable is read-only, and
// each iteration's statements run in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "optimize/value_range.hpp"
#include "vyre/ir.hpp"

namespace vyre::cuda::optimize {

inline constexpr std::uint32_t kMaxUnrollTrips = 16;
// Statements plus expression nodes of one iteration, and of all iterations together.
inline constexpr std::size_t kMaxUnrolledBodySize = 64;
inline constexpr std::size_t kMaxUnrolledSize = 512;

struct UnrollPlan {
  std::uint32_t from = 0;  // the loop variable takes from, from + 1, ..., to - 1
  std::uint32_t to = 0;
};

// The plan for `loop` (a Loop node of the analysed program) when it is unrolled, else nullopt.
std::optional<UnrollPlan> unroll_plan(const Node& loop, const RangeAnalysis& ranges);

// Statements plus expression nodes of a body (what the limits above count).
std::size_t body_size(const std::vector<Node>& body);

}  // namespace vyre::cuda::optimize
