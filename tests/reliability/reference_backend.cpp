// reference_backend() for the replay of the dispatch harness: the reference_cpu plugin of the build
// tree, loaded through the registry (fuzz_dispatch links it statically instead).
#include "harness.hpp"
#include "support/build_plugins.hpp"
#include "vyre/registry.hpp"

namespace vyre::fuzz {

const host::Backend& reference_backend() {
  static const host::Backend backend = [] {
    Registry registry(test::build_plugin_options());
    vyre::CreateOptions create;
    create.worker_threads = 1;
    return registry.create("reference_cpu", create);  // keeps the library loaded after the registry
  }();
  return backend;
}

}  // namespace vyre::fuzz
