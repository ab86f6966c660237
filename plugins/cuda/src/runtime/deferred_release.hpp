// Blocks that must outlive the call that queued work on them: an upload returns as soon as the
// caller's bytes are in pinned staging, while the copy out of staging is still queued. The staging
// block is parked here with the event that fences the copy and goes back to its pool once the
// event has completed (checked, without blocking, whenever the runtime queues more work).
#pragma once

#include <mutex>
#include <utility>
#include <vector>

#include "runtime/block_pool.hpp"
#include "runtime/stream_pool.hpp"

namespace vyre::cuda {

class DeferredRelease {
 public:
  explicit DeferredRelease(const Context& context) : context_(context) {}
  ~DeferredRelease();  // waits for every parked event (the context must be current)
  DeferredRelease(const DeferredRelease&) = delete;
  DeferredRelease& operator=(const DeferredRelease&) = delete;

  void park(EventRef fence, std::vector<Block> blocks);
  // Release the blocks whose fence has completed (queried successfully); never blocks.
  void reap();
  std::size_t parked() const;

 private:
  const Context& context_;
  mutable std::mutex mutex_;
  std::vector<std::pair<EventRef, std::vector<Block>>> parked_;
};

}  // namespace vyre::cuda
