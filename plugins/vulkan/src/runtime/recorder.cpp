#include "runtime/recorder.hpp"

#include <algorithm>

#include "vyre/error.hpp"

namespace vyre::vulkan {

std::uint64_t binding_range(std::uint64_t bytes) { return align_up(std::max<std::uint64_t>(bytes, 16), 16); }

void memory_barrier(const DeviceFns& fn, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
  auto barrier = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  barrier.srcAccessMask = src_access;
  barrier.dstAccessMask = dst_access;
  fn.vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

void check_launch(const Device& device, const LaunchGeometry& geometry, const std::vector<BoundBuffer>& bindings) {
  const DeviceLimits& limits = device.limits();
  const std::uint64_t invocations = geometry.workgroup_invocations();
  const std::uint64_t fits = std::min(limits.max_workgroup_invocations, limits.max_workgroup_size[0]);
  if (invocations > fits)
    fail(VYRE_ERR_LIMIT, "a workgroup of " + std::to_string(invocations) + " invocations; the Vulkan device runs at most " +
                             std::to_string(fits),
         "use a smaller workgroup (config.workgroup or the program's workgroup_size)");
  for (const BoundBuffer& b : bindings) {
    if (b.elements > 0xFFFFFFFFull)
      fail(VYRE_ERR_LIMIT, "a buffer of " + std::to_string(b.elements) + " elements (2^32 or more)",
           "split the data over several dispatches");
    if (b.range > limits.max_storage_buffer_range)
      fail(VYRE_ERR_LIMIT, "a buffer of " + std::to_string(b.range) + " bytes; the Vulkan device binds at most " +
                               std::to_string(limits.max_storage_buffer_range) + " bytes (maxStorageBufferRange)",
           "split the data over several dispatches or use a device with a larger limit");
  }
}

void record_program(Runtime& rt, VkCommandBuffer cmd, const VulkanProgram& program, const LaunchGeometry& geometry,
                    const std::vector<BoundBuffer>& bindings) {
  if (geometry.empty()) return;
  const DeviceFns& fn = rt.device->fn();
  const LoweredProgram& lowered = program.lowered();

  std::vector<VkDescriptorBufferInfo> infos(bindings.size());
  std::vector<VkWriteDescriptorSet> writes(bindings.size());
  for (std::size_t i = 0; i < bindings.size(); ++i) {
    infos[i] = {bindings[i].buffer, bindings[i].offset, bindings[i].range};
    writes[i] = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[i].dstBinding = static_cast<std::uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  std::vector<std::uint32_t> push(kPushHeaderWords + bindings.size());
  push[0] = static_cast<std::uint32_t>(std::min<std::uint64_t>(geometry.n, 0xFFFFFFFFull));
  push[1] = geometry.tail_guard ? 1 : 0;
  for (int a = 0; a < 3; ++a) push[2 + a] = geometry.grid[a];
  for (std::size_t i = 0; i < bindings.size(); ++i)
    push[kPushHeaderWords + i] = static_cast<std::uint32_t>(bindings[i].elements);

  const std::uint32_t* max_count = rt.device->limits().max_workgroup_count;
  bool bound_once = false;
  for (std::uint32_t iteration = 0; iteration < geometry.fixpoint_iterations; ++iteration) {
    for (std::size_t phase = 0; phase < lowered.entries.size(); ++phase) {
      if (iteration > 0 || phase > 0)
        memory_barrier(fn, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      fn.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, program.pipeline(phase, geometry.workgroup));
      if (!bound_once) {
        if (!writes.empty())
          fn.vkCmdPushDescriptorSetKHR(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, program.layout(), 0,
                                       static_cast<std::uint32_t>(writes.size()), writes.data());
        fn.vkCmdPushConstants(cmd, program.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              static_cast<std::uint32_t>(push.size() * 4), push.data());
        bound_once = true;
      }
      for (std::uint64_t z = 0; z < geometry.grid[2]; z += max_count[2])
        for (std::uint64_t y = 0; y < geometry.grid[1]; y += max_count[1])
          for (std::uint64_t x = 0; x < geometry.grid[0]; x += max_count[0]) {
            auto chunk = [&](int a, std::uint64_t at) {
              return static_cast<std::uint32_t>(std::min<std::uint64_t>(max_count[a], geometry.grid[a] - at));
            };
            fn.vkCmdDispatchBase(cmd, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y),
                                 static_cast<std::uint32_t>(z), chunk(0, x), chunk(1, y), chunk(2, z));
            Telemetry::add(rt.telemetry.compute_dispatches);
          }
    }
  }
}

}  // namespace vyre::vulkan
