#include "group/nccl_library.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "vyre/error.hpp"

namespace vyre::cuda::nccl {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultName = "libnccl.so.2";
constexpr const char* kInstallFix =
    "install NCCL 2.18 or newer for the CUDA version of the driver (`pip install nvidia-nccl-cu13`, "
    "or Debian's libnccl2), or set VYRE_NCCL_LIBRARY to the path of libnccl.so.2";

std::string env_text(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

// .../lib/python3*/{site,dist}-packages/nvidia/*/lib/libnccl.so.2 under `prefix` (nvidia/nccl/lib
// for the nvidia-nccl-cu12 wheel; the CUDA 13 wheels may use nvidia/cu13/lib), sorted.
std::vector<std::string> wheel_libraries(const fs::path& prefix) {
  std::vector<std::string> found;
  std::error_code ec;
  const fs::path lib = prefix / "lib";
  if (prefix.empty() || !fs::is_directory(lib, ec)) return found;
  for (const auto& entry : fs::directory_iterator(lib, ec)) {
    if (!entry.path().filename().string().starts_with("python3")) continue;
    for (const char* packages : {"site-packages", "dist-packages"}) {
      const fs::path nvidia = entry.path() / packages / "nvidia";
      if (!fs::is_directory(nvidia, ec)) continue;
      for (const auto& package : fs::directory_iterator(nvidia, ec)) {
        const fs::path candidate = package.path() / "lib" / kDefaultName;
        if (fs::exists(candidate, ec)) found.push_back(candidate.string());
      }
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}

void add_existing(std::vector<std::string>& out, const fs::path& path) {
  std::error_code ec;
  if (!path.empty() && fs::exists(path, ec)) out.push_back(path.string());
}

// Set NCCL_NVLS_ENABLE=0 unless the user chose a value (before NCCL first reads it).
void keep_nvls_off() {
  static std::once_flag once;
  std::call_once(once, [] { setenv(kNvlsEnv, "0", 0); });
}

}  // namespace

std::vector<std::string> library_candidates() {
  const std::string chosen = env_text(kLibraryEnv);
  if (!chosen.empty()) return {chosen};
  std::vector<std::string> out{kDefaultName};
  const std::string home = env_text("HOME");
  const std::vector<fs::path> prefixes{fs::path(env_text("VIRTUAL_ENV")), fs::path(env_text("CONDA_PREFIX")),
                                       home.empty() ? fs::path() : fs::path(home) / ".local",
                                       fs::path("/usr/local"), fs::path("/usr")};
  for (const fs::path& prefix : prefixes) {
    if (prefix.empty()) continue;
    for (std::string& path : wheel_libraries(prefix)) out.push_back(std::move(path));
  }
  const std::string conda = env_text("CONDA_PREFIX");
  if (!conda.empty()) add_existing(out, fs::path(conda) / "lib" / kDefaultName);
  add_existing(out, fs::path("/usr/local/cuda/lib64") / kDefaultName);
  return out;
}

std::string Library::load(void* handle) {
#define VYRE_NCCL_RESOLVE_ENTRY(name, ret, params)                         \
  name = reinterpret_cast<PFN_##name>(dlsym(handle, #name));               \
  if (name == nullptr) return "it does not export " #name " (not an NCCL library)";
  VYRE_NCCL_ENTRY_POINTS(VYRE_NCCL_RESOLVE_ENTRY)
#undef VYRE_NCCL_RESOLVE_ENTRY
  if (ncclGetVersion(&version_) != ncclSuccess) return "ncclGetVersion failed";
  if (version_ < kMinimumVersion)
    return fmt::format("it is NCCL {}; vyre needs NCCL 2.18 or newer", version_text());
  return {};
}

const Library& Library::open() {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<Library>> opened;  // never unloaded
  std::lock_guard lock(mutex);
  keep_nvls_off();
  std::vector<std::string> tried;
  for (const std::string& path : library_candidates()) {
    auto found = opened.find(path);
    if (found != opened.end()) return *found->second;
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      tried.push_back(fmt::format("'{}': {}", path, why != nullptr ? why : "dlopen failed"));
      continue;
    }
    std::unique_ptr<Library> library(new Library(path));
    const std::string problem = library->load(handle);
    if (!problem.empty()) {
      tried.push_back(fmt::format("'{}': {}", path, problem));
      dlclose(handle);
      continue;
    }
    return *opened.emplace(path, std::move(library)).first->second;
  }
  std::string list;
  for (const std::string& line : tried) list += "\n  " + line;
  fail(VYRE_ERR_NO_DEVICE,
       fmt::format("A device group needs NCCL, and no usable NCCL library was found; tried:{}", list),
       kInstallFix);
}

std::string Library::version_text() const {
  return fmt::format("{}.{}.{}", version_ / 10000, (version_ % 10000) / 100, version_ % 100);
}

std::string Library::describe(Result result, Comm comm) const {
  static const char* const kNames[] = {"ncclSuccess",      "ncclUnhandledCudaError", "ncclSystemError",
                                       "ncclInternalError", "ncclInvalidArgument",   "ncclInvalidUsage",
                                       "ncclRemoteError",  "ncclInProgress"};
  const char* name = result >= 0 && result < static_cast<Result>(std::size(kNames)) ? kNames[result] : "ncclResult";
  const char* text = ncclGetErrorString != nullptr ? ncclGetErrorString(result) : nullptr;
  const char* last = ncclGetLastError != nullptr ? ncclGetLastError(comm) : nullptr;
  std::string out = fmt::format("{} ({}): {}", name, result, text != nullptr ? text : "no description");
  if (last != nullptr && last[0] != '\0') out += fmt::format("; {}", last);
  return out;
}

void Library::check(Result result, std::string_view call, Comm comm, std::string_view fix) const {
  if (result == ncclSuccess) return;
  fail(status_for(result), fmt::format("{} failed: {}", call, describe(result, comm)), fix);
}

vyre_status status_for(Result result) {
  return result == ncclInvalidArgument || result == ncclInvalidUsage ? VYRE_ERR_INVALID_ARGUMENT
                                                                     : VYRE_ERR_DEVICE;
}

}  // namespace vyre::cuda::nccl
