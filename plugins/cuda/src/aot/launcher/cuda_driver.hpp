// The CUDA driver, opened at run time (dlopen "libcuda.so.1"): no cuda.h and no CUDA toolkit are
// needed to build the launcher. Only the handful of driver calls the launcher makes are declared,
// with the types and values of the CUDA driver API. Every device resource is owned by an RAII
// object that frees it on every path, and no null handle is ever used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace vyre_launch::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;

constexpr CUresult CUDA_SUCCESS = 0;

// CUdevice_attribute values.
constexpr int kAttrMaxThreadsPerBlock = 1;
constexpr int kAttrMaxBlockDimX = 2;  // Y = 3, Z = 4
constexpr int kAttrMaxGridDimX = 5;   // Y = 6, Z = 7
constexpr int kAttrMaxSharedMemoryPerBlock = 8;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrCooperativeLaunch = 95;
// CUfunction_attribute values.
constexpr int kFuncAttrMaxThreadsPerBlock = 0;
// CUjit_option values.
constexpr int kJitErrorLogBuffer = 5;
constexpr int kJitErrorLogBufferSizeBytes = 6;

// The driver entry points the launcher calls, resolved once.
struct Api {
  CUresult (*cuInit)(unsigned int) = nullptr;
  CUresult (*cuDriverGetVersion)(int*) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*cuGetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*cuDeviceGetCount)(int*) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice*, int) = nullptr;
  CUresult (*cuDeviceGetName)(char*, int, CUdevice) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int*, int, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice) = nullptr;  // _v2
  CUresult (*cuCtxSetCurrent)(CUcontext) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned int, int*, void**) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*) = nullptr;
  CUresult (*cuFuncGetAttribute)(int*, int, CUfunction) = nullptr;
  CUresult (*cuMemGetInfo)(std::size_t*, std::size_t*) = nullptr;             // _v2
  CUresult (*cuMemAlloc)(CUdeviceptr*, std::size_t) = nullptr;                // _v2
  CUresult (*cuMemFree)(CUdeviceptr) = nullptr;                               // _v2
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, std::size_t) = nullptr;  // _v2
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, std::size_t) = nullptr;        // _v2
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, std::size_t) = nullptr;  // _v2
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                             void**, void**) = nullptr;
  CUresult (*cuLaunchCooperativeKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                        unsigned, CUstream, void**) = nullptr;
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, std::size_t) = nullptr;
};

// The opened driver. open() throws LaunchError (kExitNoDevice) when the library ("libcuda.so.1"
// unless VYRE_CUDA_DRIVER_LIBRARY names another) is missing or lacks an entry point, or cuInit fails.
class Driver {
 public:
  static Driver open(const std::string& library);
  const Api& api() const { return api_; }
  int version() const { return version_; }
  // Throw LaunchError for a failed call, naming the call and the driver's error name and text.
  void check(CUresult result, const std::string& call) const;
  std::string describe(CUresult result) const;

 private:
  Api api_;
  int version_ = 0;
};

// What the launcher checks a launch against, queried from the device before anything runs.
struct DeviceLimits {
  std::string name;
  int ordinal = 0;
  std::uint32_t sm = 0;  // compute capability major * 10 + minor
  std::uint32_t max_threads_per_block = 0;
  std::uint32_t max_block[3] = {0, 0, 0};
  std::uint32_t max_grid[3] = {0, 0, 0};
  std::uint64_t max_shared_per_block = 0;
  std::uint32_t multiprocessors = 0;
  bool cooperative_launch = false;
};

DeviceLimits query_limits(const Driver& driver, CUdevice device, int ordinal);

// The device's primary context, retained and made current for this thread; released on
// destruction.
class Context {
 public:
  Context(const Driver& driver, CUdevice device);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

 private:
  const Driver& driver_;
  CUdevice device_;
};

// A loaded module (PTX text or a cubin image); unloaded on destruction.
class Module {
 public:
  Module(const Driver& driver, const std::string& image, const std::string& what);
  ~Module();
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  CUfunction function(const std::string& name) const;

 private:
  const Driver& driver_;
  CUmodule module_ = nullptr;
};

// One device allocation; freed on destruction.
class DeviceMemory {
 public:
  DeviceMemory(const Driver& driver, std::uint64_t bytes, const std::string& what);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  CUdeviceptr ptr() const { return ptr_; }
  std::uint64_t bytes() const { return bytes_; }
  void upload(const std::string& bytes) const;
  void zero() const;
  // Copy `size` bytes at `offset` to `dst` (checked against the allocation).
  void download(void* dst, std::uint64_t offset, std::uint64_t size) const;

 private:
  const Driver& driver_;
  CUdeviceptr ptr_ = 0;
  std::uint64_t bytes_ = 0;
  std::string what_;
};

}  // namespace vyre_launch::cuda
