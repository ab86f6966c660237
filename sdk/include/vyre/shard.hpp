// Sharded dispatch over a device group (SPEC §11): the resolved grid (geometry.hpp) split along x
// into contiguous workgroup ranges, one per rank in group order. Every rank runs its range with
// the global WorkgroupId/InvocationId/NumWorkgroups, so the union of the ranks' work is exactly
// the single-device dispatch. Pure arithmetic, shared by the kit, the backends and the host
// wrapper (which also uses it to split inputs and gather outputs). Thread-safe (no state).
#pragma once

#include <cstdint>
#include <vector>

#include "vyre/geometry.hpp"

namespace vyre {

// The workgroups along x that one rank runs: [first, first + count), over every y and z.
struct ShardRange {
  std::uint32_t first = 0;
  std::uint32_t count = 0;  // 0: the rank runs nothing

  std::uint64_t end() const { return std::uint64_t{first} + count; }
  bool empty() const { return count == 0; }
  friend bool operator==(const ShardRange&, const ShardRange&) = default;
};

// A half-open range of indices (invocations along x, or buffer elements).
struct IndexRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;

  std::uint64_t size() const { return end > begin ? end - begin : 0; }
  friend bool operator==(const IndexRange&, const IndexRange&) = default;
};

// Rank `rank`'s share of `grid_x` workgroups among `ranks`: contiguous, in rank order, sizes
// differing by at most one with the larger shares first (grid_x = 10, ranks = 4: 3, 3, 2, 2).
// Ranks beyond grid_x get an empty range. Throws vyre::Error (VYRE_ERR_INVALID_ARGUMENT) when
// `ranks` is 0 or `rank >= ranks`.
ShardRange shard_range(std::uint32_t grid_x, std::uint32_t ranks, std::uint32_t rank);

// Every rank's share, in rank order (shard_range for rank 0 .. ranks-1).
std::vector<ShardRange> shard_ranges(std::uint32_t grid_x, std::uint32_t ranks);

// How far invocations along x reach in `geometry`: N under the tail guard (invocations at or past
// N do nothing), else grid.x * workgroup.x.
std::uint64_t invocation_extent_x(const LaunchGeometry& geometry);

// The invocations along x that run in `shard` (for every y and z): its workgroups' invocations,
// clamped to invocation_extent_x. Empty for an empty shard.
IndexRange shard_invocations(const LaunchGeometry& geometry, const ShardRange& shard);

// The elements of a buffer of `count` elements that belong to `shard` when the buffer is split
// with `per_invocation` elements per invocation along x: shard_invocations scaled by
// per_invocation, clamped to count. What a split input uploads and a gathered output reads back.
IndexRange shard_elements(const LaunchGeometry& geometry, const ShardRange& shard,
                          std::uint64_t per_invocation, std::uint64_t count);

}  // namespace vyre
