#include "cuda_driver.hpp"

#include <dlfcn.h>

#include <cstring>
#include <limits>
#include <vector>

#include "errors.hpp"

namespace vyre_launch::cuda {
namespace {

constexpr const char* kInstallDriver =
    "run on a machine with an NVIDIA GPU and its driver installed (libcuda.so.1 comes with the driver, "
    "not the CUDA toolkit), and check LD_LIBRARY_PATH and the container's GPU access";

template <class Fn>
void resolve(void* library, const char* symbol, Fn& slot) {
  void* address = dlsym(library, symbol);
  if (address == nullptr)
    fail_no_device(cat("the CUDA driver library has no entry point ", symbol),
                   "update the NVIDIA driver (the launcher needs a CUDA 11 or newer driver)");
  // dlsym returns an object pointer; copy its bits into the function pointer (the POSIX way that
  // -Wpedantic accepts).
  static_assert(sizeof(Fn) == sizeof(void*), "function and object pointers differ in size");
  std::memcpy(&slot, &address, sizeof slot);
}

void resolve_all(void* lib, Api& a) {
  resolve(lib, "cuInit", a.cuInit);
  resolve(lib, "cuDriverGetVersion", a.cuDriverGetVersion);
  resolve(lib, "cuGetErrorName", a.cuGetErrorName);
  resolve(lib, "cuGetErrorString", a.cuGetErrorString);
  resolve(lib, "cuDeviceGetCount", a.cuDeviceGetCount);
  resolve(lib, "cuDeviceGet", a.cuDeviceGet);
  resolve(lib, "cuDeviceGetName", a.cuDeviceGetName);
  resolve(lib, "cuDeviceGetAttribute", a.cuDeviceGetAttribute);
  resolve(lib, "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain);
  resolve(lib, "cuDevicePrimaryCtxRelease_v2", a.cuDevicePrimaryCtxRelease);
  resolve(lib, "cuCtxSetCurrent", a.cuCtxSetCurrent);
  resolve(lib, "cuCtxSynchronize", a.cuCtxSynchronize);
  resolve(lib, "cuModuleLoadDataEx", a.cuModuleLoadDataEx);
  resolve(lib, "cuModuleUnload", a.cuModuleUnload);
  resolve(lib, "cuModuleGetFunction", a.cuModuleGetFunction);
  resolve(lib, "cuFuncGetAttribute", a.cuFuncGetAttribute);
  resolve(lib, "cuMemGetInfo_v2", a.cuMemGetInfo);
  resolve(lib, "cuMemAlloc_v2", a.cuMemAlloc);
  resolve(lib, "cuMemFree_v2", a.cuMemFree);
  resolve(lib, "cuMemcpyHtoD_v2", a.cuMemcpyHtoD);
  resolve(lib, "cuMemcpyDtoH_v2", a.cuMemcpyDtoH);
  resolve(lib, "cuMemsetD8_v2", a.cuMemsetD8);
  resolve(lib, "cuLaunchKernel", a.cuLaunchKernel);
  resolve(lib, "cuLaunchCooperativeKernel", a.cuLaunchCooperativeKernel);
  resolve(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor", a.cuOccupancyMaxActiveBlocksPerMultiprocessor);
}

std::size_t host_size(std::uint64_t bytes, const std::string& what) {
  if (bytes > std::numeric_limits<std::size_t>::max())
    fail(cat(what, " is ", bytes, " bytes, more than this host can address"), "split the buffer");
  return static_cast<std::size_t>(bytes);
}

}  // namespace

// ---- Driver ---------------------------------------------------------------------------------------

Driver Driver::open(const std::string& library_name) {
  // The library stays loaded for the life of the process: unloading the driver while the runtime
  // of the process may still hold its state is never safe.
  void* library = dlopen(library_name.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    const char* reason = dlerror();
    fail_no_device(cat("cannot load the CUDA driver ", library_name, ": ", reason ? reason : "unknown reason"),
                   kInstallDriver);
  }
  Driver driver;
  resolve_all(library, driver.api_);
  const CUresult init = driver.api_.cuInit(0);
  if (init != CUDA_SUCCESS) fail_no_device(cat("cuInit failed: ", driver.describe(init)), kInstallDriver);
  driver.check(driver.api_.cuDriverGetVersion(&driver.version_), "cuDriverGetVersion");
  return driver;
}

std::string Driver::describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api_.cuGetErrorName == nullptr || api_.cuGetErrorName(result, &name) != CUDA_SUCCESS) name = nullptr;
  if (api_.cuGetErrorString == nullptr || api_.cuGetErrorString(result, &text) != CUDA_SUCCESS) text = nullptr;
  return cat(name ? name : "CUDA_ERROR", " (", result, ")", text ? ": " : "", text ? text : "");
}

void Driver::check(CUresult result, const std::string& call) const {
  if (result == CUDA_SUCCESS) return;
  fail(cat(call, " failed: ", describe(result)),
       "check the device (nvidia-smi) and the bundle's geometry against the device limits; report the bundle if "
       "both are fine");
}

// ---- device limits ----------------------------------------------------------------------------------

DeviceLimits query_limits(const Driver& driver, CUdevice device, int ordinal) {
  const Api& api = driver.api();
  auto attribute = [&](int attr, const char* what) {
    int value = 0;
    driver.check(api.cuDeviceGetAttribute(&value, attr, device), cat("cuDeviceGetAttribute(", what, ")"));
    return value < 0 ? 0u : static_cast<std::uint32_t>(value);
  };
  DeviceLimits limits;
  char name[256] = {};
  driver.check(api.cuDeviceGetName(name, static_cast<int>(sizeof name - 1), device), "cuDeviceGetName");
  limits.name = name;
  limits.ordinal = ordinal;
  limits.sm = attribute(kAttrComputeCapabilityMajor, "compute capability major") * 10 +
              attribute(kAttrComputeCapabilityMinor, "compute capability minor");
  limits.max_threads_per_block = attribute(kAttrMaxThreadsPerBlock, "max threads per block");
  for (int axis = 0; axis < 3; ++axis) {
    limits.max_block[axis] = attribute(kAttrMaxBlockDimX + axis, "max block dimension");
    limits.max_grid[axis] = attribute(kAttrMaxGridDimX + axis, "max grid dimension");
  }
  limits.max_shared_per_block = attribute(kAttrMaxSharedMemoryPerBlock, "max shared memory per block");
  limits.multiprocessors = attribute(kAttrMultiprocessorCount, "multiprocessor count");
  limits.cooperative_launch = attribute(kAttrCooperativeLaunch, "cooperative launch") != 0;
  return limits;
}

// ---- Context ------------------------------------------------------------------------------------------

Context::Context(const Driver& driver, CUdevice device) : driver_(driver), device_(device) {
  CUcontext context = nullptr;
  driver.check(driver.api().cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  if (context == nullptr) {
    driver.api().cuDevicePrimaryCtxRelease(device);
    fail("cuDevicePrimaryCtxRetain returned a null context", "check the device with nvidia-smi");
  }
  const CUresult bound = driver.api().cuCtxSetCurrent(context);
  if (bound != CUDA_SUCCESS) {
    driver.api().cuDevicePrimaryCtxRelease(device);
    driver.check(bound, "cuCtxSetCurrent");
  }
}

Context::~Context() {
  driver_.api().cuCtxSetCurrent(nullptr);
  driver_.api().cuDevicePrimaryCtxRelease(device_);
}

// ---- Module -------------------------------------------------------------------------------------------

Module::Module(const Driver& driver, const std::string& image, const std::string& what) : driver_(driver) {
  std::vector<char> log(16384, '\0');
  int options[] = {kJitErrorLogBuffer, kJitErrorLogBufferSizeBytes};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size() - 1))};
  // std::string keeps a terminating NUL, which PTX text needs.
  const CUresult result = driver.api().cuModuleLoadDataEx(&module_, image.c_str(), 2, options, values);
  if (result != CUDA_SUCCESS) {
    module_ = nullptr;
    const std::string jit_log(log.data());
    fail(cat("loading ", what, " failed: ", driver.describe(result), jit_log.empty() ? "" : "; JIT log: ", jit_log),
         "check that the device is at least the bundle's target and that the driver supports its PTX ISA "
         "version; rebuild the bundle with vyre-aot --sm for this device");
  }
  if (module_ == nullptr) fail(cat("loading ", what, " returned a null module"), "check the driver installation");
}

Module::~Module() {
  if (module_ != nullptr) driver_.api().cuModuleUnload(module_);
}

CUfunction Module::function(const std::string& name) const {
  CUfunction function = nullptr;
  const CUresult result = driver_.api().cuModuleGetFunction(&function, module_, name.c_str());
  if (result != CUDA_SUCCESS || function == nullptr)
    fail(cat("the kernel module has no entry \"", name, "\": ", driver_.describe(result)),
         "the manifest and kernel file do not belong together: regenerate the bundle with vyre-aot");
  return function;
}

// ---- DeviceMemory -----------------------------------------------------------------------------------

DeviceMemory::DeviceMemory(const Driver& driver, std::uint64_t bytes, const std::string& what)
    : driver_(driver), bytes_(bytes), what_(what) {
  if (bytes == 0) fail(cat(what, " has 0 bytes; nothing to allocate"), "regenerate the bundle with vyre-aot");
  const CUresult result = driver.api().cuMemAlloc(&ptr_, host_size(bytes, what));
  if (result != CUDA_SUCCESS) {
    ptr_ = 0;
    fail(cat("allocating ", bytes, " bytes of device memory for ", what, " failed: ", driver.describe(result)),
         "free device memory (other processes: nvidia-smi) or use a device with more memory");
  }
  if (ptr_ == 0) fail(cat("cuMemAlloc returned a null pointer for ", what), "check the driver installation");
}

DeviceMemory::~DeviceMemory() {
  if (ptr_ != 0) driver_.api().cuMemFree(ptr_);
}

void DeviceMemory::upload(const std::string& bytes) const {
  if (bytes.size() > bytes_)
    fail(cat("uploading ", bytes.size(), " bytes into ", what_, " of ", bytes_, " bytes"),
         "this is a launcher bug: report it with the bundle");
  if (bytes.empty()) return;
  driver_.check(driver_.api().cuMemcpyHtoD(ptr_, bytes.data(), bytes.size()), cat("cuMemcpyHtoD(", what_, ")"));
}

void DeviceMemory::zero() const {
  driver_.check(driver_.api().cuMemsetD8(ptr_, 0, host_size(bytes_, what_)), cat("cuMemsetD8(", what_, ")"));
}

void DeviceMemory::download(void* dst, std::uint64_t offset, std::uint64_t size) const {
  if (offset > bytes_ || size > bytes_ - offset)
    fail(cat("reading bytes [", offset, ", ", offset + size, ") of ", what_, " (", bytes_, " bytes)"),
         "this is a launcher bug: report it with the bundle");
  if (size == 0) return;
  driver_.check(driver_.api().cuMemcpyDtoH(dst, ptr_ + offset, host_size(size, what_)),
                cat("cuMemcpyDtoH(", what_, ")"));
}

}  // namespace vyre_launch::cuda
