#include "runtime/submission.hpp"

#include <algorithm>
#include <cmath>

#include "vyre/error.hpp"

namespace vyre::vulkan {

void full_barrier(const DeviceFns& fn, VkCommandBuffer cmd) {
  auto barrier = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  barrier.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
  fn.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1,
                          &barrier, 0, nullptr, 0, nullptr);
}

Submission::Submission(std::shared_ptr<Device> device) : device_(std::move(device)) {
  const DeviceFns& fn = device_->fn();
  VkDevice dev = device_->handle();
  auto pool = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool.queueFamilyIndex = device_->queue_family();
  check(fn.vkCreateCommandPool(dev, &pool, nullptr, &pool_), "vkCreateCommandPool");
  auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  alloc.commandPool = pool_;
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  const VkResult r = fn.vkAllocateCommandBuffers(dev, &alloc, &cmd_);
  if (r != VK_SUCCESS) {
    fn.vkDestroyCommandPool(dev, pool_, nullptr);
    check(r, "vkAllocateCommandBuffers");
  }
}

Submission::~Submission() {
  if (drivers_shut_down()) return;  // see loader.hpp
  const DeviceFns& fn = device_->fn();
  VkDevice dev = device_->handle();
  if (value_ != 0) {
    try {
      device_->wait_for(value_, UINT64_MAX);
    } catch (...) {
      // a lost device runs nothing more
    }
  }
  if (queries_ != VK_NULL_HANDLE) fn.vkDestroyQueryPool(dev, queries_, nullptr);
  fn.vkDestroyCommandPool(dev, pool_, nullptr);
}

VkCommandBuffer Submission::begin(bool timed) {
  const DeviceFns& fn = device_->fn();
  VkDevice dev = device_->handle();
  if (timed && device_->limits().timestamp_period_ns <= 0)
    fail(VYRE_ERR_DEVICE, "the Vulkan queue has no timestamps (timestampValidBits is 0)",
         "use an untimed dispatch on this device");
  if (timed && queries_ == VK_NULL_HANDLE) {
    auto q = vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = 2;
    check(fn.vkCreateQueryPool(dev, &q, nullptr, &queries_), "vkCreateQueryPool");
  }
  // The pool hands out only finished submissions; a caller reusing its own one waited for it.
  if (value_ != 0 && !device_->reached(value_)) device_->wait_for(value_, UINT64_MAX);
  check(fn.vkResetCommandPool(dev, pool_, 0), "vkResetCommandPool");
  value_ = 0;
  extras_used_ = 0;
  timed_ = timed;
  auto info = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  info.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  check(fn.vkBeginCommandBuffer(cmd_, &info), "vkBeginCommandBuffer");
  full_barrier(fn, cmd_);
  if (timed) {
    fn.vkCmdResetQueryPool(cmd_, queries_, 0, 2);
    fn.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, queries_, 0);
  }
  return cmd_;
}

void Submission::end() {
  const DeviceFns& fn = device_->fn();
  if (timed_) fn.vkCmdWriteTimestamp(cmd_, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, queries_, 1);
  check(fn.vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
}

std::uint64_t Submission::submit() {
  end();
  value_ = device_->submit(&cmd_, 1);
  return value_;
}

std::uint64_t Submission::submit_batched() {
  end();
  value_ = device_->submit(&cmd_, 1, true);
  return value_;
}

VkCommandBuffer Submission::begin_extra() {
  const DeviceFns& fn = device_->fn();
  if (extras_used_ == extras_.size()) {
    auto alloc = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
    alloc.commandPool = pool_;
    alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    alloc.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(fn.vkAllocateCommandBuffers(device_->handle(), &alloc, &cmd), "vkAllocateCommandBuffers");
    extras_.push_back(cmd);
  }
  VkCommandBuffer cmd = extras_[extras_used_++];
  auto info = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  info.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  check(fn.vkBeginCommandBuffer(cmd, &info), "vkBeginCommandBuffer");
  full_barrier(fn, cmd);
  return cmd;
}

void Submission::end_extra(VkCommandBuffer cmd) { check(device_->fn().vkEndCommandBuffer(cmd), "vkEndCommandBuffer"); }

std::uint64_t Submission::submit_ordered(const std::vector<VkCommandBuffer>& order) {
  end();
  value_ = device_->submit(order.data(), order.size());
  return value_;
}

bool Submission::poll() { return value_ == 0 || device_->reached(value_); }

bool Submission::wait(std::uint64_t timeout_ns) { return value_ == 0 || device_->wait_for(value_, timeout_ns); }

std::uint64_t Submission::device_ns() {
  std::uint64_t stamps[2] = {0, 0};
  check(device_->fn().vkGetQueryPoolResults(device_->handle(), queries_, 0, 2, sizeof stamps, stamps,
                                           sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults", "use an untimed dispatch on this device");
  const double ns = static_cast<double>(stamps[1] - stamps[0]) * device_->limits().timestamp_period_ns;
  return static_cast<std::uint64_t>(std::llround(ns));
}

std::unique_ptr<Submission> SubmissionPool::acquire() {
  std::unique_ptr<Submission> oldest;
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto s = std::move(idle_.back());
      idle_.pop_back();
      return s;
    }
    if (!in_flight_.empty() && (live_ >= kMaxLive || device_->reached(in_flight_.front()->value()))) {
      oldest = std::move(in_flight_.front());
      in_flight_.pop_front();
    } else {
      ++live_;
    }
  }
  if (oldest) {
    // Finished, or the oldest of kMaxLive in flight: wait for it (a lost device throws, and the
    // submission is destroyed on the way out).
    try {
      oldest->wait(UINT64_MAX);
    } catch (...) {
      std::lock_guard lock(mutex_);
      --live_;
      throw;
    }
    return oldest;
  }
  try {
    auto made = std::make_unique<Submission>(device_);
    if (created_ != nullptr) created_->fetch_add(1, std::memory_order_relaxed);
    return made;
  } catch (...) {
    std::lock_guard lock(mutex_);
    --live_;
    throw;
  }
}

void SubmissionPool::release(std::unique_ptr<Submission> submission) {
  if (!submission) return;
  std::lock_guard lock(mutex_);
  if (submission->submitted())
    in_flight_.push_back(std::move(submission));  // acquire reuses it once its value is reached
  else
    idle_.push_back(std::move(submission));
}

std::size_t SubmissionPool::live() const {
  std::lock_guard lock(mutex_);
  return live_;
}

}  // namespace vyre::vulkan
