// Loading a plugin shared object the way a host does (dlopen + vyre_backend_register), without the
// registry, so the CUDA runtime tests depend only on the ABI.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "vyre/backend_abi.h"

namespace vyre::cudatest {

struct LoadedPlugin {
  std::shared_ptr<void> library;  // dlclose'd when the last reference goes
  vyre_status status = VYRE_OK;   // what vyre_backend_register returned
  std::string failure;            // info.failure when it failed
  std::string id;
  std::uint32_t rank = 0;
  std::uint64_t capabilities = 0;
  std::vector<std::string> op_ids;
  const vyre_backend_fns* fns = nullptr;
};

// build/plugins/libvyre_<id>.so of this build tree.
std::string plugin_path(std::string_view id);

// dlopen `path` and register it. Throws std::runtime_error (with dlerror) when it cannot be loaded
// or lacks the symbol; a registration error is reported in `status`/`failure`.
LoadedPlugin load_plugin(const std::string& path);

}  // namespace vyre::cudatest
