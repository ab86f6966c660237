// The driver entry points that fault injection can make fail (VYRE_CUDA_FAIL; docs/RELIABILITY.md,
// "CUDA fault injection"): every call that acquires something, queues work or waits for it.
// Release calls (cuMemFree, cuMemFreeHost, cuStreamDestroy, cuEventDestroy, cuModuleUnload,
// cuGraphDestroy, cuGraphExecDestroy, cuDevicePrimaryCtxRelease), the drain after a failure
// (cuStreamSynchronize) and the error texts (cuGetErrorName/String) are not hookable: the runtime
// ignores their results by design (a failed release is itself the leak a test would look for).
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

// Entry points of driver.hpp's VYRE_CUDA_DRIVER_ENTRY_POINTS that a fault can be injected into.
#define VYRE_CUDA_HOOKABLE_ENTRY_POINTS(X)   \
  X(cuDeviceGetCount)                        \
  X(cuDeviceGet)                             \
  X(cuDeviceGetName)                         \
  X(cuDeviceGetAttribute)                    \
  X(cuDeviceTotalMem)                        \
  X(cuDevicePrimaryCtxRetain)                \
  X(cuCtxSetCurrent)                         \
  X(cuMemGetInfo)                            \
  X(cuModuleLoadDataEx)                      \
  X(cuModuleGetFunction)                     \
  X(cuFuncGetAttribute)                      \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) \
  X(cuMemAlloc)                              \
  X(cuMemHostAlloc)                          \
  X(cuMemcpyHtoDAsync)                       \
  X(cuMemcpyDtoHAsync)                       \
  X(cuMemsetD8Async)                         \
  X(cuStreamCreate)                          \
  X(cuStreamWaitEvent)                       \
  X(cuEventCreate)                           \
  X(cuEventRecord)                           \
  X(cuEventQuery)                            \
  X(cuEventSynchronize)                      \
  X(cuEventElapsedTime)                      \
  X(cuLaunchKernel)                          \
  X(cuLaunchCooperativeKernel)               \
  X(cuStreamBeginCapture)                    \
  X(cuStreamEndCapture)                      \
  X(cuGraphCreate)                           \
  X(cuGraphAddKernelNode)                    \
  X(cuGraphInstantiateWithFlags)             \
  X(cuGraphLaunch)                           \
  X(cuGraphExecKernelNodeSetParams)

namespace vyre::cuda::fault {

enum class Hook : std::size_t {
#define VYRE_CUDA_HOOK_ENUM(name) name,
  VYRE_CUDA_HOOKABLE_ENTRY_POINTS(VYRE_CUDA_HOOK_ENUM)
#undef VYRE_CUDA_HOOK_ENUM
};

inline constexpr std::array kHookNames{
#define VYRE_CUDA_HOOK_NAME(name) std::string_view(#name),
    VYRE_CUDA_HOOKABLE_ENTRY_POINTS(VYRE_CUDA_HOOK_NAME)
#undef VYRE_CUDA_HOOK_NAME
};
inline constexpr std::size_t kHookCount = kHookNames.size();

}  // namespace vyre::cuda::fault
