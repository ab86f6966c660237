// Recording a program's dispatches into a command buffer: push descriptors and push constants
// (lowering.hpp's layout), every fixpoint iteration and phase in order with a compute-to-compute
// memory barrier between them, and grids larger than the device's per-dispatch limits split into
// vkCmdDispatchBase chunks (the shader takes NumWorkgroups from the push constants, so chunks see
// the whole grid).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/program.hpp"
#include "vyre/geometry.hpp"

namespace vyre::vulkan {

struct BoundBuffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  std::uint64_t offset = 0;    // bytes; a multiple of the device's storage offset alignment
  std::uint64_t range = 0;     // bytes bound (>= 16, >= the data)
  std::uint64_t elements = 0;  // the bound count the shader bounds accesses by
};

// The device-dependent checks of a dispatch, before any device work: the workgroup fits the
// device, no binding exceeds maxStorageBufferRange, no element count exceeds u32. VYRE_ERR_LIMIT.
void check_launch(const Device& device, const LaunchGeometry& geometry, const std::vector<BoundBuffer>& bindings);

// Records the program; the caller records the barriers before (transfers -> compute) and after.
void record_program(Runtime& rt, VkCommandBuffer cmd, const VulkanProgram& program, const LaunchGeometry& geometry,
                    const std::vector<BoundBuffer>& bindings);

// A global memory barrier from `src` (stage, access) to `dst`.
void memory_barrier(const DeviceFns& fn, VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                    VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

// Bytes a binding of `bytes` data occupies (>= 16, a multiple of 16), and offsets aligned for binding.
std::uint64_t binding_range(std::uint64_t bytes);
inline constexpr std::uint64_t kBindingAlignment = 256;
inline std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace vyre::vulkan
