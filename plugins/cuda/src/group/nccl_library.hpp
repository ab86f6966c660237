// NCCL, opened at run time like the driver (runtime/driver.hpp): nothing links libnccl, so the
// plugin loads, registers and runs single-device work on machines without it; only creating a
// device group needs it, and fails there (never at a later dispatch) when it is missing.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "group/nccl_api.hpp"
#include "vyre/backend_abi.h"

namespace vyre::cuda::nccl {

// The environment variable naming the NCCL library to open (a path; no search then).
inline constexpr const char* kLibraryEnv = "VYRE_NCCL_LIBRARY";
// NVLink multicast (NVLS) stays off unless the user asks for it: NCCL_NVLS_ENABLE=0 is set before
// NCCL first loads when the variable is unset (docs/MULTI_GPU.md says why).
inline constexpr const char* kNvlsEnv = "NCCL_NVLS_ENABLE";

// Where the library is looked for, in order: VYRE_NCCL_LIBRARY alone when it is set; else
// "libnccl.so.2" (the dynamic loader's search: LD_LIBRARY_PATH, the ld.so cache), then the
// nvidia-nccl-cu* Python wheels' .../site-packages/nvidia/*/lib/libnccl.so.2 under
// $VIRTUAL_ENV, $CONDA_PREFIX, ~/.local, /usr/local and /usr, then $CONDA_PREFIX/lib and
// /usr/local/cuda/lib64. Paths that do not exist are left out (except the two names above).
std::vector<std::string> library_candidates();

class Library {
 public:
  // The first candidate that opens and is a usable NCCL, opened once per process (per path) and
  // kept loaded. Thread-safe. Throws vyre::Error VYRE_ERR_NO_DEVICE, naming every path tried and
  // how to install NCCL, when none opens, when the one VYRE_NCCL_LIBRARY names lacks an entry
  // point, or when it is older than NCCL 2.18. A failure is not cached.
  static const Library& open();

  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  const std::string& path() const { return path_; }
  int version() const { return version_; }  // e.g. 22805
  std::string version_text() const;         // "2.28.5"

  // "ncclSystemError (2): unhandled system error; <ncclGetLastError>"
  std::string describe(Result result, Comm comm) const;
  // Throws vyre::Error when `result` is not ncclSuccess: "<call> failed: <describe>. Fix: <fix>".
  void check(Result result, std::string_view call, Comm comm, std::string_view fix) const;

#define VYRE_NCCL_DECLARE_ENTRY(name, ret, params) PFN_##name name = nullptr;
  VYRE_NCCL_ENTRY_POINTS(VYRE_NCCL_DECLARE_ENTRY)
#undef VYRE_NCCL_DECLARE_ENTRY

 private:
  explicit Library(std::string path) : path_(std::move(path)) {}
  // Resolve every entry point and check the version; "" on success, else why not.
  std::string load(void* handle);

  std::string path_;
  int version_ = 0;
};

// The vyre status an NCCL result maps to: INVALID_ARGUMENT for invalid arguments or usage (ranks
// or sizes that do not agree across the group), DEVICE for everything else.
vyre_status status_for(Result result);

}  // namespace vyre::cuda::nccl
