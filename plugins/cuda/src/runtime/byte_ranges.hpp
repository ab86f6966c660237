// Byte ranges of one buffer merged into as few copies as possible: a download of many ranges of a
// resident buffer issues one copy per run of overlapping or adjacent ranges.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace vyre::cuda {

struct ByteSpan {
  std::uint64_t offset = 0;
  std::uint64_t length = 0;
  std::uint64_t end() const { return offset + length; }
  friend bool operator==(const ByteSpan&, const ByteSpan&) = default;
};

inline constexpr std::size_t kNoCopy = std::numeric_limits<std::size_t>::max();

struct RangePlan {
  std::vector<ByteSpan> copies;       // merged, sorted by offset, disjoint and not adjacent
  std::vector<std::size_t> copy_of;   // per input range: the copy holding it (kNoCopy if empty)
};

// Merge `ranges` (any order; may overlap, touch or be empty) into the copies that cover them.
RangePlan plan_ranges(std::span<const ByteSpan> ranges);

}  // namespace vyre::cuda

namespace vyre::cuda {

// Offsets that place blocks of `sizes` bytes one after another, each aligned to `alignment` (a
// power of two); `*total` receives the bytes the layout spans. Throws VYRE_ERR_LIMIT on overflow.
std::vector<std::uint64_t> pack_offsets(std::span<const std::uint64_t> sizes, std::uint64_t alignment,
                                        std::uint64_t* total);

}  // namespace vyre::cuda
