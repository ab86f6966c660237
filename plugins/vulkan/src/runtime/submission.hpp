// One unit of queued work: a command pool with one primary command buffer and, once a timed
// submission needs it, a query pool of two timestamps. Completion is the device's timeline value
// the submission signalled (Device::submit): no fence per submission. Submissions are recycled
// through a SubmissionPool (thread-safe); one is used by one thread at a time, and a submitted one
// is recorded again only after its value is reached (the pool checks).
//
// Every recorded command buffer starts with a full memory barrier, so work runs in the order it
// was submitted to the queue (submission order is the call order, under the queue mutex): a
// resident buffer's operations never overtake each other.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "runtime/device.hpp"

namespace vyre::vulkan {

class Submission {
 public:
  explicit Submission(std::shared_ptr<Device> device);
  ~Submission();
  Submission(const Submission&) = delete;
  Submission& operator=(const Submission&) = delete;

  // Reset and begin recording; writes the leading barrier and, if `timed`, the first timestamp.
  VkCommandBuffer begin(bool timed);
  // End recording (and write the last timestamp if timed) and submit; returns the timeline value.
  std::uint64_t submit();
  // The same for the batcher's own batches (no flush of the batcher first).
  std::uint64_t submit_batched();
  // Another command buffer from this submission's pool, begun for simultaneous use (it may appear
  // many times in one submission), starting with the full barrier. End it with end_extra().
  VkCommandBuffer begin_extra();
  void end_extra(VkCommandBuffer cmd);
  // End recording and submit command buffers in `order` (the main one, command_buffer(), and
  // extras, each any number of times), in chunks, signalling the timeline after the last.
  std::uint64_t submit_ordered(const std::vector<VkCommandBuffer>& order);
  // true once the submitted work finished (or nothing was submitted); throws on device loss.
  bool poll();
  // true once done within `timeout_ns`.
  bool wait(std::uint64_t timeout_ns);
  // Device nanoseconds between the two timestamps (after completion of a timed submission).
  std::uint64_t device_ns();
  bool submitted() const { return value_ != 0; }
  // The timeline value the last submission signals (0: none since the last begin).
  std::uint64_t value() const { return value_; }

  VkCommandBuffer command_buffer() const { return cmd_; }
  Device& device() { return *device_; }

 private:
  void end();
  std::shared_ptr<Device> device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> extras_;
  std::size_t extras_used_ = 0;
  VkQueryPool queries_ = VK_NULL_HANDLE;  // made on the first timed begin
  bool timed_ = false;
  std::uint64_t value_ = 0;
};

// A full barrier between everything before and everything after, in one command buffer.
void full_barrier(const DeviceFns& fn, VkCommandBuffer cmd);

// Recycles submissions. A released submission that is still running waits in `in_flight_` (in
// release order, which is nearly submission order) until its value is reached, then is reused:
// a steady stream of asynchronous dispatches cycles through a few submissions instead of creating
// a command pool per dispatch. At most kMaxLive submissions exist; past that, acquire waits for the
// oldest one in flight (back-pressure, as a full driver queue gives) rather than creating more.
class SubmissionPool {
 public:
  static constexpr std::size_t kMaxLive = 1024;

  // `created` (may be null) counts the submissions made (telemetry's command_pools_created).
  SubmissionPool(std::shared_ptr<Device> device, std::atomic<std::uint64_t>* created)
      : device_(std::move(device)), created_(created) {}
  // A submission ready to begin: idle, finished, or new; may wait for the oldest one in flight.
  std::unique_ptr<Submission> acquire();
  // Back to the pool, finished or not (a running one is reused once its value is reached).
  void release(std::unique_ptr<Submission> submission);
  // Submissions that exist now (idle, in flight, or held by callers).
  std::size_t live() const;

 private:
  std::shared_ptr<Device> device_;
  std::atomic<std::uint64_t>* created_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Submission>> idle_;
  std::deque<std::unique_ptr<Submission>> in_flight_;
  std::size_t live_ = 0;
};

}  // namespace vyre::vulkan
