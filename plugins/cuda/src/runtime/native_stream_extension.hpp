// The cuda plugin's VYRE_EXTENSION_NATIVE_STREAM struct (backend_abi.h): resident dispatches
// ordered after a CUstream of torch, CuPy or the caller by a device-side event wait.
#pragma once

#include <cstdint>

#include "runtime/driver_api.hpp"
#include "vyre/backend_abi.h"

namespace vyre::cuda {

class Runtime;

// The first extension of the plugin's chain, static for the library's lifetime; the device-group
// extension follows it.
const vyre_extension* native_stream_extension();

// Make `own` wait, on the device, for everything queued on the CUstream `native` so far: an event
// recorded there, waited for on `own`. Throws vyre::Error VYRE_ERR_INVALID_ARGUMENT when the
// driver refuses to record on `native` (another device or context, a destroyed stream).
void wait_for_native_stream(Runtime& runtime, drv::CUstream own, std::uint64_t native);

}  // namespace vyre::cuda
