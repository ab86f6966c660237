#include "runtime/jit_cache.hpp"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <system_error>

#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {
namespace {

bool set(const char* value) { return value != nullptr && value[0] != '\0'; }

}  // namespace

std::string jit_cache_directory(const char* cuda_cache_path, const char* xdg_cache_home,
                                const char* home) {
  if (set(cuda_cache_path)) return "";
  if (set(xdg_cache_home)) return (std::filesystem::path(xdg_cache_home) / "vyre").string();
  if (set(home)) return (std::filesystem::path(home) / ".cache" / "vyre").string();
  return "";
}

std::string prepare_jit_cache() {
  static std::mutex mutex;  // setenv is not thread-safe; creates may race
  std::lock_guard lock(mutex);
  const char* current = std::getenv("CUDA_CACHE_PATH");
  const std::string dir =
      jit_cache_directory(current, std::getenv("XDG_CACHE_HOME"), std::getenv("HOME"));
  if (dir.empty()) return set(current) ? std::string(current) : std::string();
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) {
    kit::log(VYRE_LOG_WARN, "cuda: cannot create the JIT cache directory " + dir + ": " +
                                error.message() + "; kernels are recompiled by every process");
    return "";
  }
  setenv("CUDA_CACHE_PATH", dir.c_str(), 0);
  return dir;
}

}  // namespace vyre::cuda
