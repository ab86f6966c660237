// The slice of the CUDA driver API the runtime uses, declared here instead of including cuda.h so
// that the plugin builds (and registers) on machines without the CUDA toolkit or driver. The
// library is opened at run time (driver.hpp) and every entry point is resolved through
// cuGetProcAddress with kDriverApiVersion, so each signature below is the one that version of the
// API defines (the `_v2` variants where the versioned symbol matters, e.g. cuMemAlloc_v2,
// cuGraphAddKernelNode_v2). Values are those of the CUDA driver API documentation.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vyre::cuda::drv {

// cuGetProcAddress resolves each symbol as CUDA 12.0 defines it; drivers older than 12.0 are
// refused at create with a clear error.
inline constexpr int kDriverApiVersion = 12000;

// ---- handles and scalar types --------------------------------------------------------------------

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using cuuint64_t = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUgraph = struct CUgraph_st*;
using CUgraphNode = struct CUgraphNode_st*;
using CUgraphExec = struct CUgraphExec_st*;
using CUkernel = struct CUkern_st*;

// ---- result codes (CUresult) ----------------------------------------------------------------------

inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_INVALID_VALUE = 1;
inline constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
inline constexpr CUresult CUDA_ERROR_NOT_INITIALIZED = 3;
inline constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
inline constexpr CUresult CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36;
inline constexpr CUresult CUDA_ERROR_DEVICE_UNAVAILABLE = 46;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr CUresult CUDA_ERROR_INVALID_DEVICE = 101;
inline constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
inline constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
inline constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
inline constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;
inline constexpr CUresult CUDA_ERROR_NOT_FOUND = 500;
inline constexpr CUresult CUDA_ERROR_NOT_READY = 600;
inline constexpr CUresult CUDA_ERROR_ILLEGAL_ADDRESS = 700;
inline constexpr CUresult CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701;
inline constexpr CUresult CUDA_ERROR_LAUNCH_TIMEOUT = 702;
inline constexpr CUresult CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720;
inline constexpr CUresult CUDA_ERROR_NOT_SUPPORTED = 801;
inline constexpr CUresult CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803;
inline constexpr CUresult CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804;

// ---- enum values ----------------------------------------------------------------------------------

// CUdevice_attribute
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8;
inline constexpr int CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12;
inline constexpr int CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
inline constexpr int CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19;
inline constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36;
inline constexpr int CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37;
inline constexpr int CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39;
inline constexpr int CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82;
inline constexpr int CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106;

// CUpointer_attribute
inline constexpr int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

// CUfunction_attribute
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr int CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
inline constexpr int CU_FUNC_ATTRIBUTE_NUM_REGS = 4;

// CUjit_option
using CUjit_option = int;
inline constexpr CUjit_option CU_JIT_WALL_TIME = 2;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
inline constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;

// Flags
inline constexpr unsigned int CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr unsigned int CU_EVENT_DEFAULT = 0x0;
inline constexpr unsigned int CU_EVENT_DISABLE_TIMING = 0x2;
inline constexpr unsigned int CU_MEMHOSTALLOC_PORTABLE = 0x1;
inline constexpr unsigned int CU_MEMHOSTALLOC_DEVICEMAP = 0x2;
inline constexpr cuuint64_t CU_GET_PROC_ADDRESS_LEGACY_STREAM = 1;

// CUstreamCaptureMode
using CUstreamCaptureMode = int;
inline constexpr CUstreamCaptureMode CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
// CUstreamCaptureStatus
using CUstreamCaptureStatus = int;
inline constexpr CUstreamCaptureStatus CU_STREAM_CAPTURE_STATUS_NONE = 0;
inline constexpr CUstreamCaptureStatus CU_STREAM_CAPTURE_STATUS_ACTIVE = 1;

// CUdriverProcAddressQueryResult
using CUdriverProcAddressQueryResult = int;
inline constexpr CUdriverProcAddressQueryResult CU_GET_PROC_ADDRESS_SUCCESS = 0;
inline constexpr CUdriverProcAddressQueryResult CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1;
inline constexpr CUdriverProcAddressQueryResult CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2;

// CUDA_KERNEL_NODE_PARAMS_v2 (CUDA 12.0). Its first fields are exactly CUDA_KERNEL_NODE_PARAMS_v1,
// so a zero `kern` and `ctx` make it valid for either variant.
struct KernelNodeParams {
  CUfunction func = nullptr;
  unsigned int gridDimX = 1, gridDimY = 1, gridDimZ = 1;
  unsigned int blockDimX = 1, blockDimY = 1, blockDimZ = 1;
  unsigned int sharedMemBytes = 0;
  void** kernelParams = nullptr;
  void** extra = nullptr;
  CUkernel kern = nullptr;
  CUcontext ctx = nullptr;
};

// ---- function signatures --------------------------------------------------------------------------

// Resolved with dlsym (they exist unversioned in every driver).
using PFN_cuInit = CUresult (*)(unsigned int flags);
using PFN_cuDriverGetVersion = CUresult (*)(int* version);
// cuGetProcAddress_v2 (CUDA 12.0+).
using PFN_cuGetProcAddress = CUresult (*)(const char* symbol, void** pfn, int cuda_version,
                                          cuuint64_t flags, CUdriverProcAddressQueryResult* status);

// Resolved with cuGetProcAddress(kDriverApiVersion).
using PFN_cuGetErrorName = CUresult (*)(CUresult error, const char** str);
using PFN_cuGetErrorString = CUresult (*)(CUresult error, const char** str);
using PFN_cuDeviceGetCount = CUresult (*)(int* count);
using PFN_cuDeviceGet = CUresult (*)(CUdevice* device, int ordinal);
using PFN_cuDeviceGetName = CUresult (*)(char* name, int len, CUdevice dev);
using PFN_cuDeviceGetAttribute = CUresult (*)(int* value, int attribute, CUdevice dev);
using PFN_cuDeviceTotalMem = CUresult (*)(std::size_t* bytes, CUdevice dev);  // _v2
using PFN_cuDevicePrimaryCtxRetain = CUresult (*)(CUcontext* ctx, CUdevice dev);
using PFN_cuDevicePrimaryCtxRelease = CUresult (*)(CUdevice dev);  // _v2
using PFN_cuCtxSetCurrent = CUresult (*)(CUcontext ctx);
using PFN_cuMemGetInfo = CUresult (*)(std::size_t* free_bytes, std::size_t* total_bytes);  // _v2
using PFN_cuModuleLoadDataEx = CUresult (*)(CUmodule* module, const void* image,
                                            unsigned int num_options, CUjit_option* options,
                                            void** option_values);
using PFN_cuModuleGetFunction = CUresult (*)(CUfunction* fn, CUmodule module, const char* name);
using PFN_cuModuleUnload = CUresult (*)(CUmodule module);
using PFN_cuFuncGetAttribute = CUresult (*)(int* value, int attribute, CUfunction fn);
using PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor = CUresult (*)(int* blocks, CUfunction fn,
                                                                     int block_size,
                                                                     std::size_t dynamic_smem);
using PFN_cuMemAlloc = CUresult (*)(CUdeviceptr* ptr, std::size_t bytes);  // _v2
using PFN_cuMemGetAddressRange = CUresult (*)(CUdeviceptr* base, std::size_t* bytes, CUdeviceptr ptr);  // _v2
using PFN_cuPointerGetAttribute = CUresult (*)(void* data, int attribute, CUdeviceptr ptr);
using PFN_cuMemFree = CUresult (*)(CUdeviceptr ptr);                        // _v2
using PFN_cuMemHostAlloc = CUresult (*)(void** ptr, std::size_t bytes, unsigned int flags);
using PFN_cuMemFreeHost = CUresult (*)(void* ptr);
using PFN_cuMemcpyHtoDAsync = CUresult (*)(CUdeviceptr dst, const void* src, std::size_t bytes,
                                           CUstream stream);  // _v2
using PFN_cuMemcpyDtoHAsync = CUresult (*)(void* dst, CUdeviceptr src, std::size_t bytes,
                                           CUstream stream);  // _v2
using PFN_cuMemsetD8Async = CUresult (*)(CUdeviceptr dst, unsigned char value, std::size_t count,
                                         CUstream stream);  // _v2
using PFN_cuStreamCreate = CUresult (*)(CUstream* stream, unsigned int flags);
using PFN_cuStreamDestroy = CUresult (*)(CUstream stream);  // _v2
using PFN_cuStreamSynchronize = CUresult (*)(CUstream stream);
using PFN_cuStreamWaitEvent = CUresult (*)(CUstream stream, CUevent event, unsigned int flags);
using PFN_cuStreamIsCapturing = CUresult (*)(CUstream stream, CUstreamCaptureStatus* status);
using PFN_cuEventCreate = CUresult (*)(CUevent* event, unsigned int flags);
using PFN_cuEventDestroy = CUresult (*)(CUevent event);  // _v2
using PFN_cuEventRecord = CUresult (*)(CUevent event, CUstream stream);
using PFN_cuEventQuery = CUresult (*)(CUevent event);
using PFN_cuEventSynchronize = CUresult (*)(CUevent event);
using PFN_cuEventElapsedTime = CUresult (*)(float* ms, CUevent start, CUevent end);
using PFN_cuLaunchKernel = CUresult (*)(CUfunction fn, unsigned int grid_x, unsigned int grid_y,
                                        unsigned int grid_z, unsigned int block_x,
                                        unsigned int block_y, unsigned int block_z,
                                        unsigned int shared_bytes, CUstream stream, void** params,
                                        void** extra);
using PFN_cuLaunchCooperativeKernel = CUresult (*)(CUfunction fn, unsigned int grid_x,
                                                   unsigned int grid_y, unsigned int grid_z,
                                                   unsigned int block_x, unsigned int block_y,
                                                   unsigned int block_z, unsigned int shared_bytes,
                                                   CUstream stream, void** params);
using PFN_cuStreamBeginCapture = CUresult (*)(CUstream stream, CUstreamCaptureMode mode);  // _v2
using PFN_cuStreamEndCapture = CUresult (*)(CUstream stream, CUgraph* graph);
using PFN_cuGraphCreate = CUresult (*)(CUgraph* graph, unsigned int flags);
using PFN_cuGraphAddKernelNode = CUresult (*)(CUgraphNode* node, CUgraph graph,
                                              const CUgraphNode* dependencies,
                                              std::size_t dependency_count,
                                              const KernelNodeParams* params);  // _v2
using PFN_cuGraphInstantiateWithFlags = CUresult (*)(CUgraphExec* exec, CUgraph graph,
                                                     unsigned long long flags);
using PFN_cuGraphLaunch = CUresult (*)(CUgraphExec exec, CUstream stream);
using PFN_cuGraphExecDestroy = CUresult (*)(CUgraphExec exec);
using PFN_cuGraphDestroy = CUresult (*)(CUgraph graph);
using PFN_cuGraphExecKernelNodeSetParams = CUresult (*)(CUgraphExec exec, CUgraphNode node,
                                                        const KernelNodeParams* params);  // _v2

}  // namespace vyre::cuda::drv
