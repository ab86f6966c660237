#include "vulkan_support.hpp"

#include <cstdio>
#include <cstdlib>

#include "support/build_plugins.hpp"
#include "vyre/error.hpp"

namespace vyre::vulkantest {

host::Backend vulkan(const CreateOptions& options) {
  try {
    return test::build_plugin_registry().create("vulkan", options);
  } catch (const Error& e) {
    if (e.code() != VYRE_ERR_NO_DEVICE) throw;
    std::printf("SKIP: no Vulkan device: %s\n", e.what());
    std::fflush(stdout);
    std::exit(77);
  }
}

const host::Backend& reference() {
  static const host::Backend backend = test::build_plugin_registry().create("reference_cpu");
  return backend;
}

const std::vector<std::string>& vulkan_ops() {
  static const std::vector<std::string> ops = [] {
    for (const PluginInfo& p : test::build_plugin_registry().plugins())
      if (p.id == "vulkan") return p.op_ids;
    return std::vector<std::string>{};
  }();
  return ops;
}

std::uint64_t metric(const host::Backend& backend, std::string_view name) {
  for (const host::Metric& m : backend.metrics())
    if (m.name == name) return m.value;
  return 0;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) old_ = old;
  if (value != nullptr) setenv(name, value, 1);
  else unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (old_) setenv(name_.c_str(), old_->c_str(), 1);
  else unsetenv(name_.c_str());
}

}  // namespace vyre::vulkantest
