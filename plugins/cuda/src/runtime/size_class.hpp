// Size classes for the device memory and pinned staging pools, and the free lists that hold idle
// blocks between dispatches. Pure bookkeeping (addresses are plain integers), so it is tested
// without a device.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace vyre::cuda {

inline constexpr std::uint64_t kMinSizeClass = 256;

// The block size a request of `bytes` is served from: at least kMinSizeClass, then four classes
// per power of two (1.25x, 1.5x, 1.75x, 2x), so a block wastes at most a quarter of its size.
// Requests above 2^62 bytes are returned unchanged (no device has that much memory).
std::uint64_t size_class(std::uint64_t bytes);

// Idle blocks by size class, with a cap on the bytes kept idle.
class BlockCache {
 public:
  explicit BlockCache(std::uint64_t max_idle_bytes) : max_idle_bytes_(max_idle_bytes) {}

  // An idle block of exactly `size_class` bytes, if one is cached.
  std::optional<std::uint64_t> take(std::uint64_t size_class);
  // Keep `address` (a block of `size_class` bytes) for reuse; false when that would exceed the
  // idle cap, in which case the caller frees the block.
  bool put(std::uint64_t address, std::uint64_t size_class);
  // Remove and return every idle block as (address, size class), to be freed by the caller.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> drain();

  std::uint64_t idle_bytes() const { return idle_bytes_; }
  std::size_t idle_blocks() const;

 private:
  std::uint64_t max_idle_bytes_;
  std::uint64_t idle_bytes_ = 0;
  std::map<std::uint64_t, std::vector<std::uint64_t>> free_;  // size class -> addresses
};

}  // namespace vyre::cuda
