// Asynchronous resident dispatches share command buffers: each is recorded (after a full barrier,
// so call order holds inside the buffer too) into the open batch, and a submit thread hands the
// batch to the queue as soon as it is free, so dispatches queued while it submits the previous
// batch go together in the next `vkQueueSubmit`. Nothing waits for a batch to fill: a dispatch
// queued while the thread is idle is submitted right away (the thread's wake-up is the delay), so
// asynchronous work still starts without the caller waiting, polling or queuing more.
//
// Order: every other submission of the instance (Device::submit with flush) first submits what is
// batched, so operations still reach the queue in call order. A pending dispatch's wait submits its
// batch itself when it is still open (no waiting for the thread). A failed submit fails every
// dispatch of that batch at its wait (the pending rethrows the error). Thread-safe.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/memory.hpp"
#include "runtime/submission.hpp"

namespace vyre::vulkan {

// The completion of one batched dispatch: its batch's timeline value once submitted.
struct Ticket {
  std::atomic<std::uint64_t> value{0};  // 0 until the batch is submitted (or failed)
  std::atomic<bool> failed{false};
  std::exception_ptr error;  // set before `failed`
};

class Batcher {
 public:
  static constexpr std::size_t kMaxPerBatch = 256;

  // Installs itself as the device's flush hook; `submissions` counts the batches submitted.
  Batcher(std::shared_ptr<Device> device, SubmissionPool& pool, std::atomic<std::uint64_t>* submissions);
  ~Batcher();  // submits what is batched, stops the thread
  Batcher(const Batcher&) = delete;
  Batcher& operator=(const Batcher&) = delete;

  // Records one dispatch with `record` (which must only record commands: no call that can fail
  // after the first command) into the open batch; returns its ticket.
  std::shared_ptr<Ticket> add(const std::function<void(VkCommandBuffer)>& record);
  // Submits every batched dispatch queued before this call, in order (returns when they are).
  void flush();
  // The ticket's timeline value, submitting its batch first if needed; throws the batch's error.
  std::uint64_t value_of(const std::shared_ptr<Ticket>& ticket);

 private:
  struct Batch {
    std::unique_ptr<Submission> submission;
    std::shared_ptr<Ticket> ticket;
    std::size_t count = 0;
  };
  void close_open_locked();
  void drain();
  void run();

  std::shared_ptr<Device> device_;
  SubmissionPool& pool_;
  std::mutex submit_mutex_;  // held while batches are popped and submitted (before mutex_)
  std::mutex mutex_;         // open_, closed_, the thread's state
  std::condition_variable wake_;
  Batch open_;
  std::deque<Batch> closed_;
  bool idle_ = false;
  bool stop_ = false;
  std::thread thread_;  // started on the first add
  std::atomic<std::uint64_t>* submissions_;
};

}  // namespace vyre::vulkan
