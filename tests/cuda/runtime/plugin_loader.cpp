#include "plugin_loader.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace vyre::cudatest {

std::string plugin_path(std::string_view id) {
  return std::string(VYRE_PLUGIN_BUILD_DIR) + "/libvyre_" + std::string(id) + ".so";
}

LoadedPlugin load_plugin(const std::string& path) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw std::runtime_error("dlopen " + path + ": " + (why != nullptr ? why : "unknown error"));
  }
  LoadedPlugin plugin;
  plugin.library = std::shared_ptr<void>(handle, [](void* h) { dlclose(h); });
  auto registration = reinterpret_cast<vyre_backend_register_fn>(dlsym(handle, VYRE_REGISTER_SYMBOL));
  if (registration == nullptr) throw std::runtime_error(path + " does not export " VYRE_REGISTER_SYMBOL);

  vyre_host_info host{};
  host.struct_size = sizeof(host);
  host.abi_major = VYRE_ABI_VERSION_MAJOR;
  host.abi_minor = VYRE_ABI_VERSION_MINOR;
  host.host_name = "vyre cuda runtime tests";
  vyre_backend_info info{};
  info.struct_size = sizeof(info);
  plugin.status = registration(&host, &info);
  if (plugin.status != VYRE_OK) {
    plugin.failure = info.failure != nullptr ? info.failure : "";
    return plugin;
  }
  plugin.id = info.id != nullptr ? info.id : "";
  plugin.rank = info.rank;
  plugin.capabilities = info.capabilities;
  for (std::size_t i = 0; i < info.op_count; ++i) plugin.op_ids.emplace_back(info.op_ids[i]);
  plugin.fns = info.fns;
  return plugin;
}

}  // namespace vyre::cudatest
