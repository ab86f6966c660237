// The Vulkan backend instance: the kit's Backend interface over one Runtime. Every method may be
// called from many threads at once (the queue, pools and pipeline maps lock internally).
#pragma once

#include <memory>

#include "runtime/runtime.hpp"

namespace vyre::vulkan {

class VulkanBackend final : public kit::BackendImpl {
 public:
  explicit VulkanBackend(std::shared_ptr<Runtime> runtime) : rt_(std::move(runtime)) {}
  ~VulkanBackend() override;

  void device_profile(vyre_device_profile& out) override;
  std::shared_ptr<kit::CompiledProgram> compile(Program program, std::string fingerprint) override;

  void dispatch(const kit::HostDispatch& dispatch) override;
  std::unique_ptr<kit::Pending> dispatch_async(const kit::HostDispatch& dispatch) override;
  vyre::Timing dispatch_timed(const kit::HostDispatch& dispatch) override;

  std::shared_ptr<kit::DeviceBuffer> resident_alloc(std::uint64_t byte_len) override;
  void resident_upload(std::span<const kit::CheckedWrite> writes) override;
  void resident_download(std::span<const kit::CheckedRead> reads) override;
  std::unique_ptr<kit::Pending> dispatch_resident(const kit::ResidentDispatch& dispatch, bool wait) override;
  vyre::Timing dispatch_resident_timed(const kit::ResidentDispatch& dispatch) override;
  void sequence_run(const kit::CheckedSequence& sequence) override;

  std::vector<kit::Counter> metrics() override;
  void metrics_reset() override;

 private:
  std::shared_ptr<Runtime> rt_;
};

}  // namespace vyre::vulkan
