// The default implementations of vyre::kit::BackendImpl (and Pending::cancel).
#include <chrono>
#include <string>

#include "vyre/plugin_kit.hpp"

namespace vyre::kit {

namespace {

[[noreturn]] void unsupported(std::string_view call) {
  fail(VYRE_ERR_UNSUPPORTED, "this backend does not implement " + std::string(call),
       "check the backend's capability flags (vyre backends) and use a backend that has it");
}

std::uint64_t elapsed_ns(std::chrono::steady_clock::time_point start) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count());
}

}  // namespace

std::unique_ptr<Pending> BackendImpl::dispatch_async(const HostDispatch& dispatch) {
  try {
    this->dispatch(dispatch);
  } catch (const Error& e) {
    return std::make_unique<CompletedPending>(e);
  }
  return std::make_unique<CompletedPending>();
}

Timing BackendImpl::dispatch_timed(const HostDispatch& dispatch) {
  const auto start = std::chrono::steady_clock::now();
  this->dispatch(dispatch);
  Timing timing;
  timing.wall_ns = elapsed_ns(start);
  timing.enqueue_ns = timing.wall_ns;
  return timing;
}

std::shared_ptr<DeviceBuffer> BackendImpl::resident_alloc(std::uint64_t) {
  unsupported("resident buffers (resident_alloc)");
}

void BackendImpl::resident_free(DeviceBuffer&) {}

void BackendImpl::resident_upload(std::span<const CheckedWrite>) {
  unsupported("resident buffers (resident_upload)");
}

void BackendImpl::resident_download(std::span<const CheckedRead>) {
  unsupported("resident buffers (resident_download)");
}

std::unique_ptr<Pending> BackendImpl::dispatch_resident(const ResidentDispatch&, bool) {
  unsupported("resident dispatch");
}

Timing BackendImpl::dispatch_resident_timed(const ResidentDispatch& dispatch) {
  const auto start = std::chrono::steady_clock::now();
  dispatch_resident(dispatch, true);
  Timing timing;
  timing.wall_ns = elapsed_ns(start);
  timing.enqueue_ns = timing.wall_ns;
  return timing;
}

void BackendImpl::sequence_run(const CheckedSequence& sequence) {
  for (const ResidentDispatch& step : sequence.prefix) dispatch_resident(step, true);
  for (std::uint64_t r = 0; r < sequence.repeat_count; ++r)
    for (const ResidentDispatch& step : sequence.repeated) dispatch_resident(step, true);
  if (!sequence.reads.empty()) resident_download(sequence.reads);
}

std::shared_ptr<CompiledPipeline> BackendImpl::pipeline_create(std::shared_ptr<const CompiledProgram> program,
                                                   const DispatchConfig& config,
                                                   std::uint32_t flags) {
  return std::make_shared<CompiledPipeline>(std::move(program), config, flags);
}

void BackendImpl::pipeline_dispatch(CompiledPipeline&, const HostDispatch& dispatch) { this->dispatch(dispatch); }

std::shared_ptr<DeviceBuffer> BackendImpl::resident_import(const ImportRequest&) {
  unsupported("external memory (resident_import)");
}

MemoryLocation BackendImpl::resident_export(DeviceBuffer&) {
  unsupported("external memory (resident_export)");
}

void Pending::cancel() { unsupported("cancellation (pending_cancel)"); }

std::vector<Counter> BackendImpl::metrics() { return {}; }

void BackendImpl::metrics_reset() {}

}  // namespace vyre::kit
