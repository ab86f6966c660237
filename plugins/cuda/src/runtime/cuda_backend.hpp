// The CUDA backend instance: the kit's BackendImpl interface over one Runtime. Each method binds the
// device context to the calling thread, so an instance serves any number of threads at once.
#pragma once

#include <memory>

#include "runtime/runtime.hpp"
#include "vyre/plugin_kit.hpp"

namespace vyre::cuda {

class CudaBackend final : public kit::BackendImpl {
 public:
  explicit CudaBackend(std::shared_ptr<Runtime> runtime) : runtime_(std::move(runtime)) {}
  ~CudaBackend() override;

  void device_profile(vyre_device_profile& out) override;
  std::shared_ptr<kit::CompiledProgram> compile(Program program, std::string fingerprint) override;

  void dispatch(const kit::HostDispatch& dispatch) override;
  std::unique_ptr<kit::Pending> dispatch_async(const kit::HostDispatch& dispatch) override;
  vyre::Timing dispatch_timed(const kit::HostDispatch& dispatch) override;

  std::shared_ptr<kit::DeviceBuffer> resident_alloc(std::uint64_t byte_len) override;
  void resident_free(kit::DeviceBuffer& buffer) override;
  void resident_upload(std::span<const kit::CheckedWrite> writes) override;
  void resident_download(std::span<const kit::CheckedRead> reads) override;
  std::unique_ptr<kit::Pending> dispatch_resident(const kit::ResidentDispatch& dispatch, bool wait) override;
  vyre::Timing dispatch_resident_timed(const kit::ResidentDispatch& dispatch) override;
  // External memory: CUdeviceptrs of this instance's device (VYRE_MEMORY_DEVICE), 8-byte aligned.
  std::shared_ptr<kit::DeviceBuffer> resident_import(const kit::ImportRequest& memory) override;
  kit::MemoryLocation resident_export(kit::DeviceBuffer& buffer) override;
  void sequence_run(const kit::CheckedSequence& sequence) override;

  std::shared_ptr<kit::CompiledPipeline> pipeline_create(std::shared_ptr<const kit::CompiledProgram> program,
                                                 const DispatchConfig& config, std::uint32_t flags) override;
  void pipeline_dispatch(kit::CompiledPipeline& pipeline, const kit::HostDispatch& dispatch) override;

  std::vector<kit::Counter> metrics() override;
  void metrics_reset() override;

  Runtime& runtime() { return *runtime_; }
  std::shared_ptr<Runtime> shared_runtime() const { return runtime_; }

 private:
  void record_timing(const vyre::Timing& timing);

  std::shared_ptr<Runtime> runtime_;
};

}  // namespace vyre::cuda
