// The on-disk pipeline cache: one VkPipelineCache per instance, loaded at create from
// <dir>/vulkan-pipelines-<vendor>-<device>-<driver>-<cache uuid>.bin and written back (atomically,
// through a temporary file and rename) when the instance is destroyed. <dir> is
// VYRE_VULKAN_PIPELINE_CACHE_DIR, else $XDG_CACHE_HOME/vyre, else ~/.cache/vyre; "off" disables
// the file. The file carries a SHA-256 of the driver's data, and data whose digest does not match
// (a truncated or damaged file) is never handed to the driver; an unreadable or unwritable file
// only costs a warning.
#pragma once

#include <memory>
#include <string>

#include "runtime/device.hpp"

namespace vyre::vulkan {

inline constexpr const char* kPipelineCacheDirEnv = "VYRE_VULKAN_PIPELINE_CACHE_DIR";

class PipelineCache {
 public:
  explicit PipelineCache(std::shared_ptr<Device> device);
  ~PipelineCache();  // saves, then destroys
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  VkPipelineCache handle() const { return cache_; }
  std::uint64_t loaded_bytes() const { return loaded_bytes_; }
  const std::string& path() const { return path_; }
  void save() const;

 private:
  std::shared_ptr<Device> device_;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::string path_;  // empty: no file
  std::uint64_t loaded_bytes_ = 0;
};

// The cache file's directory from the environment ("" when disabled); exposed for tests.
std::string pipeline_cache_directory(const char* setting, const char* xdg_cache_home, const char* home);

}  // namespace vyre::vulkan
