#include "reference_backend.hpp"

#include "../runtime/plugin_loader.hpp"

namespace vyre::cudatest {

const host::Backend& reference_backend() {
  static const LoadedPlugin plugin = load_plugin(plugin_path("reference_cpu"));
  static const host::Backend backend = host::Backend::create(plugin.fns, plugin.library, {}, "reference_cpu");
  return backend;
}

}  // namespace vyre::cudatest
