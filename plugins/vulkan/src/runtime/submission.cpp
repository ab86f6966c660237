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
  auto fence = vk_struct<VkFenceCreateInfo>(VK_STRUCTURE_TYPE_FENCE_CREATE_INFO);
  try {
    check(fn.vkAllocateCommandBuffers(dev, &alloc, &cmd_), "vkAllocateCommandBuffers");
    check(fn.vkCreateFence(dev, &fence, nullptr, &fence_), "vkCreateFence");
    if (device_->limits().timestamp_period_ns > 0) {
      auto q = vk_struct<VkQueryPoolCreateInfo>(VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO);
      q.queryType = VK_QUERY_TYPE_TIMESTAMP;
      q.queryCount = 2;
      check(fn.vkCreateQueryPool(dev, &q, nullptr, &queries_), "vkCreateQueryPool");
    }
  } catch (...) {
    if (fence_ != VK_NULL_HANDLE) fn.vkDestroyFence(dev, fence_, nullptr);
    fn.vkDestroyCommandPool(dev, pool_, nullptr);
    throw;
  }
}

Submission::~Submission() {
  const DeviceFns& fn = device_->fn();
  VkDevice dev = device_->handle();
  if (submitted_ && !done_) fn.vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_MAX);
  if (queries_ != VK_NULL_HANDLE) fn.vkDestroyQueryPool(dev, queries_, nullptr);
  fn.vkDestroyFence(dev, fence_, nullptr);
  fn.vkDestroyCommandPool(dev, pool_, nullptr);
}

VkCommandBuffer Submission::begin(bool timed) {
  const DeviceFns& fn = device_->fn();
  VkDevice dev = device_->handle();
  if (timed && queries_ == VK_NULL_HANDLE)
    fail(VYRE_ERR_DEVICE, "the Vulkan queue has no timestamps (timestampValidBits is 0)",
         "use an untimed dispatch on this device");
  if (submitted_) check(fn.vkResetFences(dev, 1, &fence_), "vkResetFences");
  check(fn.vkResetCommandPool(dev, pool_, 0), "vkResetCommandPool");
  submitted_ = done_ = false;
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

void Submission::submit() { submit_ordered({cmd_}); }

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

void Submission::submit_ordered(const std::vector<VkCommandBuffer>& order) {
  end();
  constexpr std::size_t kChunk = 1024;
  std::lock_guard lock(device_->queue_mutex());
  for (std::size_t at = 0; at < order.size(); at += kChunk) {
    const bool last = at + kChunk >= order.size();
    auto info = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
    info.commandBufferCount = static_cast<std::uint32_t>(std::min(kChunk, order.size() - at));
    info.pCommandBuffers = order.data() + at;
    check(device_->fn().vkQueueSubmit(device_->queue(), 1, &info, last ? fence_ : VK_NULL_HANDLE), "vkQueueSubmit");
  }
  submitted_ = true;
}

bool Submission::poll() {
  if (done_ || !submitted_) return true;
  const VkResult r = device_->fn().vkGetFenceStatus(device_->handle(), fence_);
  if (r == VK_NOT_READY) return false;
  check(r, "vkGetFenceStatus");
  done_ = true;
  return true;
}

bool Submission::wait(std::uint64_t timeout_ns) {
  if (done_ || !submitted_) return true;
  const VkResult r = device_->fn().vkWaitForFences(device_->handle(), 1, &fence_, VK_TRUE, timeout_ns);
  if (r == VK_TIMEOUT) return false;
  check(r, "vkWaitForFences");
  done_ = true;
  return true;
}

std::uint64_t Submission::device_ns() {
  std::uint64_t stamps[2] = {0, 0};
  check(device_->fn().vkGetQueryPoolResults(device_->handle(), queries_, 0, 2, sizeof stamps, stamps,
                                           sizeof(std::uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults", "use an untimed dispatch on this device");
  const double ns = static_cast<double>(stamps[1] - stamps[0]) * device_->limits().timestamp_period_ns;
  return static_cast<std::uint64_t>(std::llround(ns));
}

std::unique_ptr<Submission> SubmissionPool::acquire() {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      auto s = std::move(idle_.back());
      idle_.pop_back();
      return s;
    }
  }
  return std::make_unique<Submission>(device_);
}

void SubmissionPool::release(std::unique_ptr<Submission> submission) {
  if (!submission) return;
  if (submission->submitted() && !submission->wait(0)) return;  // still running: destroy waits
  std::lock_guard lock(mutex_);
  if (idle_.size() < 16) idle_.push_back(std::move(submission));
}

}  // namespace vyre::vulkan
