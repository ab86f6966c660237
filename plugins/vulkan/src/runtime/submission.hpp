// One unit of queued work: a command pool with one primary command buffer, a fence, and a query
// pool of two timestamps. Submissions are recycled through a SubmissionPool (thread-safe); one is
// used by one thread at a time.
//
// Every recorded command buffer starts with a full memory barrier, so work runs in the order it
// was submitted to the queue (submission order is the call order, under the queue mutex): a
// resident buffer's operations never overtake each other.
#pragma once

#include <cstdint>
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
  // End recording (and write the last timestamp if timed) and submit with the fence.
  void submit();
  // Another command buffer from this submission's pool, begun for simultaneous use (it may appear
  // many times in one submission), starting with the full barrier. End it with end_extra().
  VkCommandBuffer begin_extra();
  void end_extra(VkCommandBuffer cmd);
  // End recording and submit command buffers in `order` (the main one, command_buffer(), and
  // extras, each any number of times), in chunks, with the fence after the last.
  void submit_ordered(const std::vector<VkCommandBuffer>& order);
  // true once the fence signalled; throws on device loss.
  bool poll();
  // true once done within `timeout_ns`.
  bool wait(std::uint64_t timeout_ns);
  // Device nanoseconds between the two timestamps (after completion of a timed submission).
  std::uint64_t device_ns();
  bool submitted() const { return submitted_; }

  VkCommandBuffer command_buffer() const { return cmd_; }
  Device& device() { return *device_; }

 private:
  void end();
  std::shared_ptr<Device> device_;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> extras_;
  std::size_t extras_used_ = 0;
  VkFence fence_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  bool timed_ = false;
  bool submitted_ = false;
  bool done_ = false;
};

// A full barrier between everything before and everything after, in one command buffer.
void full_barrier(const DeviceFns& fn, VkCommandBuffer cmd);

class SubmissionPool {
 public:
  explicit SubmissionPool(std::shared_ptr<Device> device) : device_(std::move(device)) {}
  // A finished (or never used) submission; waits for nothing.
  std::unique_ptr<Submission> acquire();
  // Back to the pool; the caller has waited for it (or never submitted it).
  void release(std::unique_ptr<Submission> submission);

 private:
  std::shared_ptr<Device> device_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Submission>> idle_;
};

}  // namespace vyre::vulkan
