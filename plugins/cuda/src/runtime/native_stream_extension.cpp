#include "runtime/native_stream_extension.hpp"

#include <fmt/format.h>

#include "group/group_extension.hpp"
#include "runtime/runtime.hpp"
#include "vyre/error.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {
namespace {

// The chain: this extension, then the device-group extension.
const vyre_native_stream_extension kExtension{
    {sizeof(vyre_native_stream_extension), VYRE_EXTENSION_NATIVE_STREAM, 0, device_group_extension()},
    VYRE_NATIVE_STREAM_CUDA,
    kit::dispatch_resident_after,  // ResidentRun honours ResidentDispatch::after_native_stream
};

// The fix for a stream the driver refuses (another device or context, a destroyed stream).
constexpr const char* kLiveStreamFix =
    "pass a live stream of this instance's device in its primary context (torch.cuda.current_stream(device)"
    ".cuda_stream, cupy.cuda.get_current_stream().ptr), or 0 for the legacy default stream";

}  // namespace

const vyre_extension* native_stream_extension() { return &kExtension.base; }

void refuse_capturing_stream(const Runtime& runtime, std::uint64_t native) {
  const Driver& driver = runtime.driver();
  const auto stream = reinterpret_cast<drv::CUstream>(static_cast<std::uintptr_t>(native));
  drv::CUstreamCaptureStatus capture = drv::CU_STREAM_CAPTURE_STATUS_NONE;
  const drv::CUresult queried = driver.cuStreamIsCapturing(stream, &capture);
  if (queried != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("cuStreamIsCapturing on the native stream {:#x} failed: {}; nothing was queued", native,
                     driver.describe(queried)),
         kLiveStreamFix);
  }
  if (capture != drv::CU_STREAM_CAPTURE_STATUS_NONE) {
    fail(VYRE_ERR_UNSUPPORTED,
         fmt::format("the native stream {:#x} is capturing a CUDA graph; a vyre dispatch cannot join a foreign "
                     "capture, nothing was queued", native),
         "run the dispatch before or after the capture (torch.cuda.graph, cupy.cuda.Stream.begin_capture), "
         "not inside it");
  }
}

void wait_for_native_stream(Runtime& runtime, drv::CUstream own, std::uint64_t native) {
  const Driver& driver = runtime.driver();
  const EventRef event = runtime.events().acquire();
  const auto stream = reinterpret_cast<drv::CUstream>(static_cast<std::uintptr_t>(native));
  const drv::CUresult recorded = driver.cuEventRecord(event->get(), stream);
  if (recorded != drv::CUDA_SUCCESS) {
    fail(VYRE_ERR_INVALID_ARGUMENT,
         fmt::format("cuEventRecord on the native stream {:#x} failed: {}; nothing was queued", native,
                     driver.describe(recorded)),
         kLiveStreamFix);
  }
  // The wait takes the event as recorded now: the event may go back to the pool afterwards.
  driver.check(driver.cuStreamWaitEvent(own, event->get(), 0), "cuStreamWaitEvent(native stream)");
}

}  // namespace vyre::cuda
