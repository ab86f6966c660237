// Pools of non-blocking streams and of events. A dispatch takes a stream for its work and an event
// to fence it; both go back to their pool for the next dispatch instead of being recreated.
// Streams are handed out in rotation (first returned, first reused) from a few created up front,
// so consecutive operations land on different streams: independent work overlaps, and ordering
// between operations rests on explicit event waits only, never on sharing a stream by chance.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/context.hpp"

namespace vyre::cuda {

class StreamPool;
class EventPool;

// A stream borrowed from the pool for the life of the lease. Work queued on it may still run after
// the lease ends: the next borrower's work simply orders after it.
class StreamLease {
 public:
  StreamLease() = default;
  StreamLease(StreamPool* pool, drv::CUstream stream) : pool_(pool), stream_(stream) {}
  StreamLease(StreamLease&& other) noexcept;
  StreamLease& operator=(StreamLease&& other) noexcept;
  ~StreamLease();
  drv::CUstream get() const { return stream_; }

 private:
  StreamPool* pool_ = nullptr;
  drv::CUstream stream_ = nullptr;
};

class StreamPool {
 public:
  static constexpr std::size_t kInitialStreams = 4;
  explicit StreamPool(const Context& context) : context_(context) {}
  ~StreamPool();  // the context must be current
  StreamPool(const StreamPool&) = delete;
  StreamPool& operator=(const StreamPool&) = delete;

  StreamLease acquire();
  // `preferred` when it is idle in the pool, else any stream (null: any stream).
  StreamLease acquire(drv::CUstream preferred);
  void give_back(drv::CUstream stream);

 private:
  const Context& context_;
  std::mutex mutex_;
  std::deque<drv::CUstream> idle_;
  bool primed_ = false;
};

// One event, shared by whoever still needs to wait on it; it goes back to its pool when the last
// reference drops.
class Event {
 public:
  Event(EventPool* pool, drv::CUevent event, bool timing) : pool_(pool), event_(event), timing_(timing) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  drv::CUevent get() const { return event_; }

 private:
  EventPool* pool_;
  drv::CUevent event_;
  bool timing_;
};
using EventRef = std::shared_ptr<Event>;

class EventPool {
 public:
  explicit EventPool(const Context& context) : context_(context) {}
  ~EventPool();  // the context must be current
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  // timing = true: usable with cuEventElapsedTime; else created with CU_EVENT_DISABLE_TIMING.
  EventRef acquire(bool timing = false);
  void give_back(drv::CUevent event, bool timing);

 private:
  const Context& context_;
  std::mutex mutex_;
  std::vector<drv::CUevent> idle_fence_;
  std::vector<drv::CUevent> idle_timing_;
};

}  // namespace vyre::cuda
