// Fault injection into driver calls, for tests (docs/RELIABILITY.md, "CUDA fault injection").
// Compiled in only where the build asks for it: the test-only copy of the plugin that every build
// with tests makes (tests/cuda/fault_plugin/libvyre_cuda.so), or libvyre_cuda.so itself with
// -DVYRE_FAULT_INJECTION=ON. Elsewhere these functions do nothing (fault/no_hooks.cpp), so a
// release plugin calls the driver directly. With the hooks (fault/hooks.cpp), every hookable entry
// point (fault/hookable.hpp) goes through a trampoline that reads VYRE_CUDA_FAIL (fault/spec.hpp)
// and fails the chosen call without making it.
#pragma once

#include <vector>

#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class Driver;

namespace fault {

// True when this plugin was built with the hooks.
bool compiled_in();

// Route `driver`'s hookable entry points through the injector (the first driver library a
// process opens; later ones stay direct). No-op without the hooks.
void install(Driver& driver);

// At create: with the hooks, throws vyre::Error VYRE_ERR_INVALID_ARGUMENT when VYRE_CUDA_FAIL is
// malformed (or asks for the list of hookable functions); without them, logs a warning when it is
// set, since nothing will fail.
void check_environment();

// With the hooks: `faults_injected` and `driver_calls.<function>` for every hookable function
// (calls made by this process since the plugin was loaded). Empty without.
std::vector<kit::Counter> metrics();

}  // namespace fault
}  // namespace vyre::cuda
