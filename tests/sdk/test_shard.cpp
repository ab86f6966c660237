// Sharding arithmetic (vyre/shard.hpp; SPEC §11): every workgroup of the grid belongs to exactly
// one rank, in rank order, shares differ by at most one, and the invocation and element slices
// follow the workgroup ranges and stop at N under the tail guard.
#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "vyre/error.hpp"
#include "vyre/shard.hpp"

namespace {

vyre::LaunchGeometry line(std::uint32_t grid_x, std::uint32_t workgroup_x, std::uint64_t n, bool tail_guard) {
  vyre::LaunchGeometry g;
  g.grid = {grid_x, 1, 1};
  g.workgroup = {workgroup_x, 1, 1};
  g.n = n;
  g.tail_guard = tail_guard;
  return g;
}

}  // namespace

TEST_CASE("shares are contiguous, in rank order, larger first, differing by at most one") {
  const std::vector<vyre::ShardRange> ranges = vyre::shard_ranges(10, 4);
  REQUIRE(ranges.size() == 4);
  CHECK(ranges[0] == vyre::ShardRange{0, 3});
  CHECK(ranges[1] == vyre::ShardRange{3, 3});
  CHECK(ranges[2] == vyre::ShardRange{6, 2});
  CHECK(ranges[3] == vyre::ShardRange{8, 2});
  CHECK(vyre::shard_range(10, 4, 2) == ranges[2]);
}

TEST_CASE("a group of one runs the whole grid; ranks beyond the grid run nothing") {
  CHECK(vyre::shard_range(7, 1, 0) == vyre::ShardRange{0, 7});
  const auto ranges = vyre::shard_ranges(2, 3);
  CHECK(ranges[0] == vyre::ShardRange{0, 1});
  CHECK(ranges[1] == vyre::ShardRange{1, 1});
  CHECK(ranges[2].empty());
  CHECK(vyre::shard_ranges(0, 2)[0].empty());
}

TEST_CASE("every workgroup belongs to exactly one rank for any grid and group size") {
  std::mt19937 rng(1234);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint32_t grid_x = trial < 1000 ? static_cast<std::uint32_t>(trial) : rng();
    const std::uint32_t ranks = 1 + rng() % 64;
    const auto ranges = vyre::shard_ranges(grid_x, ranks);
    std::uint64_t next = 0;
    std::uint32_t smallest = UINT32_MAX;
    std::uint32_t largest = 0;
    for (const vyre::ShardRange& r : ranges) {
      REQUIRE(r.first == next);
      next = r.end();
      smallest = std::min(smallest, r.count);
      largest = std::max(largest, r.count);
    }
    REQUIRE(next == grid_x);
    REQUIRE(largest - smallest <= 1);
  }
}

TEST_CASE("the largest grid splits without overflow") {
  const auto ranges = vyre::shard_ranges(UINT32_MAX, 8);
  CHECK(ranges.back().end() == UINT32_MAX);
  CHECK(ranges[0].count == 536870912u);  // ceil((2^32 - 1) / 8)
}

TEST_CASE("invalid group sizes and ranks are errors with a fix") {
  CHECK_THROWS_AS(vyre::shard_range(10, 0, 0), vyre::Error);
  try {
    vyre::shard_range(10, 2, 2);
    FAIL("rank 2 of 2 accepted");
  } catch (const vyre::Error& e) {
    CHECK(e.code() == VYRE_ERR_INVALID_ARGUMENT);
    CHECK(std::string(e.what()).find("Fix: ") != std::string::npos);
  }
}

TEST_CASE("a shard's invocations stop at N under the tail guard, not without it") {
  const auto guarded = line(4, 64, 200, true);  // 256 invocations launched, 200 run
  CHECK(vyre::invocation_extent_x(guarded) == 200);
  const auto ranges = vyre::shard_ranges(4, 3);  // 2, 1, 1 workgroups
  CHECK(vyre::shard_invocations(guarded, ranges[0]) == vyre::IndexRange{0, 128});
  CHECK(vyre::shard_invocations(guarded, ranges[1]) == vyre::IndexRange{128, 192});
  CHECK(vyre::shard_invocations(guarded, ranges[2]) == vyre::IndexRange{192, 200});

  const auto full = line(4, 64, 200, false);  // full-workgroup mode: every launched invocation runs
  CHECK(vyre::invocation_extent_x(full) == 256);
  CHECK(vyre::shard_invocations(full, ranges[2]) == vyre::IndexRange{192, 256});
  CHECK(vyre::shard_invocations(full, vyre::ShardRange{}).size() == 0);
}

TEST_CASE("element slices scale the invocation range and clamp to the buffer") {
  const auto g = line(4, 64, 200, true);
  const auto ranges = vyre::shard_ranges(4, 2);  // invocations [0,128) and [128,200)
  // One element per invocation: the slices tile the first 200 elements.
  CHECK(vyre::shard_elements(g, ranges[0], 1, 200) == vyre::IndexRange{0, 128});
  CHECK(vyre::shard_elements(g, ranges[1], 1, 200) == vyre::IndexRange{128, 200});
  // A row of 16 elements per invocation (e.g. one matrix row each).
  CHECK(vyre::shard_elements(g, ranges[1], 16, 3200) == vyre::IndexRange{2048, 3200});
  // A shorter buffer clamps; a huge factor saturates instead of wrapping.
  CHECK(vyre::shard_elements(g, ranges[1], 1, 150) == vyre::IndexRange{128, 150});
  CHECK(vyre::shard_elements(g, ranges[1], UINT64_MAX / 2, 10) == vyre::IndexRange{10, 10});
}

TEST_CASE("element slices of all ranks tile the buffer exactly once") {
  std::mt19937 rng(99);
  for (int trial = 0; trial < 500; ++trial) {
    const std::uint32_t wx = 1 + rng() % 256;
    const std::uint64_t n = rng() % 100000;
    const std::uint32_t grid_x = static_cast<std::uint32_t>((n + wx - 1) / wx);
    const auto g = line(grid_x, wx, n, true);
    const std::uint64_t per = 1 + rng() % 4;
    const std::uint32_t ranks = 1 + rng() % 9;
    std::uint64_t next = 0;
    for (const vyre::ShardRange& r : vyre::shard_ranges(grid_x, ranks)) {
      const vyre::IndexRange slice = vyre::shard_elements(g, r, per, n * per);
      if (slice.size() == 0) continue;
      REQUIRE(slice.begin == next);
      next = slice.end;
    }
    REQUIRE(next == n * per);
  }
}
