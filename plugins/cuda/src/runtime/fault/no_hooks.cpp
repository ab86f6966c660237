// Fault injection compiled out (the release plugin): see fault_injection.hpp.
#include <cstdlib>

#include "runtime/fault/spec.hpp"
#include "runtime/fault_injection.hpp"

namespace vyre::cuda::fault {

bool compiled_in() { return false; }

void install(Driver&) {}

void check_environment() {
  const char* value = std::getenv(kFaultEnv);
  if (value == nullptr || value[0] == '\0') return;
  kit::log(VYRE_LOG_WARN, std::string("cuda: ") + kFaultEnv +
                              " is ignored: this libvyre_cuda.so was built without fault injection "
                              "(configure with -DVYRE_FAULT_INJECTION=ON, or use the test build's "
                              "tests/cuda/fault_plugin/libvyre_cuda.so)");
}

std::vector<kit::Counter> metrics() { return {}; }

}  // namespace vyre::cuda::fault
