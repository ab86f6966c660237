// The one list of Vulkan entry points the runtime calls, by the level they are resolved at:
// global (vkGetInstanceProcAddr with no instance), instance, and device (vkGetDeviceProcAddr).
#pragma once

#define VYRE_VK_GLOBAL_ENTRY_POINTS(X) \
  X(vkCreateInstance)                  \
  X(vkEnumerateInstanceVersion)        \
  X(vkEnumerateInstanceExtensionProperties)

#define VYRE_VK_INSTANCE_ENTRY_POINTS(X)     \
  X(vkDestroyInstance)                       \
  X(vkEnumeratePhysicalDevices)              \
  X(vkGetPhysicalDeviceProperties)           \
  X(vkGetPhysicalDeviceProperties2)          \
  X(vkGetPhysicalDeviceFeatures2)            \
  X(vkGetPhysicalDeviceMemoryProperties)     \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkEnumerateDeviceExtensionProperties)    \
  X(vkCreateDevice)                          \
  X(vkGetDeviceProcAddr)

#define VYRE_VK_DEVICE_ENTRY_POINTS(X)   \
  X(vkDestroyDevice)                     \
  X(vkGetDeviceQueue)                    \
  X(vkDeviceWaitIdle)                    \
  X(vkQueueSubmit)                       \
  X(vkAllocateMemory)                    \
  X(vkFreeMemory)                        \
  X(vkMapMemory)                         \
  X(vkUnmapMemory)                       \
  X(vkCreateBuffer)                      \
  X(vkDestroyBuffer)                     \
  X(vkGetBufferMemoryRequirements)       \
  X(vkBindBufferMemory)                  \
  X(vkCreateShaderModule)                \
  X(vkDestroyShaderModule)               \
  X(vkCreateDescriptorSetLayout)         \
  X(vkDestroyDescriptorSetLayout)        \
  X(vkCreatePipelineLayout)              \
  X(vkDestroyPipelineLayout)             \
  X(vkCreatePipelineCache)               \
  X(vkDestroyPipelineCache)              \
  X(vkGetPipelineCacheData)              \
  X(vkCreateComputePipelines)            \
  X(vkDestroyPipeline)                   \
  X(vkCreateCommandPool)                 \
  X(vkDestroyCommandPool)                \
  X(vkResetCommandPool)                  \
  X(vkAllocateCommandBuffers)            \
  X(vkBeginCommandBuffer)                \
  X(vkEndCommandBuffer)                  \
  X(vkCreateSemaphore)                   \
  X(vkDestroySemaphore)                  \
  X(vkGetSemaphoreCounterValue)          \
  X(vkWaitSemaphores)                    \
  X(vkCreateQueryPool)                   \
  X(vkDestroyQueryPool)                  \
  X(vkGetQueryPoolResults)               \
  X(vkCmdResetQueryPool)                 \
  X(vkCmdWriteTimestamp)                 \
  X(vkCmdBindPipeline)                   \
  X(vkCmdPushConstants)                  \
  X(vkCmdPushDescriptorSetKHR)           \
  X(vkCmdDispatchBase)                   \
  X(vkCmdPipelineBarrier)                \
  X(vkCmdCopyBuffer)                     \
  X(vkCmdFillBuffer)
