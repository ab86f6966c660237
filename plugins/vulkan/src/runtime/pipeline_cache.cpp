#include "runtime/pipeline_cache.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "vyre/fingerprint.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::vulkan {

namespace {

constexpr char kMagic[8] = {'v', 'y', 'r', 'e', 'v', 'k', 'p', '1'};
constexpr std::size_t kDigest = 32;
constexpr std::uint64_t kMaxFile = 512ull << 20;

bool set(const char* v) { return v != nullptr && *v != '\0'; }

std::vector<std::uint8_t> read_checked(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<std::uint64_t>(in.tellg());
  if (size < sizeof kMagic + kDigest || size > kMaxFile) return {};
  in.seekg(0);
  std::vector<std::uint8_t> file(size);
  in.read(reinterpret_cast<char*>(file.data()), static_cast<std::streamsize>(size));
  if (!in || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) return {};
  std::vector<std::uint8_t> data(file.begin() + sizeof kMagic + kDigest, file.end());
  const auto digest = Sha256Builder().add(std::span<const std::uint8_t>(data)).finish();
  if (std::memcmp(digest.data(), file.data() + sizeof kMagic, kDigest) != 0) {
    kit::log(VYRE_LOG_WARN, "vulkan: ignoring the damaged pipeline cache " + path);
    return {};
  }
  return data;
}

}  // namespace

std::string pipeline_cache_directory(const char* setting, const char* xdg_cache_home, const char* home) {
  if (set(setting)) return std::strcmp(setting, "off") == 0 ? "" : setting;
  if (set(xdg_cache_home)) return (std::filesystem::path(xdg_cache_home) / "vyre").string();
  if (set(home)) return (std::filesystem::path(home) / ".cache" / "vyre").string();
  return "";
}

PipelineCache::PipelineCache(std::shared_ptr<Device> device) : device_(std::move(device)) {
  const std::string dir = pipeline_cache_directory(std::getenv(kPipelineCacheDirEnv), std::getenv("XDG_CACHE_HOME"),
                                                   std::getenv("HOME"));
  std::vector<std::uint8_t> data;
  if (!dir.empty()) {
    path_ = (std::filesystem::path(dir) / ("vulkan-pipelines-" + device_->cache_key() + ".bin")).string();
    data = read_checked(path_);
  }
  auto info = vk_struct<VkPipelineCacheCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO);
  info.initialDataSize = data.size();
  info.pInitialData = data.empty() ? nullptr : data.data();
  VkResult r = device_->fn().vkCreatePipelineCache(device_->handle(), &info, nullptr, &cache_);
  if (r != VK_SUCCESS && !data.empty()) {  // the driver refused the data: start empty
    info.initialDataSize = 0;
    info.pInitialData = nullptr;
    data.clear();
    r = device_->fn().vkCreatePipelineCache(device_->handle(), &info, nullptr, &cache_);
  }
  check(r, "vkCreatePipelineCache");
  loaded_bytes_ = data.size();
}

PipelineCache::~PipelineCache() {
  if (drivers_shut_down()) return;  // see loader.hpp
  save();
  device_->fn().vkDestroyPipelineCache(device_->handle(), cache_, nullptr);
}

void PipelineCache::save() const {
  if (path_.empty()) return;
  const DeviceFns& fn = device_->fn();
  std::size_t size = 0;
  if (fn.vkGetPipelineCacheData(device_->handle(), cache_, &size, nullptr) != VK_SUCCESS || size == 0) return;
  std::vector<std::uint8_t> data(size);
  if (fn.vkGetPipelineCacheData(device_->handle(), cache_, &size, data.data()) != VK_SUCCESS) return;
  data.resize(size);
  const auto digest = Sha256Builder().add(std::span<const std::uint8_t>(data)).finish();
  std::error_code ec;
  const std::filesystem::path target(path_);
  std::filesystem::create_directories(target.parent_path(), ec);
  const std::string temp = path_ + ".tmp" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(kMagic, sizeof kMagic);
    out.write(reinterpret_cast<const char*>(digest.data()), kDigest);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!out) {
      kit::log(VYRE_LOG_WARN, "vulkan: cannot write the pipeline cache " + temp);
      std::filesystem::remove(temp, ec);
      return;
    }
  }
  std::filesystem::rename(temp, target, ec);
  if (ec) {
    kit::log(VYRE_LOG_WARN, "vulkan: cannot write the pipeline cache " + path_ + ": " + ec.message());
    std::filesystem::remove(temp, ec);
  }
}

}  // namespace vyre::vulkan
