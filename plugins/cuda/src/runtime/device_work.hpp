// One unit of queued device work fenced by one event: a host dispatch, a resident dispatch. It
// holds a stream while queuing (given back once the fence is taken: later work on that stream
// simply runs after it), and owns the device and staging blocks until the fence completes, then
// finishes once: on success it hands results to the caller (on_success), and in every case it
// releases its resources (on_finish). A failed wait or poll (binding the context, or the fence's
// record, query or synchronize failing) fails the work for good: the stream is drained before
// anything is released, the failed call is reported, and no output is delivered later.
// Destroying unfinished work waits for it first and delivers nothing: every subclass calls
// finish_before_destroy() first in its destructor, while its members still live.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "runtime/block_pool.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream_pool.hpp"
#include "vyre/error.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point since);

class DeviceWork {
 public:
  DeviceWork(std::shared_ptr<Runtime> runtime, const char* what);
  DeviceWork(std::shared_ptr<Runtime> runtime, const char* what, StreamLease stream);
  virtual ~DeviceWork();
  DeviceWork(const DeviceWork&) = delete;
  DeviceWork& operator=(const DeviceWork&) = delete;

  // True once finished. Throws the work's failure (every time it is asked).
  bool poll();
  // Wait up to timeout_ns (UINT64_MAX: for ever); true once finished. Throws the work's failure.
  bool wait(std::uint64_t timeout_ns);
  // Wait for ever, on the thread that queued the work, right after queuing: its context is still
  // bound (a synchronous dispatch saves a cuCtxSetCurrent). Throws the work's failure.
  void wait_on_queuing_thread();

  std::uint64_t wait_ns() const { return wait_ns_; }

 protected:
  // Take the fence (a deferred event: recorded on stream() when first waited on or polled, see
  // Event) after everything was queued on stream(), and give the stream back; call once, at the
  // end of queuing.
  void seal();
  drv::CUstream stream() const { return stream_.get(); }
  Runtime& runtime() { return *runtime_; }

  virtual void on_success() {}
  virtual void on_finish() {}
  void finish_before_destroy() noexcept;

  std::shared_ptr<Runtime> runtime_;
  const char* what_;  // a literal naming the work in messages
  StreamLease stream_;
  EventRef fence_;
  drv::CUstream queued_on_ = nullptr;  // the stream the work was queued on (pooled, outlives this)
  std::vector<Block> blocks_;  // released when the work finishes

 private:
  // With mutex_ held: bind the context; a failure finishes the work with it and returns false.
  bool bound();
  bool wait_locked(std::uint64_t timeout_ns);  // wait() once bound (mutex_ held)
  // With mutex_ held: the fence event (recording a deferred fence). A failed record finishes the
  // work with that failure and returns null.
  drv::CUevent fence_event();
  // With mutex_ held, once `call` on the fence returned `result`: deliver on success, else drain
  // the stream and keep the failure; then release.
  void finish(drv::CUresult result, const char* call);
  void fail_with(Error error);  // drain, keep `error`, release (mutex_ held)
  void release_resources();
  void throw_if_failed() const;

  std::mutex mutex_;
  bool finished_ = false;
  std::optional<Error> failure_;
  std::uint64_t wait_ns_ = 0;
};

// The timing of one dispatch (host or resident): the host clock from the call's start, and for a
// timed dispatch two events bracketing its device work, read once the work completed. One place,
// so that every dispatch reports wall, enqueue, wait and device time the same way.
class DispatchTimer {
 public:
  void set_started(std::chrono::steady_clock::time_point started) { started_ = started; }
  // Queuing is done: the enqueue time is the time since the start.
  void mark_queued() { enqueue_ns_ = elapsed_ns(started_); }

  // Timed dispatches only: take both events and record the first on `stream`, before the device
  // work is queued there.
  void record_start(Runtime& runtime, drv::CUstream stream);
  // After the device work was queued on `stream`; nothing when record_start was not called.
  void record_end(Runtime& runtime, drv::CUstream stream);
  // Once the work completed: the device time between the events (nothing when untimed). Throws
  // vyre::Error naming cuEventElapsedTime and `what` when the driver cannot say.
  void read_device_time(Runtime& runtime, const char* what);

  // After the work finished: wall time since the start, the enqueue time, `wait_ns`, and the
  // device time when it was read.
  vyre::Timing timing(std::uint64_t wait_ns) const;

 private:
  std::chrono::steady_clock::time_point started_;
  std::uint64_t enqueue_ns_ = 0;
  EventRef start_;
  EventRef end_;
  std::optional<std::uint64_t> device_ns_;
};

// The kit's view of a DeviceWork.
class CudaPending final : public kit::Pending {
 public:
  explicit CudaPending(std::unique_ptr<DeviceWork> work) : work_(std::move(work)) {}
  bool poll() override { return work_->poll(); }
  bool wait(std::uint64_t timeout_ns) override { return work_->wait(timeout_ns); }

 private:
  std::unique_ptr<DeviceWork> work_;
};

}  // namespace vyre::cuda
