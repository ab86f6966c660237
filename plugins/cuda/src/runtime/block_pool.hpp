// A pool of memory blocks in size classes (size_class.hpp), reused across dispatches. One instance
// serves device memory (cuMemAlloc), another pinned host staging (cuMemHostAlloc); the hooks say
// how to allocate and free. A block goes back to the pool when its lease ends, which the runtime
// does only after the device work that used it has finished.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "runtime/size_class.hpp"

namespace vyre::cuda {

class BlockPool;

// One block borrowed from a pool (move-only). An empty block (no bytes) has address 0.
class Block {
 public:
  Block() = default;
  Block(BlockPool* pool, std::uint64_t address, std::uint64_t bytes, std::uint64_t capacity)
      : pool_(pool), address_(address), bytes_(bytes), capacity_(capacity) {}
  Block(Block&& other) noexcept;
  Block& operator=(Block&& other) noexcept;
  ~Block() { release(); }
  Block(const Block&) = delete;
  Block& operator=(const Block&) = delete;

  std::uint64_t address() const { return address_; }
  std::uint64_t bytes() const { return bytes_; }        // what was asked for
  std::uint64_t capacity() const { return capacity_; }  // the size class
  std::byte* host() const { return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(address_)); }
  bool empty() const { return address_ == 0; }
  void release();  // back to the pool now

 private:
  BlockPool* pool_ = nullptr;
  std::uint64_t address_ = 0;
  std::uint64_t bytes_ = 0;
  std::uint64_t capacity_ = 0;
};

struct BlockPoolHooks {
  const char* call = "allocate";  // the driver call `allocate` makes, for messages
  // Allocate `bytes`; returns 0 when out of memory, throws vyre::Error on any other failure.
  std::function<std::uint64_t(std::uint64_t bytes)> allocate;
  std::function<void(std::uint64_t address)> free;
  // Text naming what is available, for the out-of-memory message ("12 GiB free of 80 GiB").
  std::function<std::string()> describe_available;
  std::atomic<std::uint64_t>* hits = nullptr;
  std::atomic<std::uint64_t>* misses = nullptr;
  std::atomic<std::uint64_t>* idle_gauge = nullptr;       // may be null
  std::atomic<std::uint64_t>* allocated_gauge = nullptr;  // may be null
};

class BlockPool {
 public:
  BlockPool(std::string what, BlockPoolHooks hooks, std::uint64_t max_idle_bytes);
  ~BlockPool();  // frees idle blocks; a device pool needs its context current
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  // A block of at least `bytes` (0: an empty block). On out-of-memory it frees the idle blocks and
  // retries once, then throws VYRE_ERR_OUT_OF_MEMORY naming the requested and available bytes.
  Block acquire(std::uint64_t bytes);
  // Free every idle block now.
  void trim();

  std::uint64_t idle_bytes() const;
  std::uint64_t allocated_bytes() const;  // blocks owned, idle or leased

 private:
  friend class Block;
  void give_back(std::uint64_t address, std::uint64_t capacity);
  void update_gauges();

  std::string what_;
  BlockPoolHooks hooks_;
  mutable std::mutex mutex_;
  BlockCache cache_;
  std::uint64_t allocated_bytes_ = 0;
};

}  // namespace vyre::cuda
