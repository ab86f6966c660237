#include "runtime/driver.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "runtime/fault_injection.hpp"
#include "vyre/error.hpp"

namespace vyre::cuda {
namespace {

constexpr const char* kCheckDriverFix =
    "check that the NVIDIA driver is installed and a GPU is visible (run `nvidia-smi`; check "
    "CUDA_VISIBLE_DEVICES), or point VYRE_CUDA_DRIVER_LIBRARY at the driver's libcuda.so.1";

std::string driver_library_name() {
  const char* override_path = std::getenv(kDriverLibraryEnv);
  if (override_path != nullptr && override_path[0] != '\0') return override_path;
  return kDefaultDriverLibrary;
}

[[noreturn]] void fail_no_device(const std::string& problem, std::string_view fix = kCheckDriverFix) {
  fail(VYRE_ERR_NO_DEVICE, problem, fix);
}

// Why cuInit failed, in words a user can act on.
std::string init_failure_fix(drv::CUresult result) {
  switch (result) {
    case drv::CUDA_ERROR_STUB_LIBRARY:
      return "the library is the CUDA toolkit's stub, not a driver; install the NVIDIA driver or "
             "point VYRE_CUDA_DRIVER_LIBRARY at the real libcuda.so.1 (not .../lib64/stubs)";
    case drv::CUDA_ERROR_NO_DEVICE:
      return "no CUDA device is visible; run `nvidia-smi`, and check CUDA_VISIBLE_DEVICES and the "
             "container's GPU access";
    case drv::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH:
    case drv::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE:
      return "the user-space driver library does not match the kernel module; reinstall the "
             "NVIDIA driver or reboot after an upgrade";
    default:
      return kCheckDriverFix;
  }
}

}  // namespace

vyre_status status_for(drv::CUresult result) {
  return result == drv::CUDA_ERROR_OUT_OF_MEMORY ? VYRE_ERR_OUT_OF_MEMORY : VYRE_ERR_DEVICE;
}

Driver::Driver(std::string library) : library_(std::move(library)) {}

const Driver& Driver::open() {
  // Built by the first create, so destroyed (at exit or unload) only after every instance that a
  // static object created; the driver libraries themselves are never unloaded.
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Driver>> opened;
  const std::string library = driver_library_name();
  std::lock_guard lock(mutex);
  auto found = opened.find(library);
  if (found != opened.end()) return *found->second;
  std::unique_ptr<Driver> driver(new Driver(library));
  driver->load();  // throws; a failure is not cached, so a later create retries
  return *opened.emplace(library, std::move(driver)).first->second;
}

void Driver::load() {
  handle_ = dlopen(library_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    const char* why = dlerror();
    fail_no_device(fmt::format("Could not load the CUDA driver library '{}': {}", library_,
                               why != nullptr ? why : "unknown dlopen error"));
  }
  auto init = reinterpret_cast<drv::PFN_cuInit>(dlsym(handle_, "cuInit"));
  auto get_version = reinterpret_cast<drv::PFN_cuDriverGetVersion>(dlsym(handle_, "cuDriverGetVersion"));
  auto get_proc = reinterpret_cast<drv::PFN_cuGetProcAddress>(dlsym(handle_, "cuGetProcAddress_v2"));
  if (init == nullptr || get_version == nullptr) {
    fail_no_device(fmt::format("'{}' is not a CUDA driver library (no cuInit)", library_));
  }
  const drv::CUresult init_result = init(0);
  if (init_result != drv::CUDA_SUCCESS) {
    auto error_name = reinterpret_cast<drv::PFN_cuGetErrorName>(dlsym(handle_, "cuGetErrorName"));
    const char* name = nullptr;
    if (error_name == nullptr || error_name(init_result, &name) != drv::CUDA_SUCCESS) name = nullptr;
    fail_no_device(fmt::format("cuInit failed in '{}' with {} ({})", library_,
                               name != nullptr ? name : "CUresult", init_result),
                   init_failure_fix(init_result));
  }
  if (get_version(&version_) != drv::CUDA_SUCCESS || version_ < drv::kDriverApiVersion ||
      get_proc == nullptr) {
    fail_no_device(
        fmt::format("The CUDA driver in '{}' supports CUDA {}.{}; vyre needs CUDA 12.0 or newer",
                    library_, version_ / 1000, (version_ % 1000) / 10),
        "install an NVIDIA driver of the R525 series or newer");
  }
  resolve_entry_points(get_proc);
  fault::install(*this);  // test builds only (fault_injection.hpp)
}

void Driver::resolve_entry_points(drv::PFN_cuGetProcAddress get_proc) {
  auto resolve = [&](const char* symbol, void** slot) {
    drv::CUdriverProcAddressQueryResult status = drv::CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    const drv::CUresult result = get_proc(symbol, slot, drv::kDriverApiVersion,
                                          drv::CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status);
    if (result == drv::CUDA_SUCCESS && status == drv::CU_GET_PROC_ADDRESS_SUCCESS && *slot != nullptr) {
      return;
    }
    fail_no_device(fmt::format("The CUDA driver in '{}' (CUDA {}) does not provide {} for CUDA 12.0 "
                               "(cuGetProcAddress result {}, status {})",
                               library_, version_, symbol, result, status),
                   "update the NVIDIA driver");
  };
#define VYRE_CUDA_RESOLVE_ENTRY(name) resolve(#name, reinterpret_cast<void**>(&name));
  VYRE_CUDA_DRIVER_ENTRY_POINTS(VYRE_CUDA_RESOLVE_ENTRY)
#undef VYRE_CUDA_RESOLVE_ENTRY
}

std::string Driver::describe(drv::CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName == nullptr || cuGetErrorName(result, &name) != drv::CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString == nullptr || cuGetErrorString(result, &text) != drv::CUDA_SUCCESS) text = nullptr;
  return fmt::format("{} ({}): {}", name != nullptr ? name : "CUDA_ERROR_UNKNOWN", result,
                     text != nullptr ? text : "no description");
}

void Driver::check(drv::CUresult result, std::string_view call, std::string_view fix) const {
  if (result == drv::CUDA_SUCCESS) return;
  fail(status_for(result), fmt::format("{} failed: {}", call, describe(result)), fix);
}

void Driver::check(drv::CUresult result, std::string_view call) const {
  if (result == drv::CUDA_SUCCESS) return;
  const std::string_view fix =
      result == drv::CUDA_ERROR_OUT_OF_MEMORY
          ? "free resident buffers or lower the working set; other processes may hold device memory "
            "(see nvidia-smi)"
          : "run with compute-sanitizer to locate the fault; an error from an earlier asynchronous "
            "launch can surface here, and the device context is unusable after a sticky error";
  check(result, call, fix);
}

}  // namespace vyre::cuda
