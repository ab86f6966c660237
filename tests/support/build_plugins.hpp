// The plugins this build produced, and nothing else: no VYRE_PLUGIN_PATH or VYRE_BACKEND from the
// environment, no installed or default plugin directories, so that a test runs the code under
// test and not whatever else is on the machine. Header-only, so that vyre_test_support itself
// needs no registry; VYRE_PLUGIN_BUILD_DIR is defined for every test by vyre_add_test.
#pragma once

#include "vyre/registry.hpp"

namespace vyre::test {

inline RegistryOptions build_plugin_options() {
  RegistryOptions options;
  options.plugin_dirs = {VYRE_PLUGIN_BUILD_DIR};
  options.use_environment = false;
  options.use_default_dirs = false;
  return options;
}

// One registry over build_plugin_options() for the whole test program.
inline Registry& build_plugin_registry() {
  static Registry instance(build_plugin_options());
  return instance;
}

}  // namespace vyre::test
