#include "runtime/byte_ranges.hpp"

#include <algorithm>
#include <numeric>

#include "vyre/error.hpp"

namespace vyre::cuda {

RangePlan plan_ranges(std::span<const ByteSpan> ranges) {
  RangePlan plan;
  plan.copy_of.assign(ranges.size(), kNoCopy);
  std::vector<std::size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ranges[a].offset < ranges[b].offset;
  });
  for (std::size_t index : order) {
    const ByteSpan& range = ranges[index];
    if (range.length == 0) continue;
    if (plan.copies.empty() || range.offset > plan.copies.back().end()) {
      plan.copies.push_back(range);
    } else {
      ByteSpan& last = plan.copies.back();
      last.length = std::max(last.end(), range.end()) - last.offset;
    }
    plan.copy_of[index] = plan.copies.size() - 1;
  }
  return plan;
}

}  // namespace vyre::cuda

namespace vyre::cuda {

std::vector<std::uint64_t> pack_offsets(std::span<const std::uint64_t> sizes, std::uint64_t alignment,
                                        std::uint64_t* total) {
  std::vector<std::uint64_t> offsets;
  offsets.reserve(sizes.size());
  std::uint64_t cursor = 0;
  for (std::uint64_t size : sizes) {
    offsets.push_back(cursor);
    if (size > UINT64_MAX - cursor - alignment) {
      fail(VYRE_ERR_LIMIT, "The buffers of one dispatch overflow a 64-bit byte count",
           "split the dispatch into smaller ones");
    }
    cursor = (cursor + size + alignment - 1) & ~(alignment - 1);
  }
  *total = cursor;
  return offsets;
}

}  // namespace vyre::cuda
