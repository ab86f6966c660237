// Sharding arithmetic (vyre/shard.hpp; SPEC §11).
#include "vyre/shard.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre {

ShardRange shard_range(std::uint32_t grid_x, std::uint32_t ranks, std::uint32_t rank) {
  if (ranks == 0)
    fail(VYRE_ERR_INVALID_ARGUMENT, "A grid cannot be sharded over 0 ranks",
         "form a group of at least one device");
  if (rank >= ranks)
    fail(VYRE_ERR_INVALID_ARGUMENT, fmt::format("Rank {} is not below the group size {}", rank, ranks),
         "pass a rank in 0 .. group size - 1");
  const std::uint32_t base = grid_x / ranks;
  const std::uint32_t larger = grid_x % ranks;  // the first `larger` ranks get one more
  const std::uint32_t first = rank * base + std::min(rank, larger);
  return ShardRange{first, base + (rank < larger ? 1u : 0u)};
}

std::vector<ShardRange> shard_ranges(std::uint32_t grid_x, std::uint32_t ranks) {
  std::vector<ShardRange> ranges;
  ranges.reserve(ranks);
  for (std::uint32_t rank = 0; rank < ranks; ++rank) ranges.push_back(shard_range(grid_x, ranks, rank));
  return ranges;
}

std::uint64_t invocation_extent_x(const LaunchGeometry& geometry) {
  const std::uint64_t launched = std::uint64_t{geometry.grid[0]} * geometry.workgroup[0];
  return geometry.tail_guard ? std::min(launched, geometry.n) : launched;
}

IndexRange shard_invocations(const LaunchGeometry& geometry, const ShardRange& shard) {
  if (shard.empty()) return {};
  const std::uint64_t extent = invocation_extent_x(geometry);
  const std::uint64_t begin = std::min(std::uint64_t{shard.first} * geometry.workgroup[0], extent);
  const std::uint64_t end = std::min(shard.end() * geometry.workgroup[0], extent);
  return IndexRange{begin, end};
}

IndexRange shard_elements(const LaunchGeometry& geometry, const ShardRange& shard,
                          std::uint64_t per_invocation, std::uint64_t count) {
  const IndexRange invocations = shard_invocations(geometry, shard);
  // Saturating products: a huge per_invocation clamps to count instead of wrapping.
  auto scaled = [&](std::uint64_t index) {
    if (per_invocation != 0 && index > count / per_invocation) return count;
    return std::min(index * per_invocation, count);
  };
  return IndexRange{scaled(invocations.begin), scaled(invocations.end)};
}

}  // namespace vyre
