#include "runtime/size_class.hpp"

#include <bit>

namespace vyre::cuda {

std::uint64_t size_class(std::uint64_t bytes) {
  if (bytes <= kMinSizeClass) return kMinSizeClass;
  if (bytes > (std::uint64_t{1} << 62)) return bytes;
  // 2^k < bytes <= 2^(k+1); round up to a multiple of 2^k / 4.
  const int k = std::bit_width(bytes - 1) - 1;
  const std::uint64_t step = (std::uint64_t{1} << k) / 4;
  return (bytes + step - 1) / step * step;
}

std::optional<std::uint64_t> BlockCache::take(std::uint64_t size_class) {
  auto found = free_.find(size_class);
  if (found == free_.end() || found->second.empty()) return std::nullopt;
  const std::uint64_t address = found->second.back();
  found->second.pop_back();
  idle_bytes_ -= size_class;
  return address;
}

bool BlockCache::put(std::uint64_t address, std::uint64_t size_class) {
  if (idle_bytes_ + size_class > max_idle_bytes_) return false;
  free_[size_class].push_back(address);
  idle_bytes_ += size_class;
  return true;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> BlockCache::drain() {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
  for (auto& [size, addresses] : free_) {
    for (std::uint64_t address : addresses) blocks.emplace_back(address, size);
  }
  free_.clear();
  idle_bytes_ = 0;
  return blocks;
}

std::size_t BlockCache::idle_blocks() const {
  std::size_t count = 0;
  for (const auto& [size, addresses] : free_) count += addresses.size();
  return count;
}

}  // namespace vyre::cuda
