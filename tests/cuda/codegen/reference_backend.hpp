// reference_cpu of this build tree, loaded as a plugin (dlopen + vyre_backend_register, no
// registry) for the analyses' soundness tests, which run random programs on it.
#pragma once

#include "vyre/backend.hpp"

namespace vyre::cudatest {

// One instance per process, kept until exit. Throws when the plugin cannot be loaded or created.
const host::Backend& reference_backend();

}  // namespace vyre::cudatest
