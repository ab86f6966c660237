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

// Refuse a CUstream `native` that is capturing a CUDA graph (torch.cuda.graph, CuPy's capture):
// the dispatch is synchronous work of vyre's own and cannot join a foreign capture, which it would
// otherwise break (its stream would join the graph and its synchronize fail the capture). Throws
// vyre::Error VYRE_ERR_UNSUPPORTED for a capturing stream and VYRE_ERR_INVALID_ARGUMENT where the
// driver cannot say (another context, a destroyed stream). A query only: call it before anything
// else touches the driver for the dispatch (a global-mode capture forbids much).
void refuse_capturing_stream(const Runtime& runtime, std::uint64_t native);

// Make `own` wait, on the device, for everything queued on the CUstream `native` so far: an event
// recorded there, waited for on `own`. Throws vyre::Error VYRE_ERR_INVALID_ARGUMENT when the
// driver refuses to record on `native` (another device or context, a destroyed stream).
void wait_for_native_stream(Runtime& runtime, drv::CUstream own, std::uint64_t native);

}  // namespace vyre::cuda
