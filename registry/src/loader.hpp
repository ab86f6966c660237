// Loading one plugin file and validating what it registers.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "vyre/plugin_rejection.hpp"
#include "vyre/registry.hpp"

namespace vyre::registry_detail {

struct LoadedPlugin {
  PluginInfo info;
  const vyre_backend_fns* fns = nullptr;  // the host's copy of the table; lives in keep_alive
  std::shared_ptr<void> keep_alive;      // the loaded library
};

// Why a plugin was rejected (one line) and its code.
struct Rejection {
  std::string reason;
  PluginRejection code = PluginRejection::invalid_plugin;
};

// Load `path` with RTLD_NOW | RTLD_LOCAL, call its vyre_backend_register and validate the result
// (ABI major, struct sizes, id, function table, op ids). Throws Rejection. Duplicate ids are the
// caller's check.
LoadedPlugin load_plugin(const std::filesystem::path& path, const std::shared_ptr<LogSink>& sink);

}  // namespace vyre::registry_detail
