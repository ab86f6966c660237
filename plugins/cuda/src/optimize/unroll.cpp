// Which loops are unrolled (unroll.hpp).
#include "optimize/unroll.hpp"

#include <algorithm>

namespace vyre::cuda::optimize {

namespace {

std::size_t expr_size(const Expr& e) {
  std::size_t size = 1;
  for (const Expr& arg : e.args) size += expr_size(arg);
  return size;
}

bool contains_loop(const std::vector<Node>& body) {
  return std::any_of(body.begin(), body.end(), [](const Node& n) {
    return n.kind == NodeKind::Loop || contains_loop(n.body) || contains_loop(n.else_body);
  });
}

}  // namespace

std::size_t body_size(const std::vector<Node>& body) {
  std::size_t size = 0;
  for (const Node& n : body) {
    size += 1 + body_size(n.body) + body_size(n.else_body);
    for (const Expr& e : n.exprs) size += expr_size(e);
  }
  return size;
}

std::optional<UnrollPlan> unroll_plan(const Node& loop, const RangeAnalysis& ranges) {
  if (loop.kind != NodeKind::Loop) return std::nullopt;
  const auto bounds = ranges.constant_bounds(loop);
  if (!bounds) return std::nullopt;
  const auto [from, to] = *bounds;
  const std::uint32_t trips = to > from ? to - from : 0;
  if (trips > kMaxUnrollTrips || contains_loop(loop.body)) return std::nullopt;
  const std::size_t size = body_size(loop.body);
  if (size > kMaxUnrolledBodySize || size * trips > kMaxUnrolledSize) return std::nullopt;
  return UnrollPlan{from, to};
}

}  // namespace vyre::cuda::optimize
