// Device enumeration without an instance: the visible devices and each one's profile, for the
// device-group extension (VYRE_EXTENSION_DEVICE_GROUP's device_count / device_describe) and
// `vyre backends`.
#pragma once

#include <cstdint>

#include "vyre/backend_abi.h"

namespace vyre::cuda {

// How many devices the driver reports (respecting CUDA_VISIBLE_DEVICES). Thread-safe. Throws
// vyre::Error VYRE_ERR_NO_DEVICE when the driver cannot be loaded or counting fails.
std::uint32_t visible_device_count();

// Fill the full-size profile `out` for device `ordinal` as an instance on it would report it,
// without creating a context. Thread-safe. Throws VYRE_ERR_NO_DEVICE for an ordinal that is not
// visible, VYRE_ERR_INVALID_ARGUMENT for a negative one.
void describe_device(int ordinal, vyre_device_profile& out);

}  // namespace vyre::cuda
