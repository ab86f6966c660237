// VK_KHR_shader_fma and SPV_KHR_fma (ratified 2025): OpFmaKHR, a fused multiply-add rounded once
// (correctly rounded), where GLSL.std.450 Fma may be a separate multiply and add. Debian 12's
// Vulkan headers (1.3.239) and spirv-headers predate them, so the values are defined here, under
// vyre's own names (no clash with newer headers), copied from:
//   Vulkan-Headers include/vulkan/vulkan_core.h and registry/vk.xml (extension number 580):
//     VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FMA_FEATURES_KHR = 1000579000,
//     VkPhysicalDeviceShaderFmaFeaturesKHR { sType; pNext; shaderFmaFloat16, shaderFmaFloat32,
//     shaderFmaFloat64 (VkBool32) }, extending VkPhysicalDeviceFeatures2 and VkDeviceCreateInfo;
//     the capability FMAKHR is enabled by any of the three features.
//   SPIRV-Headers include/spirv/unified1/spirv.core.grammar.json: OpFmaKHR = 4427 (result type,
//     result, three operands; capability FMAKHR), capability FMAKHR = 6030 (extension SPV_KHR_fma).
#pragma once

#include <spirv/unified1/spirv.hpp11>
#include <vulkan/vulkan_core.h>

namespace vyre::vulkan::khr_fma {

inline constexpr const char* kDeviceExtension = "VK_KHR_shader_fma";
inline constexpr const char* kSpirvExtension = "SPV_KHR_fma";
inline constexpr spv::Op kOpFma = static_cast<spv::Op>(4427);
inline constexpr spv::Capability kCapability = static_cast<spv::Capability>(6030);
inline constexpr VkStructureType kFeaturesType = static_cast<VkStructureType>(1000579000);

// The layout of VkPhysicalDeviceShaderFmaFeaturesKHR.
struct Features {
  VkStructureType sType;
  void* pNext;
  VkBool32 shaderFmaFloat16;
  VkBool32 shaderFmaFloat32;
  VkBool32 shaderFmaFloat64;
};

}  // namespace vyre::vulkan::khr_fma
