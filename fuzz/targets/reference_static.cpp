// reference_backend() for the fuzz_dispatch target: the reference_cpu plugin linked statically
// (its sources compiled with the fuzzer's instrumentation), created through its own C table.
#include "harness.hpp"
#include "vyre/backend.hpp"

extern "C" vyre_status vyre_backend_register(const vyre_host_info* host, vyre_backend_info* info);

namespace vyre::fuzz {

const host::Backend& reference_backend() {
  static const host::Backend backend = [] {
    const vyre_host_info host{sizeof(vyre_host_info), VYRE_ABI_VERSION_MAJOR, VYRE_ABI_VERSION_MINOR,
                              "vyre fuzz", nullptr, nullptr};
    vyre_backend_info info{};
    info.struct_size = sizeof info;
    if (vyre_backend_register(&host, &info) != VYRE_OK) throw std::runtime_error("reference_cpu did not register");
    vyre::CreateOptions options;
    options.worker_threads = 1;
    return host::Backend::create(info.fns, nullptr, options, "reference_cpu");
  }();
  return backend;
}

}  // namespace vyre::fuzz
