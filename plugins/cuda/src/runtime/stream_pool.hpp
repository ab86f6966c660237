// Pools of non-blocking streams and of events. A dispatch takes a stream for its work and an event
// to fence it; both go back to their pool for the next dispatch instead of being recreated.
// Streams are handed out in rotation (first returned, first reused) from a few created up front,
// so consecutive operations land on different streams: independent work overlaps, and ordering
// between operations rests on explicit event waits only, never on sharing a stream by chance.
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/context.hpp"

namespace vyre::cuda {

class StreamPool;
class EventPool;

// A stream borrowed from the pool for the life of the lease. Work queued on it may still run after
// the lease ends: the next borrower's work simply orders after it. A private lease owns a stream
// no one else ever uses (destroyed when the lease ends).
class StreamLease {
 public:
  StreamLease() = default;
  StreamLease(StreamPool* pool, drv::CUstream stream, bool owned = false)
      : pool_(pool), stream_(stream), owned_(owned) {}
  StreamLease(StreamLease&& other) noexcept;
  StreamLease& operator=(StreamLease&& other) noexcept;
  ~StreamLease();
  drv::CUstream get() const { return stream_; }

 private:
  StreamPool* pool_ = nullptr;
  drv::CUstream stream_ = nullptr;
  bool owned_ = false;
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
  // A new stream of the caller's own, never pooled: for stream capture, which must not meet the
  // deferred fence records that other work places on pooled streams (Event).
  StreamLease acquire_private();
  void give_back(drv::CUstream stream);
  void destroy(drv::CUstream stream);

 private:
  const Context& context_;
  std::mutex mutex_;
  std::deque<drv::CUstream> idle_;
  bool primed_ = false;
};

// One event, shared by whoever still needs to wait on it; it goes back to its pool when the last
// reference drops. A deferred event (a dispatch's fence) is recorded on its stream only when first
// used (get()), not when the work is queued: most fences are waited on long after, or never
// separately, and cuEventRecord is a driver call per dispatch. Recorded later, it marks a later
// point of the same stream, after everything the fence stands for: waiting on it is still correct
// (it may wait for more). Pooled streams are never captured (StreamPool::acquire_private), so a
// deferred record never lands in a graph.
class Event {
 public:
  Event(EventPool* pool, drv::CUevent event, bool timing)
      : pool_(pool), event_(event), timing_(timing), recorded_(true) {}
  Event(EventPool* pool, drv::CUevent event, drv::CUstream deferred)
      : pool_(pool), event_(event), timing_(false), deferred_(deferred), recorded_(false) {}
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  // The event; a deferred one is recorded first (the context must be current). Throws vyre::Error
  // when that record fails.
  drv::CUevent get() const;

 private:
  EventPool* pool_;
  drv::CUevent event_;
  bool timing_;
  drv::CUstream deferred_ = nullptr;
  mutable std::atomic<bool> recorded_;
  mutable std::mutex mutex_;
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
  // A fence for the work queued so far on `stream`, recorded when first used (Event).
  EventRef acquire_deferred(drv::CUstream stream);
  void give_back(drv::CUevent event, bool timing);
  void record(drv::CUevent event, drv::CUstream stream);  // throws vyre::Error

 private:
  const Context& context_;
  std::mutex mutex_;
  std::vector<drv::CUevent> idle_fence_;
  std::vector<drv::CUevent> idle_timing_;
};

}  // namespace vyre::cuda
