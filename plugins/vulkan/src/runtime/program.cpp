#include "runtime/program.hpp"

#include <vector>

#include "vyre/error.hpp"
#include "vyre/ops.hpp"

namespace vyre::vulkan {

namespace {

void check_limits(const LoweredProgram& l, const DeviceLimits& limits) {
  if (l.push_constant_bytes > limits.max_push_constants)
    fail(VYRE_ERR_LIMIT, "the program's " + std::to_string(l.storage_buffers.size()) + " buffers need " +
                             std::to_string(l.push_constant_bytes) + " bytes of push constants; the device allows " +
                             std::to_string(limits.max_push_constants),
         "use fewer buffers in one program (at most " + std::to_string((limits.max_push_constants / 4) - kPushHeaderWords) + ")");
  if (l.storage_buffers.size() > limits.max_push_descriptors)
    fail(VYRE_ERR_LIMIT, "the program binds " + std::to_string(l.storage_buffers.size()) +
                             " buffers; the device pushes at most " + std::to_string(limits.max_push_descriptors),
         "use fewer buffers in one program");
  if (l.workgroup_bytes > limits.max_shared_memory)
    fail(VYRE_ERR_LIMIT, "the program's workgroup buffers take " + std::to_string(l.workgroup_bytes) +
                             " bytes (narrow elements take 4); the device allows " + std::to_string(limits.max_shared_memory),
         "declare smaller workgroup buffers");
}

}  // namespace

VulkanProgram::VulkanProgram(Program program, std::string fingerprint, std::shared_ptr<Runtime> runtime)
    : kit::CompiledProgram(std::move(program), std::move(fingerprint)), rt_(std::move(runtime)) {
  lowered_ = lower(this->program(), rt_->device->features());
  for (const std::string& op : ops_used(this->program()))
    if (op.starts_with("atomic")) atomics_ = true;
  const DeviceLimits& limits = rt_->device->limits();
  check_limits(lowered_, limits);
  const DeviceFns& fn = rt_->device->fn();
  VkDevice dev = rt_->device->handle();

  auto module = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  module.codeSize = lowered_.spirv.size() * 4;
  module.pCode = lowered_.spirv.data();
  check(fn.vkCreateShaderModule(dev, &module, nullptr, &module_), "vkCreateShaderModule");

  std::vector<VkDescriptorSetLayoutBinding> bindings(lowered_.storage_buffers.size());
  for (std::uint32_t i = 0; i < bindings.size(); ++i) {
    bindings[i].binding = i;
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  auto set = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  set.flags = VK_DESCRIPTOR_SET_LAYOUT_CREATE_PUSH_DESCRIPTOR_BIT_KHR;
  set.bindingCount = static_cast<std::uint32_t>(bindings.size());
  set.pBindings = bindings.data();
  VkResult r = fn.vkCreateDescriptorSetLayout(dev, &set, nullptr, &set_layout_);
  if (r != VK_SUCCESS) {
    fn.vkDestroyShaderModule(dev, module_, nullptr);
    check(r, "vkCreateDescriptorSetLayout");
  }
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, lowered_.push_constant_bytes};
  auto layout = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  layout.setLayoutCount = 1;
  layout.pSetLayouts = &set_layout_;
  layout.pushConstantRangeCount = 1;
  layout.pPushConstantRanges = &push;
  r = fn.vkCreatePipelineLayout(dev, &layout, nullptr, &layout_);
  if (r != VK_SUCCESS) {
    fn.vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
    fn.vkDestroyShaderModule(dev, module_, nullptr);
    check(r, "vkCreatePipelineLayout");
  }
  Telemetry::add(rt_->telemetry.programs_compiled);
}

VulkanProgram::~VulkanProgram() {
  if (drivers_shut_down()) return;  // see loader.hpp
  const DeviceFns& fn = rt_->device->fn();
  VkDevice dev = rt_->device->handle();
  for (auto& [key, pipeline] : pipelines_) fn.vkDestroyPipeline(dev, pipeline, nullptr);
  fn.vkDestroyPipelineLayout(dev, layout_, nullptr);
  fn.vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
  fn.vkDestroyShaderModule(dev, module_, nullptr);
}

VkPipeline VulkanProgram::pipeline(std::size_t phase, const std::array<std::uint32_t, 3>& workgroup) const {
  std::lock_guard lock(mutex_);
  const auto key = std::make_pair(phase, workgroup);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;

  const std::uint32_t values[4] = {workgroup[0] * workgroup[1] * workgroup[2], workgroup[0], workgroup[1], workgroup[2]};
  VkSpecializationMapEntry entries[4];
  for (std::uint32_t i = 0; i < 4; ++i) entries[i] = {i, i * 4, 4};
  VkSpecializationInfo spec{4, entries, sizeof values, values};
  auto subgroup = vk_struct<VkPipelineShaderStageRequiredSubgroupSizeCreateInfo>(
      VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO);
  subgroup.requiredSubgroupSize = 32;
  auto info = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  info.flags = VK_PIPELINE_CREATE_DISPATCH_BASE_BIT;
  info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  info.stage.module = module_;
  info.stage.pName = lowered_.entries.at(phase).c_str();
  info.stage.pSpecializationInfo = &spec;
  if (lowered_.subgroup_size_32) {
    info.stage.flags = VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
    info.stage.pNext = &subgroup;
  }
  info.layout = layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  check(rt_->device->fn().vkCreateComputePipelines(rt_->device->handle(), rt_->pipeline_cache->handle(), 1, &info,
                                                   nullptr, &pipeline),
        "vkCreateComputePipelines");
  pipelines_.emplace(key, pipeline);
  Telemetry::add(rt_->telemetry.pipelines_created);
  return pipeline;
}

const VulkanProgram& vulkan_program(const kit::CompiledProgram& program) {
  const auto* p = dynamic_cast<const VulkanProgram*>(&program);
  if (p == nullptr)
    fail(VYRE_ERR_INVALID_HANDLE, "the program was not compiled by the vulkan backend",
         "compile the program with this backend instance");
  return *p;
}

}  // namespace vyre::vulkan
