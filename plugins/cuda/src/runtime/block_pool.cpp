#include "runtime/block_pool.hpp"

#include <utility>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda {

Block::Block(Block&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)),
      address_(std::exchange(other.address_, 0)),
      bytes_(std::exchange(other.bytes_, 0)),
      capacity_(std::exchange(other.capacity_, 0)) {}

Block& Block::operator=(Block&& other) noexcept {
  if (this == &other) return *this;
  release();
  pool_ = std::exchange(other.pool_, nullptr);
  address_ = std::exchange(other.address_, 0);
  bytes_ = std::exchange(other.bytes_, 0);
  capacity_ = std::exchange(other.capacity_, 0);
  return *this;
}

void Block::release() {
  if (pool_ != nullptr && address_ != 0) pool_->give_back(address_, capacity_);
  pool_ = nullptr;
  address_ = 0;
  bytes_ = 0;
  capacity_ = 0;
}

BlockPool::BlockPool(std::string what, BlockPoolHooks hooks, std::uint64_t max_idle_bytes)
    : what_(std::move(what)), hooks_(std::move(hooks)), cache_(max_idle_bytes) {}

BlockPool::~BlockPool() { trim(); }

Block BlockPool::acquire(std::uint64_t bytes) {
  if (bytes == 0) return Block();
  const std::uint64_t capacity = size_class(bytes);
  {
    std::lock_guard lock(mutex_);
    if (auto address = cache_.take(capacity)) {
      if (hooks_.hits != nullptr) hooks_.hits->fetch_add(1, std::memory_order_relaxed);
      update_gauges();
      return Block(this, *address, bytes, capacity);
    }
  }
  if (hooks_.misses != nullptr) hooks_.misses->fetch_add(1, std::memory_order_relaxed);
  std::uint64_t address = hooks_.allocate(capacity);
  if (address == 0) {
    trim();
    address = hooks_.allocate(capacity);
  }
  if (address == 0) {
    fail(VYRE_ERR_OUT_OF_MEMORY,
         fmt::format("Out of {}: {} of a {} byte block (for {} bytes) failed with CUDA_ERROR_OUT_OF_MEMORY, "
                     "also after freeing the pool's idle blocks; available: {}",
                     what_, hooks_.call, capacity, bytes,
                     hooks_.describe_available ? hooks_.describe_available() : "unknown"),
         "free resident buffers or split the work into smaller dispatches; other processes may "
         "hold memory (see nvidia-smi)");
  }
  std::lock_guard lock(mutex_);
  allocated_bytes_ += capacity;
  update_gauges();
  return Block(this, address, bytes, capacity);
}

void BlockPool::give_back(std::uint64_t address, std::uint64_t capacity) {
  std::unique_lock lock(mutex_);
  if (cache_.put(address, capacity)) {
    update_gauges();
    return;
  }
  allocated_bytes_ -= capacity;
  update_gauges();
  lock.unlock();
  hooks_.free(address);
}

void BlockPool::trim() {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
  {
    std::lock_guard lock(mutex_);
    blocks = cache_.drain();
    for (const auto& block : blocks) allocated_bytes_ -= block.second;
    update_gauges();
  }
  for (const auto& block : blocks) hooks_.free(block.first);
}

std::uint64_t BlockPool::idle_bytes() const {
  std::lock_guard lock(mutex_);
  return cache_.idle_bytes();
}

std::uint64_t BlockPool::allocated_bytes() const {
  std::lock_guard lock(mutex_);
  return allocated_bytes_;
}

void BlockPool::update_gauges() {
  if (hooks_.idle_gauge != nullptr) hooks_.idle_gauge->store(cache_.idle_bytes(), std::memory_order_relaxed);
  if (hooks_.allocated_gauge != nullptr) {
    hooks_.allocated_gauge->store(allocated_bytes_, std::memory_order_relaxed);
  }
}

}  // namespace vyre::cuda
