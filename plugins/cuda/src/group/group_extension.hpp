// The cuda plugin's VYRE_EXTENSION_DEVICE_GROUP struct (backend_abi.h), linked into its table's
// extension chain: device enumeration, sharded dispatch, and communicators with collectives
// (group/device_group.hpp).
#pragma once

#include "vyre/backend_abi.h"

namespace vyre::cuda {

// The extension, static for the library's lifetime.
const vyre_extension* device_group_extension();

}  // namespace vyre::cuda
