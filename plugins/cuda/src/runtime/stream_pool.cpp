#include "runtime/stream_pool.hpp"

#include <utility>

namespace vyre::cuda {

StreamLease::StreamLease(StreamLease&& other) noexcept
    : pool_(std::exchange(other.pool_, nullptr)),
      stream_(std::exchange(other.stream_, nullptr)),
      owned_(std::exchange(other.owned_, false)) {}

StreamLease& StreamLease::operator=(StreamLease&& other) noexcept {
  if (this == &other) return *this;
  if (pool_ != nullptr) owned_ ? pool_->destroy(stream_) : pool_->give_back(stream_);
  pool_ = std::exchange(other.pool_, nullptr);
  stream_ = std::exchange(other.stream_, nullptr);
  owned_ = std::exchange(other.owned_, false);
  return *this;
}

StreamLease::~StreamLease() {
  if (pool_ != nullptr) owned_ ? pool_->destroy(stream_) : pool_->give_back(stream_);
}

StreamPool::~StreamPool() {
  for (drv::CUstream stream : idle_) context_.driver().cuStreamDestroy(stream);
}

StreamLease StreamPool::acquire() {
  std::unique_lock lock(mutex_);
  if (!primed_) {
    primed_ = true;
    for (std::size_t i = 0; i < kInitialStreams; ++i) {
      drv::CUstream stream = nullptr;
      context_.driver().check(context_.driver().cuStreamCreate(&stream, drv::CU_STREAM_NON_BLOCKING),
                              "cuStreamCreate");
      idle_.push_back(stream);
    }
  }
  if (!idle_.empty()) {
    drv::CUstream stream = idle_.front();
    idle_.pop_front();
    return StreamLease(this, stream);
  }
  lock.unlock();
  drv::CUstream stream = nullptr;
  context_.driver().check(context_.driver().cuStreamCreate(&stream, drv::CU_STREAM_NON_BLOCKING),
                          "cuStreamCreate");
  return StreamLease(this, stream);
}

StreamLease StreamPool::acquire(drv::CUstream preferred) {
  if (preferred != nullptr) {
    std::lock_guard lock(mutex_);
    for (auto it = idle_.begin(); it != idle_.end(); ++it) {
      if (*it != preferred) continue;
      idle_.erase(it);
      return StreamLease(this, preferred);
    }
  }
  return acquire();
}

StreamLease StreamPool::acquire_private() {
  drv::CUstream stream = nullptr;
  context_.driver().check(context_.driver().cuStreamCreate(&stream, drv::CU_STREAM_NON_BLOCKING),
                          "cuStreamCreate");
  return StreamLease(this, stream, true);
}

void StreamPool::destroy(drv::CUstream stream) { context_.driver().cuStreamDestroy(stream); }

void StreamPool::give_back(drv::CUstream stream) {
  std::lock_guard lock(mutex_);
  idle_.push_back(stream);
}

Event::~Event() { pool_->give_back(event_, timing_); }

drv::CUevent Event::get() const {
  if (recorded_.load(std::memory_order_acquire)) return event_;
  std::lock_guard lock(mutex_);
  if (!recorded_.load(std::memory_order_relaxed)) {
    pool_->record(event_, deferred_);
    recorded_.store(true, std::memory_order_release);
  }
  return event_;
}

EventPool::~EventPool() {
  for (drv::CUevent event : idle_fence_) context_.driver().cuEventDestroy(event);
  for (drv::CUevent event : idle_timing_) context_.driver().cuEventDestroy(event);
}

EventRef EventPool::acquire(bool timing) {
  drv::CUevent event = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto& idle = timing ? idle_timing_ : idle_fence_;
    if (!idle.empty()) {
      event = idle.back();
      idle.pop_back();
    }
  }
  if (event == nullptr) {
    const unsigned int flags = timing ? drv::CU_EVENT_DEFAULT : drv::CU_EVENT_DISABLE_TIMING;
    context_.driver().check(context_.driver().cuEventCreate(&event, flags), "cuEventCreate");
  }
  return std::make_shared<Event>(this, event, timing);
}

EventRef EventPool::acquire_deferred(drv::CUstream stream) {
  drv::CUevent event = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (!idle_fence_.empty()) {
      event = idle_fence_.back();
      idle_fence_.pop_back();
    }
  }
  if (event == nullptr) {
    context_.driver().check(context_.driver().cuEventCreate(&event, drv::CU_EVENT_DISABLE_TIMING), "cuEventCreate");
  }
  return std::make_shared<Event>(this, event, stream);
}

void EventPool::record(drv::CUevent event, drv::CUstream stream) {
  context_.driver().check(context_.driver().cuEventRecord(event, stream), "cuEventRecord(deferred fence)");
}

void EventPool::give_back(drv::CUevent event, bool timing) {
  std::lock_guard lock(mutex_);
  (timing ? idle_timing_ : idle_fence_).push_back(event);
}

}  // namespace vyre::cuda
