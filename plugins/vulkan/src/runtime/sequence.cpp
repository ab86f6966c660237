#include "runtime/sequence.hpp"

#include <cstring>

namespace vyre::vulkan {

void run_sequence(Runtime& rt, const kit::CheckedSequence& sequence) {
  const DeviceFns& fn = rt.device->fn();
  SubmissionHandle s(rt);
  std::vector<Block> temporaries;
  InFlightGuard guard;
  VkCommandBuffer main = s->begin(false);
  for (const auto& step : sequence.prefix) {
    record_resident(rt, main, step, temporaries);
    memory_barrier(fn, main, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
  }
  std::vector<VkCommandBuffer> order{main};
  if (!sequence.repeated.empty() && sequence.repeat_count > 0) {
    VkCommandBuffer repeated = s->begin_extra();
    for (const auto& step : sequence.repeated) {
      record_resident(rt, repeated, step, temporaries);
      memory_barrier(fn, repeated, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
    }
    s->end_extra(repeated);
    order.insert(order.end(), sequence.repeat_count, repeated);
  }
  std::uint64_t total = 0;
  for (const auto& r : sequence.reads) total += r.data.size();
  Block staging;
  if (total > 0) {
    staging = rt.memory->acquire(MemoryKind::Staging, total);
    VkCommandBuffer reads = s->begin_extra();
    std::uint64_t at = 0;
    for (const auto& r : sequence.reads) {
      guard.add(r.src);
      if (r.data.empty()) continue;
      const VkBufferCopy region{r.offset, at, r.data.size()};
      fn.vkCmdCopyBuffer(reads, vulkan_resident(*r.src).block().buffer(), staging.buffer(), 1, &region);
      at += r.data.size();
    }
    memory_barrier(fn, reads, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                   VK_ACCESS_HOST_READ_BIT);
    s->end_extra(reads);
    order.push_back(reads);
  }
  for (const auto& step : sequence.prefix)
    for (const auto& b : step.bindings) guard.add(b.resident);
  for (const auto& step : sequence.repeated)
    for (const auto& b : step.bindings) guard.add(b.resident);
  s->submit_ordered(order);
  Telemetry::add(rt.telemetry.sequences);
  Telemetry::add(rt.telemetry.submissions);
  s->wait(UINT64_MAX);
  std::uint64_t at = 0;
  for (const auto& r : sequence.reads) {
    if (r.data.empty()) continue;
    std::memcpy(r.data.data(), staging.mapped() + at, r.data.size());
    at += r.data.size();
  }
  Telemetry::add(rt.telemetry.bytes_out, total);
}

}  // namespace vyre::vulkan
