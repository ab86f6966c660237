// The one list of the driver entry points the runtime resolves through cuGetProcAddress (name;
// signature in driver_api.hpp), each tagged with whether fault injection can make it fail
// (VYRE_CUDA_FAIL; docs/RELIABILITY.md, "CUDA fault injection"). Driver (driver.hpp) takes every
// entry; fault/hookable.hpp takes the hookable ones. One list, so that an entry point added to
// the driver is also placed, by its tag, on the fault-injection side, and the two keep one order.
//
// Hookable: every call that acquires something, queues work or waits for it. Fixed (not hookable):
// the releases (cuMemFree, cuMemFreeHost, cuStreamDestroy, cuEventDestroy, cuModuleUnload,
// cuGraphDestroy, cuGraphExecDestroy, cuDevicePrimaryCtxRelease), the drain after a failure
// (cuStreamSynchronize) and the error texts (cuGetErrorName/String): the runtime ignores their
// results by design (a failed release is itself the leak a test would look for). Also fixed: the
// pointer queries of resident_import (cuPointerGetAttribute, cuMemGetAddressRange) and the capture
// query of a caller's stream (cuStreamIsCapturing), which acquire and queue nothing; their failure
// is the call's refusal (VYRE_ERR_INVALID_ARGUMENT), tested on the fake driver directly.
#pragma once

#define VYRE_CUDA_DRIVER_ENTRY_POINTS_TAGGED(HOOKABLE, FIXED) \
  FIXED(cuGetErrorName)                                       \
  FIXED(cuGetErrorString)                                     \
  HOOKABLE(cuDeviceGetCount)                                  \
  HOOKABLE(cuDeviceGet)                                       \
  HOOKABLE(cuDeviceGetName)                                   \
  HOOKABLE(cuDeviceGetAttribute)                              \
  HOOKABLE(cuDeviceTotalMem)                                  \
  HOOKABLE(cuDevicePrimaryCtxRetain)                          \
  FIXED(cuDevicePrimaryCtxRelease)                            \
  HOOKABLE(cuCtxSetCurrent)                                   \
  HOOKABLE(cuMemGetInfo)                                      \
  HOOKABLE(cuModuleLoadDataEx)                                \
  HOOKABLE(cuModuleGetFunction)                               \
  FIXED(cuModuleUnload)                                       \
  HOOKABLE(cuFuncGetAttribute)                                \
  HOOKABLE(cuOccupancyMaxActiveBlocksPerMultiprocessor)       \
  HOOKABLE(cuMemAlloc)                                        \
  FIXED(cuMemFree)                                            \
  FIXED(cuMemGetAddressRange)                                 \
  FIXED(cuPointerGetAttribute)                                \
  HOOKABLE(cuMemHostAlloc)                                    \
  FIXED(cuMemFreeHost)                                        \
  HOOKABLE(cuMemcpyHtoDAsync)                                 \
  HOOKABLE(cuMemcpyDtoHAsync)                                 \
  HOOKABLE(cuMemsetD8Async)                                   \
  HOOKABLE(cuStreamCreate)                                    \
  FIXED(cuStreamDestroy)                                      \
  FIXED(cuStreamSynchronize)                                  \
  HOOKABLE(cuStreamWaitEvent)                                 \
  FIXED(cuStreamIsCapturing)                                  \
  HOOKABLE(cuEventCreate)                                     \
  FIXED(cuEventDestroy)                                       \
  HOOKABLE(cuEventRecord)                                     \
  HOOKABLE(cuEventQuery)                                      \
  HOOKABLE(cuEventSynchronize)                                \
  HOOKABLE(cuEventElapsedTime)                                \
  HOOKABLE(cuLaunchKernel)                                    \
  HOOKABLE(cuLaunchCooperativeKernel)                         \
  HOOKABLE(cuStreamBeginCapture)                              \
  HOOKABLE(cuStreamEndCapture)                                \
  HOOKABLE(cuGraphCreate)                                     \
  HOOKABLE(cuGraphAddKernelNode)                              \
  HOOKABLE(cuGraphInstantiateWithFlags)                       \
  HOOKABLE(cuGraphLaunch)                                     \
  FIXED(cuGraphExecDestroy)                                   \
  FIXED(cuGraphDestroy)                                       \
  HOOKABLE(cuGraphExecKernelNodeSetParams)

// Drops an entry from a tagged expansion.
#define VYRE_CUDA_SKIP_ENTRY_POINT(name)

// Every entry point (driver.hpp).
#define VYRE_CUDA_DRIVER_ENTRY_POINTS(X) VYRE_CUDA_DRIVER_ENTRY_POINTS_TAGGED(X, X)

// The entry points that a fault can be injected into (fault/hookable.hpp).
#define VYRE_CUDA_HOOKABLE_ENTRY_POINTS(X) VYRE_CUDA_DRIVER_ENTRY_POINTS_TAGGED(X, VYRE_CUDA_SKIP_ENTRY_POINT)
