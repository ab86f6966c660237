// The CUDA driver, opened at run time: dlopen("libcuda.so.1") (or VYRE_CUDA_DRIVER_LIBRARY), cuInit,
// then every entry point through cuGetProcAddress_v2 at drv::kDriverApiVersion. Nothing links
// libcuda, so the plugin loads and registers on machines without a driver; only create() fails.
#pragma once

#include <string>
#include <string_view>

#include "runtime/driver_api.hpp"
#include "runtime/driver_entry_points.hpp"
#include "vyre/backend_abi.h"

namespace vyre::cuda {

// The environment variable naming the driver library to open instead of libcuda.so.1.
inline constexpr const char* kDriverLibraryEnv = "VYRE_CUDA_DRIVER_LIBRARY";
inline constexpr const char* kDefaultDriverLibrary = "libcuda.so.1";

class Driver {
 public:
  // The initialised driver for the library VYRE_CUDA_DRIVER_LIBRARY names (default libcuda.so.1),
  // opened once per process and kept loaded. Throws vyre::Error VYRE_ERR_NO_DEVICE, saying what to
  // check, when the library is missing, is a stub, is older than CUDA 12.0, or cuInit fails.
  static const Driver& open();

  Driver(const Driver&) = delete;
  Driver& operator=(const Driver&) = delete;

  const std::string& library() const { return library_; }
  int version() const { return version_; }  // e.g. 12040 for CUDA 12.4

  // "CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered"
  std::string describe(drv::CUresult result) const;

  // Throws vyre::Error when `result` is not CUDA_SUCCESS: "<call> failed: <describe>. Fix: <fix>".
  // CUDA_ERROR_OUT_OF_MEMORY maps to VYRE_ERR_OUT_OF_MEMORY, everything else to VYRE_ERR_DEVICE.
  void check(drv::CUresult result, std::string_view call, std::string_view fix) const;
  void check(drv::CUresult result, std::string_view call) const;

  // Every entry point of driver_entry_points.hpp.
#define VYRE_CUDA_DECLARE_ENTRY(name) drv::PFN_##name name = nullptr;
  VYRE_CUDA_DRIVER_ENTRY_POINTS(VYRE_CUDA_DECLARE_ENTRY)
#undef VYRE_CUDA_DECLARE_ENTRY

 private:
  explicit Driver(std::string library);
  void load();
  void resolve_entry_points(drv::PFN_cuGetProcAddress get_proc);

  std::string library_;
  void* handle_ = nullptr;
  int version_ = 0;
};

// The vyre status a driver result maps to (OUT_OF_MEMORY or DEVICE); exposed for tests.
vyre_status status_for(drv::CUresult result);

}  // namespace vyre::cuda
