// A compiled program on one device: the SPIR-V module (lowered once), its shader module, the
// descriptor-set and pipeline layouts, and the compute pipelines, created per (phase, workgroup
// size) on first use through the instance's pipeline cache. Thread-safe.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <mutex>

#include "codegen/lowering.hpp"
#include "runtime/runtime.hpp"

namespace vyre::vulkan {

class VulkanProgram final : public kit::CompiledProgram {
 public:
  // Lowers and checks the program against the device's limits (VYRE_ERR_UNSUPPORTED for ops the
  // device lacks, VYRE_ERR_LIMIT for push constants, bindings or workgroup memory beyond it).
  VulkanProgram(Program program, std::string fingerprint, std::shared_ptr<Runtime> runtime);
  ~VulkanProgram() override;

  const LoweredProgram& lowered() const { return lowered_; }
  VkPipelineLayout layout() const { return layout_; }
  // True when the program has an atomic op (host dispatches then never bind mapped host memory:
  // atomics over the bus are slow, and not every bus offers them).
  bool uses_atomics() const { return atomics_; }
  // The pipeline of phase `phase` for `workgroup`; created on first use.
  VkPipeline pipeline(std::size_t phase, const std::array<std::uint32_t, 3>& workgroup) const;

 private:
  std::shared_ptr<Runtime> rt_;
  LoweredProgram lowered_;
  bool atomics_ = false;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  mutable std::mutex mutex_;
  mutable std::map<std::pair<std::size_t, std::array<std::uint32_t, 3>>, VkPipeline> pipelines_;
};

// The VulkanProgram behind a kit program (VYRE_ERR_INVALID_HANDLE for another backend's).
const VulkanProgram& vulkan_program(const kit::CompiledProgram& program);

}  // namespace vyre::vulkan
