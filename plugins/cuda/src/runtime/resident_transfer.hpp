// Copies between host memory and resident buffers.
//   upload: the caller's bytes go to pinned staging before the call returns (the caller may reuse
//     its memory at once); the copies to the device are queued after earlier work on each buffer
//     and the staging is released when they complete. Never synchronises the device.
//   download: ranges of one buffer that overlap or touch are merged into one copy; all copies
//     share one fence, and the bytes land in the caller's memory when the call returns.
#pragma once

#include <span>

#include "runtime/runtime.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

void upload_resident(Runtime& runtime, std::span<const kit::CheckedWrite> writes);
void download_resident(Runtime& runtime, std::span<const kit::CheckedRead> reads);

}  // namespace vyre::cuda
